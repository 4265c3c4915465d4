"""Chapter 10 probe: the student's `Batch(src, tgt=None, pad=2)` and `Batch.make_std_mask(tgt, pad)`, as plain data.

Sandbox side. A "batch" case builds `Batch` from fixed token rows (with `pad=` given, or left at its default) and
records the attributes the training loop reads: `src`, `src_mask` and, when `tgt` is given, `tgt`, `tgt_y`,
`tgt_mask`, `ntokens` (a tensor or a number); a case that leaves `pad` out also records the same call with `pad=2`
("with_pad_2"), so the default is judged on its own. A "std_mask" case calls `Batch.make_std_mask(tgt, pad)` on the class,
without an instance, as a static method is called. When a batch case with `tgt` raises and the same call succeeds
with the class's `make_std_mask` swapped for the probe's `std_mask_double`, that run is recorded too ("stand_in"): the
exception came from make_std_mask, and the other attributes are judged on it (one mistake costs its own unit).
Hidden cases live between the hidden-test markers.
"""
from dataclasses import dataclass

import torch

from .tensors import describe_exception, encode

DATA_FILES = ("ch10_given.json",)  # the units this chapter ships written, as the course wrote them (given.py)

CLASS = "Batch"
MISSING = {"kind": "missing"}
BLANK = 2  # the pad a default-pad case also passes explicitly: the default must behave the same
SOURCE = ("src", "src_mask")
TARGET = ("tgt", "tgt_y", "tgt_mask", "ntokens")
DEFAULT = None  # `pad` left out of the call: the class's default applies
_ABSENT = object()  # the class defines no make_std_mask of its own


@dataclass(frozen=True)
class Case:
    """One `Batch(src, tgt, pad)` (kind "batch") or one `Batch.make_std_mask(tgt, pad)` (kind "std_mask")."""

    visible: bool
    text: str  # the case in Korean, as diagnoses name it
    kind: str  # "batch" | "std_mask"
    tgt: tuple  # token rows; () with kind "batch": Batch(src) without tgt
    src: tuple = ()
    pad: int = DEFAULT  # DEFAULT: the call leaves pad out

    @property
    def names(self):
        """The attributes this case records."""
        return SOURCE + (TARGET if self.tgt else ())


CASES = {
    "pad0": Case(visible=True, text="Batch(src, tgt, pad=0), src (2, 5), tgt (2, 6)", kind="batch", pad=0,
                 src=((1, 5, 6, 0, 0), (1, 7, 8, 9, 3)),
                 tgt=((1, 4, 9, 3, 0, 0), (1, 6, 2, 8, 7, 3))),  # a token 2 (the default pad) that is no pad
    "pad2": Case(visible=True, text="Batch(src, tgt, pad=2), src (3, 6), tgt (3, 7)", kind="batch", pad=2,
                 src=((0, 5, 9, 7, 1, 2), (0, 4, 1, 2, 2, 2), (0, 8, 6, 3, 5, 1)),
                 tgt=((0, 6, 4, 1, 2, 2, 2), (0, 9, 8, 7, 5, 3, 1), (0, 3, 1, 2, 2, 2, 2))),
    "default_pad": Case(visible=True, text="pad를 넘기지 않은 Batch(src, tgt), src (2, 4), tgt (2, 5)", kind="batch",
                        src=((0, 4, 1, 2), (0, 7, 5, 1)),
                        tgt=((0, 6, 9, 1, 2), (0, 5, 1, 2, 2))),
    "src_only": Case(visible=True, text="tgt 없이 Batch(src, pad=0), src (2, 5)", kind="batch", pad=0,
                     src=((1, 5, 6, 0, 0), (1, 7, 8, 9, 3)), tgt=()),
    "std_mask": Case(visible=True, text="Batch.make_std_mask(tgt, 2), tgt (2, 5)", kind="std_mask", pad=2,
                     tgt=((0, 4, 1, 2, 2), (0, 8, 3, 5, 1))),
    ### BEGIN HIDDEN TESTS
    "hidden_batch": Case(visible=False, text="숨겨진 batch (다른 pad, batch 크기, 길이, padding)", kind="batch", pad=3,
                         src=((0, 2, 1, 3, 3, 3, 3, 3), (4, 5, 6, 7, 8, 9, 1, 0), (0, 3, 3, 3, 3, 3, 3, 3),
                              (0, 7, 2, 2, 1, 3, 3, 3)),
                         tgt=((0, 2, 5, 1, 3, 3, 3, 3, 3), (0, 4, 8, 2, 6, 9, 7, 5, 1), (0, 1, 3, 3, 3, 3, 3, 3, 3),
                              (0, 6, 0, 4, 2, 1, 3, 3, 3))),
    "hidden_short": Case(visible=False, text="숨겨진 짧은 tgt (마지막 토큰을 빼면 한 토큰)", kind="batch", pad=0,
                         src=((1, 4, 0), (1, 0, 0), (0, 0, 0), (1, 6, 9)),
                         tgt=((1, 5), (1, 0), (0, 0), (3, 3))),
    "hidden_src_only": Case(visible=False, text="숨겨진 tgt 없는 Batch(src) (pad를 넘기지 않음)", kind="batch",
                            src=((0, 5, 1, 2, 2, 2, 2), (0, 6, 7, 8, 4, 3, 1), (0, 1, 2, 2, 2, 2, 2)), tgt=()),
    "hidden_std_mask": Case(visible=False, text="숨겨진 make_std_mask (다른 pad, 중간에 pad가 있는 줄)", kind="std_mask",
                            pad=5, tgt=((0, 4, 5, 7, 5, 8, 1, 5), (0, 2, 3, 6, 9, 4, 7, 1), (5, 5, 0, 4, 1, 5, 5, 5))),
    ### END HIDDEN TESTS
}


def case_names(visible_only=False):
    """Names of the cases, in a stable order; only the visible ones if asked."""
    return [name for name, case in CASES.items() if case.visible or not visible_only]


def make_inputs(name):
    """The case's token tensors (int64): (src, tgt), (src,) without tgt, or (tgt,) for make_std_mask."""
    case = CASES[name]
    if case.kind == "std_mask":
        return (torch.tensor(case.tgt),)
    return (torch.tensor(case.src), torch.tensor(case.tgt)) if case.tgt else (torch.tensor(case.src),)


def arguments(name, pad=DEFAULT):
    """(args, kwargs) of the case's call, with fresh tensors: `pad=` only when the case (or `pad`) gives it."""
    case = CASES[name]
    pad = case.pad if pad is DEFAULT else pad
    return make_inputs(name), ({} if pad is DEFAULT else {"pad": pad})


def _attributes(batch, names):
    """{name: encoded attribute} of a built Batch; missing ones marked."""
    return {name: encode(getattr(batch, name)) if hasattr(batch, name) else MISSING for name in names}


def _call(cls, name, pad=DEFAULT):
    """The case's call as plain data: {"result": …} (make_std_mask), {"attributes": …} (Batch) or {"error": …}."""
    case = CASES[name]
    args, kwargs = arguments(name, pad)
    try:
        if case.kind == "std_mask":
            return {"result": encode(cls.make_std_mask(*args, case.pad))}
        return {"attributes": _attributes(cls(*args, **kwargs), case.names)}
    except BaseException as error:  # a student's SystemExit is a failed call too
        return {"error": describe_exception(error)}


def std_mask_double(tgt, pad):
    """The probe's stand-in for the student's make_std_mask inside Batch when that one raises: every position visible,
    (batch, length, length) (not the chapter's mask; the tgt_mask it gives is never judged)."""
    return torch.ones(tgt.size(0), tgt.size(-1), tgt.size(-1), dtype=torch.bool)


def _record(cls, name):
    """The case's call, with the default-pad call next to it when the case leaves pad out."""
    trace = _call(cls, name)
    if CASES[name].kind == "batch" and CASES[name].pad is DEFAULT:
        trace["with_pad_2"] = _call(cls, name, BLANK)
    return trace


def _with_double(cls, name):
    """`_record` with `cls.make_std_mask` swapped for `std_mask_double` (restored after), or None if it still fails."""
    own = cls.__dict__.get("make_std_mask", _ABSENT)
    try:
        cls.make_std_mask = staticmethod(std_mask_double)
    except BaseException:  # a class that refuses new attributes
        return None
    try:
        trace = _record(cls, name)
    finally:
        if own is _ABSENT:
            delattr(cls, "make_std_mask")
        else:
            cls.make_std_mask = own
    failed = "error" in trace or "error" in trace.get("with_pad_2", {})
    return None if failed else trace


def run_case(namespace, name):
    """Run case `name` against the student's `Batch` and describe what happened as plain data."""
    cls = getattr(namespace, CLASS, None)
    if not callable(cls):
        return {"error": {"type": "MissingFunction", "message": CLASS}}
    trace = _record(cls, name)
    failed = "error" in trace or "error" in trace.get("with_pad_2", {})
    if failed and CASES[name].kind == "batch" and CASES[name].tgt and isinstance(cls, type):
        stand_in = _with_double(cls, name)
        if stand_in is not None:
            trace["stand_in"] = stand_in
    return trace
