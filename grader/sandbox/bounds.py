"""What a submission sends back is bounded: its output and result sizes (`Watch`, in the runner), and the result is
plain data of bounded depth and size whoever sends it (the child to its runner, a worker to the pool).

Checked iteratively, so a result nested a million deep cannot exhaust the checker's stack; lone surrogates (which
cannot be written as UTF-8) are replaced.
"""
import json

from . import status
from .capture import Tail
from . import packing
from .protocol import MAC_BYTES, RESULT_PREFIX, signed

MAX_RESULT_DEPTH = 48  # honest results nest < 16 deep; far below what json and the judge can recurse through
MAX_RESULT_NODES = 4_000_000  # values in one result (8 MiB of JSON holds at most ~4 M)


class BadResult(ValueError):
    """A result that decodes but is not bounded plain data (too deep, too many values, odd types)."""


def bounded(value, restore=False):
    """Check `value` iteratively (never recursing) for depth and size, and its packed number lists (`packing.py`);
    return it with lone surrogates in its strings replaced (they cannot be written as UTF-8), re-built only when there
    were any, and with `restore` its packed lists put back in place. Raise BadResult otherwise."""
    stack, nodes, dirty = [(value, 1)], 1, False
    while stack:
        item, depth = stack.pop()
        if depth > MAX_RESULT_DEPTH or nodes > MAX_RESULT_NODES:
            raise BadResult("result too deep or too large")
        if isinstance(item, dict):
            dirty = dirty or not all(map(_clean_text, item))
            pairs = item.items()
        elif isinstance(item, list):
            pairs = enumerate(item)
        else:
            dirty = dirty or (isinstance(item, str) and not _clean_text(item))
            _check_scalar(item)
            continue
        nodes += len(item)
        for key, inner in pairs:
            kind = type(inner)
            if kind is dict and len(inner) == 1 and next(iter(inner)) in packing.TYPECODES:
                numbers = packing.numbers(inner)  # BadPacking is a ValueError
                nodes += len(numbers)
                if restore:
                    item[key] = numbers.tolist()
            elif kind is dict or kind is list:
                stack.append((inner, depth + 1))
            elif kind is str:
                dirty = dirty or not _clean_text(inner)
            elif kind not in _SCALARS:
                stack.append((inner, depth + 1))  # a subclass, or not plain data: judged on its own
    if nodes > MAX_RESULT_NODES:
        raise BadResult("result too deep or too large")
    return _scrubbed(value) if dirty else value


_SCALARS = frozenset({int, float, bool, type(None)})


def _check_scalar(item):
    if item is not None and not isinstance(item, (str, bool, int, float)):
        raise BadResult(f"not plain data: {type(item).__name__}")


def _clean_text(text):
    """Whether `text` encodes as UTF-8 (no lone surrogates)."""
    return text.isascii() or not any(0xD800 <= ord(c) <= 0xDFFF for c in text)


def _scrubbed(value):
    """A copy of a bounded value with lone surrogates replaced by U+FFFD (depth is bounded, so recursion is safe)."""
    if isinstance(value, dict):
        return {_scrub(key): _scrubbed(inner) for key, inner in value.items()}
    if isinstance(value, list):
        return [_scrubbed(inner) for inner in value]
    return _scrub(value) if isinstance(value, str) else value


def _scrub(text):
    return text.encode("utf-8", errors="replace").decode("utf-8")


FORGED_NOTE = "결과 통로에 샌드박스가 서명하지 않은 데이터가 쓰였습니다: {detail}"
_FORGED_DETAILS = {
    "mac": "서명이 맞지 않는 결과 {size:,}바이트",
    "extra": "결과 하나 뒤에 덧붙은 {size:,}바이트",
    "incomplete": "스스로 끝난 프로세스가 남긴 불완전한 결과 {size:,}바이트",
}


class Watch:
    """What the child has written so far to its stdout, stderr and result pipes; `key` is the job's result key."""

    def __init__(self, limits, key):
        self.limits = limits
        self.key = key
        self.stdout = Tail(limits.output_bytes)
        self.stderr = Tail(limits.output_bytes)
        self.result = bytearray()
        self.result_too_big = False
        self.result_invalid = False  # a signed frame whose payload is not a bounded plain-data result
        self.forged = None  # why the result bytes are not one frame signed with `key` ("mac", "extra", "incomplete")
        self._verified = None  # (length of the result bytes checked, whether they were signed)
        self._decoded = None  # (length of the result bytes decoded, what `_decode` returned, result_invalid after it)

    def feed(self, stream, chunk):
        """Record `chunk` read from "stdout", "stderr" or "result"."""
        if stream == "result":
            self.result += chunk
            if len(self.result) > RESULT_PREFIX.size + self.limits.result_bytes + MAC_BYTES:
                self.result_too_big = True
                del self.result[RESULT_PREFIX.size:]
        else:
            getattr(self, stream).add(chunk)

    @property
    def output_exceeded(self):
        """Whether the child wrote more than the limits allow."""
        return self.result_too_big or self.stdout.total + self.stderr.total > self.limits.file_size_bytes

    def forgery(self, exited):
        """Evidence (Korean) that someone but the child's own last step wrote to the result pipe, or None.

        Honest bytes are exactly one frame signed with the job's key; a frame cut short is honest only when the
        child was killed while writing it (`exited`: it ended by itself)."""
        if self.result_too_big or not self.result:
            return None
        size = len(self.result)
        end = (RESULT_PREFIX.size + RESULT_PREFIX.unpack_from(self.result)[0] + MAC_BYTES
               if size >= RESULT_PREFIX.size else None)
        if end is None or size < end:
            self.forged = "incomplete" if exited else None
        elif size > end:
            self.forged, size = "extra", size - end
        elif not self._signed():
            self.forged = "mac"
        if self.forged is None:
            return None
        return FORGED_NOTE.format(detail=_FORGED_DETAILS[self.forged].format(size=size))

    def _signed(self):
        """Whether the result bytes are one frame signed with the key (computed once: `forgery` asks, then
        `decoded_result`; nothing is fed after the child is dead)."""
        if self._verified is None or self._verified[0] != len(self.result):
            self._verified = len(self.result), signed(self.key, bytes(self.result))
        return self._verified[1]

    def frame_complete(self):
        """Whether the result bytes so far are exactly as long as the frame their length prefix announces."""
        size = len(self.result)
        return (not self.result_too_big and size >= RESULT_PREFIX.size
                and size == RESULT_PREFIX.size + RESULT_PREFIX.unpack_from(self.result)[0] + MAC_BYTES)

    def decoded_result(self):
        """The child's result if it sent one complete frame signed with the key, holding a well-formed result:
        (dict, its JSON bytes), else (None, b"null"). Call `forgery` first to tell forged bytes from broken ones.

        It may also be called ahead, as soon as the frame is complete (while the child exits): the work is kept and
        used again if no byte came after it."""
        if self.result_too_big or self.forged:
            return None, b"null"
        if self._decoded is None or self._decoded[0] != len(self.result):
            self.result_invalid = False
            decoded = self._decode()  # sets result_invalid when the frame holds no well-formed result
            self._decoded = len(self.result), decoded, self.result_invalid
        self.result_invalid = self._decoded[2]
        return self._decoded[1]

    def _decode(self):
        """`decoded_result`'s work on the bytes read so far."""
        nothing = None, b"null"
        if len(self.result) < RESULT_PREFIX.size + MAC_BYTES:
            return nothing
        if not self._signed():
            return nothing
        (length,) = RESULT_PREFIX.unpack_from(self.result)
        raw = bytes(self.result[RESULT_PREFIX.size:-MAC_BYTES])
        if length > self.limits.result_bytes or len(raw) != length or b"\n" in raw:
            self.result_invalid = True
            return nothing
        try:
            value = json.loads(raw)
            checked = bounded(value)
        except (ValueError, RecursionError, MemoryError):  # BadResult, bad UTF-8 and bad JSON are ValueErrors
            self.result_invalid = True
            return nothing
        if not (isinstance(value, dict)
                and (isinstance(value.get("traces"), dict) or isinstance(value.get("load_error"), dict))):
            self.result_invalid = True
            return nothing
        if checked is not value:
            raw = json.dumps(checked, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        return checked, raw


def decode_answer(line):
    """A worker's stdout line as a dict, its result checked as bounded plain data with its tensor values unpacked;
    None if it is anything else."""
    try:
        message = json.loads(line)
        if isinstance(message, dict) and message.get("result") is not None:
            message["result"] = bounded(message["result"], restore=True)  # the runner checked it; a forged line is refused
    except (ValueError, RecursionError, MemoryError):
        return None
    return message if isinstance(message, dict) else None


def is_report(message):
    """Whether a decoded answer has the fields and types of one job's report."""
    return (
        message.get("status") in status.ALL
        and (message.get("result") is None or isinstance(message.get("result"), dict))
        and isinstance(message.get("stdout"), str) and isinstance(message.get("stderr"), str)
        and isinstance(message.get("seconds"), (int, float))
    )
