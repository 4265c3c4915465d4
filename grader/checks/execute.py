"""Run a student's source and the chapter's probe cases; return plain data only.

This is the code that executes student code: in the grading sandbox's child process, or in the
student's own self-check. It never loads reference data.
"""
from .loading import given_code, module_from_source
from .tensors import describe_exception


def execute(source, probe, case_names):
    """Load `source` as a module, run `probe.run_case` for each case; return a plain-data dict
    (`notes`: the IPython commands that were skipped, when there were any)."""
    notes = []
    try:
        module = module_from_source(source, notes=notes)
    except BaseException as error:  # SystemExit and KeyboardInterrupt are student errors too
        return _with_notes({"load_error": describe_exception(error)}, notes)
    traces = {}
    with given_code(probe):
        for name in case_names:
            try:
                traces[name] = probe.run_case(module, name)
            except BaseException as error:
                traces[name] = {"error": describe_exception(error)}
    return _with_notes({"traces": traces}, notes)


def _with_notes(outcome, notes):
    if notes:
        outcome["notes"] = list(notes)
    return outcome
