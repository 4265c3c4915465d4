"""Bubblewrap as root: one sandbox per pool whose pid 1, the zygote, imports torch once and forks every worker.

Threat: a submission that reads what it should not, writes the host, talks to the network, takes root back, or
reaches another submission. Inside the one bubblewrap sandbox (`bwrap.py`) the student's code sees read-only /usr,
the Python installation and the staged worker code, nothing else of the host (no repository, solutions, references
or judges); no network, a private pid, IPC and UTS namespace. Each forked worker takes network, IPC and mount
namespaces of its own (a fresh /scratch and /dev/shm, `processes.isolate_worker`), keeps only CAP_SETUID, CAP_SETGID
and CAP_KILL, and runs each job under its own unprivileged uid, so kill(-1), a fork bomb (RLIMIT_NPROC per uid) or
/proc reach that worker's jobs only. Not defended: the kernel's attack surface (no seccomp filter).
"""
import os
import socket
import subprocess
import time

from . import bwrap
from .handles import Worker, Zygote
from .launch import CPU_CLOCK, STARTUP_SECONDS, Launcher, next_uid
from .processes import descendants


class SharedBubblewrap(Launcher):
    """Workers forked by the zygote of the pool's one bubblewrap sandbox, each under a uid of its own."""

    sandbox = "bubblewrap"
    tree_size = 1  # the forked worker; its runners are forked ahead, once it has been moved (worker._serve_alternating)
    runner_parent_is_host = True
    forks_ahead = True

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.zygote = None
        self.uids = {}  # slot -> the two uids its workers' jobs run as in turn (kept across restarts of the slot)

    def start(self, slot):
        """Have the zygote fork the worker of `slot` (restarting the sandbox if it is gone)."""
        uids = self.uids.get(slot) or self.uids.setdefault(slot, (next_uid(), next_uid()))
        for attempt in range(2):
            if self.zygote is not None and not self.zygote.alive():
                self._drop_zygote()
            if self.zygote is None:
                self.zygote = self._start_zygote()
            try:
                pipes = self.zygote.spawn(uids)
            except OSError:
                if attempt:
                    raise
                self._drop_zygote()
                continue
            return Worker(*pipes, time.monotonic() + STARTUP_SECONDS, zygote=self.zygote)

    def _start_zygote(self):
        """Launch the pool's bubblewrap sandbox with the zygote as its pid 1 (it warms up in the background)."""
        argv = [*self.worker_argv(), "--scratch", bwrap.SCRATCH, "--zygote", *CPU_CLOCK]
        command = bwrap.command(argv, self.code, self.limits, extra_capabilities=("CAP_KILL", "CAP_SYS_ADMIN"))
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            process = subprocess.Popen(
                command, stdin=theirs.fileno(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, bufsize=0,
                env={"PATH": os.defpath}, cwd="/", close_fds=True, start_new_session=True,
            )
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        return Zygote(process, ours)

    def _drop_zygote(self):
        """Kill the sandbox and forget it."""
        self.zygote.kill()
        self.zygote = None

    def processes(self):
        """bwrap, the zygote and everything below them."""
        if self.zygote is None or not self.zygote.alive():
            return []
        root = self.zygote.process.pid
        return [root, *descendants(root)]

    def close(self):
        """Kill the whole sandbox."""
        if self.zygote is not None:
            self._drop_zygote()
