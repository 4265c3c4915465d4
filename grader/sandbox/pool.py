"""The scheduler: keep `jobs` warm workers busy with submissions and stream each one's result as it ends.

It owns no way of confining code: the launcher that `modes.choose` picks (`launch_*.py`) starts the workers; this
module only sends jobs, reads answers, enforces deadlines, replaces dead workers and has each job's control group
accounted (`accounting.py`). A worker's answer is untrusted: a malformed line, a wrong sequence number or an
oversized result retires it.
"""
import os
import select
import shutil
import tempfile
import time

from . import modes, status
from .accounting import Accounting
from .bounds import decode_answer, is_report
from .handles import READ_BYTES, Job
from .launch import SandboxError
from .limits import CPU_CLOCK_BACKSTOP, Limits
from .processes import is_zombie
from .protocol import checked_item, encode_job
from .staging import stage
from .status import RunResult

GRACE_SECONDS = 10.0  # beyond wall_seconds, before the pool gives up on a worker that does not answer
MAX_START_FAILURES = 3
_END = object()

__all__ = ["RunResult", "SandboxError", "SandboxPool"]


class SandboxPool:
    """`jobs` warm workers running submissions of one chapter probe; use as a context manager."""

    def __init__(self, probe_module: str, jobs: int = 2, limits: Limits = Limits(), use_bwrap: bool | None = None,
                 run_as: int | None = None, trusted: bool = False):
        """`run_as` (as root, subprocess fallback only): the unprivileged uid the workers and the student's code
        run as, each worker in a network namespace of its own where `unshare --net` works (see `launch_plain.py`).
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
        self._launcher = None
        self._workdir = None
        self._workers = []
        self._start_failures = 0
        self._running = False
        self._accounting = None
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
        launcher = modes.choose(self.use_bwrap, self.run_as, self.trusted)
        self.sandbox = launcher.sandbox
        try:
            self._accounting = Accounting(self.limits)
            self.isolation = self._accounting.isolation
            self._workdir = tempfile.mkdtemp(prefix="grader-sandbox-")
            code = stage(os.path.join(self._workdir, "code"), self.probe_module)
            self._launcher = launcher(self.probe_module, self.limits, self._workdir, code, self.run_as,
                                      memory_watch=self._accounting.groups is None)
            self._workers = [self._launcher.start(slot) for slot in range(self.jobs)]
        except BaseException:
            self.close()
            raise

    def close(self):
        """Kill every worker and everything they started; remove the staged code."""
        for slot in range(len(self._workers)):
            worker, self._workers[slot] = self._workers[slot], None
            if worker is not None:
                worker.kill()
        self._workers = []
        if self._launcher is not None:
            self._launcher.close()
            self._launcher = None
        if self._accounting is not None:
            self._accounting.close()
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
        if self._launcher is not None:
            pids += [pid for pid in self._launcher.processes() if pid not in pids]
        return [pid for pid in pids if not is_zombie(pid)]  # an exited worker the zygote has yet to reap

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
                exhausted = self._fill(items, exhausted)
                if exhausted and not any(worker is not None and worker.job for worker in self._workers):
                    return
                done = [*map(self._accounted, self._poll()), *map(self._accounted, self._expire())]
                if done:  # the freed workers start their next jobs while the caller judges these results
                    exhausted = self._fill(items, exhausted)
                yield from done
        finally:
            self._running = False
            for slot, worker in enumerate(self._workers):
                if worker is not None and worker.job is not None:  # abandoned mid-batch: its answer would confuse the next one
                    self._retire(slot)

    def _fill(self, items, exhausted):
        """Replace dead workers and give each idle ready one the next item; return whether `items` is exhausted."""
        for slot, worker in enumerate(self._workers):
            if worker is not None and worker.job is None and worker.dead():
                self._retire(slot)  # died while idle (e.g. between batches): replace it, lose nothing
                worker = None
            if worker is None and not exhausted:
                self._workers[slot] = self._launcher.start(slot)
        for worker in self._workers:
            if worker is not None and worker.ready and worker.job is None and not exhausted:
                item = next(items, _END)
                if item is _END:
                    exhausted = True
                else:
                    self._send(worker, item)
        return exhausted

    def _send(self, worker, item):
        """Give `item` to an idle worker."""
        submission_id, source, cases = checked_item(item)
        worker.seq += 1
        now = time.monotonic()
        worker.job = Job(submission_id, worker.seq, now, now + self.wall_limit() + GRACE_SECONDS)
        self._accounting.enter(worker, submission_id, self._launcher.tree_size)
        worker.pending = memoryview(encode_job(submission_id, source, cases))
        worker.flush()
        if self._launcher.runner_parent_is_host:
            self._accounting.move_ahead(worker, self._launcher.forks_ahead)

    def wall_limit(self):
        """The longest a runner lets a submission run: timeouts count its CPU time, the wall time only backs them up."""
        return self.limits.wall_seconds * CPU_CLOCK_BACKSTOP

    def _accounted(self, result):
        """`result` with how it was isolated, and status memory if its control group's limit killed it."""
        return self._accounting.accounted(result, self._workers)

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
                if not worker.flush():
                    yield from self._retire(slot)
            else:
                yield from self._read(slot, worker)

    def _read(self, slot, worker):
        """Read a worker's stdout and handle each complete line; yield finished results."""
        try:
            chunk = worker.read(READ_BYTES)
        except BlockingIOError:
            return
        if not chunk:
            yield from self._retire(slot)
            return
        for line in worker.complete_lines(chunk):
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
        message = decode_answer(line)
        if message is None:
            return False
        if message.get("ready") is True and not worker.ready:
            if not worker.mark_ready(message):
                return False
            self._start_failures = 0
            return None
        job = worker.job
        if job is None or message.get("seq") != job.seq or not is_report(message):
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
                errors = worker.startup_errors()
                raise SandboxError(f"a sandbox worker failed to start {self._start_failures} times in a row; "
                                   f"its stderr ended with:\n{errors}")
        return results
