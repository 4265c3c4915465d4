"""The forked child: lock itself down, run the student's source through `execute`, send back JSON.

Everything here runs in the process that executes student code, so nothing in it is trusted after
`execute` starts: the student shares this interpreter. What we can still guarantee is that the
result bytes are produced by a JSON encoder bound before the student's code was loaded (so patching
`json.dumps` or `json.encoder` changes nothing), that every patch dies with this process, and that the
runner takes only one frame signed with the job's key (`_sealer`, bound before the student's code: replacing
this module's or `protocol`'s functions, `hmac` or `len` neither reveals the key nor gets forged bytes signed).
Writing the result pipe directly (fd 3, from a fork, after a dup) gives bytes that do not verify: status
"tampered". Code that walks this interpreter's frames or memory can still find the key; see SECURITY.md.
"""
import fcntl
import io
import json
import os
import resource
import signal
import struct
import sys
import tempfile

from .packing import pack as pack_values
from .processes import deny_keyrings, set_no_new_privileges
from .protocol import RESULT_PREFIX, _hmac_digest, read_exact, write_all

RESULT_FD = 3
JOB_FD = 4  # a pre-forked child's pipe from its runner: the job arrives there (`serve`)
HANDOFF_PREFIX = struct.Struct(">Q")
EXIT_NO_JOB = 69  # a pre-forked child whose runner ended without a job (end of input)
EXIT_SETUP_FAILED = 70
EXIT_EXECUTE_RAISED = 71
EXIT_ENCODE_FAILED = 72
# RLIMIT_CPU's hard limit, this many seconds above the soft one. The kernel's CPU-limit clock can run seconds ahead of
# the CPU time wait4 and /proc report (measured under load: a four-thread spinner whose SIGXCPU went to a thread that
# could not run its handler was killed by a hard limit one second above the soft, with 17.4-19.3 s reported against
# a 20 s limit: status "crashed", not "timeout"). The runner's CPU clock stops a submission at the limit; the hard
# limit only backs it up.
HARD_CPU_MARGIN = 5


def _reject(value):
    """Anything but plain data is refused (execute only produces plain data)."""
    raise TypeError(f"not plain data: {type(value).__name__}")


# The C encoder, built now: student code cannot reach it through the `json` module any more.
_make_encoder = getattr(json.encoder, "c_make_encoder", None)
_ENCODER = _make_encoder and _make_encoder({}, _reject, json.encoder.encode_basestring_ascii, None, ":", ",", False, False, True)
_FALLBACK_ENCODE = json.JSONEncoder(separators=(",", ":")).encode


def _sealer(key, encoder=_ENCODER, fallback=_FALLBACK_ENCODE, length=len, pack=RESULT_PREFIX.pack,
            digest=_hmac_digest, write=write_all, pack_values=pack_values):
    """A function that sends a result as the job's one signed frame, its helpers bound now (before student code):
    its long number lists packed as bytes (`packing.pack`), then compact JSON with NaN and infinities allowed (the
    runner reads them back), in `protocol.result_frame`'s format."""
    def seal(value):
        value = pack_values(value)
        payload = ("".join(encoder(value, 0)) if encoder else fallback(value)).encode("utf-8")
        head = pack(length(payload)) + payload
        write(RESULT_FD, head + digest(key, head, "sha256"))

    return seal


def _move_fds(stdout_fd, stderr_fd, result_fd, job_fd=None):
    """Put /dev/null, the two capture pipes and the result pipe on fds 0-3 (and the job pipe, if any, on fd 4) and
    close every other fd."""
    kept = (stdout_fd, stderr_fd, result_fd) + ((job_fd,) if job_fd is not None else ())
    high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 100) for fd in kept]
    null = os.open(os.devnull, os.O_RDWR)
    for target, source in enumerate([null, *high]):
        os.dup2(source, target)
    os.closerange(RESULT_FD + 1 + (job_fd is not None), resource.getrlimit(resource.RLIMIT_NOFILE)[0])


def _apply_limits(limits):
    """Set the rlimits of this process (inherited by anything it starts)."""
    cpu = int(limits.cpu_seconds)
    for which, value in (
        (resource.RLIMIT_AS, limits.memory_bytes),
        (resource.RLIMIT_CPU, (cpu, cpu + HARD_CPU_MARGIN)),
        (resource.RLIMIT_NPROC, limits.max_processes),
        (resource.RLIMIT_FSIZE, limits.file_size_bytes),
        (resource.RLIMIT_NOFILE, limits.open_files),
        (resource.RLIMIT_CORE, 0),
        (resource.RLIMIT_MSGQUEUE, 0),  # no POSIX message queue: one would outlive the job (processes.remove_ipc)
    ):
        soft, hard = value if isinstance(value, tuple) else (value, value)
        ceiling = resource.getrlimit(which)[1]
        if ceiling != resource.RLIM_INFINITY:  # never ask for more than we may (raising would fail)
            soft, hard = min(soft, ceiling), min(hard, ceiling)
        resource.setrlimit(which, (int(soft), int(hard)))


def _fresh_streams():
    """New sys.stdin/stdout/stderr on fds 0-2, line-buffered so a killed child loses little output."""
    def stream(fd):
        raw = io.FileIO(fd, "w", closefd=False)
        return io.TextIOWrapper(raw, encoding="utf-8", errors="backslashreplace", line_buffering=True, write_through=True)

    sys.stdin = sys.__stdin__ = open(os.devnull, encoding="utf-8")
    sys.stdout = sys.__stdout__ = stream(1)
    sys.stderr = sys.__stderr__ = stream(2)


def _setup(limits, workdir, stdout_fd, stderr_fd, result_fd):
    """Own session, fds, no new privileges, private directory, fresh streams, then the limits."""
    _lock_down(limits, stdout_fd, stderr_fd, result_fd)
    _enter(limits, workdir)


def _lock_down(limits, stdout_fd, stderr_fd, result_fd, job_fd=None):
    """What needs no job: own session, fds, no new privileges, no keyrings, fresh streams, torch's threads."""
    os.setsid()
    signal.signal(signal.SIGINT, signal.default_int_handler)  # the worker dropped Python's handler
    _move_fds(stdout_fd, stderr_fd, result_fd, job_fd)
    set_no_new_privileges()
    deny_keyrings()  # a key would outlive the job, for its uid's next ones (processes.deny_keyrings)
    _fresh_streams()
    _set_threads(limits.threads)


def _enter(limits, workdir):
    """What needs the job: its private directory, then the limits."""
    os.chdir(workdir)
    os.environ.update(TMPDIR=workdir, HOME=workdir)
    tempfile.tempdir = None
    _apply_limits(limits)


def _set_threads(threads):
    """torch's intra-op threads for the student's code (the worker set them too; a fork keeps the setting, this
    makes it explicit), when the worker has torch loaded."""
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(threads)


def run(source, cases, probe, execute, limits, workdir, stdout_fd, stderr_fd, result_fd, key):
    """Run one submission in this (already forked) process, sending the result signed with `key`; never returns."""
    try:
        seal = _sealer(key)
        del key
        _setup(limits, workdir, stdout_fd, stderr_fd, result_fd)
    except BaseException:  # nothing of the student's has run yet
        os._exit(EXIT_SETUP_FAILED)
    _run_and_seal(seal, source, cases, probe, execute)


def serve(probe, execute, limits, stdout_fd, stderr_fd, result_fd, job_fd, key):
    """(forked before its job by `job_runner.serve_one`) Lock down, wait for the job on `job_fd`, then run it as `run`
    does; never returns."""
    try:
        seal = _sealer(key)
        del key
        _lock_down(limits, stdout_fd, stderr_fd, result_fd, job_fd)
        job = read_handoff(JOB_FD)
        os.close(JOB_FD)
        if job is None:
            os._exit(EXIT_NO_JOB)
        workdir, cases, source = job
        _enter(limits, workdir)
    except BaseException:  # nothing of the student's has run yet
        os._exit(EXIT_SETUP_FAILED)
    _run_and_seal(seal, source, cases, probe, execute)


def encode_handoff(workdir, cases, source):
    """The frame a runner hands its pre-forked child: length, then JSON of the job's directory, cases and source."""
    body = json.dumps({"workdir": workdir, "cases": list(cases), "source": source}).encode("ascii")
    return HANDOFF_PREFIX.pack(len(body)) + body


def read_handoff(fd):
    """(workdir, cases, source) from `fd`, or None when the runner closed it without a job."""
    prefix = read_exact(fd, HANDOFF_PREFIX.size)
    if not prefix:
        return None
    (length,) = HANDOFF_PREFIX.unpack(prefix)
    job = json.loads(read_exact(fd, length))
    return job["workdir"], job["cases"], job["source"]


def _run_and_seal(seal, source, cases, probe, execute):
    """Run the student's source on `cases` and send the result; never returns."""
    try:
        result = execute(source, probe, cases)
    except BaseException:  # e.g. an exception whose __str__ raises
        os._exit(EXIT_EXECUTE_RAISED)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass
    try:
        seal(result)
    except BaseException:
        os._exit(EXIT_ENCODE_FAILED)
    os._exit(0)
