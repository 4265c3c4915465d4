"""The warm worker keeps the memory its children free (`grader/sandbox/allocator.py`): with glibc, a block of a few
MiB comes from the heap (which reuses freed memory) instead of an `mmap` of its own that goes back to the kernel."""
import ctypes
import platform
import subprocess
import sys

import pytest

from tests.conftest import ROOT

# A fresh process allocates 4 MiB with malloc, with or without the worker's settings, and says whether the block lies
# in its [heap] mapping.
_PROBE = """
import ctypes, sys
from grader.sandbox import allocator

took = allocator.keep_freed_memory() if sys.argv[1] == "kept" else None
libc = ctypes.CDLL(None)
libc.malloc.restype = ctypes.c_void_p
address = libc.malloc(4 << 20)
with open("/proc/self/maps") as maps:
    heap = [line for line in maps if line.rstrip().endswith("[heap]")]
start, end = (int(value, 16) for value in heap[0].split()[0].split("-")) if heap else (0, 0)
print(took, start <= address < end)
"""


def _in_heap(how):
    done = subprocess.run([sys.executable, "-c", _PROBE, how], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="the settings are glibc's")
def test_a_few_mib_come_from_the_heap():
    """glibc takes the settings; a 4 MiB block then lies in the heap, where by default it gets an mmap of its own."""
    assert _in_heap("kept") == ["True", "True"]
    assert _in_heap("default") == ["None", "False"]


def test_without_mallopt_nothing_happens(monkeypatch):
    """Where the C library has no `mallopt` (musl, macOS), the call does nothing and says so."""
    from grader.sandbox import allocator

    monkeypatch.setattr(ctypes, "CDLL", lambda *args, **kwargs: object())
    assert allocator.keep_freed_memory() is False
