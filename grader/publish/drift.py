"""Whether a generated file on disk still says what the build would write.

Code, text and notebooks must match byte for byte. Reference data (`grader/reference/*.json` and the
`selfcheck/reference.json` copies) holds float results of torch kernels, whose last digits differ between CPUs
(AVX-512, AVX2, `ATEN_CPU_CAPABILITY=default`): there the numbers are compared with a tolerance tied to
each value's dtype, and everything else in the document (keys, shapes, dtypes, flags, strings, the count of
values, where the NaNs and infinities are) must be equal. Bug-model results are compared model by model, in
order (`references.expanded`), like every other number. A file that is equivalent is left as it is.
"""
import json
import math

from grader.checks import bugmodels, references, trained

REFERENCE_DIR = "reference"
REFERENCE_FILE = "reference.json"

# dtype -> (rtol, atol): |old - new| <= atol + rtol * |new|. Measured between AVX-512, AVX2 and the default
# kernels on chapters 01-02: float32 differs by up to 1e-6 absolute and 9e-6 relative (float64 not at all).
# Kept 10x inside the grading tolerance (grader.checks.compare.TOLERANCES), so a reference that passes this
# check grades every submission the same. Values without a dtype are float32 results (statistics, sums).
DRIFT_TOLERANCE = {
    "float64": (1e-10, 1e-12),
    "float32": (1e-5, 1e-6),
    "float16": (2e-3, 1e-4),
    "bfloat16": (1e-2, 1e-3),
}
DEFAULT_DTYPE = "float32"
# Bug-model results (what a known mistake would print, `bugmodels.py`) are looser: the models compute on purpose what
# a correct answer avoids (the sine of a large float32 argument, an exponent with its own rounding), and those differ
# in the last digits of the argument between machines (seen: 1.5e-6 absolute on a value of 0.03, from one CPU to
# another). A student's output is matched to a model with the grading tolerance, and the student's own machine moves
# it as much; half the grading tolerance keeps the match the same on both sides of the margin.
BUG_MODEL_TOLERANCE = {"float32": (5e-5, 5e-6)}


def is_reference(path):
    """Reference data (and the trained copy model's weights): compared by number, not by byte."""
    return path.suffix == ".json" and (path.name in (REFERENCE_FILE, trained.FILE) or path.parent.name == REFERENCE_DIR)


def unchanged(path, data):
    """True when the file at `path` already holds `data` (reference data: numerically, within tolerance)."""
    if not path.exists():
        return False
    on_disk = path.read_bytes()
    if on_disk == data:
        return True
    return is_reference(path) and not differences(on_disk, data, limit=1)


def differences(old_bytes, new_bytes, limit=5):
    """Up to `limit` readable lines saying where two reference documents differ beyond tolerance."""
    try:
        old, new = json.loads(old_bytes), json.loads(new_bytes)
    except ValueError as error:
        return [f"not valid JSON: {error}"]
    try:
        old, new = references.expanded(old), references.expanded(new)
    except (KeyError, IndexError, TypeError, ValueError) as error:
        return [f"bug-model results unreadable ({type(error).__name__}: {error})"]
    found = []
    _compare(old, new, DEFAULT_DTYPE, "", found, limit)
    return found


def tolerance(dtype, where):
    """(rtol, atol) for a value of `dtype` at path `where` in a reference document."""
    if f"/{bugmodels.KEY}" in where and dtype in BUG_MODEL_TOLERANCE:
        return BUG_MODEL_TOLERANCE[dtype]
    return DRIFT_TOLERANCE.get(dtype, DRIFT_TOLERANCE[DEFAULT_DTYPE])


def _compare(old, new, dtype, where, found, limit):
    if len(found) >= limit:
        return
    if isinstance(new, dict):
        if not isinstance(old, dict) or old.keys() != new.keys():
            found.append(f"{where or '/'}: keys {sorted(old) if isinstance(old, dict) else old!r} -> {sorted(new)}")
            return
        dtype = new.get("dtype", dtype) if isinstance(new.get("dtype"), str) else dtype
        for key in new:
            _compare(old[key], new[key], dtype, f"{where}/{key}", found, limit)
    elif isinstance(new, list):
        if not isinstance(old, list) or len(old) != len(new):
            found.append(f"{where}: {_size(old)} -> {len(new)} values")
            return
        for index, (a, b) in enumerate(zip(old, new)):
            _compare(a, b, dtype, f"{where}[{index}]", found, limit)
    elif not _same_value(old, new, tolerance(dtype, where)):
        found.append(f"{where}: {old!r} -> {new!r} ({dtype}, tolerance {tolerance(dtype, where)})")


def _same_value(old, new, allowed):
    """Equal; or, for two finite floats, within `allowed` (rtol, atol) (ints and bools must be equal)."""
    if type(old) is not type(new) or isinstance(new, (bool, str)) or new is None:
        return type(old) is type(new) and old == new
    if isinstance(new, int):
        return old == new
    if not (math.isfinite(old) and math.isfinite(new)):
        return old == new
    rtol, atol = allowed
    return abs(old - new) <= atol + rtol * abs(new)


def _size(value):
    return len(value) if isinstance(value, list) else type(value).__name__
