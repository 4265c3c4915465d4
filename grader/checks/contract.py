"""The chapter contract: what a chapter's judge module declares, checked when the chapter loads.

A chapter is content. Its probe (`chNN_probe.py`, sandbox side) declares `CASES` (name → a case with
`visible` and a Korean `text`), `case_names()`, `make_inputs(case)` and `run_case(namespace, case)`.
Its judge (`chNN_judge.py`, grader side) ends with `CHAPTER = Chapter(...)`: the id, the probe, the
checks, the Korean bug texts, the picture for the feedback page, the per-submission budget and the bug
models' code (grader only: the build stores its results in the references; a student's copy declares
None). Everything else (running, judging, reading returned values, error triage, bug models, partial
credit) is the framework's.
"""
from dataclasses import dataclass, field
from typing import Any, Protocol

from .bugmodels import ModelCode
from .framework import Check

TOTAL_POINTS = 100
PROBE_HOOKS = ("CASES", "case_names", "make_inputs", "run_case")


class Probe(Protocol):
    """What a chapter's probe module provides (sandbox side; plain data out)."""

    CASES: dict[str, Any]  # name → a case with `visible: bool` and `text: str` (Korean), plus the chapter's fields

    def case_names(self, visible_only: bool = False) -> list[str]: ...

    def make_inputs(self, case: str) -> tuple: ...

    def run_case(self, namespace: Any, case: str) -> dict: ...


class ChapterError(Exception):
    """A chapter that does not keep the contract (a message for the chapter's author)."""


@dataclass(frozen=True)
class Picture:
    """The tensor drawn on the feedback page: item `item` of what the function returned on `case`, or the value at
    `path` in the case's trace (e.g. `("attributes", "attn")`); `index` picks leading axes (e.g. `(0, 0)`: batch 0, head 0)."""

    case: str = "seed"
    item: int = 1
    label: str = "p_attn"
    path: tuple = ()  # keys into the case's trace; empty: ("result", "items", item)
    index: tuple = ()  # leading indices; further leading axes take their first element
    # How the page names it, in Korean: {title, rows, columns, note, what, missing}; a key left out is spelled from
    # the label.
    texts: dict = field(default_factory=dict, compare=False, hash=False)

    @property
    def where(self):
        """The keys from the case's trace to the drawn tensor."""
        return tuple(self.path) or ("result", "items", self.item)


@dataclass(frozen=True)
class Budget:
    """What one submission may spend in the grading sandbox: CPU seconds (RLIMIT_CPU), wall seconds (then killed,
    status timeout) and torch threads (torch.set_num_threads and OMP/MKL/OpenBLAS). The default is the limit every
    chapter had before budgets (`grader.sandbox.Limits`); an instructor's `--timeout` replaces the times."""

    cpu_seconds: int = 20
    wall_seconds: float = 20.0
    threads: int = 1

    def __post_init__(self):
        for name, value in vars(self).items():
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                raise ChapterError(f"Budget.{name} must be a positive number, not {value!r}")
        if not isinstance(self.threads, int):
            raise ChapterError(f"Budget.threads must be an int, not {self.threads!r}")


@dataclass(frozen=True, kw_only=True)
class Chapter:
    """One chapter's checks: `id` ("01_attention"), `probe` module, `checks`, `bugs` (key → Korean text), `picture`,
    `budget` (what one submission may spend in the sandbox), `model_code` (the `bugmodels.ModelCode` the build runs;
    None without bug models, and in a student's copy)."""

    id: str
    probe: Probe
    checks: list[Check]
    bugs: dict[str, str]
    picture: Picture | None = field(default_factory=Picture)  # None: no heatmap on the feedback page
    budget: Budget = field(default_factory=Budget)
    model_code: Any = None  # a bugmodels.ModelCode (grader only)

    def __post_init__(self):
        problems = list(contract_problems(self))
        if problems:
            raise ChapterError(f"chapter {self.id}: " + "; ".join(problems))

    @property
    def number(self):
        return self.id[:2]

    def check(self, name):
        """The check called `name`, or LookupError (Korean, for a notebook cell with a typo)."""
        found = next((c for c in self.checks if c.name == name), None)
        if found is None:
            raise LookupError(f"{self.id} 장에 {name!r} 검사가 없습니다.")
        return found

    def case_texts(self):
        """{case: Korean description} of every case this copy of the probe has."""
        return {name: case.text for name, case in self.probe.CASES.items()}

    def total_points(self):
        return sum(check.points for check in self.checks)


def contract_problems(chapter):
    """What is wrong with a chapter declaration (English, for its author); empty when it keeps the contract."""
    probe = chapter.probe
    missing = [hook for hook in PROBE_HOOKS if not hasattr(probe, hook)]
    if missing:
        yield f"probe {getattr(probe, '__name__', probe)} lacks {', '.join(missing)}"
        return
    for name, case in probe.CASES.items():
        if not getattr(case, "text", ""):
            yield f"case {name!r} has no Korean text="
    names = [check.name for check in chapter.checks]
    if len(set(names)) != len(names):
        yield f"check names repeat: {names}"
    for check in chapter.checks:
        if not isinstance(check, Check):
            yield f"{check!r} is not a Check"
            continue
        for case in check.all_cases:
            if case not in probe.CASES:
                yield f"check {check.name!r} reads unknown case {case!r}"
            elif check.visible and not probe.CASES[case].visible:
                yield f"visible check {check.name!r} reads hidden case {case!r}"
    if "stub" not in chapter.bugs:
        yield "bugs must explain 'stub' (the unfinished exercise)"
    if any(not isinstance(text, str) or not text for text in chapter.bugs.values()):
        yield "every bug text must be a non-empty string"
    if chapter.picture is not None and chapter.picture.case not in probe.CASES:
        yield f"picture case {chapter.picture.case!r} is not a case"
    elif chapter.picture is not None and not probe.CASES[chapter.picture.case].visible:
        yield f"picture case {chapter.picture.case!r} is hidden (the page draws public references only)"
    if not isinstance(chapter.budget, Budget):
        yield f"budget {chapter.budget!r} is not a Budget"
    if chapter.model_code is not None and not isinstance(chapter.model_code, ModelCode):
        yield f"model_code must be a bugmodels.ModelCode, not {type(chapter.model_code).__name__}"
    hidden_stripped = all(check.visible for check in chapter.checks)  # a student's copy has no hidden checks
    if not hidden_stripped and chapter.total_points() != TOTAL_POINTS:
        yield f"checks total {chapter.total_points():g} points, not {TOTAL_POINTS}"
