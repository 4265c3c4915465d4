"""`verify()`: one check run on a notebook's or module's own functions, the way a notebook's test cell calls it."""
import types

from .discovery import chapter


def verify(chapter_id, check_name, namespace):
    """Run one check on the functions in `namespace` (e.g. a notebook's `globals()`); raise if it fails."""
    __tracebackhide__ = True  # pytest shows the Korean verdict, not this function's body
    from . import references, tracks
    from .execute import course_defaults
    from .framework import judge, torch_threads
    from .scoresheet import number

    declared = chapter(chapter_id)
    check = declared.check(check_name)
    track = tracks.NOTEBOOK if isinstance(namespace, dict) else tracks.PY
    outcome = _beside(namespace)  # the grader gets the file alone: a module beside it is not there (as_graded.py)
    if isinstance(namespace, dict):
        namespace = types.SimpleNamespace(**namespace)
    if outcome is None:
        with torch_threads(declared.budget.threads), course_defaults():  # the chapter's threads, as in the sandbox
            outcome = {"traces": {case: _run(declared.probe, namespace, case) for case in check.all_cases}}
    (result,) = tracks.results_for(judge([check], declared.probe, outcome, references.load(declared.id)), track)
    if not result.passed:
        raise AssertionError(f"[{result.title}] {number(result.score)}/{number(result.points)}점 — {result.message}")
    print(f"통과: {result.title} ({number(result.points)}점)")


def _beside(namespace):
    """The grader's outcome when `namespace` (a module, or a notebook's globals in a kernel started in its folder) uses
    a module of its own folder, which the grader does not receive; else None."""
    import os

    from .as_graded import missing_module_outcome

    if isinstance(namespace, dict):
        return missing_module_outcome(namespace, os.getcwd(), own=namespace.get("__name__"))
    path = getattr(namespace, "__file__", None)
    if not isinstance(path, str):
        return None
    return missing_module_outcome(namespace, os.path.dirname(os.path.realpath(path)), own=namespace.__name__)


def _run(probe, namespace, case):
    from .loading import given_code
    from .tensors import describe_exception

    with given_code(probe):
        try:
            return probe.run_case(namespace, case)
        except Exception as error:
            return {"error": describe_exception(error)}
