"""The production limits themselves: every default of `Limits` stops a hostile submission that goes past it.

The other sandbox tests use small test limits; here the pool runs with `Limits()`, as `python -m grader grade`
does for a chapter without its own budget (`for_budget(Budget()) == Limits()`). Each submission goes twice as
far as the documented default allows and prints how far it got, so a default raised in the code turns its test red. The wall
and CPU defaults cost a minute and 20 seconds and are `slow` (the sleeper starts early, beside the other sandbox tests:
`conftest.start_early`); the rest share one fast batch.
"""
from types import SimpleNamespace

import pytest

from grader.sandbox import Limits, SandboxPool
from grader.sandbox.limits import CPU_CLOCK_BACKSTOP, GIB, KIB, MIB

from . import submissions as s
from .conftest import PROBE, early_results, passed, run_batch, start_early

pytestmark = pytest.mark.sandbox

# What production promises (limits.py's docstring): the hostile submissions are sized from it and judged against it,
# while the pool runs with `Limits()` itself, so a default raised in the code turns a test red.
DOCUMENTED = SimpleNamespace(wall_seconds=20, cpu_seconds=20, memory_bytes=2 * GIB, max_processes=64,
                          file_size_bytes=16 * MIB, output_bytes=64 * KIB, result_bytes=8 * MIB, open_files=256,
                          tmp_bytes=64 * MIB, threads=1)


FAN_OUT = f"""
import subprocess
children = []
for _ in range({2 * DOCUMENTED.max_processes}):
    try:
        children.append(subprocess.Popen(["sleep", "30"]))  # vfork + exec: cheap even from a torch-sized process
    except OSError:
        break
for child in children:
    child.kill()
    child.wait()
print("FORKED", len(children))
"""

MEMORY = f"""
import mmap
largest, size = 0, 128 * 2**20
while size <= {2 * DOCUMENTED.memory_bytes}:
    try:
        block = mmap.mmap(-1, size)  # address space only: no page is touched
    except OSError:
        break
    block.close()
    largest, size = size, size + 128 * 2**20
print("ALLOCATED", largest)
"""

OPEN_FILES = f"""
handles = []
try:
    for _ in range({2 * DOCUMENTED.open_files}):
        handles.append(open("/dev/null"))
except OSError:
    pass
print("OPENED", len(handles))
for handle in handles:
    handle.close()
"""

BIG_FILE = f"""
import os, tempfile
written, chunk = 0, b"x" * 2**20
with open(os.path.join(tempfile.gettempdir(), "big"), "wb", buffering=0) as out:
    try:
        while written < {2 * DOCUMENTED.file_size_bytes}:
            written += out.write(chunk)
    except OSError:
        pass
os.remove(out.name)
print("WROTE", written)
"""

FILL_SCRATCH = f"""
import os, tempfile
written, number, chunk = 0, 0, b"x" * 2**20
try:
    while written < {2 * DOCUMENTED.tmp_bytes}:
        with open(os.path.join(tempfile.gettempdir(), f"part-{{number}}"), "wb", buffering=0) as out:
            for _ in range(4):
                written += out.write(chunk)
        number += 1
except OSError:
    pass
for name in os.listdir(tempfile.gettempdir()):
    if name.startswith("part-"):
        os.remove(os.path.join(tempfile.gettempdir(), name))
print("FILLED", written)
"""

CHATTER = f"""
import sys
for _ in range({4 * DOCUMENTED.output_bytes // 100}):
    print("y" * 99)
print("END OF CHATTER")
"""  # four times the kept output, far below the file-size limit: the run is fine, only a tail is kept

FLOOD = f"""
import sys
line = "z" * 1023
for _ in range({2 * DOCUMENTED.file_size_bytes // 1024}):
    print(line)
"""

THREADS = """
import os, torch
print("THREADS", torch.get_num_threads(), os.environ.get("OMP_NUM_THREADS"))
"""


def _big_result(factor):
    """A submission whose attention returns about `factor` times the default result size as JSON."""
    floats = int(factor * DOCUMENTED.result_bytes * 3 / 32) // 16  # 8 bytes a float, base64 (sandbox/packing.py)
    return s.attention_body(f"return tuple(torch.rand({floats}) for _ in range(16)), None\n")


def _number(result, word):
    words = result.stdout.split()
    assert word in words, (result.status, result.stdout[-500:], result.stderr[-500:])
    return int(words[words.index(word) + 1])


@pytest.fixture(scope="module")
def default_pool(need_bwrap):
    with SandboxPool(PROBE, jobs=2, limits=Limits(), use_bwrap=True) as pool:
        yield pool


@pytest.fixture(scope="module")
def hostile(default_pool, solution_source, case_names):
    """One batch, under the default limits, of submissions that each go twice past one default (code run at import,
    then the correct solution, so a run that is not stopped passes and prints how far it got)."""
    sources = {name: s.prelude(code, solution_source) for name, code in [
        ("fan_out", FAN_OUT), ("memory", MEMORY), ("open_files", OPEN_FILES), ("big_file", BIG_FILE),
        ("fill_scratch", FILL_SCRATCH), ("chatter", CHATTER), ("flood", FLOOD), ("threads", THREADS)]}
    items = [(name, source, case_names) for name, source in sources.items()]
    items += [("big_result", _big_result(1.5), ["seed"]), ("fair_result", _big_result(0.5), ["seed"])]
    return SimpleNamespace(results=run_batch(default_pool, items))


def test_fan_out_stops_at_the_default_process_cap(hostile):
    """Forking twice the default cap: the kernel refuses before it (the worker's own tasks count too)."""
    result = hostile.results["fan_out"]
    assert passed(result), result
    assert DOCUMENTED.max_processes // 2 <= _number(result, "FORKED") < DOCUMENTED.max_processes


def test_memory_stops_below_the_default_address_space(hostile):
    """Growing allocations up to twice the default: the largest that works is below it (torch already maps some)."""
    result = hostile.results["memory"]
    assert passed(result), result
    assert DOCUMENTED.memory_bytes // 4 <= _number(result, "ALLOCATED") < DOCUMENTED.memory_bytes


def test_open_files_stop_at_the_default(hostile):
    result = hostile.results["open_files"]
    assert passed(result), result
    assert DOCUMENTED.open_files // 2 <= _number(result, "OPENED") < DOCUMENTED.open_files


def test_a_file_stops_growing_at_the_default_file_size(hostile):
    result = hostile.results["big_file"]
    assert passed(result), result
    assert _number(result, "WROTE") == DOCUMENTED.file_size_bytes


def test_scratch_space_ends_at_the_default_size(hostile):
    """Files of 4 MiB (each below the file-size limit) until the private tmpfs is full."""
    result = hostile.results["fill_scratch"]
    assert passed(result), result
    assert DOCUMENTED.tmp_bytes // 2 <= _number(result, "FILLED") <= DOCUMENTED.tmp_bytes


def test_only_the_default_tail_of_the_output_is_kept(hostile):
    result = hostile.results["chatter"]
    assert passed(result), result
    assert "END OF CHATTER" in result.stdout
    assert DOCUMENTED.output_bytes // 2 <= len(result.stdout.encode()) <= DOCUMENTED.output_bytes + 200


def test_printing_past_the_default_file_size_is_stopped(hostile):
    assert hostile.results["flood"].status == "output_limit"


def test_a_result_past_the_default_size_is_dropped(hostile):
    """About 1.5 times the default result size is output_limit; a third of that comes back whole."""
    assert hostile.results["big_result"].status == "output_limit"
    assert hostile.results["big_result"].result is None
    assert hostile.results["fair_result"].status == "ok"
    assert hostile.results["fair_result"].result["traces"]["seed"]


def test_torch_runs_with_the_default_threads(hostile):
    result = hostile.results["threads"]
    assert passed(result), result
    words = result.stdout.split()
    assert words[words.index("THREADS") + 1:words.index("THREADS") + 3] == [str(DOCUMENTED.threads)] * 2


SLEEPER = f"""
import time
time.sleep({(CPU_CLOCK_BACKSTOP + 1) * DOCUMENTED.wall_seconds})
print("WOKE")
"""

SPINNER = f"""
import os, signal, threading, time
import torch

def stopped(signum, frame):
    print("XCPU", int(time.process_time()), flush=True)
    signal.signal(signal.SIGXCPU, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGXCPU)

signal.signal(signal.SIGXCPU, stopped)

def burn():
    a = torch.rand(256, 256)
    while time.process_time() < {2 * DOCUMENTED.cpu_seconds}:
        a @ a

threads = [threading.Thread(target=burn) for _ in range(4)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print("SPUN", int(time.process_time()))
"""  # four threads whose matrix products release the GIL: CPU time can outrun the wall clock


@start_early("sleeper", ["test_sleeping_past_the_default_wall_time_is_a_timeout"])
def sleeper_batch(solution_source, case_names):
    """The sleeper alone, in a pool of its own under the default limits: a minute of waiting, no CPU (conftest starts
    it with the folder's first test, so the other sandbox tests run meanwhile)."""
    with SandboxPool(PROBE, jobs=1, limits=Limits(), use_bwrap=True) as pool:
        return run_batch(pool, [("sleeper", s.prelude(SLEEPER, solution_source), case_names)])


@pytest.fixture(scope="module")
def spinner(default_pool, solution_source, case_names):
    """The submission that takes the default CPU time to stop (run here, not early: its CPU would slow the other
    tests' honest submissions if it ran beside them)."""
    return run_batch(default_pool, [("spinner", s.prelude(SPINNER, solution_source), case_names)])["spinner"]


@pytest.mark.slow
def test_sleeping_past_the_default_wall_time_is_a_timeout(need_bwrap, solution_source, case_names):
    """Sleeping uses no CPU time, so the wall-clock backstop (CPU_CLOCK_BACKSTOP x the default wall time) stops it."""
    result = early_results("sleeper", solution_source, case_names)["sleeper"]
    assert result.status == "timeout" and "WOKE" not in result.stdout


@pytest.mark.slow
def test_spinning_past_the_default_cpu_time_is_stopped(spinner):
    """Stopped as timeout; when the CPU limit came first (SIGXCPU), it came at the default CPU seconds."""
    result = spinner
    assert result.status == "timeout" and "SPUN" not in result.stdout, result
    if "XCPU" in result.stdout:
        assert DOCUMENTED.cpu_seconds - 1 <= _number(result, "XCPU") <= DOCUMENTED.cpu_seconds + 1
