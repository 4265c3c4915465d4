"""A control group per job (where cgroups are used): memory and processes of a submission are limited together.

The pool moves the idle worker's tree into a fresh group before it sends the job, asks afterwards whether the group's
memory limit killed something (status memory), and removes a group once no worker is left in it. See cgroups.py.

Moving a process between groups waits for an RCU grace period in the kernel (5-15 ms, measured), longer than a cheap
chapter's whole submission. So where the worker itself forks its runners (`Launcher.runner_parent_is_host`), the
worker alone is moved into the *next* job's group while the current job runs (`move_ahead`, on a background thread):
the runner it forks after this job is then born in that group, and the next `enter` moves nothing. The proof that
the next runner was not forked before the move ended: nothing had come from the worker since this job was sent
(`Worker.silent_since`, read after the move) — the worker forks its next runner only once this job's runner has
written its result line and ended. When that cannot be shown (the job ended first, the worker was replaced) `enter`
moves the tree as before.

Where the worker forks each runner ahead of its job (`Launcher.forks_ahead`, the shared bubblewrap sandbox:
worker._serve_alternating), the proof is the worker's own: it forks the next runner only once it sees itself in a
group other than the running job's in every hierarchy, or once the next job has been written (after `enter`).
"""
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

from . import cgroups, status


class Accounting:
    """The pool's control groups: its own (`groups`, None without cgroups) and one per job."""

    def __init__(self, limits):
        self.groups = cgroups.Groups.open(limits)
        self.isolation = cgroups.CGROUP if self.groups else cgroups.CPU_TIME
        self.by_job = {}  # submission id -> the JobGroup it runs in
        self.live = []  # every JobGroup not yet removed
        self.ahead = {}  # worker -> (the next job's group, the move of the worker into it: a Future of "clean")
        self._mover = ThreadPoolExecutor(1, thread_name_prefix="cgroup-move") if self.groups else None
        # Deleting a group waits for the kernel too: the previous job's group goes on a thread of its own.
        self._remover = ThreadPoolExecutor(1, thread_name_prefix="cgroup-remove") if self.groups else None

    def enter(self, worker, submission_id, tree_size):
        """Move the idle worker's tree (at least `tree_size` processes) into a fresh group for `submission_id`."""
        if self.groups is None:
            return
        old = worker.group
        group, moved = self.ahead.pop(worker, (None, None))
        if group is None or not _clean(moved):
            if group is None:
                group = self.groups.job()
                self.live.append(group)
            group.settle(worker.pids, tree_size)
        worker.group = group
        self.by_job[submission_id] = group
        if old is not None and old is not group:
            self._remover.submit(_delete_when_empty, old, group)
            self.live = [live for live in self.live if live.directories]  # the ones removed so far are gone

    def move_ahead(self, worker, forks_ahead=False):
        """(right after the job is sent) Make the worker's next group and move the worker alone into it, in the
        background; its runner of this job stays in this job's group. `forks_ahead`: the worker forks its next runner
        only once it sees itself moved (worker._serve_alternating), not after this job's report."""
        if self.groups is None or worker.host_pid is None:
            return
        group = self.groups.job()
        self.live.append(group)
        received = None if forks_ahead else worker.received
        self.ahead[worker] = (group, self._mover.submit(_move_worker, group, worker, received))

    def accounted(self, result, workers):
        """`result` saying how the submission was isolated; a kill by its group's memory limit is status memory,
        whichever of its processes the kernel chose (a forked child as much as the runner: the verdict must not depend
        on the kernel's pick), even when the runner survived to report."""
        result = replace(result, isolation=self.isolation)
        group = self.by_job.pop(result.submission_id, None)
        if group is None:
            return result
        if group.out_of_memory():
            result = replace(result, status=status.MEMORY)
        if not any(worker is not None and worker.group is group for worker in workers):
            self._remove(group, timeout=1)
        return result

    def _remove(self, group, refuge=None, timeout=5.0):
        """Delete a job group, moving whatever is still in it to `refuge` (default: the pool's group)."""
        if group.remove(refuge or self.groups.pool, timeout=timeout):
            self.live = [live for live in self.live if live is not group]

    def close(self):
        """Delete every job group and the pool's own (their processes are dead by now)."""
        if self.groups is None:
            return
        self._mover.shutdown(wait=True)
        self._remover.shutdown(wait=True)
        for group in list(self.live):
            self._remove(group)
        self.groups.close()
        self.groups, self.by_job, self.live, self.ahead = None, {}, [], {}


def _clean(moved):
    """Whether the background move of a worker ended with nothing of its tree left behind (see `_move_worker`)."""
    try:
        return moved.result() is True
    except Exception:
        return False


def _move_worker(group, worker, received):
    """Move the worker into `group`; whether its next runner cannot have been forked before the move ended: nothing
    came from the worker since `received` bytes had been read (this job's runner had not reported, so had not ended),
    or (`received` None) the worker forks it only once it sees itself in the group in every hierarchy."""
    group.add([worker.host_pid])
    return group.holds(worker.host_pid) and (received is None or worker.silent_since(received))


def _delete_when_empty(group, refuge, patience=0.5):
    """Delete a previous job's group once its runner has ended (within `patience` seconds; whatever is still there
    then moves to `refuge`, the worker's current group)."""
    deadline = time.monotonic() + patience
    while group.pids() and time.monotonic() < deadline:
        time.sleep(0.002)
    group.remove(refuge)
