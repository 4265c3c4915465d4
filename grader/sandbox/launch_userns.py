"""Bubblewrap without root: each worker is pid 1 of a bubblewrap sandbox of its own, in a user namespace.

Threat: the same as `launch_shared.py` — a submission that reads or writes the host, uses the network or reaches
another submission. The worker sees read-only /usr, the Python installation and the staged worker code, nothing else
of the host; a private /scratch, /proc and /dev; fresh pid, network, IPC, UTS and user namespaces (`bwrap.py`), the
grader's own unprivileged uid mapped inside (RLIMIT_NPROC applies), so there is no root to regain. One sandbox per
worker: a submission's kill(-1) reaches its own worker's pid namespace only. Not defended: the kernel's attack surface
(no seccomp filter). Not run by CI (CI is root).
"""
import os

from . import bwrap
from .launch import CPU_CLOCK, Launcher


class UserNamespaceBubblewrap(Launcher):
    """A bubblewrap sandbox per worker, started by an unprivileged grader."""

    sandbox = "bubblewrap"
    tree_size = 3  # bwrap, the worker (its pid 1) and the idle runner

    def start(self, slot):
        """Launch the worker of `slot` as pid 1 of its own sandbox."""
        argv = [*self.worker_argv(), "--scratch", bwrap.SCRATCH, "--pid-namespace", *CPU_CLOCK]
        return self.popen(bwrap.command(argv, self.code, self.limits), {"PATH": os.defpath}, "/")
