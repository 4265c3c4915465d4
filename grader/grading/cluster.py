"""`grade --cluster ADDRESS`: a batch on a Dask distributed cluster.

The instructor's machine reads each submission's bytes just in time and sends them, a few per task, to the
cluster; every Dask worker grades with warm sandbox pools of its own (one single-slot pool per worker thread,
kept between tasks and batches by a WorkerPlugin: `--nthreads N` grades N submissions at a time), judges
outside the sandbox as a local run does, and sends back the verdicts. Results, gradebook, CSV and pages are written here, by the same code as a local run.
Dask reschedules the tasks of a worker that dies; a student whose result came twice is written once.
"""
import math
import os
import queue
import tempfile
import threading
import uuid
from contextlib import contextmanager
from pathlib import Path, PurePosixPath

from distributed import WorkerPlugin

from grader.checks.loading import SubmissionError, max_bytes, read_source

PLUGIN = "grader-sandbox-pools"
CONNECT_SECONDS = 10.0  # to reach the scheduler
WORKERS_SECONDS = 60.0  # for a first worker to join
MAX_CHUNK = 8  # submissions per task: few enough that a batch spreads over every worker and a lost task is cheap
TASKS_PER_THREAD = 4  # tasks per worker thread a batch is cut into, at least (when it has that many submissions)
START_SECONDS = 300.0  # a fresh worker's first task: import torch, load the references, start a sandbox
GRACE_SECONDS = 30.0


class ClusterError(RuntimeError):
    """The cluster cannot grade this batch (the message is Korean, for the instructor)."""


# ---------------------------------------------------------------------------------------------- instructor side


class Cluster:
    """A connection to a Dask scheduler that grades one chapter's submissions; use as a context manager."""

    def __init__(self, address, number, timeout=None, limits=None, trusted=False):
        """Connect (raise ClusterError when the scheduler cannot be reached or has no worker). `trusted` reaches every
        worker's sandbox pool, as `grade --trusted` does on one machine."""
        from distributed import Client

        self.address, self.number, self.timeout, self.trusted = address, number, timeout, trusted
        self.wall_seconds = limits.wall_seconds if limits is not None else 60.0
        try:
            self.client = Client(address, timeout=CONNECT_SECONDS, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as error:
            raise ClusterError(f"Dask 스케줄러 {address}에 연결할 수 없습니다 ({type(error).__name__}: {error}). "
                               "주소를 확인하고 `dask scheduler`가 실행 중인지 확인하세요.") from None
        try:
            self.client.wait_for_workers(1, timeout=WORKERS_SECONDS)
        except (OSError, TimeoutError) as error:
            self.close()
            raise ClusterError(f"Dask 스케줄러 {address}에 {WORKERS_SECONDS:.0f}초 안에 연결된 워커가 없습니다 "
                               f"({type(error).__name__}). 각 채점 기계에서 `dask worker {address}`를 실행하세요.") from None
        try:
            self.client.register_plugin(SandboxPools(), name=PLUGIN)  # idempotent: a warm plugin stays
        except Exception as error:  # noqa: BLE001 -- e.g. a worker without this repository installed
            self.close()
            raise ClusterError(f"Dask 워커가 채점기를 불러오지 못했습니다 ({type(error).__name__}: {error}). "
                               "모든 워커에 같은 커밋의 이 저장소를 설치하세요 (README).") from None

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def close(self):
        self.client.close()

    def threads(self):
        """Worker threads in the cluster now (each grades one submission at a time)."""
        workers = self.client.scheduler_info(n_workers=-1)["workers"]
        return max(1, sum(worker.get("nthreads", 1) for worker in workers.values()))

    def chunk_size(self, count):
        """Submissions per task for a batch of `count`."""
        return max(1, min(MAX_CHUNK, math.ceil(count / (TASKS_PER_THREAD * self.threads()))))

    def stall_seconds(self, size):
        """How long the batch may go without any task finishing before it is given up."""
        return START_SECONDS + size * (self.wall_seconds + GRACE_SECONDS)

    def grade(self, submissions):
        """Yield (submission, verdicts, run or None) once per submission, in the order the tasks finish."""
        submissions = list(submissions)
        by_id = {submission.submission_id: submission for submission in submissions}
        size = self.chunk_size(len(submissions))
        chunks = iter([submissions[i:i + size] for i in range(0, len(submissions), size)])
        batch = uuid.uuid4().hex[:12]
        room = 2 * self.threads() + 2  # tasks in flight: every thread busy, the next ones already on their way
        finished = queue.Queue()  # futures, as they finish (Dask calls back from its own thread)
        in_flight, done = 0, set()
        for chunk in chunks:
            self._submit(chunk, batch, finished)
            in_flight += 1
            if in_flight == room:
                break
        while in_flight:
            try:
                future = finished.get(timeout=self.stall_seconds(size))
            except queue.Empty:
                raise ClusterError(f"클러스터에서 {self.stall_seconds(size):.0f}초 동안 끝난 채점이 없어 멈췄습니다. "
                                   "워커가 살아 있는지 확인하세요.") from None
            in_flight -= 1
            for submission_id, verdicts, run in _result(future, self.stall_seconds(size)):
                if submission_id not in done:  # a task run twice (its worker died after answering) counts once
                    done.add(submission_id)
                    yield by_id[submission_id], verdicts, run
            future.release()
            chunk = next(chunks, None)
            if chunk is not None:
                self._submit(chunk, batch, finished)
                in_flight += 1

    def _submit(self, chunk, batch, finished):
        """Send one task: the chunk's submissions as bytes, read now (just in time, as a local run reads them)."""
        items = [(submission.submission_id, payload(submission)) for submission in chunk]
        key = f"grade-{self.number}-{batch}-{chunk[0].submission_id}"
        future = self.client.submit(grade_chunk, self.number, self.timeout, items, self.trusted, key=key,
                                    pure=False)
        future.add_done_callback(finished.put)


def _result(future, seconds):
    """A finished task's results (fetched within `seconds`: lost with its worker, it is computed again);
    its error as a ClusterError (a sandbox that cannot work as SandboxError)."""
    from distributed import KilledWorker

    from grader.sandbox import SandboxError

    try:
        return future.result(timeout=seconds)
    except SandboxError:
        raise
    except KilledWorker as error:
        raise ClusterError(f"채점 작업을 맡은 Dask 워커가 거듭 종료되었습니다: {error}") from None
    except Exception as error:  # noqa: BLE001 -- whatever a remote task raised, said once here
        raise ClusterError(f"클러스터의 채점 작업이 실패했습니다 ({type(error).__name__}: {error}).") from None


def payload(submission):
    """What travels for one submission: ("file", suffix, bytes), or ("problem", Korean reason) when it cannot
    be read here (the same reasons a local run gives)."""
    if submission._problem:
        return "problem", submission._problem
    candidate = submission._candidate
    if candidate.problem:
        return "problem", candidate.problem
    try:
        if candidate.path is not None:
            return "file", candidate.path.suffix, _file_bytes(candidate.path)
        suffix = PurePosixPath(candidate.file_name).suffix.lower()
        handle, copy = tempfile.mkstemp(suffix=suffix, dir=submission._workdir)
        os.close(handle)
        try:
            candidate.entry.copy_to(copy)
            return "file", suffix, Path(copy).read_bytes()
        finally:
            Path(copy).unlink(missing_ok=True)
    except SubmissionError as error:
        return "problem", str(error)
    except OSError as error:
        return "problem", f"제출 파일을 읽을 수 없습니다 ({type(error).__name__})."


def _file_bytes(path):
    """A submitted file's bytes; a missing or oversized one raises read_source's SubmissionError (never read)."""
    try:
        size = path.stat().st_size
    except OSError:
        size = None
    if size is None or size > max_bytes(path):
        read_source(path)  # raises the local run's message
    return path.read_bytes()


# ---------------------------------------------------------------------------------------------- worker side


class _Received:
    """A submission as a worker receives it; `read` gives its source as Submission.read does."""

    def __init__(self, submission_id, payload):
        self.submission_id = submission_id
        self.payload = payload

    def read(self):
        if self.payload[0] == "problem":
            raise SubmissionError(self.payload[1])
        _, suffix, data = self.payload
        with tempfile.TemporaryDirectory(prefix="grader-received-") as folder:
            path = Path(folder) / f"submission{suffix}"
            path.write_bytes(data)
            return read_source(path)


class _Grader:
    """One warm single-slot sandbox pool and the chapter's judge, on a Dask worker."""

    def __init__(self, number, timeout, trusted=False):
        from grader.checks import chapter, probe_module_name
        from grader.sandbox import SandboxPool
        from grader.sandbox.limits import for_budget

        from .judging import Judge

        module = chapter(number)
        limits = for_budget(module.budget, timeout)
        self.judge = Judge(module, limits)
        self.pool = SandboxPool(probe_module=probe_module_name(number), jobs=1, limits=limits, trusted=trusted)
        self.pool.start()

    def grade(self, items):
        from .batch import grade

        received = [_Received(submission_id, data) for submission_id, data in items]
        return [(submission.submission_id, verdicts, run) for submission, verdicts, run in
                grade(received, self.pool, self.judge)]

    def close(self):
        self.pool.close()


class SandboxPools(WorkerPlugin):
    """WorkerPlugin: the warm graders of one Dask worker, one per worker thread, kept between tasks and batches.

    A grader belongs to the thread that started it: bubblewrap's --die-with-parent follows the starting thread."""

    name = PLUGIN
    idempotent = True  # registering again (the next batch) keeps the warm graders

    def setup(self, worker=None):
        self._lock = threading.Lock()
        self._graders = {}  # thread id -> ((chapter, timeout, trusted), _Grader)

    def teardown(self, worker=None):
        with self._lock:
            graders, self._graders = list(self._graders.values()), {}
        for _, grader in graders:
            grader.close()

    @contextmanager
    def grader(self, number, timeout, trusted=False):
        """This thread's grader for the chapter; one for another chapter (or timeout, or trust) is replaced."""
        key, thread = (number, timeout, trusted), threading.get_ident()
        with self._lock:
            held = self._graders.pop(thread, None)
        if held is not None and held[0] != key:
            held[1].close()
            held = None
        grader = held[1] if held is not None else _Grader(number, timeout, trusted)
        try:
            yield grader
        except BaseException:
            grader.close()
            raise
        with self._lock:
            self._graders[thread] = (key, grader)


def grade_chunk(number, timeout, items, trusted=False):
    """Dask task: grade [(submission id, payload)] on this worker; [(submission id, verdicts, run or None)]."""
    from distributed import get_worker

    plugin = get_worker().plugins[PLUGIN]  # registered by Cluster before any task (Dask sets it up on new workers)
    with plugin.grader(number, timeout, trusted) as grader:
        return grader.grade(items)
