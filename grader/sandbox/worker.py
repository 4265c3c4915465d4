"""The warm worker: import torch and the probe once, then fork one runner per job read from stdin.

With --zygote (bubblewrap as root) the process is pid 1 of one sandbox shared by all the pool's
workers: it imports torch once and forks each worker on request. A forked worker first takes its
own network, IPC and mount namespaces (a fresh /scratch = TMPDIR and /dev/shm), so concurrent submissions cannot
reach each other, then stays root with only CAP_SETUID, CAP_SETGID and CAP_KILL and runs each
runner under the worker's own unprivileged uid.

Run as `python -m grader.sandbox.worker PROBE_MODULE --limits JSON --scratch DIR [...]`.
It never reads a job itself (a fresh runner does), and it never has reference data.
"""
import argparse
import gc
import importlib
import json
import os
import select
import signal
import socket
import sys
import time
import traceback

from . import confine, hugepages, job_runner, privileges, status
from .limits import Limits
from .processes import (CAP_KILL, CAP_SETGID, CAP_SETUID, clear_descendants, clear_namespace, isolate_worker,
                        keep_capabilities, kill_uid, reap_zombies, set_not_dumpable, set_parent_death_signal,
                        set_subreaper)
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
    parser.add_argument("--zygote", action="store_true",
                        help="pid 1 of a sandbox shared by several workers: fork them on request (see _zygote)")
    parser.add_argument("--confine", help="JSON list of paths to keep: hide the rest of the host first (confine.py)")
    parser.add_argument("--memory-watch", action="store_true",
                        help="hold the memory of the submission's processes together to the limit (no cgroup; job_runner.py)")
    parser.add_argument("--cpu-clock", action="store_true",
                        help="time out on the submission's own CPU time, the wall time only backing it up (see job_runner.py)")
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


def _prepare(arguments, limits):
    """Check where we run, hide the host if asked, give up root and set the process controls; return whether we are
    pid 1 of our namespace."""
    namespaced = arguments.pid_namespace and os.getpid() == 1
    # No Python handler for SIGINT: as pid 1 of its namespace the worker then ignores it from students.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    if arguments.pid_namespace and not namespaced:
        sys.exit("worker: --pid-namespace given but this process is not pid 1")
    if arguments.confine is not None:
        if arguments.uid is None:
            sys.exit("worker: --confine needs --uid")
        confine.hide_host(json.loads(arguments.confine), arguments.scratch, limits.tmp_bytes)
    if arguments.uid is not None:
        privileges.drop_to(arguments.uid, arguments.uid)
        set_parent_death_signal(signal.SIGKILL)  # a change of uid clears it
    if namespaced and os.geteuid() == 0:
        sys.exit("worker: refusing to run student code as root (RLIMIT_NPROC would not apply)")
    set_not_dumpable()  # a student's process of our uid cannot open our /proc fds (the pool's pipe) or memory
    if not namespaced:
        set_parent_death_signal(signal.SIGKILL)
        set_subreaper()
        if arguments.parent_pid is not None and os.getppid() != arguments.parent_pid:
            sys.exit("worker: the pool that started us is gone")
    return namespaced


def _load(probe_name, threads=1):
    """Import torch (`threads` intra-op threads, the chapter's budget), the probe and `execute`, warm torch up,
    freeze the heap and back it with huge pages; return (torch, probe, execute)."""
    import torch

    torch.set_num_threads(threads)
    torch.set_num_interop_threads(1)
    probe = importlib.import_module(probe_name)
    for name in getattr(probe, "WARM_IMPORTS", ()):  # what student code will likely import: once, before the forks
        importlib.import_module(name)
    from grader.checks.execute import execute, prepare

    _warm_up(torch)
    prepare(probe)  # each runner's child starts from this binding (copy-on-write pages it never has to copy)
    gc.collect()
    gc.freeze()
    hugepages.collapse()  # each fork and exit of this process then costs less (hugepages.py)
    return torch, probe, execute


def _serve(probe, execute, limits, scratch, namespaced, ready, uid=None, cpu_clock=False, memory_watch=False):
    """Announce `ready` on stdout, then fork one runner per job until stdin ends; return the exit code.

    With `uid` (a worker forked by the zygote, still root): each runner drops to `uid` before it
    reads its job, and everything of `uid` is killed after each runner.
    """
    write_all(1, encode_line(ready))
    seq = 0
    while True:
        seq += 1
        forked = time.monotonic()
        pid = os.fork()
        if pid == 0:
            code = EXIT_RUNNER_FAILED
            try:
                if uid is not None:
                    privileges.drop_to(uid, uid)
                    set_parent_death_signal(signal.SIGKILL)  # a change of uid clears it
                code = job_runner.serve_one(seq, probe, execute, limits, scratch, namespaced, cpu_clock, memory_watch)
            except BaseException:  # reported as a crashed job; the worker goes on
                traceback.print_exc()
            finally:
                os._exit(code)
        exit_status = _wait_for(pid)
        if uid is not None:
            kill_uid(uid)
        elif namespaced:
            clear_namespace()
        else:
            clear_descendants()
        code = os.WEXITSTATUS(exit_status) if os.WIFEXITED(exit_status) else None
        if code == job_runner.EXIT_END_OF_INPUT:
            return 0
        if code != job_runner.EXIT_REPORTED:
            write_all(1, encode_line({
                "seq": seq, "id": None, "status": status.CRASHED, "result": None,
                "stdout": "", "stderr": "", "seconds": round(time.monotonic() - forked, 4),
            }))
        if code == job_runner.EXIT_PROTOCOL_ERROR:
            return EXIT_BAD_SETUP


def _forked_worker(request, fds, probe, execute, limits, arguments, torch_version, started):
    """In a child of the zygote: take the pool's pipes as fds 0-2 and serve jobs as worker `request["uid"]`."""
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
    os.closerange(3, os.sysconf("SC_OPEN_MAX"))
    isolate_worker(limits.tmp_bytes, arguments.scratch)
    keep_capabilities(CAP_KILL, CAP_SETGID, CAP_SETUID)  # CAP_SYS_ADMIN was for the line above only
    set_parent_death_signal(signal.SIGKILL)
    set_subreaper()  # orphans of our runners come back to us (and are reaped at once)
    uid = request["uid"]
    if not isinstance(uid, int) or uid <= 0:
        return EXIT_BAD_SETUP
    kill_uid(uid)  # whatever a previous worker of this uid left behind
    return _serve(probe, execute, limits, arguments.scratch, job_runner.SHARED, {
        "ready": True, "pid": os.getpid(), "uid": uid, "namespaced": True, "zygote": True,
        "torch": torch_version, "seconds": round(time.monotonic() - started, 3),
    }, uid=uid, cpu_clock=arguments.cpu_clock, memory_watch=arguments.memory_watch)


def _zygote(arguments, limits, started):
    """pid 1 of the shared sandbox: import torch once, then fork a worker per request read from fd 0.

    fd 0 is a SOCK_SEQPACKET socket; each request is one JSON message {"uid": N} carrying three
    fds (the worker's stdin, stdout and stderr). The zygote exits when the pool closes the socket.
    """
    if os.getpid() != 1 or os.geteuid() != 0:
        sys.exit("worker: --zygote needs to be pid 1 of a private pid namespace, as root")
    torch, probe, execute = _load(arguments.probe, limits.threads)
    control = socket.socket(fileno=0)
    while True:
        reap_zombies()
        readable, _, _ = select.select([control], [], [], 0.2)
        if not readable:
            continue
        try:
            data, fds, _, _ = socket.recv_fds(control, 4096, 3)
        except InterruptedError:
            continue
        if not data:
            return 0
        try:
            request = json.loads(data)
        except ValueError:
            request = None
        if len(fds) != 3 or not isinstance(request, dict):
            for fd in fds:
                os.close(fd)
            continue
        pid = os.fork()
        if pid == 0:
            code = EXIT_BAD_SETUP
            try:
                control.detach()
                code = _forked_worker(request, fds, probe, execute, limits, arguments, torch.__version__, started)
            except BaseException:
                traceback.print_exc()
            finally:
                os._exit(code)
        for fd in fds:
            os.close(fd)


def main(argv=None):
    """Start up, announce readiness on stdout, then serve jobs until stdin ends."""
    started = time.monotonic()
    arguments = _arguments(argv)
    if arguments.zygote:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        return _zygote(arguments, Limits.from_json(json.loads(arguments.limits)), started)
    limits = Limits.from_json(json.loads(arguments.limits))
    namespaced = _prepare(arguments, limits)
    torch, probe, execute = _load(arguments.probe, limits.threads)
    return _serve(probe, execute, limits, arguments.scratch, namespaced, {
        "ready": True, "pid": os.getpid(), "uid": os.getuid(), "namespaced": namespaced,
        "torch": torch.__version__, "seconds": round(time.monotonic() - started, 3),
    }, cpu_clock=arguments.cpu_clock, memory_watch=arguments.memory_watch)


if __name__ == "__main__":
    sys.exit(main())
