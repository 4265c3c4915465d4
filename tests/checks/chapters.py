"""The chapters under test: where each one's fixtures, solution, stub and expectations table are.

Adding a chapter's tests = its fixtures, patches `tests/chapters/chNN/fixtures/<name>.diff` against the chapter's solution
(correct ones named `ok_*`, near misses `near_*`), and one expectations table `tests/chapters/chNN/table.py` (`EXPECTED`:
bug fixture → `Bug`). Add a fixture from an edited copy of the solution with
`python -m tests.fixtures.make_patch chNN NAME EDITED.py`; the tests read the materialised `.py` files
(`ChapterUnderTest.fixtures`, `fixture(name)`, or `tests.fixtures.path("chNN", name)`).
"""
import functools
import importlib
import warnings
from dataclasses import dataclass, field

import pytest

from grader import chapters as course
from grader.checks import chapter as load_chapter
from tests import fixtures as fixture_patches
from tests.conftest import ROOT

IDS = [source.id for source in course.all_chapters()]


@dataclass(frozen=True)
class Bug:
    """What one bug fixture must get: exactly `score` points, failing exactly the checks of `diagnoses`.

    `diagnoses` maps each failing check to the bug keys whose Korean texts its message must contain; `first` is the bug
    key whose text must be the first cause the student reads (the self-check's and the feedback's ranking).
    """

    score: float
    diagnoses: dict = field(default_factory=dict)
    first: str = None


def fails(score, checks, key, first=None, **others):
    """Bug(score, each of `checks` naming BUGS[key]), with `others` (check=(keys…)) overriding single checks; the
    first cause is BUGS[key] unless `first` names another key."""
    diagnoses = {check: (key,) for check in checks}
    diagnoses.update({check: (keys,) if isinstance(keys, str) else tuple(keys) for check, keys in others.items()})
    return Bug(score, diagnoses, first or key)


@dataclass(frozen=True)
class ChapterUnderTest:
    """One chapter's test material."""

    id: str

    @property
    def number(self):
        return self.id[:2]

    @property
    def marker(self):
        return f"ch{self.number}"

    @property
    def contract(self):
        return load_chapter(self.id)

    @property
    def fixtures(self):
        """The folder of the chapter's materialised fixtures (`tests/fixtures/.built/chNN/<name>.py`)."""
        return fixture_patches.folder(self.marker)

    @property
    def fixture_names(self):
        """Every fixture's name: one per patch `tests/chapters/chNN/fixtures/<name>.diff`."""
        return sorted(patch.stem for patch in fixture_patches.patch_files(self.marker))

    @property
    def fixture_files(self):
        """Every materialised fixture, sorted."""
        return fixture_patches.all_files(self.marker)

    @property
    def solution(self):
        return ROOT / "solutions" / self.id / "transformer.py"

    @property
    def stub(self):
        return ROOT / "exercises" / self.id / "transformer.py"

    @property
    def exercise_dir(self):
        return ROOT / "exercises" / self.id

    @property
    def expected(self):
        """The chapter's one expectations table: {bug fixture: Bug}."""
        return importlib.import_module(f"tests.chapters.{self.marker}.table").EXPECTED

    @property
    def correct(self):
        """The correct variants: the materialised fixtures named ok_*."""
        return sorted(self.fixtures.glob("ok_*.py"))

    def fixture(self, name):
        return fixture_patches.path(self.marker, name)

    def visible_checks(self):
        return [check.name for check in self.contract.checks if check.visible]

    def hidden_checks(self):
        return [check.name for check in self.contract.checks if not check.visible]


CHAPTERS = [ChapterUnderTest(chapter_id) for chapter_id in IDS]


# One chapter of each kind of probe, for properties whose code path is the same in every chapter once each kind is
# tried (a function, a module built from seeded weights, training with the trained copy model, figures read as data):
# `make test` runs such a property on these; `make test-exhaustive` on the other chapters.
SAMPLE_CHAPTERS = ("01_attention", "03_multihead", "12_training", "14_attention_maps")


def each_chapter(sampled=False):
    """pytest parameters: one per chapter, marked with its marker (`pytest -m ch02`); with `sampled`, the chapters
    outside SAMPLE_CHAPTERS are also marked `exhaustive`."""
    def marks(chapter):
        extra = [pytest.mark.exhaustive] if sampled and chapter.id not in SAMPLE_CHAPTERS else []
        return [getattr(pytest.mark, chapter.marker), *extra]

    return [pytest.param(chapter, id=chapter.marker, marks=marks(chapter)) for chapter in CHAPTERS]


def _covering(universe, sets):
    """Names of `sets` (greedily, in name order) whose union covers as much of `universe` as they can."""
    left, chosen = set(universe), []
    while left:
        best = max(sorted(sets), key=lambda name: len(sets[name] & left))
        if not sets[best] & left:
            break
        chosen.append(best)
        left -= sets[best]
    return chosen


def fast_sample(chapter):
    """The fixtures `make test-fast` checks where `make test` checks them all: the first correct variant and bug
    fixtures that, between them, fail every check and pass every check (so each check's failing and passing verdict in
    a partly right submission is seen)."""
    checks = {check.name for check in chapter.contract.checks}
    failing = {name: set(bug.diagnoses) for name, bug in chapter.expected.items()}
    passing = {name: checks - failed for name, failed in failing.items()}
    correct = [path.stem for path in chapter.correct][:1]
    return {*correct, *_covering(checks, failing), *_covering(checks, passing)}


def each_fixture(kind="bugs"):
    """pytest parameters (chapter, fixture name) over every chapter's bug fixtures (or "correct" ones); the bug fixtures
    outside the chapter's `fast_sample` are marked slow (`make test-fast` runs the sample), and outside
    SAMPLE_CHAPTERS also exhaustive (`make test` runs every fixture of one chapter of each kind, CI all of them)."""
    params = []
    for chapter in CHAPTERS:
        names = sorted(chapter.expected) if kind == "bugs" else [path.stem for path in chapter.correct]
        sample = fast_sample(chapter) if kind == "bugs" else set(names)
        params += [pytest.param(chapter, name, id=f"{chapter.marker}-{name}",
                                marks=[getattr(pytest.mark, chapter.marker)] + ([] if name in sample else every(chapter)))
                   for name in names]
    return params


def every(chapter):
    """The marks of a property repeated over every fixture of `chapter` (its sample aside): slow, and exhaustive
    outside SAMPLE_CHAPTERS."""
    return [pytest.mark.slow] + ([] if chapter.id in SAMPLE_CHAPTERS else [pytest.mark.exhaustive])


def each_chapter_and_fixtures():
    """pytest parameters (chapter, "sample" | "every"): a property on the chapter's `fast_sample` (every run), and on
    every fixture (marked as `every` says)."""
    return [pytest.param(chapter, fixtures, id=f"{fixtures}-{chapter.marker}",
                         marks=[getattr(pytest.mark, chapter.marker)] + (every(chapter) if fixtures == "every" else []))
            for fixtures in ("sample", "every") for chapter in CHAPTERS]


@functools.lru_cache(maxsize=None)
def _graded(chapter_id, path, visible_only):
    import contextlib
    import io

    from grader.checks import in_process

    with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()):
        warnings.simplefilter("ignore")
        return tuple(in_process.run(chapter_id, path, visible_only=visible_only))


def grade(chapter, path, hidden=True):
    """in_process.run of the chapter on `path` (all checks when hidden), cached: a list of CheckResult."""
    return list(_graded(chapter.id, str(path), not hidden))


def total(results):
    return round(sum(r.score for r in results), 4)
