"""Run a student's source and the chapter's probe cases; return plain data only.

This is the code that executes student code: in the grading sandbox's child process, or in the
student's own self-check. It never loads reference data. Before the student's code is loaded it binds
private copies of the probe and of this module (`guard.bind`), so what the student's code replaces in
the grader's modules is never called; afterwards it lists what was replaced there and in the libraries
the probe relies on (`"tampered"`: evidence lines), which the grader scores 0.
"""
import sys

from . import guard
from .loading import given_code, module_from_source
from .tensors import describe_exception


def execute(source, probe, case_names):
    """Load `source` as a module, run `probe.run_case` for each case; return a plain-data dict
    (`notes`: the IPython commands that were skipped, when there were any; `tampered`: evidence, when any)."""
    probe, bound = guard.bind(probe)
    return bound.private(sys.modules[__name__]).run(source, probe, case_names, bound)


def run(source, probe, case_names, bound):
    """`execute` once bound (called as the private copy: every name below is the one bound before the student's code)."""
    changes = bound.private(guard).changes
    run_case = probe.run_case
    notes = []
    try:
        module = module_from_source(source, notes=notes)
    except BaseException as error:  # SystemExit and KeyboardInterrupt are student errors too
        return _finished({"load_error": describe_exception(error)}, notes, changes(bound))
    traces = {}
    with given_code(probe):
        for name in case_names:
            try:
                traces[name] = run_case(module, name)
            except BaseException as error:
                traces[name] = {"error": describe_exception(error)}
    return _finished({"traces": traces}, notes, changes(bound))


def _finished(outcome, notes, tampered):
    if notes:
        outcome["notes"] = list(notes)
    if tampered:
        outcome["tampered"] = tampered
    return outcome
