"""Scores and diagnoses of every nn.Module chapter, from its expectation table (tests/checks/module_chapters.py).

Solution 100, stub 0 with the stub diagnosis, correct variants 100, each listed mistake loses points on
exactly its checks with its Korean diagnosis (referenced through the judge's BUGS, never retyped),
names other than the contract's are shown next to the expected ones, hidden diagnoses leak nothing.
"""
import pytest

from grader import paths
from tests.checks.module_chapters import TABLES, grade, total

pytestmark = pytest.mark.checks

CHAPTERS = sorted(TABLES)
BUG_CASES = [(chapter, name) for chapter in CHAPTERS for name in sorted(TABLES[chapter].bug_fixtures)]
CORRECT_CASES = [(chapter, name) for chapter in CHAPTERS for name in TABLES[chapter].correct_variants]
RENAMED_CASES = [(chapter, name) for chapter in CHAPTERS for name in sorted(TABLES[chapter].renamed)]


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_points_add_up_to_100(chapter):
    """The chapter's checks are worth 100 points with unique names; visible ones as the table says."""
    table = TABLES[chapter]
    checks = table.judge.CHECKS
    assert sum(check.points for check in checks) == 100
    assert len(table.checks) == len(checks)
    assert sum(check.points for check in checks if check.visible) == table.visible_points


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_check_names_cases_of_the_probe(chapter):
    """Each check's cases exist in the probe, and a visible check only uses visible cases."""
    judge = TABLES[chapter].judge
    for check in judge.CHECKS:
        for case in check.cases:
            assert case in judge.probe.CASES, (check.name, case)
            if check.visible:
                assert judge.probe.CASES[case].visible, (check.name, case)


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_solution_scores_100(chapter):
    """The chapter's solution passes every check, visible and hidden."""
    results = grade(chapter, paths.SOLUTIONS / chapter / "transformer.py")
    assert {r.name: r.message for r in results if not r.passed} == {}
    assert total(results) == 100


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_stub_scores_0_with_the_stub_diagnosis(chapter):
    """The student stub scores 0 and every check says the TODO is unwritten."""
    results = grade(chapter, paths.EXERCISES / chapter / "transformer.py")
    assert total(results) == 0
    stub = TABLES[chapter].judge.BUGS["stub"]
    for result in results:
        assert stub in result.message, (result.name, result.message)


@pytest.mark.parametrize("chapter, name", CORRECT_CASES)
def test_correct_variants_score_100(chapter, name):
    """A correct solution written differently scores 100."""
    results = grade(chapter, TABLES[chapter].fixture(name))
    assert {r.name: r.message for r in results if not r.passed} == {}
    assert total(results) == 100


@pytest.mark.parametrize("chapter, name", BUG_CASES)
def test_bug_fixture_loses_points_with_its_diagnosis(chapter, name):
    """A fixture with one listed mistake loses points on exactly the expected checks, each naming the mistake."""
    table = TABLES[chapter]
    expected = table.bug_fixtures[name]
    results = {r.name: r for r in grade(chapter, table.fixture(name))}
    failing = {n for n, r in results.items() if not r.passed}
    assert failing == set(expected), f"{name}: failing {sorted(failing)}"
    for check, bug in expected.items():
        assert table.judge.BUGS[bug] in results[check].message, (name, check, results[check].message)
    assert total(results.values()) < 100


@pytest.mark.parametrize("chapter, name", RENAMED_CASES)
def test_other_names_show_expected_and_found_names(chapter, name):
    """Attributes named otherwise than the contract: the structure check lists the expected and the found names."""
    expected_name, found_name = TABLES[chapter].renamed[name]
    results = {r.name: r for r in grade(chapter, TABLES[chapter].fixture(name))}
    message = results["module_structure"].message
    assert f"`{expected_name}`" in message and f"`{found_name}`" in message
    assert "기준의 이름" in message and "찾은 이름" in message


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_fixture_is_listed(chapter):
    """Every file in the chapter's fixture folder is in its table."""
    table = TABLES[chapter]
    folder = table.fixture(table.correct_variants[0]).parent
    on_disk = {path.stem for path in folder.glob("*.py")}
    assert on_disk == set(table.bug_fixtures) | set(table.correct_variants) | set(table.renamed)


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_hidden_diagnoses_do_not_show_hidden_shapes_or_errors(chapter):
    """Messages of hidden checks never print the hidden cases' shapes, sizes or exception details."""
    table = TABLES[chapter]
    hidden = {check.name: check.cases for check in table.judge.CHECKS if not check.visible}
    for name in list(table.bug_fixtures) + list(table.renamed):
        for result in grade(chapter, table.fixture(name)):
            if result.name not in hidden or not result.message:
                continue
            assert "모양:" not in result.message and "Error:" not in result.message, result.message
            assert "기준의 이름" not in result.message
            for case in hidden[result.name]:
                spec = table.judge.probe.CASES[case]
                assert f", {spec.d_model})" not in result.message, (name, result.message)
                assert f"d_model={spec.d_model}" not in result.message, (name, result.message)
