"""Keys outlive the processes that add them: a uid's user keyrings (@u, @us) last as long as the kernel, and a key's
owner can leave it with no permission that would let anyone of its uid remove it. The submission's code is refused
the kernel's key management (`processes.deny_keyrings`, a seccomp filter set by `child._lock_down`), so no job of a
worker's uid can leave a key for that uid's next jobs.
"""
import json

import pytest

from . import submissions as s
from .conftest import passed, run_batch

pytestmark = pytest.mark.sandbox

KEYS = r"""
import ctypes, json, os, platform
libc = ctypes.CDLL(None, use_errno=True)
ADD_KEY, KEYCTL = {"x86_64": (248, 250), "aarch64": (217, 219)}[platform.machine()]
RINGS = {"@u": -4, "@us": -5}
KEYCTL_SEARCH, KEYCTL_READ = 10, 11


def add(ring, data):
    return libc.syscall(ADD_KEY, b"user", b"left-behind", data, len(data), RINGS[ring]) >= 0


def find(ring):
    key = libc.syscall(KEYCTL, KEYCTL_SEARCH, RINGS[ring], b"user", b"left-behind", 0)
    if key < 0:
        return None
    buffer = ctypes.create_string_buffer(100)
    return buffer.raw[:libc.syscall(KEYCTL, KEYCTL_READ, key, buffer, 100)].decode()
"""

LEAVE = KEYS + """
print("ADDED", json.dumps([add(ring, b"a message for the next submission") for ring in RINGS]))
"""
LOOK = KEYS + """
print("FOUND", json.dumps([find(ring) for ring in RINGS]))
"""


def _said(result, tag):
    line = next(line for line in result.stdout.splitlines() if line.startswith(tag + " "))
    return json.loads(line[len(tag) + 1:])


@pytest.fixture(scope="module")
def keyrings(serial_pool, solution_source, case_names):
    """One worker grades a submission that adds keys to its user keyrings, then three that look for them (the other
    uid, the same uid, the other again)."""
    order = [("leave", LEAVE)] + [(f"look_{n}", LOOK) for n in range(3)]
    return run_batch(serial_pool, [(name, s.prelude(code, solution_source), case_names) for name, code in order])


def test_keys_cannot_be_added(keyrings):
    """add_key is refused; the submission is graded normally."""
    assert passed(keyrings["leave"])
    assert _said(keyrings["leave"], "ADDED") == [False, False]


def test_no_key_reaches_the_next_submissions(keyrings):
    """The next three submissions, of both uids, find no key."""
    for n in range(3):
        assert passed(keyrings[f"look_{n}"])
        assert _said(keyrings[f"look_{n}"], "FOUND") == [None, None]
