"""The warm worker: import torch and the probe once, then fork one runner per job read from stdin.

Run as `python -m grader.sandbox.worker PROBE_MODULE --limits JSON --scratch DIR [...]`.
It never reads a job itself (a fresh runner does), and it never has reference data.
"""
import argparse
import gc
import importlib
import json
import os
import signal
import sys
import time
import traceback

from . import privileges, runner, status
from .limits import Limits
from .processes import clear_descendants, clear_namespace, set_parent_death_signal, set_subreaper
from .protocol import encode_line, write_all

EXIT_BAD_SETUP = 2
EXIT_RUNNER_FAILED = 5


def _arguments(argv):
    """Parse the worker's command line."""
    parser = argparse.ArgumentParser(prog="python -m grader.sandbox.worker")
    parser.add_argument("probe", help="module with case_names() and run_case(module, name)")
    parser.add_argument("--limits", required=True, help="Limits as JSON")
    parser.add_argument("--scratch", required=True, help="directory for the per-job private directories")
    parser.add_argument("--pid-namespace", action="store_true", help="this worker is pid 1 of a private pid namespace")
    parser.add_argument("--uid", type=int, help="drop to this uid (and gid) before anything else")
    parser.add_argument("--parent-pid", type=int, help="exit at once if our parent is not this process")
    return parser.parse_args(argv)


def _warm_up(torch):
    """Run the kinds of torch operations probes use, so each forked child starts with them initialised."""
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(2, 3, 4, generator=generator).to(torch.float64).to(torch.float32).requires_grad_(True)
    y = torch.matmul(x, x.transpose(-2, -1)).softmax(dim=-1)
    (y.sum() * 2).backward()
    x.grad.detach().reshape(-1).tolist()


def _wait_for(pid):
    """Wait for runner `pid` to end, reaping orphans on the way; a runner stopped by its child is killed. Return its wait status."""
    while True:
        try:
            ended, exit_status = os.waitpid(-1, os.WUNTRACED)
        except ChildProcessError:  # cannot happen while the runner lives; report it as killed
            return signal.SIGKILL
        if ended == pid and os.WIFSTOPPED(exit_status):
            os.kill(pid, signal.SIGKILL)
        elif ended == pid:
            return exit_status


def _prepare(arguments):
    """Check where we run, give up root and set the process controls; return whether we are pid 1 of our namespace."""
    namespaced = arguments.pid_namespace and os.getpid() == 1
    # No Python handler for SIGINT: as pid 1 of its namespace the worker then ignores it from students.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    if arguments.pid_namespace and not namespaced:
        sys.exit("worker: --pid-namespace given but this process is not pid 1")
    if arguments.uid is not None:
        privileges.drop_to(arguments.uid, arguments.uid)
        set_parent_death_signal(signal.SIGKILL)  # a change of uid clears it
    if namespaced and os.geteuid() == 0:
        sys.exit("worker: refusing to run student code as root (RLIMIT_NPROC would not apply)")
    if not namespaced:
        set_parent_death_signal(signal.SIGKILL)
        set_subreaper()
        if arguments.parent_pid is not None and os.getppid() != arguments.parent_pid:
            sys.exit("worker: the pool that started us is gone")
    return namespaced


def main(argv=None):
    """Start up, announce readiness on stdout, then serve jobs until stdin ends."""
    started = time.monotonic()
    arguments = _arguments(argv)
    namespaced = _prepare(arguments)
    limits = Limits.from_json(json.loads(arguments.limits))

    import torch

    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    probe = importlib.import_module(arguments.probe)
    from grader.checks.execute import execute

    _warm_up(torch)
    gc.collect()
    gc.freeze()
    write_all(1, encode_line({
        "ready": True, "pid": os.getpid(), "uid": os.getuid(), "namespaced": namespaced,
        "torch": torch.__version__, "seconds": round(time.monotonic() - started, 3),
    }))
    seq = 0
    while True:
        seq += 1
        forked = time.monotonic()
        pid = os.fork()
        if pid == 0:
            code = EXIT_RUNNER_FAILED
            try:
                code = runner.serve_one(seq, probe, execute, limits, arguments.scratch, namespaced)
            except BaseException:  # noqa: BLE001 - reported as a crashed job; the worker goes on
                traceback.print_exc()
            finally:
                os._exit(code)
        exit_status = _wait_for(pid)
        if namespaced:
            clear_namespace()
        else:
            clear_descendants()
        code = os.WEXITSTATUS(exit_status) if os.WIFEXITED(exit_status) else None
        if code == runner.EXIT_END_OF_INPUT:
            return 0
        if code != runner.EXIT_REPORTED:
            write_all(1, encode_line({
                "seq": seq, "id": None, "status": status.CRASHED, "result": None,
                "stdout": "", "stderr": "", "seconds": round(time.monotonic() - forked, 4),
            }))
        if code == runner.EXIT_PROTOCOL_ERROR:
            return EXIT_BAD_SETUP


if __name__ == "__main__":
    sys.exit(main())
