"""Without bubblewrap: plain subprocess workers still apply the time and memory limits and kill leftovers."""
import io
import sys

import pytest

from grader.sandbox import SandboxPool, pool as pool_module

from . import submissions as s
from .conftest import PROBE, TEST_LIMITS, passed, processes_matching, run_batch

pytestmark = pytest.mark.sandbox


@pytest.fixture(scope="module")
def fallback(solution_source, case_names):
    """One batch through a use_bwrap=False pool, plus what it printed on stderr when it started."""
    pool_module._warned = False
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
                "correct_again": solution_source,
            }
            results = run_batch(pool, [(name, source, case_names) for name, source in sources.items()])
            left = pool.processes()
    return results, stderr.getvalue().splitlines(), left


def test_fallback_says_so(fallback):
    """Every result is marked "subprocess" and a warning was printed once."""
    results, captured, _ = fallback
    assert {result.sandbox for result in results.values()} == {"subprocess"}
    assert len(captured) == 1 and "WARNING" in captured[0]


def test_fallback_grades_correct_submissions(fallback):
    """Correct submissions pass, also after a submission killed its parent."""
    results, _, _ = fallback
    assert passed(results["correct"]) and passed(results["correct_again"])
    assert results["correct"].result == results["correct_again"].result
    assert results["kill_parent"].status == "crashed"


@pytest.mark.parametrize("name", ["busy_loop", "sleep"])
def test_fallback_applies_the_time_limit(fallback, name):
    """Endless code ends as timeout within the wall limit."""
    results, _, _ = fallback
    assert results[name].status == "timeout"
    assert results[name].seconds < TEST_LIMITS.wall_seconds + 2


@pytest.mark.parametrize("name", ["huge_bytearray", "growing_list"])
def test_fallback_applies_the_memory_limit(fallback, name):
    """Memory bombs end as status memory."""
    results, _, _ = fallback
    assert results[name].status == "memory"


def test_fallback_exit_is_no_result(fallback):
    """os._exit(0) before the result is no_result here too."""
    results, _, _ = fallback
    assert results["os_exit"].status == "no_result"


def test_fallback_kills_processes_left_behind(fallback):
    """A `sleep 1001` started in its own session does not survive grading (the runner is its subreaper)."""
    results, _, left = fallback
    assert passed(results["orphan"])
    assert processes_matching("sleep", "1001") == []
    assert len(left) <= 2 * 2  # per worker: the worker and its idle runner
