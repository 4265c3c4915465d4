"""Limits, the bubblewrap command line, the staged code and the pool's API contract."""
import dataclasses
import re
import subprocess
import sys
from pathlib import Path

import pytest

from grader.sandbox import Limits, RunResult, SandboxError, SandboxPool, bubblewrap_available
from grader.sandbox import bwrap, staging
from grader.sandbox.limits import GIB, KIB, MIB

from .conftest import PROBE, REPO

pytestmark = pytest.mark.sandbox


def test_limit_defaults():
    """The documented defaults: 20 s wall and CPU, 2 GiB address space, 16 MiB files, 64 KiB output, 8 MiB result."""
    limits = Limits()
    assert (limits.wall_seconds, limits.cpu_seconds, limits.memory_bytes) == (20, 20, 2 * GIB)
    assert (limits.file_size_bytes, limits.output_bytes, limits.result_bytes) == (16 * MIB, 64 * KIB, 8 * MIB)
    assert limits.max_processes > 0
    with pytest.raises(dataclasses.FrozenInstanceError):
        limits.wall_seconds = 1


@pytest.mark.parametrize("field", ["wall_seconds", "memory_bytes", "max_processes"])
def test_limits_reject_nonsense(field):
    """Zero, negative and non-numeric limits are refused."""
    for value in (0, -1, "1", None, True):
        with pytest.raises(ValueError):
            Limits(**{field: value})


def test_limits_round_trip_as_json():
    """Limits cross into the worker as a plain dict and come back equal."""
    limits = Limits(wall_seconds=3.5, max_processes=7)
    assert Limits.from_json(limits.to_json()) == limits


@pytest.fixture
def fresh_detection(monkeypatch):
    """bubblewrap_available() forgets its cached answer before and after the test (PATH is restored after it)."""
    bubblewrap_available.cache_clear()
    yield monkeypatch
    bubblewrap_available.cache_clear()


def test_missing_bwrap_is_not_detected(fresh_detection, tmp_path):
    """With no bwrap on PATH, bubblewrap is reported unavailable (and the pool would fall back, saying so)."""
    fresh_detection.setenv("PATH", str(tmp_path))
    assert bwrap.bubblewrap_path() is None
    assert not bubblewrap_available()


def test_bwrap_that_does_not_sandbox_is_not_detected(fresh_detection, tmp_path):
    """A `bwrap` that runs the program without a new pid namespace does not count as working bubblewrap."""
    fake = tmp_path / "bwrap"
    fake.write_text('#!/bin/sh\nwhile [ "$1" != "--" ]; do shift; done\nshift\nexec "$@"\n')
    fake.chmod(0o755)
    fresh_detection.setenv("PATH", f"{tmp_path}:/usr/bin:/bin")
    assert bwrap.bubblewrap_path() == str(fake)
    assert not bubblewrap_available()


def test_command_hides_the_repository(need_bwrap, tmp_path):
    """The bwrap command binds nothing writable and no directory holding the repository; it isolates pid and net."""
    command = bwrap.command(["python"], tmp_path)
    sources = [command[i + 1] for i, word in enumerate(command) if word in ("--ro-bind", "--ro-bind-try", "--bind")]
    assert "--bind" not in command and "--dev-bind" not in command
    repo = str(REPO)
    for source in sources:
        assert not (repo == source or repo.startswith(source.rstrip("/") + "/")), source
    unshare_all = "--unshare-all" in command
    assert ("--unshare-pid" in command and "--unshare-net" in command) or unshare_all
    for flag in ("--die-with-parent", "--new-session", "--clearenv", "--as-pid-1"):
        assert flag in command


def test_staged_code_is_only_what_the_worker_imports(tmp_path):
    """The staged copy holds the probe, execute and their imports, the sandbox package, the data files those modules
    declare (`DATA_FILES`: `loading`'s course_cells.json), and nothing else."""
    code = staging.stage(tmp_path / "code", PROBE)
    files = sorted(str(path.relative_to(code)) for path in code.rglob("*") if path.is_file())
    assert "grader/checks/ch01_probe.py" in files and "grader/checks/execute.py" in files
    assert "grader/sandbox/worker.py" in files
    assert not [name for name in files if "judge" in name or "reference" in name or "solution" in name]
    declared = {f"grader/checks/{path.name}" for name in staging.needed_modules(PROBE) for path in staging.data_files(name)}
    assert declared == {"grader/checks/course_cells.json"}
    modules = [name for name in files if name.endswith(".py")]
    bytecode = [name for name in files if name.endswith(".pyc")]
    fonts = [name for name in files if re.fullmatch(r"fontlist-v[\w.]+\.json", name)]  # the host's, where it has one
    assert set(files) == set(modules) | set(bytecode) | set(fonts) | declared and declared <= set(files)
    assert {str(Path(name).parent.parent / Path(name).name.split(".")[0]) + ".py" for name in bytecode} <= set(modules)


def test_staged_bytecode_is_what_the_worker_loads(tmp_path, monkeypatch):
    """Where this process may write bytecode (here into a prefix of the test's own), each staged module comes with
    its bytecode, valid for the staged copy: a worker (which never writes bytecode) loads the modules from it instead
    of compiling them at every start."""
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    monkeypatch.setattr(sys, "pycache_prefix", str(tmp_path / "bytecode"))
    code = staging.stage(tmp_path / "code", PROBE)
    environment = staging.environment(code, tmp_path)
    done = subprocess.run([sys.executable, "-v", "-c", "import grader.sandbox.worker, grader.checks.execute"],
                          env=environment, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    loaded = re.findall(r"# code object from '?(\S+?\.pyc)'?$", done.stderr, re.MULTILINE)
    for module in ("grader/sandbox/worker", "grader/sandbox/job_runner", "grader/checks/execute", "grader/checks/guard"):
        folder, name = module.rsplit("/", 1)
        assert any(path.startswith(f"{code}/{folder}/__pycache__/{name}.") for path in loaded), (module, loaded[:5])
    assert not list(code.rglob("__pycache__/*.tmp*"))


def test_the_hosts_font_list_reaches_the_workers_matplotlib(tmp_path, monkeypatch):
    """The host's matplotlib font list is staged beside the code, and a worker copies it where its matplotlib looks
    (MPLCONFIGDIR below its HOME), so importing pyplot does not scan every font at every start."""
    host = tmp_path / "host-cache"
    host.mkdir()
    (host / "fontlist-v9.9.json").write_text('{"ttflist": []}', encoding="utf-8")
    monkeypatch.setenv("MPLCONFIGDIR", str(host))
    code = staging.stage(tmp_path / "code", PROBE)
    assert (code / "fontlist-v9.9.json").read_text(encoding="utf-8") == '{"ttflist": []}'
    environment = staging.environment(code, tmp_path / "home")
    done = subprocess.run([sys.executable, "-c", "import grader.sandbox.worker as w; w.seed_font_list()"],
                          env=environment, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert (Path(environment["MPLCONFIGDIR"]) / "fontlist-v9.9.json").is_file()
    assert Path(environment["MPLCONFIGDIR"]).parent == tmp_path / "home"


def test_parse_results_are_kept_until_the_file_changes(tmp_path, monkeypatch):
    """Staging reads each module's imports from its kept parse while the file's size and time are unchanged, and
    parses the file again once it changes; a kept file of another format is ignored."""
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    module = tmp_path / "module.py"
    module.write_text("import grader.checks.execute\nDATA_FILES = ('a.json',)\n", encoding="utf-8")
    first = staging._ParseCache(tmp_path / "kept.json")
    parsed = first.get(module)
    assert parsed == [[[0, "grader.checks.execute", []]], ["a.json"]]
    first.save()

    def no_parse(path):
        raise AssertionError(f"parsed {path} again")

    with monkeypatch.context() as patched:
        patched.setattr(staging, "_statements", no_parse)
        assert staging._ParseCache(tmp_path / "kept.json").get(module) == parsed
    module.write_text("from grader.sandbox import child\n", encoding="utf-8")
    assert staging._ParseCache(tmp_path / "kept.json").get(module) == [[[0, "grader.sandbox", ["child"]]], []]
    (tmp_path / "kept.json").write_text('{"format": 0, "files": {}}', encoding="utf-8")
    assert staging._ParseCache(tmp_path / "kept.json").get(module)[0] == [[0, "grader.sandbox", ["child"]]]


def test_no_bytecode_is_written_where_python_writes_none(tmp_path, monkeypatch):
    """With PYTHONDONTWRITEBYTECODE (Gradescope's locked-away source, a read-only checkout) staging writes no bytecode
    anywhere; a module without bytecode is staged as its source alone."""
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    monkeypatch.setattr(sys, "pycache_prefix", str(tmp_path / "bytecode"))
    code = staging.stage(tmp_path / "code", PROBE)
    assert not (tmp_path / "bytecode").exists()
    assert not list(code.rglob("*.pyc")) and (code / "grader" / "sandbox" / "worker.py").is_file()


def test_unknown_probe_is_refused():
    """A probe module outside the grader package (or missing) is refused before any worker starts."""
    for probe in ("os", "grader.checks.no_such_probe"):
        with pytest.raises(ValueError):
            SandboxPool(probe, use_bwrap=False).start()


def test_run_needs_a_started_pool():
    """run() on a pool that was never started raises SandboxError."""
    with pytest.raises(SandboxError):
        next(SandboxPool(PROBE, use_bwrap=False).run([]))


def test_run_result_is_frozen():
    """RunResult is an immutable record."""
    result = RunResult("id", "ok", None, "", "", 0.0, "bubblewrap")
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.status = "timeout"


def test_workers_that_cannot_start_raise(monkeypatch, case_names):
    """Workers that die before they are ready are retried a few times, then SandboxError carries their stderr."""
    from grader.sandbox import launch_plain

    def broken_environment(code_dir, home, threads=1):
        return {"PATH": "/usr/bin:/bin", "PYTHONHOME": "/nonexistent"}  # the interpreter cannot even start

    monkeypatch.setattr(launch_plain, "environment", broken_environment)
    with SandboxPool(PROBE, jobs=1, use_bwrap=False) as pool:
        with pytest.raises(SandboxError, match="failed to start 3 times(.|\n)*encodings"):
            list(pool.run([("never", "x = 1", case_names)]))
        assert pool.processes() == []


def test_every_status_has_a_korean_message():
    """status.message explains each status to the student, with the limits filled in."""
    from grader.sandbox import status

    limits = Limits(wall_seconds=7)
    for name in status.ALL:
        text = status.message(name, limits)
        assert text and "{" not in text
    assert "7초" in status.message("timeout", limits)
    assert "2 GiB" in status.message("memory", limits)
