"""Shared helpers for the test suite: the repo root, the venv's python, a scratch copy of the repo."""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests import scheduling

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
# torch runs on one OpenMP/MKL thread in the tests and in every command they start (builds, demos, `grader grade`'s
# judge, nbgrader's kernels) unless a test says otherwise: the tensors are tiny, and idle threads spinning on a busy
# 2-core machine made a build 3-4x slower (CPU time). Set before anything imports torch. Sandbox workers get their
# threads from the chapter's budget (`staging.environment` inherits nothing), never from here.
ONE_THREAD = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
for _name, _value in ONE_THREAD.items():
    os.environ.setdefault(_name, _value)


def pytest_configure(config):
    """One marker per chapter (`pytest -m ch02`): `chNN` for every `solutions/NN_name/`."""
    for folder in sorted((ROOT / "solutions").glob("[0-9][0-9]_*")):
        config.addinivalue_line("markers", f"ch{folder.name[:2]}: chapter {folder.name}")


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the xdist_group marks
def pytest_collection_modifyitems(config, items):
    """A test file named after a chapter (`test_..._ch01_...`) gets that chapter's marker; every test its xdist work
    unit, the longest units first (`tests/scheduling.py`)."""
    for item in items:
        found = re.search(r"ch(\d\d)", item.path.name)
        if found:
            item.add_marker(getattr(pytest.mark, f"ch{found.group(1)}"))
    scheduling.assign(items, ROOT, loadgroup=bool(getattr(config.option, "loadgroup", False)))  # set on xdist workers only


def _environment(env):
    """`env` (default: ours) with one torch thread unless it says otherwise and the venv's bin first on PATH."""
    environment = {**ONE_THREAD, **(os.environ if env is None else env)}
    environment["PATH"] = os.pathsep.join([str(Path(PYTHON).parent), environment.get("PATH", "")])
    return environment


def run(args, cwd=ROOT, timeout=300, env=None, **kwargs):
    """Run a command with the venv's bin first on PATH; return the CompletedProcess."""
    return subprocess.run(args, cwd=cwd, env=_environment(env), capture_output=True, text=True, timeout=timeout,
                          **kwargs)


def run_together(*commands, timeout=300):
    """`run` for two or more commands at once (each `args` or `(args, {"cwd": …, "env": …})`), on both cores: their
    CompletedProcesses, in order."""
    started = []
    for command in commands:
        args, options = command if isinstance(command, tuple) else (command, {})
        started.append((args, subprocess.Popen(args, cwd=options.get("cwd", ROOT), env=_environment(options.get("env")),
                                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)))
    done = []
    try:
        for args, process in started:
            out, err = process.communicate(timeout=timeout)
            done.append(subprocess.CompletedProcess(args, process.returncode, out, err))
    finally:
        for _, process in started:
            if process.poll() is None:
                process.kill()
                process.communicate()
    return done


def copy_repo(target):
    """A working copy of the repository's tracked files (no .venv, no .git) in `target`."""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True, text=True, check=True)
    for name in listed.stdout.splitlines():
        source = ROOT / name
        if source.is_file():
            destination = target / name
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, destination)
    return target


def expected_sandbox():
    """The sandbox grading must report here: "bubblewrap" wherever bwrap is installed (and always under CI, whose
    .ci/run installs it), so a silent fall-back fails the test; "subprocess" only where bwrap is missing."""
    return "bubblewrap" if shutil.which("bwrap") or os.environ.get("CI") else "subprocess"


def committed_copy(target):
    """`copy_repo` as a fresh git repository with one commit, so `git status --porcelain` shows any change."""
    repo = copy_repo(target)
    for args in (["init", "-q"], ["add", "-A"],
                 ["-c", "user.name=test", "-c", "user.email=test@example.com", "commit", "-q", "-m", "copy"]):
        subprocess.run(["git", *args], cwd=repo, capture_output=True, check=True)
    return repo


def git_status(repo):
    """`git status --porcelain` of a repository: empty when nothing changed."""
    return subprocess.run(["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True, check=True).stdout


def floats_in(value):
    """Every float in a nested JSON document (e.g. a reference file's tensor data and gradients)."""
    if isinstance(value, dict):
        for item in value.values():
            yield from floats_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from floats_in(item)
    elif isinstance(value, float):
        yield value


@pytest.fixture(scope="session")
def repo_copy(tmp_path_factory):
    """One scratch copy of the repository per test session (tests must not modify it)."""
    return copy_repo(tmp_path_factory.mktemp("repo"))
