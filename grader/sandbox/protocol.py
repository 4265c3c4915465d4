"""Byte framing between pool, worker and child: plain JSON and raw UTF-8 only, never pickle.

pool -> worker (stdin):   4-byte big-endian header length, header JSON {"id", "cases", "size"},
                          then `size` bytes of UTF-8 source.
worker -> pool (stdout):  one JSON object per line ({"ready": ...} once, then one per job).
child -> runner (pipe):   8-byte big-endian length, the JSON of the result dict, then its HMAC-SHA256 (`sign`)
                          under a key the runner draws for that one job (`job_key`).
"""
import hmac
import json
import os
import struct

try:  # the C function: the child binds it before student code runs (patching `hmac` changes nothing)
    from _hashlib import hmac_digest as _hmac_digest
except ImportError:  # a Python built without OpenSSL
    _hmac_digest = hmac.digest

MAX_HEADER_BYTES = 1 << 20
MAX_SOURCE_BYTES = 64 << 20
RESULT_PREFIX = struct.Struct(">Q")
MAC_BYTES = 32  # HMAC-SHA256
KEY_BYTES = 32
_HEADER_PREFIX = struct.Struct(">I")


class ProtocolError(Exception):
    """Bytes that do not follow the framing above."""


def checked_item(item):
    """(submission id, source, case names) of one item given to the pool; TypeError if it is not that."""
    submission_id, source, cases = item
    if not isinstance(submission_id, str) or not isinstance(source, str):
        raise TypeError("each item must be (submission id: str, source: str, case names: list[str])")
    cases = list(cases)
    if not all(isinstance(name, str) for name in cases):
        raise TypeError("case names must be strings")
    return submission_id, source, cases


def encode_job(submission_id, source, cases):
    """The frame that asks a worker to run `source` on `cases`."""
    body = source.encode("utf-8", errors="surrogateescape")
    header = json.dumps({"id": submission_id, "cases": list(cases), "size": len(body)}).encode()
    return _HEADER_PREFIX.pack(len(header)) + header + body


def read_exact(fd, count):
    """Read exactly `count` bytes from `fd`; b"" if the stream ended before the first byte."""
    buffer = bytearray(count)
    view, done = memoryview(buffer), 0
    while done < count:
        got = os.readv(fd, [view[done:]])
        if got == 0:
            if done == 0:
                return b""
            raise ProtocolError(f"stream ended after {done} of {count} bytes")
        done += got
    return bytes(buffer)


def read_job(fd):
    """Read one job frame: (id, cases, source), or None when the pool closed the stream."""
    prefix = read_exact(fd, _HEADER_PREFIX.size)
    if not prefix:
        return None
    (length,) = _HEADER_PREFIX.unpack(prefix)
    if length > MAX_HEADER_BYTES:
        raise ProtocolError("job header too large")
    header = json.loads(read_exact(fd, length))
    size = header["size"]
    if not isinstance(size, int) or not 0 <= size <= MAX_SOURCE_BYTES:
        raise ProtocolError("bad source size")
    source = read_exact(fd, size).decode("utf-8", errors="surrogateescape") if size else ""
    cases = header["cases"]
    if not isinstance(cases, list) or not all(isinstance(name, str) for name in cases):
        raise ProtocolError("cases must be a list of strings")
    return header["id"], cases, source


def write_all(fd, data):
    """Write all of `data` to `fd`, however many calls it takes."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def encode_line(message):
    """One JSON line (UTF-8) for the worker's stdout."""
    return (json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")



def job_key():
    """A fresh random key for one job's result frame."""
    return os.urandom(KEY_BYTES)


def sign(key, data):
    """The HMAC-SHA256 of `data` under `key` (MAC_BYTES bytes)."""
    return _hmac_digest(key, data, "sha256")


def result_frame(key, payload):
    """The child's one result frame: length, `payload` (JSON bytes), and the MAC of both under `key`."""
    head = RESULT_PREFIX.pack(len(payload)) + payload
    return head + sign(key, head)


def signed(key, frame):
    """Whether `frame` (length + payload + MAC, nothing more or less) carries the right MAC under `key`."""
    return len(frame) >= RESULT_PREFIX.size + MAC_BYTES and hmac.compare_digest(
        sign(key, frame[:-MAC_BYTES]), frame[-MAC_BYTES:])
