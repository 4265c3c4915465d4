"""Checks: named, weighted properties of a student's code, judged on plain-data traces.

A chapter has a probe module (sandbox side: builds inputs and records what the student's code
returned) and a judge module (grader side: a list of `Check`s). A check never sees the student's
code; it reads the traces, the reference outputs generated from `solutions/`, and the case inputs.
"""
import contextlib
import sys
from dataclasses import dataclass, field
from typing import Callable


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


class Finding(Exception):
    """Raised inside a judge to stop with a Korean diagnosis; the check earns `fraction`."""

    def __init__(self, message, fraction=0.0):
        super().__init__(message)
        self.message = message
        self.fraction = fraction


@dataclass(frozen=True)
class Check:
    """A named property worth `points`; `judge(evidence)` returns a Verdict or raises Finding."""

    name: str
    points: float
    title: str
    visible: bool
    cases: tuple
    judge: Callable = field(repr=False, compare=False)


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


class Evidence:
    """What a judge may look at: the student's traces, the references and the case inputs."""

    def __init__(self, traces, references, probe):
        self.traces = traces
        self.references = references
        self.probe = probe
        self._inputs = {}

    def trace(self, case):
        return self.traces.get(case) or {"error": {"type": "NoTrace", "message": ""}}

    def reference(self, case):
        return self.references["cases"][case]

    def inputs(self, case):
        """The case's inputs, rebuilt here from the probe's deterministic recipe."""
        if case not in self._inputs:
            self._inputs[case] = self.probe.make_inputs(case)
        return self._inputs[case]


def per_case(cases, judge_one, label):
    """Run `judge_one(case)` (a Korean problem or None) on each case; earn the share of cases without one.

    A Finding raised by `judge_one` counts as that case's problem; `label(case, problem)` names the case in
    the message, which keeps the first three distinct problems.
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


def judge(checks, probe, outcome, references, visible_only=False):
    """Judge one submission's outcome with every check; a broken outcome scores 0 everywhere."""
    selected = [check for check in checks if check.visible or not visible_only]
    failure = outcome_failure(outcome)
    if failure:
        return [CheckResult(c.name, c.title, c.points, 0.0, c.visible, failure) for c in selected]
    evidence = Evidence(outcome["traces"], references, probe)
    with _one_thread():
        return [_run_check(check, evidence) for check in selected]


@contextlib.contextmanager
def _one_thread():
    """Judging works on tiny tensors: one torch thread is faster, and much faster on a loaded machine."""
    torch = sys.modules.get("torch")
    if torch is None:
        yield
        return
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
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
    return CheckResult(check.name, check.title, check.points, round(check.points * fraction, 4), check.visible, message)


def outcome_failure(outcome):
    """A Korean message when the submission produced no traces at all, else None."""
    if "failure" in outcome:
        return outcome["failure"]
    if "load_error" in outcome:
        from .loading import place

        error = outcome["load_error"]
        detail = f"{error.get('type')}: {error.get('message')}".rstrip(": ")
        where = place(error.get("where"))
        return (f"코드를 불러오는 중 오류가 났습니다 ({detail}{', ' + where if where else ''}). "
                "파일 전체가 오류 없이 실행되는지 먼저 확인하세요.")
    if not isinstance(outcome.get("traces"), dict):
        return "채점 결과를 읽을 수 없습니다."
    return None
