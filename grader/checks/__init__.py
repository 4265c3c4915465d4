"""Chapter checks, shared by the student self-check, the notebook's test cells and the grader.

Each chapter NN contributes `chNN_probe.py` (runs next to student code) and `chNN_judge.py`
(judges plain-data traces and declares `CHAPTER`, see `contract.py`). This package is copied, minus
hidden-test regions and other chapters, into every student folder as `selfcheck/`, so all ways of
checking run the same code. The file-name rule of a chapter's modules is written here only.
"""
import importlib
import re
import types
from pathlib import Path

HERE = Path(__file__).resolve().parent
CHAPTER_FILE = re.compile(r"^ch(\d\d)_(probe|judge)\.py$")


def probe_file(number):
    """The probe module's file name of chapter `number` ("01")."""
    return f"ch{number}_probe.py"


def judge_file(number):
    """The judge module's file name of chapter `number` ("01")."""
    return f"ch{number}_judge.py"


def probe_module_name(number):
    """The importable name of chapter `number`'s probe (what the sandbox workers import)."""
    return f"{__name__}.{probe_file(number)[:-3]}"


def judge_module_name(number):
    """The importable name of chapter `number`'s judge."""
    return f"{__name__}.{judge_file(number)[:-3]}"


def is_chapter_file(name):
    """Whether `name` is one chapter's probe or judge file (not the shared framework)."""
    return CHAPTER_FILE.match(name) is not None


def chapter_ids():
    """The chapters this copy of the checks knows, e.g. ['01_attention']."""
    numbers = sorted({m.group(1) for m in map(CHAPTER_FILE.match, (p.name for p in HERE.iterdir())) if m})
    return [chapter(number).id for number in numbers if (HERE / judge_file(number)).exists()]


def judge_module(chapter_id):
    """The judge module of chapter `01` or `01_attention`."""
    number = str(chapter_id)[:2]
    if not (HERE / judge_file(number)).exists():
        raise LookupError(f"이 검사 모음에는 {chapter_id} 장의 검사가 없습니다.")
    return importlib.import_module(judge_module_name(number))


def chapter(chapter_id):
    """The `contract.Chapter` of chapter `01` or `01_attention` (checked when its judge loads)."""
    from .contract import Chapter, ChapterError

    declared = getattr(judge_module(chapter_id), "CHAPTER", None)
    if not isinstance(declared, Chapter):
        raise ChapterError(f"{judge_file(str(chapter_id)[:2])} must define CHAPTER = Chapter(...)")
    return declared


def verify(chapter_id, check_name, namespace):
    """Run one check on the functions in `namespace` (e.g. a notebook's `globals()`); raise if it fails."""
    __tracebackhide__ = True  # pytest shows the Korean verdict, not this function's body
    from . import references, tracks
    from .scoresheet import number
    from .framework import judge, torch_threads

    declared = chapter(chapter_id)
    check = declared.check(check_name)
    track = tracks.NOTEBOOK if isinstance(namespace, dict) else tracks.PY
    if isinstance(namespace, dict):
        namespace = types.SimpleNamespace(**namespace)
    with torch_threads(declared.budget.threads):  # the chapter's threads, as in the sandbox
        traces = {case: _run(declared.probe, namespace, case) for case in check.all_cases}
    (result,) = tracks.results_for(judge([check], declared.probe, {"traces": traces}, references.load(declared.id)), track)
    if not result.passed:
        raise AssertionError(f"[{result.title}] {number(result.score)}/{number(result.points)}점 — {result.message}")
    print(f"통과: {result.title} ({number(result.points)}점)")


def _run(probe, namespace, case):
    from .loading import given_code
    from .tensors import describe_exception

    with given_code(probe):
        try:
            return probe.run_case(namespace, case)
        except Exception as error:
            return {"error": describe_exception(error)}
