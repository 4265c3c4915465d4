"""Every chapter, the same tests: its contract, its points, its fixtures' scores and diagnoses, hidden values kept.

Parametrised over `chapters.CHAPTERS` and marked per chapter (`pytest -m ch01`). A chapter's own material
is its fixtures and its expectations table (`tests/chapters/chNN/table.py`); nothing here names a chapter.
"""
import json
import re

import pytest

from grader.checks import chapter as load_chapter
from grader.checks.compare import shape_text
from grader.checks.contract import Chapter, ChapterError
from grader.checks.discovery import declared_budget
from grader.checks.framework import Check, UndeclaredCase, Verdict, judge
from tests.conftest import floats_in

from .chapters import each_chapter, each_chapter_and_fixtures, each_fixture, fast_sample, grade, total

pytestmark = pytest.mark.checks

DECIMAL = re.compile(r"-?\d+\.(\d{3,})")


@pytest.mark.parametrize("chapter", each_chapter())
def test_contract_loads_and_points_total_100(chapter):
    """The chapter declares a valid `Chapter` whose unique checks total 100 points, some visible and some hidden."""
    declared = load_chapter(chapter.id)
    assert isinstance(declared, Chapter) and declared.id == chapter.id
    names = [check.name for check in declared.checks]
    assert len(set(names)) == len(names)
    assert declared.total_points() == 100
    assert chapter.visible_checks() and chapter.hidden_checks()


@pytest.mark.parametrize("chapter", each_chapter())
def test_the_budget_read_from_the_judge_text_is_the_loaded_one(chapter):
    """`grade` starts its sandbox with the budget read from the judge's text (before torch): the one the chapter has."""
    assert declared_budget(chapter.id) == load_chapter(chapter.id).budget


@pytest.mark.parametrize("chapter", each_chapter())
def test_checks_name_real_cases_with_correct_visibility(chapter):
    """Each check judges (and reads) cases of the probe; a visible check only visible ones; every case is used."""
    probe = chapter.contract.probe
    used = set()
    for check in chapter.contract.checks:
        assert check.cases, check.name
        for case in check.all_cases:
            assert case in probe.CASES, (check.name, case)
            assert probe.CASES[case].visible or not check.visible, (check.name, case)
            used.add(case)
    assert used == set(probe.CASES)
    assert all(case.text for case in probe.CASES.values())


@pytest.mark.parametrize("chapter", each_chapter())
def test_a_broken_declaration_is_refused_with_a_clear_error(chapter):
    """A check reading an unknown case, or a visible check reading a hidden case, stops the chapter from loading."""
    declared = chapter.contract
    hidden = next(name for name, case in declared.probe.CASES.items() if not case.visible)
    broken = [Check(name="extra", points=0, title="t", cases=("no_such_case",), judge=lambda e: Verdict.ok()),
              Check(name="peek", points=0, title="t", cases=(hidden,), judge=lambda e: Verdict.ok())]
    with pytest.raises(ChapterError) as refused:
        Chapter(id=declared.id, probe=declared.probe, checks=declared.checks + broken, bugs=declared.bugs)
    message = str(refused.value)
    assert "unknown case 'no_such_case'" in message and f"visible check 'peek' reads hidden case {hidden!r}" in message


@pytest.mark.parametrize("chapter", each_chapter())
def test_a_judge_reading_an_undeclared_case_is_an_error(chapter):
    """A judge that reads a trace outside its check's `cases`/`reads` fails loudly (verify() would not run it)."""
    declared = chapter.contract
    first, second = list(declared.probe.CASES)[:2]
    check = Check(name="sneaky", points=1, title="t", cases=(first,), judge=lambda e: e.trace(second) and Verdict.ok())
    with pytest.raises(UndeclaredCase):
        judge([check], declared.probe, {"traces": {}}, {"cases": {}})


@pytest.mark.parametrize("chapter", each_chapter())
def test_solution_scores_100_and_visible_checks_alone_their_points(chapter):
    """The solution passes every check; the self-check (visible only) reports the visible checks alone, all passed."""
    results = grade(chapter, chapter.solution)
    assert [(r.name, r.message) for r in results if not r.passed] == []
    assert total(results) == 100
    visible = grade(chapter, chapter.solution, hidden=False)
    assert [r.name for r in visible] == chapter.visible_checks()
    assert total(visible) == sum(r.points for r in visible)


@pytest.mark.parametrize("chapter", each_chapter())
def test_stub_scores_0_and_every_check_says_so(chapter):
    """The generated stub scores 0, and every check's diagnosis is the chapter's stub message."""
    results = grade(chapter, chapter.stub)
    assert total(results) == 0
    for result in results:
        assert chapter.contract.bugs["stub"] in result.message, (result.name, result.message)


@pytest.mark.parametrize("chapter, name", each_fixture("correct"))
def test_correct_fixture_scores_100(chapter, name):
    """A correct solution written differently scores 100 with no diagnosis."""
    results = grade(chapter, chapter.fixture(name))
    assert [(r.name, r.message) for r in results if not r.passed] == []
    assert total(results) == 100


@pytest.mark.parametrize("chapter, name", each_fixture("bugs"))
def test_bug_fixture_fails_exactly_the_listed_checks_with_the_named_diagnosis(chapter, name):
    """A bug fixture fails exactly its table's checks, scores exactly its table's score, and each failure names the bug."""
    expected = chapter.expected[name]
    results = {r.name: r for r in grade(chapter, chapter.fixture(name))}
    failing = {check for check, result in results.items() if not result.passed}
    assert failing == set(expected.diagnoses), (
        f"unexpected: {sorted(failing - set(expected.diagnoses))}, missing: {sorted(set(expected.diagnoses) - failing)}")
    for check, keys in expected.diagnoses.items():
        for key in keys:
            assert chapter.contract.bugs[key] in results[check].message, (check, key, results[check].message)
    # Each check's score is rounded to two decimals (what students see), so the sum may move by 0.005 per check.
    assert total(results.values()) == pytest.approx(expected.score, abs=0.005 * len(results) + 1e-9)


@pytest.mark.parametrize("chapter", each_chapter())
def test_every_fixture_is_in_the_table(chapter):
    """Every patch in tests/chapters/chNN/fixtures is a correct variant (ok_*) or a bug fixture of the table, and vice versa."""
    on_disk = set(chapter.fixture_names)
    assert on_disk - {path.stem for path in chapter.correct} == set(chapter.expected)
    assert all(key in chapter.contract.bugs for bug in chapter.expected.values() for keys in bug.diagnoses.values()
               for key in keys)


def _submissions(chapter):
    return [chapter.stub, chapter.solution, *chapter.fixture_files]


def _hidden_cases(chapter):
    probe = chapter.contract.probe
    return sorted(set(probe.case_names()) - set(probe.case_names(visible_only=True)))


def _hidden_messages(chapter, only=None):
    """(submission, hidden check, message) of every failing hidden check; with `only`, of those fixtures alone."""
    hidden = set(chapter.hidden_checks())
    for path in _submissions(chapter):
        if only is not None and path in chapter.fixture_files and path.stem not in only:
            continue
        for result in grade(chapter, path):
            if result.name in hidden and result.message:
                yield path.stem, result.name, result.message


@pytest.mark.parametrize("chapter, fixtures", each_chapter_and_fixtures())
def test_hidden_diagnoses_never_contain_hidden_values(chapter, fixtures):
    """No 3+-decimal number in a hidden check's message is a hidden reference value; no hidden seed or input shape.
    On the stub, the solution and the chapter's `fast_sample` (which between them fail every check) in every run; on
    every fixture in `make test` (SAMPLE_CHAPTERS) and `make test-exhaustive` (the others)."""
    reference = json.loads(_reference_path(chapter).read_text(encoding="utf-8"))
    values = [v for case in _hidden_cases(chapter) for v in floats_in(reference["cases"][case])]
    assert values, "the hidden cases should have reference values"
    hidden_values = {d: {f"{abs(v):.{d}f}" for v in values} for d in range(3, 13)}
    probe = chapter.contract.probe
    seeds = {str(getattr(probe.CASES[case], "seed", "")) for case in _hidden_cases(chapter)} - {"", "0"}
    shapes = _hidden_shapes(chapter)
    assert shapes, "some hidden input shape should be secret"
    messages = list(_hidden_messages(chapter, fast_sample(chapter) if fixtures == "sample" else None))
    assert {check for _, check, _ in messages} == set(chapter.hidden_checks()), "every hidden check should fail once"
    for name, check, message in messages:
        for match in DECIMAL.finditer(message):
            assert match.group(0).lstrip("-") not in hidden_values[len(match.group(1))], (name, check, match.group(0))
        assert not any(seed in message.replace(",", "").replace("_", "") for seed in seeds), (name, check, message)
        assert not any(shape in message for shape in shapes), (name, check, message)
        assert "HIDDEN TESTS" not in message
        if "실행 중 오류가 났습니다" in message:  # an unrecognised error on a hidden input: its type (and where) only
            assert re.search(r"실행 중 오류가 났습니다 \(\w+(\)\.|, )", message), message


def _reference_path(chapter):
    from grader import chapters as course

    return course.find(chapter.id).reference_file


def _hidden_shapes(chapter):
    """Shapes of the hidden cases' input tensors that no visible case or case description shows."""
    import torch

    probe = chapter.contract.probe

    def shapes(case):
        return {shape_text(t.shape) for t in probe.make_inputs(case) if isinstance(t, torch.Tensor) and t.dim() > 1}

    public = set().union(*(shapes(case) for case in probe.case_names(visible_only=True)))
    described = " ".join(case.text for case in probe.CASES.values())
    return {s for case in _hidden_cases(chapter) for s in shapes(case)} - public - {s for s in public if s in described}
