"""The first cause a student reads names the mistake: for every bug fixture whose table row names one, the first ranked
cause (`scoresheet.causes`, the ranking the self-check and the feedback's "고칠 점" use) holds the table's `first` bug
text (alone, or with the bugs that occur together with it). (It was 90% of each chapter's fixtures; all of them hold
since chapter 11's step + 1 is named on its step-0 check too.)"""
import pytest

from grader.checks import scoresheet

from .chapters import CHAPTERS, each_chapter_and_fixtures, fast_sample, grade

pytestmark = pytest.mark.checks


def first_cause(chapter, name):
    """The first cause listed for fixture `name` (None when every check passed)."""
    contract = chapter.contract
    found = scoresheet.causes(grade(chapter, chapter.fixture(name)), tuple(contract.case_texts().values()),
                           tuple(contract.bugs.values()))
    return found[0][0] if found else None


def named(chapter):
    """The table's rows that name a first cause (near misses without a bug model of their own name none)."""
    return {name: bug for name, bug in chapter.expected.items() if bug.first is not None}


@pytest.mark.parametrize("chapter, fixtures", each_chapter_and_fixtures())
def test_the_first_cause_is_the_tables_bug(chapter, fixtures):
    """On the rows of the chapter's `fast_sample` in every run; on every named row in `make test` (SAMPLE_CHAPTERS)
    and `make test-exhaustive` (the others)."""
    bugs = chapter.contract.bugs
    rows = named(chapter)
    if fixtures == "sample":
        rows = {name: bug for name, bug in rows.items() if name in fast_sample(chapter)}
    firsts = {name: first_cause(chapter, name) for name in sorted(rows)}
    wrong = {name: found for name, found in firsts.items() if bugs[rows[name].first] not in (found or "")}
    assert wrong == {}, {name: (rows[name].first, found) for name, found in wrong.items()}


def test_a_table_states_known_first_causes():
    """Every first cause a table names is a bug key of its chapter."""
    for chapter in CHAPTERS:
        assert all(bug.first in chapter.contract.bugs for bug in named(chapter).values()), chapter.id
