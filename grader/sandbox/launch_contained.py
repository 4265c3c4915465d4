"""Contained, no bubblewrap: root's own namespaces (`unshare`), a hidden host (`confine.py`) and a uid per worker.

Threat: a submission that reads the solutions or references on disk, writes the host, uses the network, keeps
processes running, or reaches another submission — where bubblewrap is missing but the grader runs as root. The
worker starts in fresh mount, network, pid and IPC namespaces with its own /proc; before anything of the student's is
imported it covers every host directory but the system ones, the Python installation and the staged code
(`confine.hide_host`), makes every mount read-only, gets a private scratch tmpfs and /dev/shm, and drops to a fresh
unprivileged uid (RLIMIT_NPROC applies). No interface is up in its network namespace, not even loopback. Not
defended: the kernel's attack surface, and the system directories (/usr, /etc) stay readable.
"""
import json
import os

from . import bwrap, confine
from .launch import CPU_CLOCK, Launcher, next_uid
from .staging import environment


class Contained(Launcher):
    """Each worker under `unshare` in namespaces of its own, hiding the host, as a uid of its own."""

    sandbox = "contained"
    tree_size = 3  # unshare, the worker (pid 1 of its namespace) and the idle runner

    def start(self, slot):
        """Launch the worker of `slot` in fresh namespaces; it hides the host and drops to a uid of its own."""
        scratch = self.scratch(slot)
        os.chmod(self.workdir, 0o711)
        keeps = [*bwrap.python_trees(), str(self.code)]
        command = [*confine.prefix(), *self.worker_argv(), "--scratch", scratch, "--pid-namespace",
                   "--uid", str(next_uid()), "--confine", json.dumps(keeps), *CPU_CLOCK]
        return self.popen(command, environment(self.code, scratch, self.limits.threads), "/")
