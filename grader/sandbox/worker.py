"""The warm worker: import torch and the probe once, then fork one runner per job read from stdin.

With --zygote (bubblewrap as root) the process is pid 1 of one sandbox shared by all the pool's
workers: it imports torch once and forks each worker on request. A forked worker first takes its
own network, IPC and mount namespaces (a fresh /scratch = TMPDIR and /dev/shm), so concurrent submissions cannot
reach each other, then stays root with only CAP_SETUID, CAP_SETGID and CAP_KILL and runs its
runners under the worker's two unprivileged uids in turn, each forked ahead of its job (`_serve_alternating`).

Run as `python -m grader.sandbox.worker PROBE_MODULE --limits JSON --scratch DIR [...]`.
It never reads a job itself (a fresh runner does), and it never has reference data.
"""
import argparse
import functools
import gc
import importlib
import json
import os
import select
import shutil
import signal
import socket
import sys
import time
import traceback
from pathlib import Path

from . import allocator, cgroups, confine, hugepages, job_runner, privileges, status
from .limits import Limits
from .processes import (CAP_KILL, CAP_SETGID, CAP_SETUID, clear_descendants, clear_namespace, isolate_worker,
                        keep_capabilities, kill_uid, reap_zombies, set_not_dumpable, set_parent_death_signal,
                        set_subreaper)
from .protocol import encode_line, write_all

EXIT_BAD_SETUP = 2
EXIT_RUNNER_FAILED = 5
AHEAD_CHECK_SECONDS = 0.001  # how often the worker looks whether it has been moved into the next job's group
AHEAD_PATIENCE_SECONDS = 0.05  # ... so often only this long after the job started (then every 5 ms) or ended (0.2 s)


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


def _clear_after(uid, scratch):
    """After a runner of `uid` ended without its report (e.g. killed by its own submission, which then left its files
    and IPC objects behind), and everything of `uid` was killed: clear its traces as `uid`, in a process of its own
    (the worker may not enter a student's directories), before the next job can start."""
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            privileges.drop_to(uid, uid)
            job_runner.clear_traces(scratch)
            code = 0
        finally:
            os._exit(code)
    os.waitpid(pid, 0)


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


def seed_font_list():
    """Copy the host's matplotlib font list, staged beside our code, where our matplotlib looks for it (MPLCONFIGDIR,
    below our empty HOME: `staging.environment`), so importing pyplot reads it instead of scanning every font."""
    target = os.environ.get("MPLCONFIGDIR")
    try:
        lists = sorted(Path(__file__).resolve().parents[2].glob("fontlist-v*.json"))  # staging.stage puts it there
        if target and lists:
            os.makedirs(target, exist_ok=True)
            shutil.copyfile(lists[-1], os.path.join(target, lists[-1].name))
    except OSError:  # matplotlib then builds its own list, as before
        pass


def _load(probe_name, threads=1):
    """Import torch (`threads` intra-op threads, the chapter's budget), the probe and `execute`, warm torch up,
    freeze the heap and back it with huge pages; return (torch, probe, execute)."""
    allocator.keep_freed_memory()  # before torch: its allocations, and those of every child, then follow it
    import torch

    torch.set_num_threads(threads)
    torch.set_num_interop_threads(1)
    probe = importlib.import_module(probe_name)
    if getattr(probe, "WARM_IMPORTS", ()):
        seed_font_list()
    for name in getattr(probe, "WARM_IMPORTS", ()):  # what student code will likely import: once, before the forks
        importlib.import_module(name)
    from grader.checks.execute import execute, prepare

    _warm_up(torch)
    prepare(probe)  # each runner's child starts from this binding (copy-on-write pages it never has to copy)
    # Frozen, never collected: no child's collection walks (and copies) the worker's objects. No gc.collect() first:
    # in a 170,000-object heap it finds a few dozen and costs 80-90 ms of every batch's start.
    gc.freeze()
    hugepages.collapse()  # each fork and exit of this process then costs less (hugepages.py)
    return torch, probe, execute


def _serve(probe, execute, limits, scratch, namespaced, ready, cpu_clock=False, memory_watch=False):
    """Announce `ready` on stdout, then fork one runner per job until stdin ends; return the exit code."""
    write_all(1, encode_line(ready))
    seq = 0
    while True:
        seq += 1
        forked = time.monotonic()
        pid = os.fork()
        if pid == 0:
            code = EXIT_RUNNER_FAILED
            try:
                code = job_runner.serve_one(seq, probe, execute, limits, scratch, namespaced, cpu_clock, memory_watch)
            except BaseException:  # reported as a crashed job; the worker goes on
                traceback.print_exc()
            finally:
                os._exit(code)
        exit_status = _wait_for(pid)
        if namespaced:
            clear_namespace()
        else:
            clear_descendants()
        code = os.WEXITSTATUS(exit_status) if os.WIFEXITED(exit_status) else None
        if code == job_runner.EXIT_END_OF_INPUT:
            return 0
        if code != job_runner.EXIT_REPORTED and namespaced:
            job_runner.clear_traces(scratch)  # the runners' uid is ours
        if code != job_runner.EXIT_REPORTED:
            write_all(1, encode_line({
                "seq": seq, "id": None, "status": status.CRASHED, "result": None,
                "stdout": "", "stderr": "", "seconds": round(time.monotonic() - forked, 4),
            }))
        if code == job_runner.EXIT_PROTOCOL_ERROR:
            return EXIT_BAD_SETUP


class _Runner:
    """A runner the alternating worker forked: its pid, uid and job number, and the read end of its signals pipe."""

    def __init__(self, pid, uid, seq, signals):
        self.pid, self.uid, self.seq, self.signals = pid, uid, seq, signals
        self.forked = time.monotonic()
        self.prepared = self.started = False  # b"p": its child is forked; b"s": it has read its job
        self.groups = None  # its control groups once it has read its job (`_moved_ahead`)
        self.started_at = None
        self.exit_status = None
        try:
            self.pidfd = os.pidfd_open(pid)
        except (AttributeError, OSError):
            self.pidfd = None

    def read_signals(self):
        """Take what the runner wrote on its signals pipe."""
        try:
            data = os.read(self.signals, 16)
        except BlockingIOError:
            return
        self.prepared |= b"p" in data
        if b"s" in data and not self.started:
            self.started, self.started_at = True, time.monotonic()
            self.groups = _groups_of(self.pid)  # the job's: the pool settled them before it wrote the job

    def close(self):
        """Release the worker's fds of this runner."""
        for fd in (self.signals, self.pidfd):
            if fd is not None:
                os.close(fd)
        self.signals = self.pidfd = None


def _fork_runner(seq, uid, others, serve):
    """Fork the runner of job `seq` as `uid`; it forks its child before it reads the job (`job_runner.serve_one`)."""
    signals_r, signals_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = EXIT_RUNNER_FAILED
        try:
            os.close(signals_r)
            for runner in others:  # the other runner's pipe and pidfd are not this one's business
                runner.close()
            privileges.drop_to(uid, uid)
            set_parent_death_signal(signal.SIGKILL)  # a change of uid clears it
            code = serve(seq, signals=signals_w)
        except BaseException:  # reported as a crashed job; the worker goes on
            traceback.print_exc()
        finally:
            os._exit(code)
    os.close(signals_w)
    os.set_blocking(signals_r, False)
    return _Runner(pid, uid, seq, signals_r)


def _reap(runners):
    """Reap every ended child (orphans of the submissions included); record the runners' wait statuses. A runner
    stopped by its child is killed."""
    by_pid = {runner.pid: runner for runner in runners if runner is not None}
    while True:
        try:
            pid, exit_status = os.waitpid(-1, os.WNOHANG | os.WUNTRACED)
        except ChildProcessError:
            return
        if pid == 0:
            return
        runner = by_pid.get(pid)
        if runner is not None and os.WIFSTOPPED(exit_status):
            os.kill(pid, signal.SIGKILL)
        elif runner is not None:
            runner.exit_status = exit_status


def _groups_of(pid):
    """The control-group lines of `pid` for the controllers a job's group holds ({} if it is gone)."""
    found = {}
    try:
        with open(f"/proc/{pid}/cgroup", encoding="ascii") as lines:
            for line in lines:
                _, controllers, path = line.rstrip("\n").split(":", 2)
                for controller in controllers.split(","):
                    if controller in cgroups.CONTROLLERS:
                        found[controller] = path
    except (OSError, ValueError):
        return {}
    return found


def _moved_ahead(runner):
    """Whether the pool has moved this worker into the next job's groups, out of the ones `runner` ran its job in, in
    every hierarchy (accounting.move_ahead): a runner forked now is born there."""
    mine, theirs = _groups_of(os.getpid()), runner.groups
    return bool(theirs) and all(mine.get(controller) not in (None, theirs.get(controller))
                                for controller in cgroups.CONTROLLERS)


def _job_waiting():
    """Whether the pool has written the next job (or closed stdin): its groups are then settled (accounting.enter)."""
    poller = select.poll()
    poller.register(0, select.POLLIN)
    return bool(poller.poll(0))


def _await(runner, upcoming, want_next, moves_ahead):
    """Wait for the next thing to happen to `runner` (a signal, its end) or, with `want_next`, for the moment the next
    runner may be forked; bounded, so orphans are reaped and the groups looked at again."""
    poller = select.poll()
    if runner.signals is not None and not runner.started:
        poller.register(runner.signals, select.POLLIN)
    if runner.pidfd is not None:
        poller.register(runner.pidfd, select.POLLIN)
    if want_next and moves_ahead:
        poller.register(0, select.POLLIN)
        timeout = AHEAD_CHECK_SECONDS if time.monotonic() - runner.started_at < AHEAD_PATIENCE_SECONDS else 0.005
    else:
        timeout = 0.2 if runner.pidfd is not None else 0.02
    ended = False
    for fd, _ in poller.poll(max(0, int(timeout * 1000)) or 1):
        if fd == runner.signals:
            runner.read_signals()
        ended |= fd == runner.pidfd
    _reap([runner, upcoming])
    if ended and runner.exit_status is None:  # gone, yet not reaped here: never wait for it (it counts as crashed)
        try:
            pid, exit_status = os.waitpid(runner.pid, os.WNOHANG)
        except ChildProcessError:
            pid, exit_status = runner.pid, signal.SIGKILL
        if pid == runner.pid:
            runner.exit_status = exit_status


def _serve_alternating(serve, ready, uids, moves_ahead, scratch):
    """Announce `ready`, then serve jobs with runners of the two `uids` in turn; return the exit code.

    Each runner forks its child before its job (job_runner.serve_one with `signals`). Once a runner has read its job,
    the next runner is forked, as the other uid, so its child is forked and locked down when the next job
    comes: nothing of the running submission's uid can signal, trace or read it, and everything of a uid is killed
    once its runner ends, before that uid's next runner is forked. With `moves_ahead` (the pool keeps a control group
    per job) the next runner is forked only once the pool has moved this worker into the next job's group (or the next
    job has been written, after which the pool moves nothing), so it is born there.
    """
    current = _fork_runner(1, uids[0], (), serve)
    while not current.prepared and current.exit_status is None:
        _await(current, None, False, moves_ahead)
    write_all(1, encode_line(ready))
    upcoming = None
    while True:
        if current.exit_status is None:
            want_next = current.started and upcoming is None
            if want_next and (not moves_ahead or _moved_ahead(current) or _job_waiting()):
                upcoming = _fork_runner(current.seq + 1, _other(uids, current.uid), (current,), serve)
                continue
            _await(current, upcoming, want_next, moves_ahead)
            continue
        # The next runner may have run its whole job and ended by now: reap it with its status, never drop it.
        kill_uid(current.uid, reap=functools.partial(_reap, [current, upcoming]))
        current.close()
        exit_status = current.exit_status
        code = os.WEXITSTATUS(exit_status) if os.WIFEXITED(exit_status) else None
        if code == job_runner.EXIT_END_OF_INPUT:
            return 0
        if code != job_runner.EXIT_REPORTED:
            _clear_after(current.uid, scratch)
            write_all(1, encode_line({
                "seq": current.seq, "id": None, "status": status.CRASHED, "result": None,
                "stdout": "", "stderr": "", "seconds": round(time.monotonic() - current.forked, 4),
            }))
        if code == job_runner.EXIT_PROTOCOL_ERROR:
            return EXIT_BAD_SETUP
        if upcoming is None:  # fork it once moved ahead or the next job is there, never while the pool settles a group
            ended = time.monotonic()
            while not ((moves_ahead and current.started and _moved_ahead(current)) or _job_waiting()):
                _reap(())  # no runner is left: only orphans
                soon = moves_ahead and current.started and time.monotonic() - ended < AHEAD_PATIENCE_SECONDS
                select.select([0], [], [], AHEAD_CHECK_SECONDS if soon else 0.2)
            upcoming = _fork_runner(current.seq + 1, _other(uids, current.uid), (), serve)
        current, upcoming = upcoming, None


def _other(uids, uid):
    """The uid of `uids` that is not `uid`."""
    return uids[1] if uid == uids[0] else uids[0]


def _forked_worker(request, fds, probe, execute, limits, arguments, torch_version, started):
    """In a child of the zygote: take the pool's pipes as fds 0-2 and serve jobs as the two `request["uids"]` in turn."""
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
    os.closerange(3, os.sysconf("SC_OPEN_MAX"))
    isolate_worker(limits.tmp_bytes, arguments.scratch)
    keep_capabilities(CAP_KILL, CAP_SETGID, CAP_SETUID)  # CAP_SYS_ADMIN was for the line above only
    set_parent_death_signal(signal.SIGKILL)
    set_subreaper()  # orphans of our runners come back to us (and are reaped at once)
    uids = request.get("uids")
    if not (isinstance(uids, list) and len(uids) == 2 and uids[0] != uids[1]
            and all(isinstance(uid, int) and not isinstance(uid, bool) and uid > 0 for uid in uids)):
        return EXIT_BAD_SETUP
    for uid in uids:
        kill_uid(uid)  # whatever a previous worker of this slot left behind
    serve = functools.partial(job_runner.serve_one, probe=probe, execute=execute, limits=limits,
                              scratch=arguments.scratch, namespaced=job_runner.SHARED, cpu_clock=arguments.cpu_clock,
                              memory_watch=arguments.memory_watch)
    ready = {"ready": True, "pid": os.getpid(), "uids": uids, "namespaced": True, "zygote": True,
             "torch": torch_version, "seconds": round(time.monotonic() - started, 3)}
    return _serve_alternating(serve, ready, uids, not arguments.memory_watch, arguments.scratch)


def _zygote(arguments, limits, started):
    """pid 1 of the shared sandbox: import torch once, then fork a worker per request read from fd 0.

    fd 0 is a SOCK_SEQPACKET socket; each request is one JSON message {"uids": [A, B]} carrying three
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
