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
    names = namespace if isinstance(namespace, dict) else vars(namespace)  # what the student's functions read
    if outcome is None:
        with torch_threads(declared.budget.threads), course_defaults():  # the chapter's threads, as in the sandbox
            outcome = {"traces": _traces(declared.probe, names, namespace, check.all_cases)}
            outcome.update(_with_course_units(declared.probe, names, namespace, check.all_cases))
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


def _traces(probe, names, namespace, cases):
    """{case: trace} on the student's namespace (a notebook's globals are read through a namespace of their own)."""
    space = types.SimpleNamespace(**names) if isinstance(namespace, dict) else namespace
    return {case: _run(probe, space, case) for case in cases}


def _with_course_units(probe, names, namespace, cases):
    """{"given": …} as the grader's run records it when the student changed units the chapter ships written (the
    cases again with the course's copy of those, given.py), else {}; the student's globals are put back after."""
    from . import given

    units = given.units_of(probe)
    changed = given.changed(names, units, probe) if units else []
    if not changed:
        return {}
    with given.course_code(names, units, changed):
        return {"given": {"changed": changed, "traces": _traces(probe, names, namespace, cases)}}


def _run(probe, namespace, case):
    from .loading import given_code
    from .tensors import describe_exception

    with given_code(probe):
        try:
            return probe.run_case(namespace, case)
        except Exception as error:
            return {"error": describe_exception(error)}
