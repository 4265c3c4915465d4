"""Reference outputs, generated from `solutions/` by `python -m grader build`.

In the repository they live in `grader/reference/<chapter>.json` (all cases, instructor only); a
student's `selfcheck/` folder carries `reference.json` with the visible cases only. Each case holds the
solution's trace and, when the chapter has bug models, their results on the case's inputs (`bug_models`, see
`bugmodels.ModelCode.stored`) and any values the judge derives its verdict from (`derived`).
"""
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def reference_path(chapter_id):
    """Where this copy of the checks finds its references: in a student's package (whose `__path__` may join a chapter
    folder to the shared framework), else the repository's `grader/reference/`."""
    for folder in getattr(sys.modules.get(__package__), "__path__", [HERE]):
        shipped = Path(folder) / "reference.json"
        if shipped.exists():
            return shipped
    return HERE.parent / "reference" / f"{chapter_id}.json"


def load(chapter_id):
    """Read the chapter's reference outputs."""
    return json.loads(reference_path(chapter_id).read_text(encoding="utf-8"))


def generate(probe, source, header, model_code=None):
    """Run the solution `source` through every case of `probe`, and the chapter's bug models (`model_code`) on every
    case's inputs; return the reference document."""
    from .execute import execute

    outcome = execute(source, probe, probe.case_names())
    if "traces" not in outcome:
        raise RuntimeError(f"the solution failed to load: {outcome}")
    failed = {name: trace["error"] for name, trace in outcome["traces"].items() if "error" in trace}
    if failed:
        raise RuntimeError(f"the solution failed on cases: {failed}")
    cases = outcome["traces"]
    if model_code is not None:
        from .bugmodels import DERIVED_KEY, KEY

        cases = {name: {**trace, KEY: model_code.stored(probe, name)} for name, trace in cases.items()}
        for name, case in cases.items():
            derived = model_code.stored_derived(probe, name)
            if derived is not None:
                case[DERIVED_KEY] = derived
    return {"_generated": header, "cases": _rounded(cases)}


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


def expanded(document):
    """The document with every case's bug-model results written out in the models' order (`bugmodels.expanded`):
    how two documents are compared, whichever results the build found equal and stored once."""
    from .bugmodels import KEY, expanded as models_expanded

    cases = document.get("cases")
    if not isinstance(cases, dict):
        return document
    return {**document, "cases": {name: {**case, KEY: models_expanded(case[KEY])}
                                  if isinstance(case, dict) and KEY in case else case for name, case in cases.items()}}
