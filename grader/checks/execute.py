"""Run a student's source and the chapter's probe cases; return plain data only.

This is the code that executes student code: in the grading sandbox's child process, or in the
student's own self-check. It never loads reference data. Before the student's code is loaded it binds
private copies of the probe and of this module (`guard.bind`), so what the student's code replaces in
the grader's modules is never called; afterwards it lists what was replaced there and in the libraries
the probe relies on (`"tampered"`: evidence lines), which the grader scores 0.
"""
import contextlib
import sys

from . import given, guard, messages
from .errortext import described
from .loading import given_code, module_from_source, top_level_line
from .messages import stopped_run
from .tensors import describe_exception

_PREPARED = []  # at most one (probe, its private copy, Bound) from `prepare`; a list, so taking it rebinds no global
_SPENT = []  # what `execute` took from _PREPARED, kept alive (see `execute`)


def prepare(probe):
    """Bind `probe` now, for the next `execute` of this process and of each process forked from it (once each).

    The sandbox's warm worker calls it before it forks: binding touches every watched object, and in a forked child
    each touch copies a page it shares with the worker (measured: a third of a chapter 01 submission's time)."""
    _PREPARED[:] = [(probe, *guard.bind(probe))]
    given.prepare(_PREPARED[0][1])  # the course's given units compiled once, for every child


def execute(source, probe, case_names):
    """Load `source` as a module, run `probe.run_case` for each case; return a plain-data dict
    (`notes`: the IPython commands that were skipped, when there were any; `tampered`: evidence, when any)."""
    prepared = _PREPARED.pop() if _PREPARED else None
    if prepared is not None:
        # Never freed: in a forked child, freeing the Bound would write the reference counts of the thousands of
        # objects it holds, all on pages shared with the worker (measured: 4.4 ms of chapter 01's child).
        _SPENT.append(prepared)
    if prepared is not None and prepared[0] is probe:
        _, probe, bound = prepared
    else:
        probe, bound = guard.bind(probe)
    return bound.private(sys.modules[__name__]).run(source, probe, case_names, bound)


def run(source, probe, case_names, bound):
    """`execute` once bound (called as the private copy: every name below is the one bound before the student's code)."""
    changes = bound.private(guard).changes
    run_case = probe.run_case
    notes, stops = [], []
    try:
        module = module_from_source(source, notes=notes, stops=stops)
    except BaseException as error:  # SystemExit and KeyboardInterrupt are student errors too
        return _finished({"load_error": describe_exception(error)}, notes, changes(bound))
    traces = _run_cases(module, probe, run_case, case_names, notes)
    outcome = {"traces": traces}
    units = given.units_of(probe)
    changed = given.changed(vars(module), units, probe) if units else []
    if changed:  # the chapter's cases again with the course's copy of what the student changed (given.py)
        with given.course_code(vars(module), units, changed):
            outcome["given"] = {"changed": changed, "traces": _run_cases(module, probe, run_case, case_names, notes)}
        notes.append(messages.given_changed(changed))
    if stops:
        (error, below, cell), = stops
        stopped = describe_exception(error)
        where = top_level_line(error, cell)  # the cell's own line that stopped it, however deep the error was
        if where:
            stopped["where"] = where
        outcome["stopped"] = _stopped(stopped, below, traces)
        notes.append(stopped_run(described(outcome["stopped"]), outcome["stopped"].get("type")))
    return _finished(outcome, notes, changes(bound))


def _run_cases(module, probe, run_case, case_names, notes):
    """{case: trace} of the probe's cases on the loaded module (an exception raised out of a case is its trace)."""
    traces = {}
    with given_code(probe), course_defaults(notes):
        for name in case_names:
            try:
                traces[name] = run_case(module, name)
            except BaseException as error:
                traces[name] = {"error": describe_exception(error)}
    return traces


def _stopped(stopped, below, traces):
    """`stopped` (where a notebook's run ended, as Run All ends at the cell that raises), also attached to every error
    of the traces it explains: a missing function, or a NameError for a name the cells from there on (`below`) define."""
    pending = [traces]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            if item.get("type") == "MissingFunction" or (item.get("type") == "NameError"
                                                         and _undefined(item.get("message")) in below):
                item["stopped"] = stopped
            pending.extend(value for key, value in item.items() if key != "stopped")  # never into `stopped` itself
        elif isinstance(item, (list, tuple)):
            pending.extend(item)
    return stopped


def _undefined(message):
    """The name of a NameError's message (`name 'x' is not defined`), or None."""
    parts = str(message or "").split("'")
    return parts[1] if len(parts) >= 3 and parts[0] in ("name ", "free variable ") else None


def _finished(outcome, notes, tampered):
    if notes:
        outcome["notes"] = list(notes)
    if tampered:
        outcome["tampered"] = tampered
    return outcome


@contextlib.contextmanager
def course_defaults(notes=None):
    """torch's defaults the checks assume (float32 default dtype, gradients on) inside the block, restored after: a
    module or notebook that changed them at its top (`torch.set_default_dtype(torch.float64)`) is checked as the
    course's code runs, with a Korean note in `notes` (a list; the self-check and the grade show it)."""
    torch = sys.modules.get("torch")
    if torch is None:
        yield
        return
    dtype, grad_mode = torch.get_default_dtype(), torch.is_grad_enabled()
    gradients = grad_mode and not torch.is_inference_mode_enabled()
    shown = str(dtype).replace("torch.", "")
    for changed, note in ((dtype != torch.float32, messages.DEFAULT_DTYPE_CHANGED.format(dtype=shown)),
                          (not gradients, messages.GRADIENTS_OFF)):
        if changed and notes is not None and note not in notes:
            notes.append(note)
    torch.set_default_dtype(torch.float32)
    torch.set_grad_enabled(True)
    try:
        with torch.inference_mode(False):  # `torch.inference_mode().__enter__()` at a module's top turns gradients off too
            yield
    finally:
        torch.set_default_dtype(dtype)
        torch.set_grad_enabled(grad_mode)
