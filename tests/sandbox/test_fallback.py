"""Without bubblewrap: plain subprocess workers still apply the time and memory limits and kill leftovers."""
import io
import os
import sys
import time
from types import SimpleNamespace

import pytest

from grader.sandbox import SandboxPool, modes, pool as pool_module

from . import submissions as s
from .conftest import PROBE, TEST_LIMITS, passed, processes_matching, run_batch

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]  # one batch of limit-breaking submissions: ~20 s of waits

FREEZE_SUPERVISORS = """\
import os, signal
runner = os.getppid()
with open(f"/proc/{runner}/stat") as handle:
    worker = int(handle.read().rsplit(")", 1)[1].split()[1])
os.kill(worker, signal.SIGSTOP)
os.kill(runner, signal.SIGSTOP)
"""


@pytest.fixture(scope="module")
def fallback(solution_source, case_names):
    """One batch through a use_bwrap=False pool, plus what it printed on stderr when it started."""
    modes._warned = False
    with pytest.MonkeyPatch.context() as patch:
        stderr = io.StringIO()
        patch.setattr(sys, "stderr", stderr)
        with SandboxPool(PROBE, jobs=2, limits=TEST_LIMITS, use_bwrap=False) as pool:
            sources = {
                "correct": solution_source,
                "busy_loop": s.BUSY_LOOP,
                "sleep": s.SLEEP,
                "huge_bytearray": s.HUGE_BYTEARRAY,
                "growing_list": s.GROWING_LIST,
                "orphan": s.prelude(s.orphan(1001), solution_source),
                "os_exit": s.OS_EXIT_AT_IMPORT,
                "kill_parent": s.KILL_PARENT,
                "fork_bomb": s.FORK_BOMB,
                "correct_again": solution_source,
            }
            results = run_batch(pool, [(name, source, case_names) for name, source in sources.items()])
            left = pool.processes()
            # A submission that freezes its runner and its worker: only the pool's own deadline can help.
            patch.setattr(pool_module, "GRACE_SECONDS", 1.0)
            workers_before = set(pool.processes())
            results.update(run_batch(pool, [("freeze", FREEZE_SUPERVISORS, case_names),
                                            ("after_freeze", solution_source, case_names)]))
            replaced = workers_before - set(pool.processes())
    return SimpleNamespace(results=results, warnings=stderr.getvalue().splitlines(), left=left, replaced=replaced)


def test_fallback_says_so(fallback):
    """Every result is marked "subprocess" and a warning was printed once."""
    assert {result.sandbox for result in fallback.results.values()} == {"subprocess"}
    assert len(fallback.warnings) == 1 and "WARNING" in fallback.warnings[0]


def test_fallback_grades_correct_submissions(fallback):
    """Correct submissions pass, also after a submission killed its parent."""
    results = fallback.results
    assert passed(results["correct"]) and passed(results["correct_again"])
    assert results["correct"].result == results["correct_again"].result
    assert results["kill_parent"].status == "crashed"


@pytest.mark.parametrize("name", ["busy_loop", "sleep"])
def test_fallback_applies_the_time_limit(fallback, name):
    """Endless code ends as timeout (the runner's wall limit, not the pool's later deadline, which reports crashed)."""
    results = fallback.results
    assert results[name].status == "timeout"


@pytest.mark.parametrize("name", ["huge_bytearray", "growing_list"])
def test_fallback_applies_the_memory_limit(fallback, name):
    """Memory bombs end as status memory."""
    results = fallback.results
    assert results[name].status == "memory"


def test_fallback_exit_is_no_result(fallback):
    """os._exit(0) before the result is no_result here too."""
    results = fallback.results
    assert results["os_exit"].status == "no_result"


def test_fallback_kills_processes_left_behind(fallback):
    """A `sleep 1001` started in its own session does not survive grading (the runner is its subreaper)."""
    assert passed(fallback.results["orphan"])
    assert processes_matching("sleep", "1001") == []
    assert len(fallback.left) <= 2 * 2  # per worker: the worker and its idle runner


def test_fallback_stops_fork_bombs(fallback):
    """A fork bomb is stopped and leaves nothing behind; as root (no RLIMIT_NPROC) the runner counts processes itself."""
    result = fallback.results["fork_bomb"]
    if os.geteuid() == 0:
        assert result.status == "crashed"
        assert "프로세스를 너무 많이" in result.stderr
    else:
        assert result.status == "timeout"
    assert len(fallback.left) <= 2 * 2


def test_hung_worker_is_replaced(fallback):
    """A worker that stops answering is killed at the pool's own deadline and replaced; the batch goes on.

    Only the fallback lets student code stop its worker (under bubblewrap the worker is pid 1 of
    its namespace, which ignores SIGSTOP and SIGKILL sent from inside).
    """
    assert fallback.results["freeze"].status == "crashed"
    assert passed(fallback.results["after_freeze"])
    assert fallback.replaced
    deadline = time.monotonic() + 5
    while any(os.path.exists(f"/proc/{pid}") for pid in fallback.replaced) and time.monotonic() < deadline:
        time.sleep(0.05)  # killed orphans may wait a moment for init to reap them
    assert not any(os.path.exists(f"/proc/{pid}") for pid in fallback.replaced)
