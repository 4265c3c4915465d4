"""A control group per job (where cgroups are used): memory and processes of a submission are limited together.

The pool moves the idle worker's tree into a fresh group before it sends the job, asks afterwards whether the group's
memory limit killed something (status memory), and removes a group once no worker is left in it. See cgroups.py.
"""
from dataclasses import replace

from . import cgroups, status


class Accounting:
    """The pool's control groups: its own (`groups`, None without cgroups) and one per job."""

    def __init__(self, limits):
        self.groups = cgroups.Groups.open(limits)
        self.isolation = cgroups.CGROUP if self.groups else cgroups.CPU_TIME
        self.by_job = {}  # submission id -> the JobGroup it runs in
        self.live = []  # every JobGroup not yet removed

    def enter(self, worker, submission_id, tree_size):
        """Move the idle worker's tree (at least `tree_size` processes) into a fresh group for `submission_id`."""
        if self.groups is None:
            return
        old, worker.group = worker.group, self.groups.job()
        self.live.append(worker.group)
        worker.group.settle(worker.pids, tree_size)
        self.by_job[submission_id] = worker.group
        if old is not None:
            self._remove(old, refuge=worker.group)

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
        for group in list(self.live):
            self._remove(group)
        self.groups.close()
        self.groups, self.by_job, self.live = None, {}, []
