"""The warm worker's large anonymous memory is backed by huge pages (`grader/sandbox/hugepages.py`), where the kernel
offers transparent huge pages and `MADV_COLLAPSE`; elsewhere the call does nothing and says so by returning 0."""
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

THP = Path("/sys/kernel/mm/transparent_hugepage/enabled")

# A process with 64 MiB of written private anonymous memory collapses it, then reports what it asked for and what its
# huge pages are (kB), before and after (asking again a few times if the kernel found no free huge page at first).
_PROBE = """
import sys
from grader.sandbox import hugepages

def huge():
    with open("/proc/self/smaps_rollup") as rollup:
        return next(int(line.split()[1]) for line in rollup if line.startswith("AnonHugePages:"))

import time

block = bytearray(b"x" * (64 << 20))
before = huge()
for attempt in range(5):  # a collapse needs free 2 MiB blocks: on a busy, fragmented machine it may take a retry
    asked = hugepages.collapse()
    if huge() >= before + (60 << 10):
        break
    time.sleep(0.2)
print(asked, before, huge())
"""


def _kernel_offers_collapse():
    """Transparent huge pages not switched off, and a kernel of 6.1 or later (MADV_COLLAPSE)."""
    if not THP.exists() or "[never]" in THP.read_text():
        return False
    major, minor = (int(part) for part in re.match(r"(\d+)\.(\d+)", __import__("os").uname().release).groups())
    return (major, minor) >= (6, 1)


@pytest.mark.skipif(not _kernel_offers_collapse(), reason="no transparent huge pages or no MADV_COLLAPSE here")
def test_large_anonymous_memory_becomes_huge_pages():
    """The 64 MiB block (and the heap) is asked for, and the process then holds huge pages it did not hold before."""
    done = subprocess.run([sys.executable, "-c", _PROBE], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    asked, before, after = (int(value) for value in done.stdout.split())
    assert asked >= 60 << 20
    assert after >= before + (60 << 10), (before, after)


def test_nothing_to_collapse_is_zero(monkeypatch):
    """Where no region is large enough (or /proc is missing), nothing is asked for and nothing raises."""
    from grader.sandbox import hugepages

    monkeypatch.setattr(hugepages, "_regions", lambda: [])
    assert hugepages.collapse() == 0
    monkeypatch.setattr(hugepages, "_regions", lambda: (_ for _ in ()).throw(OSError("no /proc")))
    assert hugepages.collapse() == 0
