"""Chapter checks, shared by the student self-check, the notebook's test cells and the grader.

Each chapter NN contributes `chNN_probe.py` (runs next to student code) and `chNN_judge.py`
(judges plain-data traces). This package is copied, minus hidden-test regions and other chapters,
into every student folder as `selfcheck/`, so all three ways of checking run the same code.
"""
import importlib
import re
import types
from pathlib import Path

HERE = Path(__file__).resolve().parent
JUDGE_FILE = re.compile(r"^ch(\d\d)_judge\.py$")


def chapter_ids():
    """The chapters this copy of the checks knows, e.g. ['01_attention']."""
    return [judge_module(m.group(1)).CHAPTER_ID for m in filter(None, map(JUDGE_FILE.match, _files()))]


def _files():
    return sorted(p.name for p in HERE.iterdir())


def judge_module(chapter):
    """The judge module of chapter `01` or `01_attention`."""
    number = str(chapter)[:2]
    if not (HERE / f"ch{number}_judge.py").exists():
        raise LookupError(f"이 검사 모음에는 {chapter} 장의 검사가 없습니다.")
    return importlib.import_module(f"{__name__}.ch{number}_judge")


def verify(chapter, check_name, namespace):
    """Run one check on the functions in `namespace` (e.g. a notebook's `globals()`); raise if it fails."""
    __tracebackhide__ = True  # pytest shows the Korean verdict, not this function's body
    from . import references, tracks
    from .framework import judge

    module = judge_module(chapter)
    check = next((c for c in module.CHECKS if c.name == check_name), None)
    if check is None:
        raise LookupError(f"{chapter} 장에 {check_name!r} 검사가 없습니다.")
    track = tracks.NOTEBOOK if isinstance(namespace, dict) else tracks.PY
    if isinstance(namespace, dict):
        namespace = types.SimpleNamespace(**namespace)
    traces = {case: _run(module.probe, namespace, case) for case in check.cases}
    (result,) = tracks.results_for(judge([check], module.probe, {"traces": traces}, references.load(module.CHAPTER_ID)), track)
    if not result.passed:
        raise AssertionError(f"[{result.title}] {result.score:g}/{result.points:g}점 — {result.message}")
    print(f"통과: {result.title} ({result.points:g}점)")


def _run(probe, namespace, case):
    from .tensors import describe_exception

    try:
        return probe.run_case(namespace, case)
    except Exception as error:  # noqa: BLE001
        return {"error": describe_exception(error)}
