"""Fixtures for the sandbox tests: the real chapter-01 probe, the correct solution, and shared pools."""
import os
from pathlib import Path

import pytest

from grader.sandbox import Limits, SandboxPool, bubblewrap_available
from grader.sandbox.limits import GIB

REPO = Path(__file__).resolve().parents[2]
SOLUTION = REPO / "solutions" / "01_attention" / "transformer.py"
PROBE = "grader.checks.ch01_probe"
# Small enough that a broken sandbox cannot hurt the machine, large enough for a correct submission.
TEST_LIMITS = Limits(wall_seconds=3, cpu_seconds=3, memory_bytes=2 * GIB, max_processes=32)


def run_batch(pool, items):
    """Run `items` through `pool`; return {submission id: RunResult}."""
    return {result.submission_id: result for result in pool.run(items)}


def passed(result):
    """A run that ended normally with every case answered without error."""
    if result.status != "ok" or "traces" not in result.result:
        return False
    return all("error" not in trace for trace in result.result["traces"].values())


def processes_matching(*needles):
    """Command lines of host processes containing all of `needles` (read from /proc)."""
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/cmdline", "rb") as handle:
                    command = handle.read().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if all(needle in command for needle in needles):
                found.append((int(entry.name), command))
    return found


@pytest.fixture(scope="session")
def solution_source():
    """The correct chapter-01 solution (its BEGIN/END SOLUTION comments are harmless)."""
    return SOLUTION.read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def case_names():
    """Every case of the real chapter-01 probe, hidden ones included."""
    from grader.checks import ch01_probe

    return ch01_probe.case_names()


@pytest.fixture(scope="session")
def need_bwrap():
    """Skip where bubblewrap is not installed (a student's laptop); fail where it is installed but cannot run,
    e.g. CI (`.ci/run` installs it), so a broken sandbox never passes as skipped tests."""
    import shutil

    if shutil.which("bwrap") is None:
        if os.environ.get("CI"):
            pytest.fail("bubblewrap is not installed, but CI must test the real sandbox (.ci/run installs it)")
        pytest.skip("bubblewrap is not installed")
    if not bubblewrap_available():
        pytest.fail("bwrap is installed but cannot start this interpreter in the sandbox")


@pytest.fixture(scope="session")
def bwrap_pool(need_bwrap):
    """Two warm bubblewrap workers, shared by the whole session."""
    with SandboxPool(PROBE, jobs=2, limits=TEST_LIMITS, use_bwrap=True) as pool:
        yield pool


@pytest.fixture(scope="session")
def serial_pool(need_bwrap):
    """One warm bubblewrap worker, so consecutive submissions share it."""
    with SandboxPool(PROBE, jobs=1, limits=TEST_LIMITS, use_bwrap=True) as pool:
        yield pool


# Batches that only wait (the default wall time's sleeper: a minute of no CPU) start with the folder's first test, in a
# thread, so the wait overlaps the other sandbox tests of this worker's unit; the test that reads one joins it.
EARLY = {}  # name -> (function(solution_source, case_names) -> results, the test ids that read it)
_started = {}


def start_early(name, tests):
    """Register the decorated batch function as `name`, started early when one of `tests` (ids) was selected."""
    def register(function):
        EARLY[name] = (function, tests)
        return function
    return register


@pytest.fixture(scope="session", autouse=True)
def _early_batches(request, solution_source, case_names):
    """Start each registered batch whose tests this run selected, in a background thread."""
    from concurrent.futures import ThreadPoolExecutor

    if not EARLY or not bubblewrap_available():
        yield
        return
    selected = {item.name for item in request.session.items}
    with ThreadPoolExecutor(max_workers=len(EARLY), thread_name_prefix="early-batch") as executor:
        for name, (function, tests) in EARLY.items():
            if selected & set(tests):
                _started[name] = executor.submit(function, solution_source, case_names)
        yield
        _started.clear()


def pytest_collection_modifyitems(items):
    """The tests that read an early batch run last in the folder's work unit, when its wait is over."""
    late = {test for _, tests in EARLY.values() for test in tests}
    items[:] = [item for item in items if item.name not in late] + [item for item in items if item.name in late]


def early_results(name, solution_source, case_names):
    """The results of the early batch `name` (waiting for it), or of a run now when it was not started early."""
    future = _started.get(name)
    return future.result(timeout=600) if future else EARLY[name][0](solution_source, case_names)
