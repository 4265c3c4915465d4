"""A control group per submission (cgroup v1, as root): its memory and process count hold for all its processes.

The pool makes one group per pool below its own groups (so any limit set on the grader still applies), and one
group per job below that. When it sends a job the idle worker's whole tree (the worker, its idle runner and,
outside the shared sandbox, bubblewrap) is in a fresh job group — moved there then, or, where the worker forks its
runners itself, the worker alone moved ahead while the previous job ran, its runner born there (`accounting.py`):
the runner forks the student's child there, and everything the child starts stays there. Memory charged before the move (torch, imported by the worker) stays
with the old group, so the job's memory limit counts what the submission itself allocates, across all its processes.

Where the hierarchies cannot be written (no root, cgroup v2 only, a read-only /sys/fs/cgroup), `Groups.open`
returns None: then rlimits hold per process, and each runner polls the memory the submission's processes gained,
together (`job_runner._Meter`, `--memory-watch`).

CPU is not shared out by the cpu controller: measured here, a submission in a cpu group of its own ran a pipe-heavy
job at half speed on a loaded machine. Instead every runner counts a timeout in the submission's own CPU time (all
its processes, `job_runner._Meter`), so other processes can slow a submission down but never make it time out.
"""
import itertools
import os
import time

ROOT = "/sys/fs/cgroup"
CONTROLLERS = ("memory", "pids")
CGROUP = "cgroup+cpu-time"  # what results say: memory and processes in a group per submission, timeouts in CPU time
CPU_TIME = "cpu-time"  # no groups: rlimits per process, memory together by polling, timeouts in CPU time
_jobs = itertools.count(1)


def _own_path(controller, proc_self="/proc/self/cgroup"):
    """This process's group in the v1 hierarchy of `controller` (e.g. "/" or "/user.slice"), or None."""
    try:
        with open(proc_self, encoding="ascii") as lines:
            for line in lines:
                _, controllers, path = line.rstrip("\n").split(":", 2)
                if controller in controllers.split(","):
                    return path
    except (OSError, ValueError):
        return None
    return None


def _write(path, value):
    """Write `value` to a cgroup control file."""
    with open(path, "w", encoding="ascii") as handle:
        handle.write(str(value))


def _read(path):
    """The text of a cgroup control file ("" if it cannot be read)."""
    try:
        with open(path, encoding="ascii") as handle:
            return handle.read()
    except OSError:
        return ""


def _mounted(controller, own=None):
    """The directory of group `own` (default: this process's) in the v1 hierarchy of `controller`, or None."""
    directory = os.path.join(ROOT, controller)
    probe = {"memory": "memory.limit_in_bytes", "pids": "cgroup.procs"}[controller]
    own = _own_path(controller) if own is None else own
    if own is None or not os.path.exists(os.path.join(directory, probe)):
        return None
    return os.path.join(directory, own.lstrip("/"))


class JobGroup:
    """The groups (one per controller) of one submission."""

    def __init__(self, directories):
        self.directories = directories

    def add(self, pids):
        """Move `pids` into this group in every hierarchy (pids already gone are skipped)."""
        for directory in self.directories.values():
            for pid in pids:
                try:
                    _write(os.path.join(directory, "cgroup.procs"), pid)
                except OSError:
                    pass

    def holds(self, pid):
        """Whether process `pid` is in this group in every hierarchy."""
        paths = {}
        try:
            with open(f"/proc/{pid}/cgroup", encoding="ascii") as lines:
                for line in lines:
                    _, controllers, path = line.rstrip("\n").split(":", 2)
                    paths.update(dict.fromkeys(controllers.split(","), path))
        except (OSError, ValueError):
            return False
        return all(controller in paths and directory == _mounted(controller, paths[controller])
                   for controller, directory in self.directories.items())

    def settle(self, tree, expected, timeout=2.0):
        """Move the processes `tree()` lists into the group until at least `expected` of them are all in it.

        A worker forks its idle runner right after it says it is ready or has reported a job; a fork that races
        with the move can leave the new process behind, so the tree is listed and moved again until it is stable."""
        deadline = time.monotonic() + timeout
        while True:
            pids = tree()
            self.add([pid for pid in pids if not self.holds(pid)])  # each move waits for the kernel (see accounting.py)
            if (len(pids) >= expected and all(self.holds(pid) for pid in pids)) or time.monotonic() > deadline:
                return
            time.sleep(0.005)

    def pids(self):
        """Pids of the processes still in the group (any hierarchy)."""
        found = set()
        for directory in self.directories.values():
            found |= {int(pid) for pid in _read(os.path.join(directory, "cgroup.procs")).split()}
        return found

    def out_of_memory(self):
        """Whether the kernel killed a process of the group for exceeding its memory limit."""
        for line in _read(os.path.join(self.directories["memory"], "memory.oom_control")).splitlines():
            name, _, value = line.partition(" ")
            if name == "oom_kill" and value.strip().isdigit() and int(value) > 0:
                return True
        return False

    def remove(self, refuge, timeout=5.0):
        """Move what is left into `refuge` (a JobGroup) and delete the groups; True if all went."""
        deadline = time.monotonic() + timeout
        while True:
            refuge.add(self.pids())
            left = {}
            for controller, directory in self.directories.items():
                try:
                    os.rmdir(directory)
                except FileNotFoundError:
                    pass
                except OSError:
                    left[controller] = directory
            self.directories = left
            if not left or time.monotonic() > deadline:
                return not left
            time.sleep(0.02)


class Groups:
    """The pool's own groups and the job groups made below them."""

    def __init__(self, pool_group, limits):
        self.pool = pool_group
        self.limits = limits

    @classmethod
    def open(cls, limits, name=None):
        """Make the pool's groups (as root with writable v1 memory and pids hierarchies), else None."""
        if os.geteuid() != 0:
            return None
        name = name or f"grader-{os.getpid()}-{next(_jobs)}"
        made = {}
        try:
            for controller in CONTROLLERS:
                parent = _mounted(controller)
                if parent is None:
                    raise OSError(f"no writable cgroup v1 {controller} hierarchy")
                directory = os.path.join(parent, name)
                os.mkdir(directory)
                made[controller] = directory
        except OSError:
            JobGroup(made).remove(JobGroup({}), timeout=0)
            return None
        return cls(JobGroup(made), limits)

    def job(self):
        """A fresh group for one submission, with the submission's limits set."""
        name = f"job-{next(_jobs)}"
        made = {}
        try:
            for controller, parent in self.pool.directories.items():
                directory = os.path.join(parent, name)
                os.mkdir(directory)
                made[controller] = directory
            self._limit(JobGroup(made))
        except OSError:
            JobGroup(made).remove(self.pool, timeout=1)
            raise
        return JobGroup(made)

    def _limit(self, group):
        """Memory for all processes together and a process cap."""
        memory = group.directories["memory"]
        _write(os.path.join(memory, "memory.limit_in_bytes"), int(self.limits.memory_bytes))
        swap = os.path.join(memory, "memory.memsw.limit_in_bytes")
        if os.path.exists(swap):  # memory + swap: swapping out does not get around the limit
            _write(swap, int(self.limits.memory_bytes))
        # The worker, the runner and (outside the shared sandbox) bubblewrap live in the group too.
        _write(os.path.join(group.directories["pids"], "pids.max"), int(self.limits.max_processes) + 4)

    def close(self):
        """Delete the pool's groups (after every process in them has been killed)."""
        self.pool.remove(JobGroup({}))
