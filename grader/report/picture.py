"""What a chapter declares to draw on its feedback pages, the student's tensor for results.json and the matrix read back
from it, the public reference.

A chapter declares `picture=Picture(case, item, label)` in its contract (`grader.checks.contract`): item `item` of the
result of visible case `case`, called `label` (e.g. `Picture("seed", 1, "p_attn")`), or the tensor at `path` in the
case's trace (e.g. `("attributes", "attn")` with `index=(0, 0)`: batch 0, head 0); `picture=None` draws nothing.
`declared()` is the one place that reads the declaration.
"""
import json
import math
from dataclasses import dataclass, fields
from functools import lru_cache

from grader import paths
from grader.checks.contract import Picture

from . import texts

MAX_SIDE = 40
MAX_PICTURE_CELLS = 64 * 64  # a larger student tensor is not stored in results.json


@dataclass(frozen=True)
class Declaration(Picture):
    """What to draw (a chapter's `Picture`: case, item or trace path, label, index), with its Korean wording."""

    @property
    def wording(self):
        """{title, rows, columns, note, what, missing}: how the page names the picture and its axes (the chapter's
        `Picture.texts` over generic wording)."""
        return texts.picture(self.label, self.texts)


@lru_cache(maxsize=None)
def declared(chapter_id):
    """The chapter's picture declaration (its contract's `picture`), or None when it declares no picture."""
    from grader.checks import chapter

    value = chapter(chapter_id).picture
    return None if value is None else Declaration(**{f.name: getattr(value, f.name) for f in fields(Picture)})


def at(trace, keys):
    """The value at `keys` (dict keys, list indices) in a trace, or None where the trace has no such value."""
    value = trace
    for key in keys:
        try:
            value = value[key]
        except (KeyError, IndexError, TypeError):
            return None
    return value


def select(encoded, index=()):
    """An encoded tensor as nested lists down to 2-D: `index` picks the leading axes (e.g. batch, head), any further
    leading axis its first element; None when `encoded` is not a whole tensor or an index is out of range."""
    try:
        if encoded.get("kind") != "tensor" or encoded.get("data") is None:
            return None
        shape = [int(n) for n in encoded["shape"]]
        values = [float(x) for x in encoded["data"]]  # "nan", "inf", "-inf" as JSON spells them
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    if not shape or math.prod(shape) != len(values):
        return None
    picks = list(index)
    while len(shape) > 2:
        i = int(picks.pop(0)) if picks else 0
        if not 0 <= i < shape[0]:
            return None
        step = math.prod(shape[1:])
        values, shape = values[i * step:(i + 1) * step], shape[1:]
    return nested(values, shape)


@lru_cache(maxsize=None)
def _public_cases(chapter_id):
    """The visible cases' references, as the students' self-check folder ships them (public by construction)."""
    path = paths.EXERCISES / str(chapter_id) / "selfcheck" / "reference.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))["cases"]
    except (OSError, ValueError, KeyError):
        return {}


@lru_cache(maxsize=None)
def _reference(chapter_id, declaration):
    trace = _public_cases(chapter_id).get(declaration.case)
    return matrix(select(at(trace, declaration.where), declaration.index))


def reference(chapter_id, declaration=None):
    """The reference picture of a public case as a 2-D list (a fresh copy), or None if there is none to draw."""
    declaration = declaration or declared(chapter_id)
    rows = None if declaration is None else _reference(str(chapter_id), declaration)
    return None if rows is None else [list(row) for row in rows]


def nested(flat, shape):
    """A flat list as nested lists of `shape`."""
    if len(shape) <= 1:
        return list(flat)
    step = len(flat) // shape[0] if shape[0] else 0
    return [nested(flat[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


def matrix(value):
    """`value` as a rectangular 2-D list of floats (leading size-1 axes dropped), or None if it is not one."""
    while isinstance(value, list) and len(value) == 1 and isinstance(value[0], list) and value[0] and isinstance(value[0][0], list):
        value = value[0]
    if not isinstance(value, list) or not value or not all(isinstance(row, list) and row for row in value):
        return None
    if len({len(row) for row in value}) != 1 or len(value) > MAX_SIDE or len(value[0]) > MAX_SIDE:
        return None
    try:
        return [[_number(x) for x in row] for row in value]
    except (TypeError, ValueError):
        return None


def _number(x):
    if isinstance(x, bool) or not isinstance(x, (int, float, str)):
        raise TypeError(x)
    return float(x)  # "nan", "inf", "-inf" as JSON spells them


def student(result):
    """The student's matrix on the declared case as a 2-D list, or None."""
    return matrix(result.picture.get("student"))


def finite_range(rows):
    """(lowest, highest) finite value of a 2-D list, or None if none is finite."""
    values = [x for row in rows for x in row if math.isfinite(x)]
    return (min(values), max(values)) if values else None


def picture_data(outcome, declaration):
    """{"case", "label", "student"} for results.json: the declared tensor of the declared case (picture.declared);
    {} when the chapter declares no picture."""
    if declaration is None:
        return {}
    return {"case": declaration.case, "label": declaration.label, "student": student_picture(outcome, declaration)}


def student_picture(outcome, declaration):
    """The declared tensor of the student's trace on the declared case as nested lists (down to 2-D), or None."""
    value = select(at(outcome, ("traces", declaration.case, *declaration.where)), declaration.index)
    if value is None:
        return None
    cells = [x for row in value for x in (row if isinstance(row, list) else [row])]
    if len(cells) > MAX_PICTURE_CELLS or not all(math.isfinite(x) for x in cells):
        return None
    return value
