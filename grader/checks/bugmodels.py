"""Bug models: known wrong implementations, run on a case's inputs and matched to the student's result.

Each model is labelled by the bug keys it stands for. The models of a case run once per submission
(cached on the evidence, whichever check asks first); a model may raise, and then it matches a
student who raised the same exception (type and first line).
"""
import warnings

from .tensors import describe_exception


class BugModels:
    """A chapter's bug models.

    `models(case)` lists (label, model) pairs, most specific first; a label is a bug key of `bugs` or a tuple of
    keys (bugs that occur together). `call(model, case, inputs)` runs one model the way the probe ran the
    student's function; `same(student, produced)` says whether a model's result reproduces the student's (as
    read by the chapter's judge, or by `student(evidence, case)` from a trace). With `tie_break="seed"`, when
    several models match on another case, those the student's result on the seed case shows too come first.
    """

    def __init__(self, name, models, call, same, bugs, student=None, tie_break=None):
        self.name = name
        self.models = models
        self.call = call
        self.same = same
        self.bugs = bugs
        self.student = student
        self.tie_break = tie_break

    def results(self, evidence, case):
        """[(label, result or the exception)] of every model on `case`, computed once per submission."""
        return evidence.memo((self.name, case), lambda: [(label, self._run(model, case, evidence.inputs(case)))
                                                          for label, model in self.models(case)])

    def _run(self, model, case, inputs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                return self.call(model, case, inputs)
            except Exception as error:  # a bug model may fail the way the student's code did
                return error

    def matching(self, evidence, case, student=None, error=None):
        """The labels whose models reproduce the student's result (or exception `error`), in order, no repeats."""
        found = []
        for label, produced in self.results(evidence, case):
            if isinstance(produced, Exception):
                if error is not None and describe_exception(produced) == {"type": error["type"], "message": error["message"]}:
                    found.append(label)
            elif error is None and self.same(student, produced):
                found.append(label)
        return list(dict.fromkeys(label for label in found if label))

    def likely(self, evidence, case, labels):
        """The most likely of `labels` (all reproduce the student's result on `case`), or None."""
        if len(labels) > 1 and self.tie_break and case != self.tie_break:
            shown = self._shown(evidence, self.tie_break)
            labels = [label for label in labels if label in shown] or labels
        return labels[0] if labels else None

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
