"""Reference outputs, generated from `solutions/` by `python -m grader build`.

In the repository they live in `grader/reference/<chapter>.json` (all cases, instructor only); a
student's `selfcheck/` folder carries `reference.json` with the visible cases only.
"""
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent


def reference_path(chapter_id):
    """Where this copy of the checks finds its references."""
    shipped = HERE / "reference.json"
    return shipped if shipped.exists() else HERE.parent / "reference" / f"{chapter_id}.json"


def load(chapter_id):
    """Read the chapter's reference outputs."""
    return json.loads(reference_path(chapter_id).read_text(encoding="utf-8"))


def generate(probe, source, header):
    """Run the solution `source` through every case of `probe`; return the reference document."""
    from .execute import execute

    outcome = execute(source, probe, probe.case_names())
    if "traces" not in outcome:
        raise RuntimeError(f"the solution failed to load: {outcome}")
    failed = {name: trace["error"] for name, trace in outcome["traces"].items() if "error" in trace}
    if failed:
        raise RuntimeError(f"the solution failed on cases: {failed}")
    return {"_generated": header, "cases": _rounded(outcome["traces"])}


SIGNIFICANT_DIGITS = {"float64": 12}  # others (float32): 7


def _rounded(value, dtype=None):
    """Round reference floats to the precision of their dtype, so the last bit of a CPU kernel can't drift."""
    if isinstance(value, dict):
        dtype = value.get("dtype", dtype)
        return {key: _rounded(item, dtype) for key, item in value.items()}
    if isinstance(value, list):
        return [_rounded(item, dtype) for item in value]
    if isinstance(value, float):
        return float(f"{value:.{SIGNIFICANT_DIGITS.get(dtype, 7)}g}")
    return value


def visible_only(document, probe):
    """The part of a reference document that may ship to students."""
    visible = set(probe.case_names(visible_only=True))
    return {"_generated": document["_generated"], "cases": {k: v for k, v in document["cases"].items() if k in visible}}
