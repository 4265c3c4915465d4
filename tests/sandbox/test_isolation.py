"""Limits per submission: memory for all its processes together, and neighbours it cannot make time out.

With control groups (root, cgroup v1 here) each submission's memory and processes are held in a group of its own;
without them (forced by making `Groups.open` find nothing) rlimits hold per process and the runner polls the memory
of all the submission's processes together. Either way timeouts count
the submission's own CPU time, so a hog beside honest submissions cannot make them time out. Both ways run here."""
import os
from types import SimpleNamespace

import pytest

from grader.sandbox import Limits, SandboxPool, cgroups
from grader.sandbox.limits import GIB

from . import submissions as s
from .conftest import PROBE, passed, run_batch

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]
# A correct chapter-01 submission runs with 1 GiB; four children of 320 MB each exceed it together.
LIMITS = Limits(wall_seconds=12, cpu_seconds=12, memory_bytes=GIB, max_processes=32)
HOGS = 24


def _batch(solution_source, case_names):
    """Honest submissions beside a fan-out and a hog, two workers."""
    items = [("honest-1", solution_source, case_names),
             ("fan_out", s.prelude(s.fan_out(4, 320), solution_source), case_names),
             ("hog", s.hog(HOGS), case_names),
             ("honest-2", solution_source, case_names),
             ("honest-3", solution_source, case_names)]
    with SandboxPool(PROBE, jobs=2, limits=LIMITS) as pool:
        groups = pool._accounting.groups
        made = list(groups.pool.directories.values()) if groups else []
        results = run_batch(pool, items)
    return SimpleNamespace(results=results, groups_left=[path for path in made if os.path.exists(path)])


@pytest.fixture(scope="module")
def with_groups(solution_source, case_names):
    """The batch with a control group per submission (skipped where the kernel offers none to us)."""
    groups = cgroups.Groups.open(LIMITS)
    if groups is None:
        pytest.skip("no writable cgroup v1 hierarchies here (not root, or cgroup v2 only)")
    groups.close()
    return _batch(solution_source, case_names)


@pytest.fixture(scope="module")
def on_cpu_clock(solution_source, case_names):
    """The same batch with control groups unavailable: timeouts count CPU time."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(cgroups.Groups, "open", classmethod(lambda cls, limits, name=None: None))
        return _batch(solution_source, case_names)


def test_groups_hold_the_memory_of_all_processes_together(with_groups):
    """Four children, each within its own address-space limit, together exceed the submission's memory: status memory."""
    result = with_groups.results["fan_out"]
    assert result.status == "memory" and result.isolation == "cgroup+cpu-time"


def test_groups_keep_honest_neighbours_on_time(with_groups):
    """Beside a submission running 25 busy processes, every honest one passes within its own wall time."""
    results = with_groups.results
    assert results["hog"].status == "timeout"
    for name in ("honest-1", "honest-2", "honest-3"):
        assert passed(results[name]) and results[name].isolation == "cgroup+cpu-time"


def test_groups_are_removed(with_groups):
    """Nothing of the pool's groups (its own and every job's below it) is left behind."""
    assert with_groups.groups_left == []


def test_cpu_clock_keeps_honest_neighbours_on_time(on_cpu_clock):
    """Without groups the hog's processes add up to its time limit (its CPU time), and the honest ones pass."""
    results = on_cpu_clock.results
    assert results["hog"].status == "timeout" and results["hog"].isolation == "cpu-time"
    for name in ("honest-1", "honest-2", "honest-3"):
        assert passed(results[name]) and results[name].isolation == "cpu-time"


def test_without_groups_the_memory_of_all_processes_is_watched(on_cpu_clock):
    """Without groups the runner sums what the submission's processes allocated: four children, each within its own
    address-space limit, together exceed the submission's memory: status memory, as with a group."""
    result = on_cpu_clock.results["fan_out"]
    assert result.status == "memory" and result.isolation == "cpu-time"


def test_a_worker_is_silent_until_a_byte_comes_from_it():
    """`Worker.silent_since` (the proof that a worker moved into the next job's group forks its next runner there):
    true while nothing came since the count given; false once a byte waits in the pipe, and after it is read."""
    from grader.sandbox.handles import Worker

    pipes = [os.pipe() for _ in range(3)]
    worker = Worker(pipes[0][1], pipes[1][0], pipes[2][0], startup_deadline=None)
    try:
        sent = worker.received
        assert worker.silent_since(sent)
        os.write(pipes[1][1], b"{")
        assert not worker.silent_since(sent)
        assert worker.read(16) == b"{"
        assert not worker.silent_since(sent) and worker.silent_since(worker.received)
    finally:
        for read, write in pipes:
            os.close(read)
            os.close(write)
