"""A pool of warm sandboxed workers: grade many submissions in parallel and stream the results."""
import itertools
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, replace

from . import bwrap, cgroups, confine, network, status
from .capture import Tail
from .limits import CPU_CLOCK_BACKSTOP, Limits
from .privileges import sandbox_uid
from .processes import descendants, is_zombie, kill_tree
from .protocol import encode_job
from .runner import bounded
from .staging import environment, stage

BUBBLEWRAP = "bubblewrap"
SUBPROCESS = "subprocess"
CONTAINED = "contained"  # no bubblewrap: root's namespaces, a hidden host and an unprivileged uid (confine.py)
REFUSAL = (
    "학생 코드를 격리할 수 없어 채점하지 않습니다: bubblewrap(bwrap)이 없거나 동작하지 않고, 루트 권한으로 네임스페이스를 "
    "만들 수도 없습니다. 해결 방법: (1) bubblewrap을 설치하세요 (Debian/Ubuntu: apt-get install bubblewrap, "
    "Fedora: dnf install bubblewrap). (2) Gradescope 또는 컨테이너 이미지 안에서 채점하세요 (macOS·Windows에서는 "
    "Docker로; README의 'Grading on macOS and Windows' 참고). 믿을 수 있는 코드만 격리 없이 채점하려면 --trusted를 주세요.\n"
    "Refusing to grade: student code cannot be contained here (bubblewrap is missing or does not work, and this "
    "process cannot create namespaces as root). Ways out: (1) install bubblewrap; (2) grade inside the Gradescope or "
    "container image (on macOS and Windows, with Docker; see README, 'Grading on macOS and Windows'). For code you "
    "trust, --trusted grades without isolation."
)
STARTUP_SECONDS = 120.0  # importing torch on a loaded 2-core machine can take far longer than the usual 2 s
GRACE_SECONDS = 10.0  # beyond wall_seconds, before the pool gives up on a worker that does not answer
MAX_START_FAILURES = 3
_READ = 1 << 20
_warned = False
_END = object()
_spawned = itertools.count()


@dataclass(frozen=True)
class RunResult:
    """How one submission's run ended; `result` is `execute`'s plain-data dict (or None)."""

    submission_id: str
    status: str
    result: dict | None
    stdout: str
    stderr: str
    seconds: float
    sandbox: str
    isolation: str = ""  # cgroups.CGROUP (memory and processes in a group per submission) or cgroups.CPU_TIME


class SandboxError(RuntimeError):
    """The sandbox itself cannot work (never a student's fault)."""


def _warn_once(reason):
    """Say once per process, on stderr, that submissions run without bubblewrap."""
    global _warned
    if not _warned:
        _warned = True
        print(f"grader.sandbox: WARNING: {reason}; running submissions as plain subprocesses with rlimits "
              "and process-group kill only (no file-system, network or pid isolation).", file=sys.stderr, flush=True)


@dataclass
class _Job:
    """The submission a worker is running, and when the pool stops waiting for it."""

    submission_id: str
    seq: int
    sent: float
    deadline: float

    def elapsed(self):
        """Seconds since the job was sent."""
        return round(time.monotonic() - self.sent, 4)


class _Worker:
    """One warm worker process and the job it is running, seen from the pool.

    Either a process of its own (`process`, a Popen) or a child of the pool's zygote, known by the
    pipes the pool gave it and, once it is ready, by its host pid (`host_pid`).
    """

    def __init__(self, stdin, stdout, stderr, startup_deadline, process=None, zygote=None):
        self.process = process
        self.zygote = zygote
        self.host_pid = process.pid if process is not None else None
        self.stdin, self.stdout, self.stderr = stdin, stdout, stderr
        for fd in (self.stdin, self.stdout, self.stderr):
            os.set_blocking(fd, False)
        self.startup_deadline = startup_deadline
        self.ready = False
        self.startup_seconds = None
        self.stderr_open = True
        self.closed = False
        self.lines = bytearray()
        self.errors = Tail(8192)
        self.pending = memoryview(b"")
        self.seq = 0
        self.job = None
        self.group = None  # the cgroups.JobGroup the worker's tree was last moved into

    @classmethod
    def of_process(cls, process, startup_deadline):
        """A worker that is a process of its own."""
        return cls(*(s.fileno() for s in (process.stdin, process.stdout, process.stderr)), startup_deadline, process=process)

    def deadline(self):
        """When the pool gives up on this worker (its job's deadline, or its start-up deadline), if any."""
        return self.job.deadline if self.job else (None if self.ready else self.startup_deadline)

    def dead(self):
        """Whether the worker has ended (as far as the pool can tell without reading its pipes)."""
        if self.process is not None:
            return self.process.poll() is not None
        if self.host_pid is not None:
            return not _living(self.host_pid)
        return not self.zygote.alive()

    def pids(self):
        """Host pids of the worker and everything below it."""
        if self.host_pid is None or (self.process is None and not _living(self.host_pid)):
            return []
        return [self.host_pid, *descendants(self.host_pid)]

    def kill(self):
        """Kill the worker and every process below it, then release its pipes."""
        if self.process is not None:
            kill_tree(self.process.pid, include_root=True)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        elif self.host_pid is not None and _living(self.host_pid):
            kill_tree(self.host_pid, include_root=True)  # the zygote reaps it
        self.read_errors()
        if self.process is not None:
            for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
                try:
                    stream.close()
                except OSError:
                    pass
        elif not self.closed:
            for fd in (self.stdin, self.stdout, self.stderr):
                try:
                    os.close(fd)
                except OSError:
                    pass
        self.closed = True

    def read_errors(self):
        """Keep the end of what the worker wrote on stderr (for SandboxError messages)."""
        while self.stderr_open and not self.closed:
            try:
                chunk = os.read(self.stderr, _READ)
            except (BlockingIOError, ValueError, OSError):
                return
            if not chunk:
                self.stderr_open = False
            self.errors.add(chunk)


_PF_EXITING = 0x4


def _living(pid):
    """Whether host process `pid` exists and is not dying: no zombie, no SIGKILL pending, not exiting.

    (A worker with torch loaded takes milliseconds to exit after SIGKILL; a job sent meanwhile would be lost.)
    """
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
        with open(f"/proc/{pid}/status", "rb") as status:
            lines = dict(line.split(b":", 1) for line in status if b":" in line)
        if fields[0] in (b"Z", b"X") or int(fields[6]) & _PF_EXITING:
            return False
        pending = int(lines[b"SigPnd"].strip(), 16) | int(lines[b"ShdPnd"].strip(), 16)
    except (OSError, KeyError, ValueError, IndexError):
        return False
    return not pending & (1 << (signal.SIGKILL - 1))


def _host_pid(root, inner_pid):
    """The host pid of the descendant of `root` that is `inner_pid` in its own (innermost) pid namespace."""
    for pid in descendants(root):
        try:
            with open(f"/proc/{pid}/status", "rb") as status:
                for line in status:
                    if line.startswith(b"NSpid:"):
                        if int(line.split()[-1]) == inner_pid:
                            return pid
                        break
        except (OSError, ValueError):
            continue
    return None


class _Zygote:
    """The one bubblewrap sandbox of a pool: pid 1 inside imports torch once and forks the workers."""

    def __init__(self, process, control):
        self.process = process
        self.control = control
        self.stderr = process.stderr.fileno()
        os.set_blocking(self.stderr, False)
        self.stderr_open = True
        self.errors = Tail(8192)

    def alive(self):
        """Whether bwrap (and so the zygote) still runs."""
        return self.process.poll() is None

    def spawn(self, uid):
        """Ask the zygote for a worker running jobs as `uid`; return the pool's ends (stdin, stdout, stderr)."""
        (in_r, in_w), (out_r, out_w), (err_r, err_w) = os.pipe(), os.pipe(), os.pipe()
        try:
            socket.send_fds(self.control, [json.dumps({"uid": uid}).encode()], [in_r, out_w, err_w])
        except BaseException:
            for fd in (in_w, out_r, err_r):
                os.close(fd)
            raise
        finally:
            for fd in (in_r, out_w, err_w):
                os.close(fd)
        return in_w, out_r, err_r

    def read_errors(self):
        """Keep the end of what the zygote wrote on stderr."""
        while self.stderr_open:
            try:
                chunk = os.read(self.stderr, _READ)
            except (BlockingIOError, ValueError, OSError):
                return
            if not chunk:
                self.stderr_open = False
            self.errors.add(chunk)

    def kill(self):
        """Kill the whole sandbox (bwrap, the zygote and all its workers) and release the pipes."""
        kill_tree(self.process.pid, include_root=True)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        self.read_errors()
        self.control.close()
        self.process.stderr.close()


class SandboxPool:
    """`jobs` warm workers running submissions of one chapter probe; use as a context manager."""

    def __init__(self, probe_module: str, jobs: int = 2, limits: Limits = Limits(), use_bwrap: bool | None = None,
                 run_as: int | None = None, trusted: bool = False):
        """`run_as` (as root, subprocess fallback only): the unprivileged uid the workers and the student's code
        run as, each worker in a network namespace of its own where `unshare --net` works (see `network.py`).
        `trusted`: where neither bubblewrap nor `confine.py` can contain the code, run it as plain subprocesses
        instead of refusing (the instructor's own code; never students')."""
        if not isinstance(jobs, int) or jobs < 1:
            raise ValueError("jobs must be a positive integer")
        if not isinstance(limits, Limits):
            raise TypeError("limits must be a Limits")
        self.probe_module = probe_module
        self.jobs = jobs
        self.limits = limits
        self.use_bwrap = use_bwrap
        self.run_as = run_as
        self.trusted = trusted
        self.sandbox = None
        self._workdir = None
        self._code = None
        self._workers = []
        self._zygote = None
        self._uids = []
        self._start_failures = 0
        self._running = False
        self._groups = None
        self._job_groups = {}  # submission id -> the JobGroup it runs in
        self._live_groups = []  # every JobGroup not yet removed
        self.isolation = None

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc_info):
        self.close()

    def start(self):
        """Decide on the sandbox, stage the code and launch the workers (they warm up in the background)."""
        if self.sandbox is not None:
            return
        if self.use_bwrap is None:
            self.sandbox = self._default_sandbox()
        elif self.use_bwrap:
            if not bwrap.bubblewrap_available():
                raise SandboxError("use_bwrap=True but bubblewrap is missing or does not work here")
            self.sandbox = BUBBLEWRAP
        else:
            self.sandbox = SUBPROCESS
            _warn_once("use_bwrap=False")
        try:
            self._groups = cgroups.Groups.open(self.limits)
            self.isolation = cgroups.CGROUP if self._groups else cgroups.CPU_TIME
            self._workdir = tempfile.mkdtemp(prefix="grader-sandbox-")
            self._code = stage(os.path.join(self._workdir, "code"), self.probe_module)
            if self._shared():
                self._uids = [sandbox_uid(next(_spawned)) for _ in range(self.jobs)]
            self._workers = [self._spawn(slot) for slot in range(self.jobs)]
        except BaseException:
            self.close()
            raise

    def _default_sandbox(self):
        """Bubblewrap where it works; else root's namespaces and another uid (`confine.py`); else plain subprocesses
        only for code the caller trusts, or (Gradescope) with `run_as`; else refuse with the ways out."""
        if bwrap.bubblewrap_available():
            return BUBBLEWRAP
        if self.run_as is None and not self.trusted:
            if confine.available():
                return CONTAINED
            raise SandboxError(REFUSAL)
        _warn_once("bubblewrap (bwrap) is missing or does not work here")
        return SUBPROCESS

    def close(self):
        """Kill every worker and everything they started; remove the staged code."""
        for slot in range(len(self._workers)):
            worker, self._workers[slot] = self._workers[slot], None
            if worker is not None:
                worker.kill()
        self._workers = []
        if self._zygote is not None:
            self._zygote.kill()
            self._zygote = None
        self._close_groups()
        if self._workdir is not None:
            shutil.rmtree(self._workdir, ignore_errors=True)
            self._workdir = None
        self.sandbox = None

    def processes(self):
        """Host pids of the worker processes and of everything running below them."""
        pids = []
        for worker in self._workers:
            if worker is not None:
                pids += worker.pids()
        if self._zygote is not None and self._zygote.alive():
            root = self._zygote.process.pid
            pids += [pid for pid in [root, *descendants(root)] if pid not in pids]
        return [pid for pid in pids if not is_zombie(pid)]  # an exited worker the zygote has yet to reap

    def _shared(self):
        """Whether all workers are forked from one zygote in one bubblewrap sandbox (as root only)."""
        return self.sandbox == BUBBLEWRAP and os.geteuid() == 0

    def _start_zygote(self):
        """Launch the pool's bubblewrap sandbox with the zygote as its pid 1 (it warms up in the background)."""
        argv = [sys.executable, "-s", "-P", "-B", "-m", "grader.sandbox.worker", self.probe_module,
                "--limits", json.dumps(self.limits.to_json()), "--scratch", bwrap.SCRATCH, "--zygote",
                *self._clock_argument()]
        command = bwrap.command(argv, self._code, self.limits, extra_capabilities=("CAP_KILL", "CAP_SYS_ADMIN"))
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
        return _Zygote(process, ours)

    def _spawn_shared(self, slot):
        """Have the zygote fork the worker of `slot` (restarting the sandbox if it is gone)."""
        for attempt in range(2):
            if self._zygote is not None and not self._zygote.alive():
                self._zygote.kill()
                self._zygote = None
            if self._zygote is None:
                self._zygote = self._start_zygote()
            try:
                pipes = self._zygote.spawn(self._uids[slot])
            except OSError:
                if attempt:
                    raise
                self._zygote.kill()
                self._zygote = None
                continue
            return _Worker(*pipes, time.monotonic() + STARTUP_SECONDS, zygote=self._zygote)

    def _spawn(self, slot):
        """Launch the worker of `slot`, confined by bubblewrap or as a plain subprocess."""
        if self._shared():
            return self._spawn_shared(slot)
        argv = [sys.executable, "-s", "-P", "-B", "-m", "grader.sandbox.worker", self.probe_module,
                "--limits", json.dumps(self.limits.to_json())]
        if self.sandbox == CONTAINED:
            command, env, cwd = *self._contained(argv, slot), "/"
        elif self.sandbox == BUBBLEWRAP:
            argv += ["--scratch", bwrap.SCRATCH, "--pid-namespace", *self._clock_argument()]
            if os.geteuid() == 0:
                argv += ["--uid", str(sandbox_uid(next(_spawned)))]
            command, env, cwd = bwrap.command(argv, self._code, self.limits), {"PATH": os.defpath}, "/"
        else:
            scratch = os.path.join(self._workdir, f"scratch-{slot}")
            os.makedirs(scratch, exist_ok=True)
            argv += ["--scratch", scratch, "--parent-pid", str(os.getpid()), *self._clock_argument()]
            command, env, cwd = argv, environment(self._code, scratch, self.limits.threads), scratch
            if self.run_as is not None:
                command = self._as_user(command, scratch)
        process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0,
            env=env, cwd=cwd, close_fds=True, start_new_session=True,
        )
        return _Worker.of_process(process, time.monotonic() + STARTUP_SECONDS)

    def _contained(self, argv, slot):
        """(command, environment) of a worker in fresh namespaces that hides the host and drops to a uid of its own."""
        scratch = os.path.join(self._workdir, f"scratch-{slot}")
        os.makedirs(scratch, exist_ok=True)
        os.chmod(self._workdir, 0o711)
        keeps = [*bwrap.python_trees(), str(self._code)]
        command = [*confine.prefix(), *argv, "--scratch", scratch, "--pid-namespace",
                   "--uid", str(sandbox_uid(next(_spawned))), "--confine", json.dumps(keeps), *self._clock_argument()]
        return command, environment(self._code, scratch, self.limits.threads)

    def _as_user(self, argv, scratch):
        """`argv` for a worker that drops to `run_as` at once, with its scratch dir its own and no network if possible."""
        os.chmod(self._workdir, 0o711)  # the staged code (0755) must be reachable; nothing else there is listable
        os.chown(scratch, self.run_as, self.run_as)
        os.chmod(scratch, 0o700)
        return [*network.cut_prefix(), *argv, "--uid", str(self.run_as)]

    def run(self, items):
        """Grade each (submission id, source, case names); yield a RunResult for each as soon as it is done."""
        if self.sandbox is None:
            raise SandboxError("start the pool first (use it as a context manager)")
        if self._running:
            raise SandboxError("this pool is already running a batch")
        self._running = True
        items = iter(items)
        exhausted = False
        try:
            while True:
                for slot, worker in enumerate(self._workers):
                    if worker is not None and worker.job is None and worker.dead():
                        self._retire(slot)  # died while idle (e.g. between batches): replace it, lose nothing
                        worker = None
                    if worker is None and not exhausted:
                        self._workers[slot] = self._spawn(slot)
                for worker in self._workers:
                    if worker is not None and worker.ready and worker.job is None and not exhausted:
                        item = next(items, _END)
                        if item is _END:
                            exhausted = True
                        else:
                            self._send(worker, item)
                if exhausted and not any(worker is not None and worker.job for worker in self._workers):
                    return
                yield from map(self._accounted, self._poll())
                yield from map(self._accounted, self._expire())
        finally:
            self._running = False
            for slot, worker in enumerate(self._workers):
                if worker is not None and worker.job is not None:  # abandoned mid-batch: its answer would confuse the next one
                    self._retire(slot)

    def _send(self, worker, item):
        """Give `item` to an idle worker."""
        submission_id, source, cases = item
        if not isinstance(submission_id, str) or not isinstance(source, str):
            raise TypeError("each item must be (submission id: str, source: str, case names: list[str])")
        cases = list(cases)
        if not all(isinstance(name, str) for name in cases):
            raise TypeError("case names must be strings")
        worker.seq += 1
        now = time.monotonic()
        worker.job = _Job(submission_id, worker.seq, now, now + self.wall_limit() + GRACE_SECONDS)
        self._enter_group(worker, submission_id)
        worker.pending = memoryview(encode_job(submission_id, source, cases))
        self._write(worker)

    def wall_limit(self):
        """The longest a runner lets a submission run: timeouts count its CPU time, the wall time only backs them up."""
        return self.limits.wall_seconds * CPU_CLOCK_BACKSTOP

    def _clock_argument(self):
        """The worker's --cpu-clock flag: timeouts count the submission's own CPU time (see cgroups.py for why)."""
        return ["--cpu-clock"]

    def _enter_group(self, worker, submission_id):
        """Move the idle worker's tree into a fresh control group for `submission_id` (where cgroups are used)."""
        if self._groups is None:
            return
        old, worker.group = worker.group, self._groups.job()
        self._live_groups.append(worker.group)
        outer = self.sandbox == CONTAINED or (self.sandbox == BUBBLEWRAP and not self._shared())  # unshare or bwrap
        worker.group.settle(worker.pids, 3 if outer else 2)
        self._job_groups[submission_id] = worker.group
        if old is not None:
            self._remove_group(old, refuge=worker.group)

    def _accounted(self, result):
        """`result` saying how the submission was isolated; a kill by its group's memory limit is status memory."""
        result = replace(result, isolation=self.isolation)
        group = self._job_groups.pop(result.submission_id, None)
        if group is None:
            return result
        if result.status != status.OK and group.out_of_memory():
            result = replace(result, status=status.MEMORY)
        if not any(worker is not None and worker.group is group for worker in self._workers):
            self._remove_group(group, timeout=1)
        return result

    def _remove_group(self, group, refuge=None, timeout=5.0):
        """Delete a job group, moving whatever is still in it to `refuge` (default: the pool's group)."""
        if group.remove(refuge or self._groups.pool, timeout=timeout):
            self._live_groups = [live for live in self._live_groups if live is not group]

    def _close_groups(self):
        """Delete every job group and the pool's own (their processes are dead by now)."""
        if self._groups is None:
            return
        for group in list(self._live_groups):
            self._remove_group(group)
        self._groups.close()
        self._groups, self._job_groups, self._live_groups = None, {}, []

    def _write(self, worker):
        """Write what the worker's stdin accepts now; False if the pipe is broken."""
        while worker.pending:
            try:
                written = os.write(worker.stdin, worker.pending)
            except BlockingIOError:
                return True
            except OSError:
                return False
            worker.pending = worker.pending[written:]
        return True

    def _poll(self):
        """Wait (at most a second, or to the next deadline) for worker output; yield finished results."""
        deadlines = [w.deadline() for w in self._workers if w is not None and w.deadline() is not None]
        timeout = min([1.0, *(d - time.monotonic() for d in deadlines)])
        poller, owners = select.poll(), {}
        for slot, worker in enumerate(self._workers):
            if worker is None:
                continue
            poller.register(worker.stdout, select.POLLIN)
            owners[worker.stdout] = slot
            if worker.stderr_open:
                poller.register(worker.stderr, select.POLLIN)
                owners[worker.stderr] = slot
            if worker.pending:
                poller.register(worker.stdin, select.POLLOUT)
                owners[worker.stdin] = slot
        for fd, _ in poller.poll(max(0, int(timeout * 1000))):
            slot = owners[fd]
            worker = self._workers[slot]
            if worker is None:
                continue
            if fd == worker.stderr:
                worker.read_errors()
            elif fd == worker.stdin:
                if not self._write(worker):
                    yield from self._retire(slot)
            else:
                yield from self._read(slot, worker)

    def _read(self, slot, worker):
        """Read a worker's stdout and handle each complete line; yield finished results."""
        try:
            chunk = os.read(worker.stdout, _READ)
        except BlockingIOError:
            return
        if not chunk:
            yield from self._retire(slot)
            return
        searched = len(worker.lines)  # a result line can be megabytes long: do not rescan it per chunk
        worker.lines += chunk
        while (end := worker.lines.find(b"\n", searched)) >= 0:
            line = bytes(worker.lines[:end])
            del worker.lines[: end + 1]
            searched = 0
            result = self._message(worker, line)
            if result is False:
                yield from self._retire(slot)
                return
            if result is not None:
                yield result
        if len(worker.lines) > 2 * self.limits.result_bytes + 16 * self.limits.output_bytes + (1 << 20):
            yield from self._retire(slot)

    def _message(self, worker, line):
        """Apply one line from a worker: None (readiness), a RunResult, or False if the worker misbehaves."""
        try:
            message = json.loads(line)
            if isinstance(message, dict) and message.get("result") is not None:
                message["result"] = bounded(message["result"])  # the runner checked it; a forged line is refused
        except (ValueError, RecursionError, MemoryError):
            return False
        if not isinstance(message, dict):
            return False
        if message.get("ready") is True and not worker.ready:
            if worker.process is None:
                inner = message.get("pid")
                worker.host_pid = _host_pid(worker.zygote.process.pid, inner) if isinstance(inner, int) else None
                if worker.host_pid is None:
                    return False
            worker.ready = True
            worker.startup_seconds = message.get("seconds")
            self._start_failures = 0
            return None
        job = worker.job
        fields_ok = (
            message.get("status") in status.ALL
            and (message.get("result") is None or isinstance(message.get("result"), dict))
            and isinstance(message.get("stdout"), str) and isinstance(message.get("stderr"), str)
            and isinstance(message.get("seconds"), (int, float))
        )
        if job is None or message.get("seq") != job.seq or not fields_ok:
            return False
        worker.job = None
        return RunResult(job.submission_id, message["status"], message["result"], message["stdout"],
                         message["stderr"], float(message["seconds"]), self.sandbox)

    def _expire(self):
        """Retire workers past their deadline; yield their jobs as crashed."""
        now = time.monotonic()
        for slot, worker in enumerate(self._workers):
            if worker is not None and worker.deadline() is not None and now > worker.deadline():
                yield from self._retire(slot)

    def _retire(self, slot):
        """Kill the worker in `slot` (it is restarted when needed); its job, if any, ends as "crashed"."""
        worker, self._workers[slot] = self._workers[slot], None
        worker.kill()
        results = []
        if worker.job is not None:
            job = worker.job
            results.append(RunResult(job.submission_id, status.CRASHED, None, "", "", job.elapsed(), self.sandbox))
        if not worker.ready:
            self._start_failures += 1
            if self._start_failures >= MAX_START_FAILURES:
                errors = worker.errors.text()
                if worker.zygote is not None:
                    worker.zygote.read_errors()
                    errors += worker.zygote.errors.text()
                raise SandboxError(f"a sandbox worker failed to start {self._start_failures} times in a row; "
                                   f"its stderr ended with:\n{errors}")
        return results
