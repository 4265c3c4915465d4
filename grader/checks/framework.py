"""Checks: named, weighted properties of a student's code, judged on plain-data traces.

A chapter has a probe module (sandbox side: builds inputs and records what the student's code
returned) and a judge module (grader side: a list of `Check`s). A check never sees the student's
code; it reads the traces, the reference outputs generated from `solutions/`, and the case inputs.
"""
import contextlib
import sys
from dataclasses import dataclass, field
from typing import Callable

from . import messages


@dataclass(frozen=True)
class Verdict:
    """A check's judgement: the share of its points earned and, when short, why (Korean)."""

    fraction: float
    message: str = ""

    @classmethod
    def ok(cls):
        return cls(1.0)

    @classmethod
    def fail(cls, message):
        return cls(0.0, message)

    @classmethod
    def of(cls, problem):
        """Full points when `problem` (a Korean diagnosis) is None, else none, with the diagnosis."""
        return cls.ok() if problem is None else cls.fail(problem)


class Finding(Exception):
    """Raised inside a judge to stop with a Korean diagnosis; the check earns `fraction`."""

    def __init__(self, message, fraction=0.0):
        super().__init__(message)
        self.message = message
        self.fraction = fraction


@dataclass(frozen=True, kw_only=True)
class Check:
    """A named property worth `points`; `judge(evidence)` returns a Verdict or raises Finding.

    `cases` are the cases the check judges (`evidence.cases`, in order); `reads` are further cases whose
    traces the judge only looks at (e.g. the seed case, to break a tie between bug models). verify() runs
    exactly `cases + reads`, so every way of checking sees the same traces; a visible check reads visible
    cases only.
    """

    name: str
    points: float
    title: str  # Korean
    cases: tuple[str, ...]
    judge: Callable[["Evidence"], Verdict] = field(repr=False, compare=False)
    visible: bool = True
    reads: tuple[str, ...] = ()

    @property
    def all_cases(self):
        """Every case whose trace the judge may read."""
        return tuple(dict.fromkeys(self.cases + self.reads))


@dataclass(frozen=True)
class CheckResult:
    """What one check gave one submission."""

    name: str
    title: str
    points: float
    score: float
    visible: bool
    message: str = ""

    @property
    def passed(self):
        return self.score >= self.points - 1e-9


class UndeclaredCase(LookupError):
    """A judge read the trace of a case its check does not declare (an author's mistake)."""


class Evidence:
    """What a judge may look at: the student's traces (of its check's cases), the references and the inputs.

    `memo(key, compute)` keeps a value for the whole submission: bug models run once per case, whichever
    check asks first.
    """

    def __init__(self, traces, references, probe, cases=None, reads=None, memo=None):
        self.traces = traces
        self.references = references
        self.probe = probe
        self.cases = cases  # the judged cases of the check, in order (None: any)
        self._readable = None if reads is None else frozenset(reads)
        self._memo = {} if memo is None else memo

    def for_check(self, check):
        """The same evidence, limited to the traces of the check's `cases` and `reads`."""
        return Evidence(self.traces, self.references, self.probe, check.cases, check.all_cases, self._memo)

    def with_traces(self, replaced, references=None):
        """The same evidence with the traces of some cases replaced (e.g. by runs with a probe-owned stand-in), and
        their references too when given ({case: reference})."""
        if references:
            self_references = {**self.references, "cases": {**self.references["cases"], **references}}
        else:
            self_references = self.references
        return Evidence({**self.traces, **replaced}, self_references, self.probe, self.cases, self._readable, self._memo)

    def may_read(self, case):
        """Whether the check declared `case` (in `cases` or `reads`), so its trace may be read."""
        return self._readable is None or case in self._readable

    def trace(self, case):
        if not self.may_read(case):
            raise UndeclaredCase(f"the check reads case {case!r} but declares neither cases= nor reads= with it")
        return self.traces.get(case) or {"error": {"type": "NoTrace", "message": ""}}

    def reference(self, case):
        return self.references["cases"][case]

    def inputs(self, case):
        """The case's inputs, rebuilt here from the probe's deterministic recipe."""
        return self.memo(("inputs", case), lambda: self.probe.make_inputs(case))

    def memo(self, key, compute):
        """`compute()`, computed once per submission under `key`."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]

    def visible(self, case):
        return self.probe.CASES[case].visible

    def about(self, case, message):
        """`message` prefixed with the case's Korean description."""
        return f"{case_text(self.probe, case)}: {message}"


def case_text(probe, case):
    """The Korean description of a probe case (its `text`), or its name."""
    spec = probe.CASES.get(case)
    return getattr(spec, "text", "") or case


def per_case(cases, judge_one, label):
    """Run `judge_one(case)` (a Korean problem or None) on each case; earn the share of cases without one.

    A Finding raised by `judge_one` counts as that case's problem; `label(case, problem)` names the case in
    the message (e.g. `evidence.about`), which keeps the first three distinct problems.
    """
    problems = []
    for case in cases:
        try:
            problem = judge_one(case)
        except Finding as finding:
            problem = finding.message
        if problem:
            problems.append(label(case, problem))
    if not problems:
        return Verdict.ok()
    return Verdict((len(cases) - len(problems)) / len(cases), "\n".join(list(dict.fromkeys(problems))[:3]))


def each_case(judge_one):
    """A check's judge from `judge_one(evidence, case)` (a Korean problem or None), run on each of its cases.

    Partial credit: the share of cases without a problem; each problem is named by its case's text.
    """

    def judge(evidence):
        return per_case(evidence.cases, lambda case: judge_one(evidence, case), evidence.about)

    judge.__doc__ = judge_one.__doc__
    judge.one = judge_one  # the judge of a single case, for checks that combine several
    return judge


def noting_stand_in(judge, note):
    """`judge` of a unit another unit depends on: when it fails (not merely unwritten), its message ends with `note`,
    which says the dependent unit is judged with the probe's stand-in for this one (one mistake, its own points)."""

    def judged(evidence):
        verdict = judge(evidence)
        if verdict.fraction >= 1 or any(evidence.trace(case).get("error", {}).get("type") == "NotImplementedError"
                                        for case in evidence.cases):
            return verdict
        return Verdict(verdict.fraction, f"{verdict.message} {note}")

    judged.__doc__ = judge.__doc__
    return judged


def twin_check(name, points, title, case, make, depends_on, judge_of, reads=(), visible=True):
    """A Check of `case` (`make(case)` its judge) for a unit that uses another unit of the chapter: judged on the
    case's "<case>_alone" twin, which the probe built around its own stand-in for the other unit, when that unit fails
    one of its own `depends_on` cases (`judge_of(dependency)` judges one). One mistake costs its own unit."""
    alone = f"{case}_alone"
    own, instead = make(case), make(alone)

    def judge(evidence):
        faulty = any(judge_of(dependency)(evidence).fraction < 1 for dependency in depends_on)
        return instead(evidence) if faulty else own(evidence)

    return Check(name=name, points=points, title=title, cases=(case,), judge=judge, visible=visible,
                 reads=tuple(dict.fromkeys((alone, *depends_on, *reads))))


def judge(checks, probe, outcome, references, visible_only=False):
    """Judge one submission's outcome with every check; a broken outcome scores 0 everywhere."""
    selected = [check for check in checks if check.visible or not visible_only]
    failure = outcome_failure(outcome)
    if failure:
        return [CheckResult(c.name, c.title, c.points, 0.0, c.visible, failure) for c in selected]
    evidence = Evidence(outcome["traces"], references, probe)
    course = outcome.get("given")  # the run with the course's copy of the units the student changed (given.py)
    other = Evidence(course["traces"], references, probe) if isinstance(course, dict) and \
        isinstance(course.get("traces"), dict) else None
    with _one_thread():
        results = [_run_check(check, evidence.for_check(check)) for check in selected]
        if other is not None:  # a check the change of a given unit failed counts as judged with the course's unit
            results = [_better(result, lambda check=check: _run_check(check, other.for_check(check)))
                       for check, result in zip(selected, results)]
        return results


def _better(result, judged_otherwise):
    """`result`, or the other run's result of the same check when that one scores as much or more: run with the
    course's copy of the changed units, its message names what is wrong in the chapter's own units."""
    if result.score >= result.points:
        return result
    other = judged_otherwise()
    return other if other.score >= result.score else result


def _one_thread():
    """Judging works on tiny tensors: one torch thread is faster, and much faster on a loaded machine."""
    return torch_threads(1)


@contextlib.contextmanager
def torch_threads(count):
    """torch's intra-op threads set to `count` inside the block (a chapter's `Budget.threads`), restored after."""
    torch = sys.modules.get("torch")
    if torch is None:
        yield
        return
    threads = torch.get_num_threads()
    torch.set_num_threads(count)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def _run_check(check, evidence):
    try:
        verdict = check.judge(evidence)
    except Finding as finding:
        verdict = Verdict(finding.fraction, finding.message)
    fraction = min(1.0, max(0.0, verdict.fraction))
    message = "" if fraction >= 1.0 else verdict.message
    return CheckResult(check.name, check.title, check.points, round(check.points * fraction, 2), check.visible, message)


def outcome_failure(outcome):
    """A Korean message when the submission produced no traces at all, else None."""
    if "failure" in outcome:
        return outcome["failure"]
    if "load_error" in outcome:
        from .errortext import cuda_problem
        from .loading import place

        error = outcome["load_error"]
        if isinstance(error, dict) and cuda_problem(error):
            return cuda_problem(error)
        detail = f"{error.get('type')}: {error.get('message')}".rstrip(": ")
        where = place(error.get("where"))
        return messages.load_error(f"{detail}{', ' + where if where else ''}", error.get("type"))
    if not isinstance(outcome.get("traces"), dict):
        return messages.UNREADABLE_OUTCOME
    return None
