"""Without bubblewrap `grade` contains student code by root's namespaces and another uid, refuses where it cannot,
and runs plain subprocesses only with --trusted. Forced here by a `bwrap` on PATH that fails."""
import os
import socket
import sys
import threading
from pathlib import Path

import pytest

from grader.sandbox import modes

from .helpers import ROOT, results, solution_source

pytestmark = [pytest.mark.grading, pytest.mark.slow]

STEAL = """\
import glob
wanted = "solutions/01_attention/transformer.py"
for path in [{solution!r}] + glob.glob("/*/" + wanted) + glob.glob("/*/*/" + wanted) + glob.glob("/*/*/*/" + wanted):
    try:
        exec(open(path).read())
        break
    except OSError:
        pass
"""
CONNECT = """\
import socket
connection = socket.create_connection(("127.0.0.1", {port}), timeout=2)
exec(connection.makefile().read())
"""
WRITE = """\
for path in {paths!r}:
    try:
        open(path, "w").write("pwned")
    except OSError:
        pass
from torch import softmax
def attention(query, key, value):
    return softmax(query @ key.transpose(-2, -1), dim=-1) @ value, None
"""


class _Server:
    """Serves the solution's source to whoever connects to 127.0.0.1 (what a helper outside would do)."""

    def __init__(self):
        self.server = socket.create_server(("127.0.0.1", 0))
        self.server.settimeout(0.2)
        self.port = self.server.getsockname()[1]
        self.accepted = 0
        self.stop = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while not self.stop.is_set():
            try:
                connection, _ = self.server.accept()
            except OSError:
                continue
            self.accepted += 1
            connection.sendall(solution_source().encode())
            connection.close()


def _failing(folder, *programs):
    """A folder of programs that fail at once, to put first on PATH."""
    folder.mkdir(exist_ok=True)
    for program in programs:
        (folder / program).write_text("#!/bin/sh\nexit 1\n")
        (folder / program).chmod(0o755)
    return folder


def _grade(args, fake_bin):
    """`python -m grader grade …` with `fake_bin` first on PATH."""
    import subprocess

    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env["PATH"] = os.pathsep.join([str(fake_bin), str(Path(sys.executable).parent), env.get("PATH", "")])
    return subprocess.run([sys.executable, "-m", "grader", "grade", *map(str, args)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=900)


@pytest.fixture(scope="module")
def contained(tmp_path_factory):
    """The chapter-01 exploit set and an honest submission graded with a failing bwrap."""
    if os.geteuid() != 0:
        pytest.skip("containment without bubblewrap needs root")
    folder = tmp_path_factory.mktemp("exploits")
    server = _Server()
    outside = [str(ROOT / "pwned-i26"), "/tmp/results.json", str(folder / "out" / "pwned")]
    sources = {"honest": solution_source(),
               "steal": STEAL.format(solution=str(ROOT / "solutions" / "01_attention" / "transformer.py")),
               "connect": CONNECT.format(port=server.port),
               "write": WRITE.format(paths=outside)}
    for name, source in sources.items():
        (folder / f"{name}.py").write_text(source, encoding="utf-8")
    before = os.path.exists("/tmp/results.json")
    done = _grade(["01", *(folder / f"{name}.py" for name in sources), "--out", folder / "out", "--no-feedback"],
                  _failing(folder / "bin", "bwrap"))
    server.stop.set()
    return done, results(folder / "out"), server.accepted, [p for p in outside if os.path.exists(p)], before


def test_contained_grades_honest_code(contained):
    """The honest submission scores 100 and every result says "contained"."""
    done, found, *_ = contained
    assert done.returncode == 0, done.stderr
    assert found["honest"]["score"] == 100
    assert {document["sandbox"] for document in found.values()} == {"contained"}


def test_exploits_earn_nothing_and_write_nothing(contained):
    """Finding the solution on disk, fetching it over loopback, writing outside: no point, no connection, no file."""
    _, found, accepted, written, before = contained
    assert [found[name]["score"] for name in ("steal", "connect")] == [0, 0]
    assert found["write"]["score"] < 100
    assert accepted == 0
    assert written == ([] if not before else ["/tmp/results.json"])


def test_refuses_where_nothing_contains(tmp_path):
    """With neither bwrap nor unshare working, grade writes nothing and names both ways out, in Korean and English."""
    (tmp_path / "honest.py").write_text(solution_source(), encoding="utf-8")
    done = _grade(["01", tmp_path / "honest.py", "--out", tmp_path / "out", "--no-feedback"],
                  _failing(tmp_path / "bin", "bwrap", "unshare"))
    assert done.returncode == 1
    assert modes.REFUSAL in done.stderr
    assert "bubblewrap" in done.stderr and "Gradescope" in done.stderr and "--trusted" in done.stderr
    assert not (tmp_path / "out" / "results").exists() or not list((tmp_path / "out" / "results").iterdir())


def test_trusted_runs_plain_subprocesses_and_says_so(tmp_path):
    """--trusted grades without isolation, with the warning on stderr."""
    (tmp_path / "honest.py").write_text(solution_source(), encoding="utf-8")
    done = _grade(["01", tmp_path / "honest.py", "--out", tmp_path / "out", "--no-feedback", "--trusted"],
                  _failing(tmp_path / "bin", "bwrap", "unshare"))
    assert done.returncode == 0, done.stderr
    assert results(tmp_path / "out")["honest"]["sandbox"] == "subprocess"
    assert "WARNING" in done.stderr
