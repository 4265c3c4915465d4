"""Hostile and broken submissions in one bubblewrap batch: each gets a clear status, none harms the others."""
import ast
import socket
import threading
import time
import uuid
from pathlib import Path
from types import SimpleNamespace

import pytest

from grader.sandbox import bwrap

from . import submissions as s
from .conftest import REPO, TEST_LIMITS, passed, processes_matching, run_batch

pytestmark = pytest.mark.sandbox

TIMEOUTS = ["busy_loop", "sleep", "ignore_sigterm", "fork_bomb"]
MEMORY = ["huge_bytearray", "growing_list", "huge_tensor"]
CORRECT = ["correct_first", "correct_middle", "correct_last"]


class _Listener:
    """A TCP server on the host's 127.0.0.1 that counts the connections it accepts."""

    def __init__(self):
        self.server = socket.create_server(("127.0.0.1", 0))
        self.server.settimeout(0.2)
        self.port = self.server.getsockname()[1]
        self.accepted = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while not self.stop.is_set():
            try:
                connection, _ = self.server.accept()
            except OSError:
                continue
            self.accepted += 1
            connection.close()

    def close(self):
        self.stop.set()
        self.thread.join()
        self.server.close()


@pytest.fixture(scope="module")
def hostile(bwrap_pool, solution_source, case_names):
    """Run every hostile submission, interleaved with correct ones, through one two-worker pool."""
    token = uuid.uuid4().hex
    outside = [REPO / f"pwned-{token}", f"/tmp/pwned-{token}"]
    listener = _Listener()
    sources = {
        "correct_first": solution_source,
        "exit_at_import": s.prelude(s.EXIT_AT_IMPORT, solution_source),
        "os_exit_at_import": s.prelude(s.OS_EXIT_AT_IMPORT, solution_source),
        "exit_in_call": s.EXIT_IN_CALL,
        "os_exit_in_call": s.OS_EXIT_IN_CALL,
        "busy_loop": s.BUSY_LOOP,
        "sleep": s.SLEEP,
        "ignore_sigterm": s.IGNORE_SIGTERM,
        "correct_middle": solution_source,
        "huge_bytearray": s.HUGE_BYTEARRAY,
        "growing_list": s.GROWING_LIST,
        "huge_tensor": s.HUGE_TENSOR,
        "growing_touched_list": s.GROWING_TOUCHED_LIST,
        "fork_bomb": s.FORK_BOMB,
        "fork_counter": s.prelude(s.fork_counter(), solution_source),
        "regain_root": s.prelude(s.REGAIN_ROOT, solution_source),
        "orphan": s.prelude(s.orphan(1000), solution_source),
        "peek": s.prelude(s.peek(REPO), solution_source),
        "write_outside": s.prelude(s.write_outside(outside), solution_source),
        "connect": s.prelude(s.connect(listener.port), solution_source),
        "flood": s.FLOOD_STDOUT,
        "keyboard_interrupt": s.KEYBOARD_INTERRUPT,
        "recursion": s.RECURSION,
        "syntax_error": s.SYNTAX_ERROR,
        "missing_function": s.MISSING_FUNCTION,
        "patcher": s.PATCHER,
        "segfault": s.SEGFAULT,
        "correct_last": solution_source,
    }
    items = [(name, source, case_names) for name, source in sources.items()]
    items.insert(5, ("huge_result", s.HUGE_RESULT, ["seed"]))
    try:
        results = run_batch(bwrap_pool, items)
    finally:
        listener.close()
    return SimpleNamespace(results=results, outside=outside, accepted=listener.accepted,
                           left=bwrap_pool.processes(), pool=bwrap_pool, cases=case_names)


def _errors(result):
    return {trace["error"]["type"] for trace in result.result["traces"].values() if "error" in trace}


def test_every_submission_gets_exactly_one_result(hostile):
    """The batch finishes and reports each submission once, all in the bubblewrap sandbox."""
    assert len(hostile.results) == 29
    assert {result.sandbox for result in hostile.results.values()} == {"bubblewrap"}


def test_correct_submissions_unaffected(hostile):
    """Correct submissions graded alongside hostile ones pass every case, with identical results."""
    for name in CORRECT:
        assert passed(hostile.results[name]), hostile.results[name]
        assert set(hostile.results[name].result["traces"]) == set(hostile.cases)
    assert len({repr(hostile.results[name].result) for name in CORRECT}) == 1


def test_sys_exit_at_import_is_a_load_error(hostile):
    """sys.exit(0) at import is caught by execute: a complete result that records SystemExit, not a pass."""
    result = hostile.results["exit_at_import"]
    assert result.status == "ok" and not passed(result)
    assert result.result["load_error"]["type"] == "SystemExit"


def test_sys_exit_in_call_fails_every_case(hostile):
    """sys.exit(0) inside attention fails each case with SystemExit."""
    result = hostile.results["exit_in_call"]
    assert not passed(result)
    assert _errors(result) == {"SystemExit"}


@pytest.mark.parametrize("name", ["os_exit_at_import", "os_exit_in_call"])
def test_os_exit_before_result_is_no_result(hostile, name):
    """os._exit(0) before the result is written is reported as no_result, never as success."""
    result = hostile.results[name]
    assert result.status == "no_result"
    assert result.result is None


@pytest.mark.parametrize("name", TIMEOUTS)
def test_endless_code_times_out(hostile, name):
    """Busy loops, long sleeps, SIGTERM-ignoring loops and fork bombs end as timeout (the runner's wall limit; the
    pool's own deadline, GRACE_SECONDS later, would report crashed)."""
    result = hostile.results[name]
    assert result.status == "timeout"


@pytest.mark.parametrize("name", MEMORY)
def test_memory_bombs_hit_the_memory_limit(hostile, name):
    """A 100 GB bytearray, a list of tensors growing without end and a 400 GB tensor end as status memory."""
    assert hostile.results[name].status == "memory"


def test_memory_touching_bomb_is_bounded(hostile):
    """A list of 100 MB bytes objects stops at the address-space limit, or at the wall limit where page faults are slow."""
    result = hostile.results["growing_touched_list"]
    assert result.status in ("memory", "timeout")


def test_process_limit_applies_to_an_unprivileged_uid(hostile):
    """Student code runs as a high unprivileged uid with no capabilities, and RLIMIT_NPROC stops its forks."""
    result = hostile.results["fork_counter"]
    assert passed(result), result
    words = result.stdout.split()
    assert int(words[words.index("FORKED") + 1]) < TEST_LIMITS.max_processes
    assert int(words[words.index("UID") + 1]) >= 2**31
    assert int(words[words.index("CAPEFF") + 1], 16) == 0


def test_root_cannot_be_regained(hostile):
    """setuid(0), seteuid(0), setreuid, setresuid(0, 0, 0), setgid(0), setresgid and setgroups([0]) are all refused;
    /proc/self/status shows the same unprivileged uid as real, effective, saved and file-system uid (gids alike),
    no supplementary groups, and no capability permitted, effective, inheritable or ambient."""
    result = hostile.results["regain_root"]
    assert passed(result), result
    lines = {line.split()[0]: line.split()[1:] for line in result.stdout.splitlines()}
    refused = [line.split()[1:] for line in result.stdout.splitlines() if line.startswith("REFUSED")]
    assert "ALLOWED" not in lines, result.stdout
    assert sorted(name for name, _ in refused) == sorted(
        ["setuid", "seteuid", "setreuid", "setresuid", "setgid", "setresgid", "setgroups"])
    assert {error for _, error in refused} == {"PermissionError"}
    for field in ("UID", "GID"):
        ids = {int(number) for number in lines[field]}
        assert len(lines[field]) == 4 and len(ids) == 1 and ids.pop() >= 2**31, (field, lines[field])
    assert lines["RESUID"] == lines["UID"][:3]
    assert lines["GROUPS"] == []
    for field in ("CAPINH", "CAPPRM", "CAPEFF", "CAPAMB"):
        assert int(lines[field][0], 16) == 0, (field, lines[field])


def test_no_process_survives_grading(hostile):
    """After the batch no `sleep 1000` left in its own session exists, and each worker has at most its idle runner
    and that runner's child, forked ahead of the next job."""
    assert passed(hostile.results["orphan"]), hostile.results["orphan"]
    assert processes_matching("sleep", "1000") == []
    # Per worker: the worker, the runner waiting for the next job and its child; per pool: bwrap and the zygote (pid 1).
    # The last job's runner reports before it exits: give it a moment.
    left, deadline = hostile.left, time.monotonic() + 5
    while len(left) > 2 * 3 + 2 and time.monotonic() < deadline:
        time.sleep(0.05)
        left = hostile.pool.processes()
    assert len(left) <= 2 * 3 + 2, left


def test_repository_is_invisible(hostile):
    """Solutions, reference data, judges, git and tests cannot be seen or read; only the modules the worker needs are visible."""
    result = hostile.results["peek"]
    assert passed(result), (result.result, result.stdout)
    lines = dict(line.split(" ", 1) for line in result.stdout.splitlines())
    # Only the Python installation may show through, when the venv lives inside the repository.
    inside = sorted({Path(tree).relative_to(REPO).parts[0] for tree in bwrap.python_trees()
                     if tree.startswith(str(REPO) + "/")})
    assert lines["REPO"] == (repr(inside) if inside else "None")
    # __pycache__, where bytecode exists: the staged modules' own (test_setup.test_staged_code_is_only_what_the_worker_imports).
    listed = {key: [name for name in ast.literal_eval(lines[key]) if name != "__pycache__"] for key in ("CODE", "CHECKS")}
    assert listed["CODE"] == ["__init__.py", "checks", "sandbox"]
    # course_cells.json: the data file `loading` declares (public: the course's demo and text cells by line count and
    # hash), staged beside it as every declared data file is.
    assert listed["CHECKS"] == ["__init__.py", "ch01_probe.py", "colab.py", "course_cells.json", "errortext.py",
                                "execute.py", "given.py", "guard.py", "ipython.py", "loading.py", "messages.py",
                                "tensors.py"]
    assert "OPEN" in lines


def test_writes_outside_do_not_reach_the_host(hostile):
    """Writing to the repository or to /tmp creates nothing on the host."""
    result = hostile.results["write_outside"]
    assert passed(result), result
    assert "REFUSED" in result.stdout
    for path in hostile.outside:
        assert not __import__("os").path.exists(path)


def test_network_is_unreachable(hostile):
    """A TCP server on the host's 127.0.0.1 cannot be reached from the sandbox."""
    result = hostile.results["connect"]
    assert passed(result), (result.result, result.stdout)
    assert "CONNECT" in result.stdout
    assert hostile.accepted == 0


def test_output_flood_is_capped(hostile):
    """Printing ~100 MB stops the submission (output_limit) and returns only a capped tail."""
    result = hostile.results["flood"]
    assert result.status == "output_limit"
    assert len(result.stdout.encode()) <= TEST_LIMITS.output_bytes + 200
    assert "생략" in result.stdout


def test_huge_result_is_capped(hostile):
    """A result larger than result_bytes is dropped: status output_limit, no result."""
    result = hostile.results["huge_result"]
    assert result.status == "output_limit"
    assert result.result is None


def test_segfault_is_a_crash(hostile):
    """A segmentation fault in student code is reported as crashed, with what it printed on stderr."""
    result = hostile.results["segfault"]
    assert result.status == "crashed"
    assert "before the crash" in result.stderr


@pytest.mark.parametrize("name, error", [
    ("keyboard_interrupt", "KeyboardInterrupt"),
    ("syntax_error", "SyntaxError"),
])
def test_load_errors_are_clean_results(hostile, name, error):
    """KeyboardInterrupt and SyntaxError at import give a normal result with a load_error."""
    result = hostile.results[name]
    assert result.status == "ok"
    assert result.result["load_error"]["type"] == error


@pytest.mark.parametrize("name, error", [
    ("recursion", "RecursionError"),
    ("missing_function", "MissingFunction"),
])
def test_call_errors_are_clean_results(hostile, name, error):
    """Endless recursion and a missing function give a normal result with a per-case error."""
    result = hostile.results[name]
    assert result.status == "ok"
    assert _errors(result) == {error}
    assert set(result.result["traces"]) == set(hostile.cases)


def test_monkeypatching_changes_only_the_students_own_outputs(hostile):
    """Patching json.dumps/JSONEncoder/c_make_encoder and torch.allclose cannot forge or empty the result.

    The result is still encoded by the encoder bound before the student's code ran, it holds one
    trace per case, and each trace is exactly what the student's attention returned; the patches are
    listed as evidence and the run is "tampered".
    """
    result = hostile.results["patcher"]
    assert result.status == "tampered"
    assert {"json.dumps replaced", "json.encoder.c_make_encoder replaced", "torch.allclose replaced"} <= set(
        result.result["tampered"])
    traces = result.result["traces"]
    assert set(traces) == set(hostile.cases)
    for trace in traces.values():
        output, p_attn = trace["result"]["items"]
        assert output["data"] == [0.0] * 4 and output["shape"] == [2, 2]
        assert p_attn == {"kind": "none"}
