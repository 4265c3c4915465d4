"""Bug models: known wrong implementations, run on a case's inputs and matched to the student's result.

Each model is labelled by the bug keys it stands for. The models of a case run once per submission
(cached on the evidence, whichever check asks first); a model may raise, and then it matches a
student who raised the same exception (type and first line).
"""
import warnings

from .tensors import describe_exception


class BugModels:
    """A chapter's bug models.

    `models(case)` lists (label, model) pairs, most specific first; `call(model, case, inputs)` runs one
    model the way the probe ran the student's function; `same(student, produced)` says whether a model's
    result reproduces the student's (a value from the chapter's reader); `explain(label)` is the Korean text.
    """

    def __init__(self, name, models, call, same, explain):
        self.name = name
        self.models = models
        self.call = call
        self.same = same
        self._explain = explain

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

    def explain(self, evidence, case, labels):
        """The Korean text of the most likely of `labels`."""
        return self._explain(evidence, case, labels)
