"""nbgrader's region markers, applied to plain text: solution regions and hidden-test regions; and the
grader-only bug-model region of a chapter judge.

The same markers are used in `solutions/*/transformer.py`, in the chapter checks modules and in
the generated nbgrader notebook, so one parser serves the `.py` track, the notebook track and the
leak test.
"""
import re

BEGIN_SOLUTION = "### BEGIN SOLUTION"
END_SOLUTION = "### END SOLUTION"
BEGIN_HIDDEN = "### BEGIN HIDDEN TESTS"
END_HIDDEN = "### END HIDDEN TESTS"
BEGIN_MODELS = "### BEGIN BUG MODELS"
END_MODELS = "### END BUG MODELS"
MARKERS = {"solution": (BEGIN_SOLUTION, END_SOLUTION), "hidden": (BEGIN_HIDDEN, END_HIDDEN),
           "models": (BEGIN_MODELS, END_MODELS)}

# What replaces a solution region; nbgrader_config.py gives nbgrader the same text.
CODE_STUB = 'raise NotImplementedError("아직 작성하지 않았습니다: 위의 TODO를 읽고 이 부분을 채워 주세요.")'
# What replaces a judge's bug-model region in a student's copy (`contract.Chapter(model_code=MODEL_CODE)`).
MODELS_STUB = "MODEL_CODE = None  # grader only: the bug models' results on the visible cases are in reference.json"


class RegionError(ValueError):
    """Unbalanced or nested region markers."""


def _regions(text, begin, end):
    """Yield (begin_line, end_line) index pairs of the regions delimited by `begin`/`end`."""
    lines = text.splitlines()
    start = None
    for number, line in enumerate(lines):
        marker = line.strip()
        if marker == begin:
            if start is not None:
                raise RegionError(f"line {number + 1}: {begin!r} inside an open region")
            start = number
        elif marker == end:
            if start is None:
                raise RegionError(f"line {number + 1}: {end!r} without {begin!r}")
            yield start, number
            start = None
    if start is not None:
        raise RegionError(f"line {start + 1}: {begin!r} is never closed")


def _replace(text, begin, end, replacement):
    lines = text.splitlines()
    out, cursor = [], 0
    for start, stop in _regions(text, begin, end):
        out.extend(lines[cursor:start])
        indent = re.match(r"\s*", lines[start]).group(0)
        out.extend(indent + line if line else line for line in replacement)
        cursor = stop + 1
    out.extend(lines[cursor:])
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")


def clear_solutions(text, stub=CODE_STUB):
    """Replace every solution region by the stub, indented like the region's marker."""
    return _replace(text, BEGIN_SOLUTION, END_SOLUTION, stub.splitlines())


def remove_hidden(text):
    """Drop every hidden-test region, markers included."""
    return _replace(text, BEGIN_HIDDEN, END_HIDDEN, [])


def remove_models(text):
    """Replace every bug-model region, markers included, by `MODEL_CODE = None` (a student's copy of a judge)."""
    return _replace(text, BEGIN_MODELS, END_MODELS, MODELS_STUB.splitlines())


def drop_markers(text):
    """Keep the solution code but remove its marker lines (the finished module students compare against)."""
    kept = [line for line in text.splitlines() if line.strip() not in (BEGIN_SOLUTION, END_SOLUTION)]
    return "\n".join(kept) + ("\n" if text.endswith("\n") else "")


def region_lines(text, kind):
    """The code lines inside regions of `kind` ("solution", "hidden" or "models"), for leak detection."""
    begin, end = MARKERS[kind]
    lines = text.splitlines()
    return [lines[i] for start, stop in _regions(text, begin, end) for i in range(start + 1, stop)]
