"""What the scheduler holds of each sandbox process: a worker's pipes, its job and how to kill it; the zygote.

Nothing here decides how a worker is confined (see `launcher.py` and the `launch_*.py` modules); these handles only
read, write, watch and kill processes the pool has started, on the host side.
"""
import array
import fcntl
import json
import os
import signal
import socket
import subprocess
import termios
import threading
import time
from dataclasses import dataclass

from .capture import Tail
from .processes import descendants, kill_tree

READ_BYTES = 1 << 20


@dataclass
class Job:
    """The submission a worker is running, and when the pool stops waiting for it."""

    submission_id: str
    seq: int
    sent: float
    deadline: float

    def elapsed(self):
        """Seconds since the job was sent."""
        return round(time.monotonic() - self.sent, 4)


class Worker:
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
        _widen(self.stdout)
        self.startup_deadline = startup_deadline
        self.ready = False
        self.startup_seconds = None
        self.stderr_open = True
        self.closed = False
        self.lines = bytearray()
        self.received = 0  # bytes read from stdout so far (`read`)
        self.reading = threading.Lock()  # held while stdout is read and counted (`read`, `silent_since`)
        self.errors = Tail(8192)
        self.pending = memoryview(b"")
        self.seq = 0
        self.job = None
        self.group = None  # the cgroups.JobGroup the worker's tree was last moved into

    @classmethod
    def of_process(cls, process, startup_deadline):
        """A worker that is a process of its own."""
        return cls(*(s.fileno() for s in (process.stdin, process.stdout, process.stderr)), startup_deadline, process=process)

    def mark_ready(self, message):
        """Take the worker's readiness line; False if a zygote's worker names no pid of that sandbox."""
        if self.process is None:
            inner = message.get("pid")
            self.host_pid = host_pid_of(self.zygote.process.pid, inner) if isinstance(inner, int) else None
            if self.host_pid is None:
                return False
        self.ready = True
        self.startup_seconds = message.get("seconds")
        return True

    def startup_errors(self):
        """The end of what the worker (and, for a zygote's worker, the zygote) wrote on stderr."""
        errors = self.errors.text()
        if self.zygote is not None:
            self.zygote.read_errors()
            errors += self.zygote.errors.text()
        return errors

    def deadline(self):
        """When the pool gives up on this worker (its job's deadline, or its start-up deadline), if any."""
        return self.job.deadline if self.job else (None if self.ready else self.startup_deadline)

    def dead(self):
        """Whether the worker has ended (as far as the pool can tell without reading its pipes)."""
        if self.process is not None:
            return self.process.poll() is not None
        if self.host_pid is not None:
            return not living(self.host_pid)
        return not self.zygote.alive()

    def pids(self):
        """Host pids of the worker and everything below it."""
        if self.host_pid is None or (self.process is None and not living(self.host_pid)):
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
        elif self.host_pid is not None and living(self.host_pid):
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

    def flush(self):
        """Write what the worker's stdin accepts now of the pending job; False if the pipe is broken."""
        while self.pending:
            try:
                written = os.write(self.stdin, self.pending)
            except BlockingIOError:
                return True
            except OSError:
                return False
            self.pending = self.pending[written:]
        return True

    def read(self, size):
        """Read up to `size` bytes of the worker's stdout (os.read: BlockingIOError when there are none), counted."""
        with self.reading:
            chunk = os.read(self.stdout, size)
            self.received += len(chunk)
        return chunk

    def silent_since(self, received):
        """Whether nothing has come from the worker since `received` bytes had been read: none read since, none
        waiting in the pipe (asked on the pool's background thread, see accounting.py)."""
        with self.reading:
            return self.received == received and _unread(self.stdout) == 0

    def complete_lines(self, chunk):
        """Add `chunk` read from the worker's stdout; yield each line it completes (without the newline)."""
        searched = len(self.lines)  # a result line can be megabytes long: do not rescan it per chunk
        self.lines += chunk
        while (end := self.lines.find(b"\n", searched)) >= 0:
            line = bytes(self.lines[:end])
            del self.lines[: end + 1]
            searched = 0
            yield line

    def read_errors(self):
        """Keep the end of what the worker wrote on stderr (for SandboxError messages)."""
        if not self.closed:
            drain_stderr(self)


_PF_EXITING = 0x4
ANSWER_PIPE_BYTES = 1 << 20


def _widen(fd):
    """Let the worker's answer pipe hold a whole result line (up to 1 MiB, the unprivileged ceiling), so a runner
    writes its report and exits at once instead of waiting for the pool to read 64 KiB at a time."""
    try:
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, ANSWER_PIPE_BYTES)
    except (OSError, AttributeError):
        pass




def drain_stderr(handle):
    """Move what `handle`'s process has written on its (non-blocking) stderr so far into `handle.errors`, the tail
    kept for SandboxError messages; at end of stream mark it closed."""
    while handle.stderr_open:
        try:
            chunk = os.read(handle.stderr, READ_BYTES)
        except (BlockingIOError, ValueError, OSError):
            return
        if not chunk:
            handle.stderr_open = False
        handle.errors.add(chunk)


def living(pid):
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


def host_pid_of(root, inner_pid):
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


class Zygote:
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

    def spawn(self, uids):
        """Ask the zygote for a worker running jobs as the two `uids` in turn (worker._serve_alternating); return the
        pool's ends (stdin, stdout, stderr)."""
        (in_r, in_w), (out_r, out_w), (err_r, err_w) = os.pipe(), os.pipe(), os.pipe()
        try:
            request = {"uids": list(uids)}
            socket.send_fds(self.control, [json.dumps(request).encode()], [in_r, out_w, err_w])
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
        drain_stderr(self)

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


def _unread(fd):
    """Bytes waiting in the pipe `fd` (FIONREAD); 1 when that cannot be told."""
    count = array.array("i", [0])
    try:
        fcntl.ioctl(fd, termios.FIONREAD, count, True)
    except OSError:
        return 1
    return count[0]
