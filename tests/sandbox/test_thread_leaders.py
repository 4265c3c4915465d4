"""A process whose main thread has exited while its other threads run is still a process.

Its /proc entry then says "Z" (zombie) and its statm 0, but the process runs on. Whatever finds a submission's processes
from /proc (the worker's `processes.kill_uid`, the runner's CPU and memory meter) must count it: skipped, it outlived a
submission that killed its own runner, ran into the next jobs of the worker (it crashed every later job of its uid and
answered the other uid's on an abstract socket), and its CPU time did not count toward its submission's timeout, nor,
without control groups, its memory toward the memory limit.
"""
import json

import pytest

from grader.sandbox import Limits, SandboxPool, cgroups
from grader.sandbox.limits import GIB

from . import submissions as s
from .conftest import PROBE, passed, run_batch

pytestmark = pytest.mark.sandbox

# A process of the submission's uid whose main thread exits (SYS_exit, x86-64 and arm64 numbers) while a thread serves
# an abstract unix socket (the worker's jobs share its network namespace); then the submission kills its own runner,
# so only the worker's kill_uid is left to end it.
SURVIVE = r"""
import ctypes, os, platform, signal, socket, threading, time
SYS_EXIT = {"x86_64": 60, "aarch64": 93}[platform.machine()]
pid = os.fork()
if pid == 0:
    os.setsid()
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind("\0survivor")
    server.listen(8)

    def serve():
        while True:
            connection, _ = server.accept()
            connection.sendall(b"a message from an earlier submission")
            connection.close()

    threading.Thread(target=serve).start()
    ctypes.CDLL(None).syscall(SYS_EXIT, 0)  # the main thread alone ends
deadline = time.monotonic() + 2
while time.monotonic() < deadline:  # until its /proc entry says zombie
    with open(f"/proc/{pid}/stat") as stat:
        if stat.read().rsplit(")", 1)[1].split()[0] == "Z":
            break
    time.sleep(0.01)
os.kill(os.getppid(), signal.SIGKILL)
time.sleep(30)
"""

LISTEN = r"""
import json, socket
try:
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.connect("\0survivor")
    heard = client.recv(100).decode()
except OSError:
    heard = None
print("HEARD", json.dumps(heard))
"""

# Two helpers of 2.5 s of CPU each (5 s together, the limit is 3 s) in processes whose main threads have exited.
HIDDEN_WORK = r"""
import ctypes, os, platform, threading, time
SYS_EXIT = {"x86_64": 60, "aarch64": 93}[platform.machine()]
done_r, done_w = os.pipe()
for _ in range(2):
    if os.fork() == 0:
        def spin():
            started = time.process_time()
            while time.process_time() - started < 2.5:
                pass
            os.write(done_w, b"x")
            time.sleep(100)

        threading.Thread(target=spin).start()
        ctypes.CDLL(None).syscall(SYS_EXIT, 0)
print("DONE", os.read(done_r, 1) + os.read(done_r, 1))
"""

# Four helpers of 320 MB each (1.28 GB together, the limit is 1 GiB) in processes whose main threads have exited.
HIDDEN_MEMORY = r"""
import ctypes, os, platform, threading, time
SYS_EXIT = {"x86_64": 60, "aarch64": 93}[platform.machine()]
ready_r, ready_w = os.pipe()
for _ in range(4):
    if os.fork() == 0:
        def hold():
            block = bytearray(320 * 2**20)
            for at in range(0, len(block), 4096):
                block[at] = 1
            os.write(ready_w, b"x")
            time.sleep(100)

        threading.Thread(target=hold).start()
        ctypes.CDLL(None).syscall(SYS_EXIT, 0)
for _ in range(4):
    os.read(ready_r, 1)
time.sleep(0.5)  # the runner looks every 0.1 s
"""


def _heard(result):
    line = next(line for line in result.stdout.splitlines() if line.startswith("HEARD "))
    return json.loads(line[len("HEARD "):])


@pytest.fixture(scope="module")
def leaders(serial_pool, solution_source, case_names):
    """One worker grades: a submission that leaves such a process and kills its runner, then four honest ones that
    listen for it (two of each uid), then one that hides 5 s of CPU in two such processes."""
    order = [("survive", s.prelude(SURVIVE, solution_source))]
    order += [(f"listen_{n}", s.prelude(LISTEN, solution_source)) for n in range(4)]
    order += [("hidden_work", s.prelude(HIDDEN_WORK, solution_source))]
    return run_batch(serial_pool, [(name, source, case_names) for name, source in order])


def test_a_process_without_its_main_thread_dies_with_its_submission(leaders):
    """The process is killed with its uid when the submission killed its runner: the next four submissions, of both
    uids, hear nothing from it and pass."""
    assert leaders["survive"].status == "crashed"
    for n in range(4):
        result = leaders[f"listen_{n}"]
        assert passed(result), (result.status, result.stderr[-2000:])
        assert _heard(result) is None, result.stdout


def test_cpu_time_of_a_process_without_its_main_thread_counts(leaders):
    """5 s of CPU spent in two such processes is over the 3 s limit: status timeout."""
    result = leaders["hidden_work"]
    assert result.status == "timeout", (result.status, result.stdout)


def test_memory_of_a_process_without_its_main_thread_counts(need_bwrap, solution_source, case_names):
    """Without control groups (the runner sums the memory of the submission's processes), 1.28 GB held in four such
    processes is over the 1 GiB limit: status memory."""
    limits = Limits(wall_seconds=12, cpu_seconds=12, memory_bytes=GIB, max_processes=32)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(cgroups.Groups, "open", classmethod(lambda cls, limits, name=None: None))
        with SandboxPool(PROBE, jobs=1, limits=limits, use_bwrap=True) as pool:
            results = run_batch(pool, [("hidden_memory", s.prelude(HIDDEN_MEMORY, solution_source), case_names)])
    result = results["hidden_memory"]
    assert result.status == "memory" and result.isolation == cgroups.CPU_TIME, (result.status, result.stderr[-2000:])
