"""Submissions that attack their own supervisor: only they fail, the next one in the same worker is graded."""
import time

import pytest

from . import submissions as s
from .conftest import passed, run_batch

pytestmark = pytest.mark.sandbox


@pytest.fixture(scope="module")
def sequence(serial_pool, solution_source, case_names):
    """One worker grades, in order: attacks on the supervisor, each followed by a correct submission."""
    order = [
        ("kill_parent", s.KILL_PARENT), ("after_kill_parent", solution_source),
        ("kill_everything", s.KILL_EVERYTHING), ("after_kill_everything", solution_source),
        ("stop_parent", s.STOP_PARENT), ("after_stop_parent", solution_source),
        ("signal_worker", s.prelude(s.SIGNAL_WORKER, solution_source)),
        ("patcher", s.PATCHER), ("pristine", s.prelude(s.PRISTINE_CHECK, solution_source)),
    ]
    run_batch(serial_pool, [("warm_up", solution_source, case_names)])  # a forked worker's host pid is known once ready
    worker_before = serial_pool.processes()[0]
    results = run_batch(serial_pool, [(name, source, case_names) for name, source in order])
    return results, serial_pool, worker_before


def test_killing_the_parent_crashes_only_that_submission(sequence):
    """os.kill(os.getppid(), 9) ends that submission as crashed; the next one is graded normally."""
    results, _, _ = sequence
    assert results["kill_parent"].status == "crashed"
    assert results["kill_parent"].result is None
    assert passed(results["after_kill_parent"])


def test_kill_minus_one_cannot_take_the_worker_down(sequence):
    """os.kill(-1, 9) kills the submission's supervisor at most: crashed, and the worker goes on."""
    results, _, _ = sequence
    assert results["kill_everything"].status == "crashed"
    assert passed(results["after_kill_everything"])


def test_stopping_the_parent_is_detected(sequence):
    """SIGSTOP sent to the supervisor is noticed by the worker, which kills it: crashed, not a hang (had the pool's
    deadline ended it instead, the worker would have been replaced: see test_the_worker_was_never_replaced)."""
    results, _, _ = sequence
    assert results["stop_parent"].status == "crashed"
    assert passed(results["after_stop_parent"])


def test_the_worker_ignores_signals_from_students(sequence):
    """SIGINT, SIGTERM, SIGSTOP and SIGKILL sent to pid 1 (the worker) do nothing: the submission still passes."""
    results, _, _ = sequence
    assert passed(results["signal_worker"]), results["signal_worker"]


def test_patches_do_not_leak_into_the_next_submission(sequence):
    """A submission graded after one that patched json and torch.allclose (graded "tampered") sees both untouched."""
    results, _, _ = sequence
    assert results["patcher"].status == "tampered"
    assert passed(results["pristine"]), results["pristine"]


def test_the_worker_was_never_replaced(sequence):
    """All of this happened in the one warm worker: it is still the same process, with one idle runner (and that
    runner's child, forked ahead of its job)."""
    _, pool, worker_before = sequence
    processes, deadline = pool.processes(), time.monotonic() + 5
    while len(processes) > 5 and time.monotonic() < deadline:  # the last runner reports before it exits
        time.sleep(0.05)
        processes = pool.processes()
    assert processes[0] == worker_before
    assert len(processes) <= 5  # the worker, its idle runner and its child, bwrap and the zygote (pid 1)


def test_a_worker_killed_between_batches_is_replaced(bwrap_pool, solution_source, case_names):
    """A worker that died while idle is replaced before the next batch: no submission pays for it."""
    import os
    import signal

    victim = bwrap_pool.processes()[0]
    os.kill(victim, signal.SIGKILL)
    results = run_batch(bwrap_pool, [(f"after_kill_{i}", solution_source, case_names) for i in range(4)])
    assert all(passed(result) for result in results.values())
    assert victim not in bwrap_pool.processes()
