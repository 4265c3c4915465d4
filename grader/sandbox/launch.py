"""The common face of the ways a worker is started (`launch_*.py`): the mode's name, start a slot's worker, close.

A launcher owns what its mode needs besides the workers (the zygote's sandbox, the per-worker uids); the scheduler
(`pool.py`) only ever sees `Worker` handles. Which launcher runs is decided in one place, `modes.choose`.
"""
import itertools
import json
import os
import subprocess
import sys
import time

from .handles import Worker
from .privileges import sandbox_uid

STARTUP_SECONDS = 120.0  # importing torch on a loaded 2-core machine can take far longer than the usual 2 s
CPU_CLOCK = ("--cpu-clock",)  # timeouts count the submission's own CPU time (see cgroups.py for why); always asked
_spawned = itertools.count()


class SandboxError(RuntimeError):
    """The sandbox itself cannot work (never a student's fault)."""


def next_uid():
    """A fresh unprivileged uid for one worker (never reused by this process)."""
    return sandbox_uid(next(_spawned))


class Launcher:
    """Starts the workers of one pool in one way; subclasses set `sandbox` and `tree_size` and define `start`."""

    sandbox = ""  # the `sandbox` field of every RunResult: bubblewrap | contained | subprocess
    tree_size = 2  # processes of an idle worker's tree the pool moves into a job's control group (worker, runner, …)
    runner_parent_is_host = False  # whether the worker's host pid is the process that forks its runners (accounting.py)
    forks_ahead = False  # whether the worker forks a job's runner before the job, once moved into its group (accounting.py)

    def __init__(self, probe_module, limits, workdir, code, run_as=None, memory_watch=False):
        self.probe_module = probe_module
        self.limits = limits
        self.workdir = workdir
        self.code = code
        self.run_as = run_as
        self.memory_watch = memory_watch  # no control group holds a job: runners poll the submission's memory

    def start(self, slot):
        """Launch the worker of `slot`; return its Worker handle (it warms up in the background)."""
        raise NotImplementedError

    def processes(self):
        """Host pids this launcher owns besides the workers' trees (a zygote's sandbox)."""
        return []

    def close(self):
        """Release what the launcher holds besides the workers (the pool kills those)."""

    def worker_argv(self):
        """The worker's command line before the mode's own flags."""
        return [sys.executable, "-s", "-P", "-B", "-m", "grader.sandbox.worker", self.probe_module,
                "--limits", json.dumps(self.limits.to_json()), *(["--memory-watch"] if self.memory_watch else [])]

    def scratch(self, slot):
        """The host directory that is the worker's scratch space (created, in the pool's private work directory)."""
        path = os.path.join(self.workdir, f"scratch-{slot}")
        os.makedirs(path, exist_ok=True)
        return path

    @staticmethod
    def popen(command, env, cwd):
        """Start `command` as a worker process of its own, in a session of its own."""
        process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0,
            env=env, cwd=cwd, close_fds=True, start_new_session=True,
        )
        return Worker.of_process(process, time.monotonic() + STARTUP_SECONDS)
