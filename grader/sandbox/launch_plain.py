"""Plain subprocesses: no file-system, network or pid isolation — for trusted code, and Gradescope's fall-back.

Threat defended: only honest mistakes and runaway code — the limits (time, memory, processes, file size, output)
and the clean-up of every process the submission started (process group, descendants, `--parent-pid`). The code can
read anything the grader's account can read and use the network. With `run_as` (as root; the Gradescope autograder)
the worker drops to that unprivileged uid at once, owns only its scratch folder (the staged code is readable, the
pool's work directory not listable), and runs in an empty network namespace where `unshare --net` works
(`network.py`); the grader's files are kept from that account by their permissions (`gradescope/setup.sh`).
"""
import os

from . import network
from .launch import CPU_CLOCK, Launcher
from .staging import environment


class Plain(Launcher):
    """Each worker a plain process of the grader (or of `run_as`), limited but not isolated."""

    sandbox = "subprocess"
    tree_size = 2  # the worker and its idle runner
    runner_parent_is_host = True

    def start(self, slot):
        """Launch the worker of `slot` as a subprocess in its own scratch folder."""
        scratch = self.scratch(slot)
        command = [*self.worker_argv(), "--scratch", scratch, "--parent-pid", str(os.getpid()), *CPU_CLOCK]
        if self.run_as is not None:
            command = self._as_user(command, scratch)
        return self.popen(command, environment(self.code, scratch, self.limits.threads), scratch)

    def _as_user(self, argv, scratch):
        """`argv` for a worker that drops to `run_as` at once, with its scratch dir its own and no network if possible."""
        os.chmod(self.workdir, 0o711)  # the staged code (0755) must be reachable; nothing else there is listable
        os.chown(scratch, self.run_as, self.run_as)
        os.chmod(scratch, 0o700)
        return [*network.cut_prefix(), *argv, "--uid", str(self.run_as)]
