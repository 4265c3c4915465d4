"""The attention-weight pictures: the student's seed p_attn from results.json and the public reference one."""
import json
import math

from grader import paths

SEED_CASE = "seed"  # the chapter's demo input; visible, its p_attn is printed by the seed text
MAX_SIDE = 40


def reference(chapter_id, case=SEED_CASE, item=1):
    """The reference picture (item `item` of visible case `case`) as a 2-D list, or None if there is none."""
    path = paths.REFERENCE / f"{chapter_id}.json"
    try:
        encoded = json.loads(path.read_text(encoding="utf-8"))["cases"][case]["result"]["items"][item]
    except (OSError, ValueError, KeyError, IndexError, TypeError):
        return None
    return matrix(_nested(encoded["data"], encoded["shape"]))


def _nested(flat, shape):
    if len(shape) <= 1:
        return list(flat)
    step = len(flat) // shape[0] if shape[0] else 0
    return [_nested(flat[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


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
    """The student's p_attn on the seed input as a 2-D list, or None (with the shape problem, if any)."""
    return matrix(result.picture.get("student"))


def finite_range(rows):
    """(lowest, highest) finite value of a 2-D list, or None if none is finite."""
    values = [x for row in rows for x in row if math.isfinite(x)]
    return (min(values), max(values)) if values else None
