"""The alternating worker's bookkeeping of its runners (`worker._serve_alternating`), without a sandbox.

Two runners of a worker can end close together: the next one may run its whole job and end before the worker has
dealt with the previous one. Its wait status must not be lost on the way (a worker that waits for a runner reaped
elsewhere spins forever, and the pool gives up on its job after its deadline: 70 s in a 600-submission batch).
"""
import os
import signal

from grader.sandbox import processes, worker


def _ended_child(code=0):
    """A child process that has exited with `code` (not reaped yet)."""
    pid = os.fork()
    if pid == 0:
        os._exit(code)
    os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
    return pid


def _runner(pid):
    """The worker's record of runner `pid` (its signals pipe a fresh one)."""
    read, write = os.pipe()
    os.close(write)
    return worker._Runner(pid, os.getuid(), 1, read)


def test_the_next_runners_status_survives_the_previous_runners_clean_up():
    """`kill_uid` with the worker's reaper keeps the status of a runner that ended meanwhile."""
    ended = _runner(_ended_child(3))
    try:
        processes.kill_uid(2**31 - 7, timeout=0.1, reap=lambda: worker._reap([ended]))
        assert ended.exit_status is not None and os.WEXITSTATUS(ended.exit_status) == 3
    finally:
        ended.close()


def test_a_runner_reaped_elsewhere_counts_as_crashed_instead_of_being_waited_for():
    """A runner whose exit someone else reaped is marked ended (SIGKILL), so the worker reports it and goes on."""
    runner = _runner(_ended_child())
    try:
        os.waitpid(runner.pid, 0)  # as `reap_zombies` would
        worker._await(runner, None, want_next=False, moves_ahead=False)
        assert runner.exit_status == signal.SIGKILL
    finally:
        runner.close()
