"""Bug models: known wrong implementations of a chapter's function, matched to the student's result.

A model's code is grader-only: it sits in the judge's `### BEGIN BUG MODELS` region, which the student's
`selfcheck/` copy replaces by `MODEL_CODE = None`. `python -m grader build` runs it on every case's inputs
(`ModelCode.stored`) and keeps the results in the references, as `bug_models` of each case; grading and the
self-check read those (`BugModels`) and never run model code. A model may raise, and then it matches a student
who raised the same exception (type and first line).
"""
import json
import warnings
from dataclasses import dataclass
from typing import Callable

from .tensors import describe_exception, encode

KEY = "bug_models"  # where a case's model results live in its reference
DERIVED_KEY = "derived"  # where a case's derived values (`ModelCode.derived`) live in its reference
RESULT_KEYS = ("kind", "dtype", "shape", "data")  # what a stored tensor keeps of its `tensors.encode` description
# Matching is allclose(rtol=1e-4, atol=1e-5) for tensors and rel_tol=1e-4 for chapter 11's learning rates (1e-11
# to 1e-3): a stored value rounded to 6 significant digits is within 5e-6 relative of the model's, 20x inside it; a
# last digit that another CPU rounds the other way stays inside the drift check's float32 tolerance (rtol 1e-5).
DIGITS = 6


class MissingModelResults(LookupError):
    """The references lack a case's bug-model results (an out-of-date or damaged reference file): rebuild them."""


class StoredError(Exception):
    """The exception a bug model raised, read back from the references (its type and first line)."""

    def __init__(self, type, message):
        super().__init__(message)
        self.type = type
        self.message = message


@dataclass(frozen=True)
class ModelCode:
    """The grader-only half of a chapter's bug models, run by the build only.

    `models(case)` lists (label, model) pairs, most specific first; a label is a bug key of the chapter's BUGS, a
    tuple of keys (bugs that occur together) or None (the solution's own way). `call(model, case, inputs)` runs one
    model the way the probe ran the student's function and returns only what the judge compares (`same`).
    `derived(case, inputs)`, if given, returns {name: tensor} (or None) that the judge needs besides the reference's
    outputs and cannot compute without the solution's code (chapter 03: the parts a train-mode output is made of, to
    accept dropout drawn in another order); stored as the case's `derived`.
    """

    models: Callable
    call: Callable
    derived: Callable = None

    def stored_derived(self, probe, case):
        """The case's derived values as plain data ({name: stored tensor}), or None."""
        if self.derived is None:
            return None
        values = self.derived(case, probe.make_inputs(case))
        return None if values is None else {name: _encoded(value) for name, value in values.items()}

    def stored(self, probe, case):
        """The models' results on `case` as plain data: `order` [[label, index]] into the distinct `results`."""
        inputs = probe.make_inputs(case)
        order, results = [], {}
        for label, model in self.models(case):
            encoded = json.dumps(_encoded(self._run(model, case, inputs)), sort_keys=True)
            order.append([list(label) if isinstance(label, tuple) else label, results.setdefault(encoded, len(results))])
        return {"order": order, "results": [json.loads(encoded) for encoded in results]}

    def _run(self, model, case, inputs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                return self.call(model, case, inputs)
            except Exception as error:  # a bug model may fail the way the student's code did
                return error


def _encoded(value):
    """A model's result as plain data: tensors (float32 unless that overflows), tuples or dicts of them, or an
    exception."""
    import torch

    if isinstance(value, Exception):
        described = describe_exception(value)
        return {"kind": "error", "type": described["type"], "message": described["message"]}
    if isinstance(value, (tuple, list)):
        return {"kind": "tuple", "items": [_encoded(item) for item in value]}
    if isinstance(value, dict):
        return {"kind": "dict", "items": {str(key): _encoded(item) for key, item in value.items()}}
    if not isinstance(value, torch.Tensor):
        raise TypeError(f"a bug model returned {type(value).__name__}: return tensors (or a tuple or dict of them)")
    tensor = value.detach()
    if tensor.is_floating_point() and torch.isfinite(tensor.float()).sum() == torch.isfinite(tensor).sum():
        tensor = tensor.float()  # matching is allclose(rtol=1e-4): float32 keeps 7 digits, half the size of float64
    described = encode(tensor)
    if described["data"] is None:
        raise ValueError(f"a bug model's result of shape {described['shape']} is too large to store")
    described["data"] = [_short(x) for x in described["data"]]
    return {key: described[key] for key in RESULT_KEYS}


def _short(x):
    """A stored number: a float rounded to DIGITS significant digits (ints, "nan" kept)."""
    return float(f"{x:.{DIGITS}g}") if isinstance(x, float) else x


def expanded(stored):
    """[[label, result]] in the models' order, results written out (the drift check compares these)."""
    return [[label, stored["results"][index]] for label, index in stored["order"]]


def _decoded(result):
    from .compare import decode

    if result["kind"] == "error":
        return StoredError(result["type"], result["message"])
    if result["kind"] == "tuple":
        return tuple(_decoded(item) for item in result["items"])
    if result["kind"] == "dict":
        return {key: _decoded(item) for key, item in result["items"].items()}
    return decode(result)


class BugModels:
    """A chapter's bug models, as the judge sees them: their stored results, matched to the student's.

    `same(student, produced)` says whether a model's result reproduces the student's (as read by the chapter's
    judge, or by `student(evidence, case)` from a trace). With `tie_break="seed"`, when several models match on
    another case, those the student's result on the seed case shows too come first; with a tuple of cases, those
    shown on the most of them (a model that coincides with another on one input is told apart on the others). The models themselves are the
    chapter's `ModelCode` (declared as `Chapter(model_code=...)`, grader only).
    """

    def __init__(self, name, same, bugs, student=None, tie_break=None):
        self.name = name
        self.same = same
        self.bugs = bugs
        self.student = student
        self.tie_break = tie_break

    def results(self, evidence, case):
        """[(label, result or the exception)] of every model on `case`, read from the references once per submission."""
        return evidence.memo((self.name, case), lambda: self._stored(evidence, case))

    def _stored(self, evidence, case):
        stored = evidence.reference(case).get(KEY)
        if stored is None:
            raise MissingModelResults(f"{self.name}: the references have no {KEY} for case {case!r}: "
                                      "declare Chapter(model_code=...) and run `python -m grader build`")
        return [(tuple(label) if isinstance(label, list) else label, _decoded(result))
                for label, result in expanded(stored)]

    def matching(self, evidence, case, student=None, error=None):
        """The labels whose models reproduce the student's result (or exception `error`), in order, no repeats."""
        found = []
        for label, produced in self.results(evidence, case):
            if isinstance(produced, StoredError):
                if error is not None and (produced.type, produced.message) == (error["type"], error["message"]):
                    found.append(label)
            elif error is None and self.same(student, produced):
                found.append(label)
        return list(dict.fromkeys(label for label in found if label))

    def likely(self, evidence, case, labels):
        """The most likely of `labels` (all reproduce the student's result on `case`), or None: those the student's
        results on the most tie-break cases (other than `case`; with a tuple, those the check reads) show too come
        first, in model order."""
        if len(labels) > 1 and self.tie_break:
            if isinstance(self.tie_break, str):
                cases = (self.tie_break,)
            else:
                cases = tuple(other for other in self.tie_break if evidence.may_read(other))
            shown = [self._shown(evidence, other) for other in cases if other != case]
            counts = [sum(label in labels_shown for labels_shown in shown) for label in labels]
            labels = [label for label, count in zip(labels, counts) if count == max(counts)]
        return labels[0] if labels else None

    def shown(self, evidence, case):
        """The labels the student's result (or exception) on `case` shows (the check must declare `case` in reads=)."""
        return self._shown(evidence, case)

    def _shown(self, evidence, case):
        """The labels the student's result on `case` shows (the check must declare `case` in reads=)."""
        trace = evidence.trace(case)
        if "error" in trace:
            return self.matching(evidence, case, error=trace["error"])
        student = self.student(evidence, case)
        return [] if student is None else self.matching(evidence, case, student)

    def explain(self, evidence, case, labels):
        """The Korean text of the most likely of `labels`."""
        label = self.likely(evidence, case, labels)
        return " ".join(self.bugs[key] for key in (label if isinstance(label, tuple) else (label,)))
