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
    if isinstance(namespace, dict):
        namespace = types.SimpleNamespace(**namespace)
    with torch_threads(declared.budget.threads), course_defaults():  # the chapter's threads, as in the sandbox
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
