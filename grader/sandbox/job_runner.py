"""One job, start to end: read it, fork the child, watch it under the limits, clean up, report one line.

A runner is forked afresh from the warm worker for every job and exits afterwards, so nothing of a
submission (its source, output or result) is ever left in the memory of a process that later forks
another submission's child. In the shared bubblewrap sandbox the runner of the next job is forked while this one
runs, as the worker's other uid, and forks its child before its job comes (`signals`, worker._serve_alternating).
"""
import os
import select
import shutil
import signal
import tempfile
import time

from . import child, status
from .bounds import Watch
from .limits import CPU_CLOCK_BACKSTOP
from .processes import (clear_descendants, clear_namespace, clear_uid, descendants, kill_group, process_table,
                        processes_of, remove_ipc, set_not_dumpable, set_subreaper)
from .protocol import ProtocolError, encode_line, job_key, read_job, write_all

SHARED = "shared"  # `namespaced` when the pid namespace holds other workers (each runner has its own uid)
EXIT_REPORTED = 0
EXIT_END_OF_INPUT = 3
EXIT_PROTOCOL_ERROR = 4
_CHUNK = 1 << 16
PROCESS_CHECK_SECONDS = 0.05
CPU_CHECK_SECONDS = 0.1
_TICKS = os.sysconf("SC_CLK_TCK")
_PAGE = os.sysconf("SC_PAGE_SIZE")
PROCESS_LIMIT_NOTE = "\n[프로세스를 너무 많이 만들어(최대 {limit}개) 실행을 중단했습니다]\n"


def _submission_pids(namespaced):
    """Every process the submission may have started (as `_kill_leftovers` sees them), the child included; in the
    shared sandbox its zombies too (the runner, their subreaper, reaps them only at the end: their CPU time counts)."""
    me = os.getpid()
    if namespaced == SHARED:
        return processes_of(os.getuid(), (me, 1), zombies=True)
    if namespaced:
        return [pid for pid in process_table() if pid not in (1, me)]
    return descendants(me)


def _cpu_seconds(pids):
    """User + system CPU time of `pids` and of the children they have reaped (from /proc; gone pids count 0)."""
    ticks = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
            ticks += sum(int(value) for value in fields[11:15])  # utime, stime, cutime, cstime
        except (OSError, ValueError, IndexError):
            continue
    return ticks / _TICKS


def _anonymous_bytes(pid):
    """Resident anonymous memory of `pid` (statm's resident minus its file-backed and shared pages; 0 if gone).

    /proc/PID/smaps_rollup would tell private pages apart, but reading it walks the page tables: 15–30 ms for a
    process that has imported torch, against a few microseconds for statm. A process whose main thread has exited
    (SYS_exit) while others run shows 0 there: its memory is read through one of its other threads."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as statm:
            fields = statm.read().split()
        if int(fields[1]) == 0:
            for task in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{task}/statm", "rb") as statm:
                    fields = statm.read().split()
                if int(fields[1]):
                    break
        return (int(fields[1]) - int(fields[2])) * _PAGE
    except (OSError, ValueError, IndexError):
        return 0


class _Meter:
    """What the runner reads of the submission's processes together from /proc, at most every CHECK_SECONDS.

    Time: a timeout counts the CPU time of all of them, so a neighbour's processes can slow a submission down but not
    make it time out (`--cpu-clock`, which the pool always gives; see cgroups.py); in the shared sandbox the processes
    that have ended count too, until the runner (their subreaper) reaps them at the end. Memory (`--memory-watch`, given
    where no control group holds the submission): the anonymous memory each process gained since the child was forked
    (statm, less what the runner itself held then: the child starts as its copy, torch included), summed over all of
    them, against the memory limit — what a memory cgroup charges, looked at by polling. A process forked after the
    child allocated counts that memory again (copy-on-write pages look like its own); between two looks, each process
    stays within its own RLIMIT_AS."""

    def __init__(self, limits, namespaced, memory_watch=False):
        self.limits = limits
        self.namespaced = namespaced
        self.baseline = _anonymous_bytes(os.getpid()) if memory_watch else None
        self.next_check = time.monotonic() + CPU_CHECK_SECONDS

    def over(self):
        """"timeout" or "memory" once the submission's processes together are over that limit, else None (a walk
        of /proc costs about 1.6 ms, and the runner asks after every chunk it reads)."""
        now = time.monotonic()
        if now < self.next_check:
            return None
        self.next_check = now + CPU_CHECK_SECONDS
        pids = _submission_pids(self.namespaced)
        if _cpu_seconds(pids) >= self.limits.wall_seconds:
            return "timeout"
        if self.baseline is not None and self.memory(pids) > self.limits.memory_bytes:
            return "memory"
        return None

    def memory(self, pids):
        """The anonymous memory `pids` gained since the child was forked, together."""
        return sum(max(0, _anonymous_bytes(pid) - self.baseline) for pid in pids)


def _supervise(pid, streams, watch, deadline, process_limit, meter=None):
    """Read the child's pipes until it exits or breaks a limit; return ("exited"|"timeout"|"memory"|"output"|"processes",
    wait4 or None)."""
    # `process_limit` (or None) is checked by counting our descendants every PROCESS_CHECK_SECONDS,
    # for when the kernel will not enforce RLIMIT_NPROC (uid 0 outside bubblewrap); `meter` (a _Meter or None)
    # every CPU_CHECK_SECONDS.
    try:
        pidfd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        pidfd = None
    poller = select.poll()
    for fd in streams:
        poller.register(fd, select.POLLIN)
    if pidfd is not None:
        poller.register(pidfd, select.POLLIN)
    tick = min(PROCESS_CHECK_SECONDS if process_limit else 3600.0, 3600.0 if pidfd is not None else 0.02,
               CPU_CHECK_SECONDS if meter else 3600.0)
    try:
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return "timeout", None
            for fd, _ in poller.poll(max(1, int(min(remaining, tick) * 1000))):
                if fd == pidfd:
                    return "exited", os.wait4(pid, 0)
                chunk = os.read(fd, _CHUNK)
                if chunk:
                    watch.feed(streams[fd], chunk)
                    if streams[fd] == "result" and watch.frame_complete():
                        watch.decoded_result()  # while the child exits; used again if nothing more comes
                else:
                    poller.unregister(fd)
            if watch.output_exceeded:
                return "output", None
            if process_limit and len(descendants(os.getpid())) > process_limit:
                return "processes", None
            over = meter.over() if meter else None
            if over:
                return over, None
            if pidfd is None:
                ended = os.wait4(pid, os.WNOHANG)
                if ended[0]:
                    return "exited", ended
    finally:
        if pidfd is not None:
            os.close(pidfd)


def _drain(streams, watch):
    """Read what is left in the pipes now that every writer is dead (or frozen)."""
    for fd, stream in streams.items():
        os.set_blocking(fd, False)
        for _ in range(4096):
            try:
                chunk = os.read(fd, _CHUNK)
            except BlockingIOError:
                break
            if not chunk:
                break
            if not watch.output_exceeded:
                watch.feed(stream, chunk)


def _kill_leftovers(pid, namespaced):
    """Kill the child's process group and everything else it may have started; wait until all are gone."""
    kill_group(pid)
    if namespaced == SHARED:
        clear_uid()  # a namespace shared with other workers: only our own uid's processes
    elif namespaced:
        clear_namespace()
    else:
        clear_descendants()


def _wipe(path, contents_only=False):
    """Remove `path` (or what is inside it), making read-only directories writable on the way."""
    def retry(function, target, _):
        try:
            os.chmod(os.path.dirname(target), 0o700)
            os.chmod(target, 0o700)
            function(target)
        except OSError:
            pass

    try:
        targets = [entry.path for entry in os.scandir(path)] if contents_only else [path]
    except OSError:
        return
    for target in targets:
        if os.path.isdir(target) and not os.path.islink(target):
            shutil.rmtree(target, onerror=retry)
        else:
            try:
                os.unlink(target)
            except OSError:
                pass


def clear_traces(scratch):
    """Remove what a job of our uid may have left where the worker's other jobs can reach it: the entries of the
    scratch directory and of /dev/shm (in the worker's own mount namespace), and its System V IPC objects."""
    for shared in (scratch, "/dev/shm"):
        _wipe(shared, contents_only=True)
    remove_ipc()


def _exited_with(exit_status, code):
    return os.WIFEXITED(exit_status) and os.WEXITSTATUS(exit_status) == code


def serve_one(seq, probe, execute, limits, scratch, namespaced, cpu_clock=False, memory_watch=False, signals=None):
    """Handle the next job on stdin and report it on stdout; return this runner's exit code.

    With `cpu_clock` the wall time only backs up the CPU time: CPU_CLOCK_BACKSTOP times wall_seconds; with
    `memory_watch` the memory of the submission's processes together is held to the memory limit (see _Meter).
    With `signals` (a pipe to the worker; a runner of its own uid, forked while the previous job runs) the child is
    forked and locked down before the job is read (`child.serve`): the runner writes b"p" there once it is,
    and b"s" once it has read its job (from then on the worker may fork the next runner, which reads the next one)."""
    if signals is None:
        try:
            job = read_job(0)
        except (ProtocolError, ValueError, KeyError, TypeError):
            return EXIT_PROTOCOL_ERROR
        if job is None:
            return EXIT_END_OF_INPUT
        submission_id, cases, source = job
        if not namespaced:
            set_subreaper()  # not inherited from the worker: orphans of the child must stay below us
        workdir = tempfile.mkdtemp(prefix="job-", dir=scratch)

        def start(out_w, err_w, res_w, key):
            child.run(source, cases, probe, execute, limits, workdir, out_w, err_w, res_w, key)

        running = _Running.fork(start, limits, namespaced, cpu_clock, memory_watch)
        return _finish(seq, submission_id, running, limits, scratch, namespaced, cpu_clock, workdir)
    set_subreaper()  # orphans of the child stay below us, and their CPU time with them (see _Meter)
    job_r, job_w = os.pipe()

    def prepare(out_w, err_w, res_w, key):
        os.close(job_w)
        child.serve(probe, execute, limits, out_w, err_w, res_w, job_r, key)

    running = _Running.fork(prepare, limits, namespaced, cpu_clock, memory_watch)
    os.close(job_r)
    write_all(signals, b"p")
    try:
        job = read_job(0)
    except (ProtocolError, ValueError, KeyError, TypeError):
        job = EXIT_PROTOCOL_ERROR
    if not isinstance(job, tuple):
        os.close(job_w)  # the child exits (child.EXIT_NO_JOB); the worker clears our uid
        return EXIT_END_OF_INPUT if job is None else job
    write_all(signals, b"s")
    os.close(signals)
    submission_id, cases, source = job
    workdir = tempfile.mkdtemp(prefix="job-", dir=scratch)
    try:
        write_all(job_w, child.encode_handoff(workdir, cases, source))
    except OSError:  # the child died before its job: its exit status says how
        pass
    os.close(job_w)
    running.started = time.monotonic()
    return _finish(seq, submission_id, running, limits, scratch, namespaced, cpu_clock, workdir)


class _Running:
    """A forked child: its pid, the runner's ends of its three pipes, the key of its result frame and its meter."""

    def __init__(self, pid, streams, key, meter):
        self.pid = pid
        self.streams = streams
        self.key = key
        self.meter = meter
        self.started = time.monotonic()

    @classmethod
    def fork(cls, target, limits, namespaced, cpu_clock, memory_watch):
        """Fork a child that calls `target(stdout_w, stderr_w, result_w, key)` (which never returns)."""
        (out_r, out_w), (err_r, err_w), (res_r, res_w) = os.pipe(), os.pipe(), os.pipe()
        key = job_key()  # the child signs its one result frame with it; bytes anything else writes there do not verify
        set_not_dumpable()  # the child (same uid) cannot open our /proc fds (the pool's pipe) or read our memory
        meter = _Meter(limits, namespaced, memory_watch) if cpu_clock else None  # (its baseline: before the fork)
        pid = os.fork()
        if pid == 0:
            try:
                target(out_w, err_w, res_w, key)
            finally:
                os._exit(child.EXIT_SETUP_FAILED)
        for fd in (out_w, err_w, res_w):
            os.close(fd)
        return cls(pid, {out_r: "stdout", err_r: "stderr", res_r: "result"}, key, meter)


def _finish(seq, submission_id, running, limits, scratch, namespaced, cpu_clock, workdir):
    """Supervise the running child to its end, clean up after it, report one line; return EXIT_REPORTED."""
    pid, streams = running.pid, running.streams
    watch = Watch(limits, running.key)
    # The kernel does not apply RLIMIT_NPROC to root: count the processes ourselves then.
    process_limit = limits.max_processes if os.geteuid() == 0 and not namespaced else None
    wall = limits.wall_seconds * (CPU_CLOCK_BACKSTOP if cpu_clock else 1)
    reason, ended = _supervise(pid, streams, watch, running.started + wall, process_limit, running.meter)
    seconds = time.monotonic() - running.started
    if ended is None:
        os.kill(pid, signal.SIGKILL)
        ended = os.wait4(pid, 0)
    _kill_leftovers(pid, namespaced)
    _drain(streams, watch)
    for fd in streams:
        os.close(fd)
    # Everything the submission left goes before its report (files, System V IPC objects): once the pool has it, the
    # next job may start, in a runner of another uid that already exists (`signals`).
    _wipe(workdir)
    if namespaced:
        clear_traces(scratch)
    _, exit_status, usage = ended
    forged = watch.forgery(exited=os.WIFEXITED(exit_status))
    result, raw_result = watch.decoded_result()
    stderr = watch.stderr.text()
    outcome = status.classify(
        exit_status=exit_status, timed_out=reason == "timeout", output_exceeded=watch.output_exceeded,
        cpu_seconds=usage.ru_utime + usage.ru_stime, limits=limits, result=result, stderr=stderr,
    )
    if reason == "processes":
        outcome, stderr = status.CRASHED, stderr + PROCESS_LIMIT_NOTE.format(limit=limits.max_processes)
    elif reason == "memory":
        outcome = status.MEMORY
    elif os.WIFEXITED(exit_status) and os.WEXITSTATUS(exit_status) == child.EXIT_SETUP_FAILED:
        outcome = status.CRASHED  # the sandbox could not prepare the child: not the student's doing
    elif outcome == status.NO_RESULT and (watch.result_invalid or _exited_with(exit_status, child.EXIT_ENCODE_FAILED)):
        outcome = status.INVALID_RESULT
    if forged:  # whatever the forged bytes claimed is dropped; the run scores 0 with the evidence
        outcome, raw_result = status.TAMPERED, encode_line({"traces": {}, "tampered": [forged]}).rstrip(b"\n")
    line = encode_line({
        "seq": seq, "id": submission_id, "status": outcome,
        "stdout": watch.stdout.text(), "stderr": stderr, "seconds": round(seconds, 4),
    })
    write_all(1, line[:-2] + b',"result":' + raw_result + b"}\n")  # the validated JSON, spliced in unchanged
    return EXIT_REPORTED
