"""A control group per job (where cgroups are used): memory and processes of a submission are limited together.

The pool moves the idle worker's tree into a fresh group before it sends the job, asks afterwards whether the group's
memory limit killed something (status memory), and removes a group once no worker is left in it. See cgroups.py.

Moving a process between groups waits for an RCU grace period in the kernel (5-15 ms, measured), longer than a cheap
chapter's whole submission. So where the worker itself forks its runners (`Launcher.runner_parent_is_host`), the
worker alone is moved into the *next* job's group while the current job runs (`move_ahead`, on a background thread):
the runner it forks after this job is then born in that group, and the next `enter` only checks that it is, moving
nothing. When that cannot be shown (the runner was forked before the move ended, the worker was replaced) `enter`
moves the tree as before.
"""
import itertools
import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

from . import cgroups, status

BORN_IN_GROUP_SECONDS = 2.0  # how long `enter` waits for the worker's next runner to appear in the group made ahead


class Accounting:
    """The pool's control groups: its own (`groups`, None without cgroups) and one per job."""

    def __init__(self, limits):
        self.groups = cgroups.Groups.open(limits)
        self.isolation = cgroups.CGROUP if self.groups else cgroups.CPU_TIME
        self.by_job = {}  # submission id -> the JobGroup it runs in
        self.live = []  # every JobGroup not yet removed
        self.ahead = {}  # worker -> (the next job's group, the move of the worker into it: a Future of "clean")
        self.runners = {}  # worker -> host pids of its runner when its job was sent (besides the worker itself)
        self._mover = ThreadPoolExecutor(1, thread_name_prefix="cgroup-move") if self.groups else None

    def enter(self, worker, submission_id, tree_size):
        """Move the idle worker's tree (at least `tree_size` processes) into a fresh group for `submission_id`."""
        if self.groups is None:
            return
        old = worker.group
        group, moved = self.ahead.pop(worker, (None, None))
        if group is None or not _clean(moved) or not _born_in(group, worker, tree_size):
            if group is None:
                group = self.groups.job()
                self.live.append(group)
            group.settle(worker.pids, tree_size)
        worker.group = group
        self.runners[worker] = group.pids() - {worker.host_pid}
        self.by_job[submission_id] = group
        if old is not None and old is not group:
            self._remove(old, refuge=group)

    def move_ahead(self, worker):
        """(right after the job is sent) Make the worker's next group and move the worker alone into it, in the
        background; its runner of this job stays in this job's group."""
        if self.groups is None or worker.host_pid is None or not self.runners.get(worker):
            return
        group = self.groups.job()
        self.live.append(group)
        self.ahead[worker] = (group, self._mover.submit(_move_worker, group, worker.host_pid, self.runners[worker]))

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
        for group in list(self.live):
            self._remove(group)
        self.groups.close()
        self.groups, self.by_job, self.live, self.ahead, self.runners = None, {}, [], {}, {}


def _clean(moved):
    """Whether the background move of a worker ended with nothing of its tree left behind (see `_move_worker`)."""
    try:
        return moved.result() is True
    except Exception:
        return False


def _born_in(group, worker, tree_size):
    """Wait until the worker's next runner is born in `group`, where the worker already is; False if it is not
    (then `settle` moves what is elsewhere)."""
    deadline = time.monotonic() + BORN_IN_GROUP_SECONDS
    for turn in itertools.count():
        inside = group.pids()
        if worker.host_pid in inside and len(inside) >= tree_size:
            return True
        if time.monotonic() > deadline or (turn % 20 == 19 and not set(worker.pids()) <= inside):
            return False
        time.sleep(0.001)


def _move_worker(group, worker_pid, runners):
    """Move the worker into `group`; whether no runner can have been forked before the move ended (one of this job's
    runners was still there afterwards: the worker forks the next only once it has reaped this one)."""
    group.add([worker_pid])
    return group.holds(worker_pid) and any(os.path.exists(f"/proc/{pid}") for pid in runners)
