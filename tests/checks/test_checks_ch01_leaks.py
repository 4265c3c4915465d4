"""Hidden checks explain failures without revealing the hidden inputs' expected values or test code.

Graded feedback is published to students, so a hidden check's diagnosis may describe the hidden
input ("숨겨진 4차원 입력 …") and name the bug, but must not quote numbers from the hidden cases'
reference outputs, nor any text from the hidden-test regions of the checks.
"""
import json
import re

import pytest

from grader.checks import ch01_judge, ch01_probe

from .support import FIXTURES, ROOT, SOLUTION, STUB, grade
from tests.conftest import floats_in

pytestmark = pytest.mark.checks

REFERENCE = ROOT / "grader" / "reference" / "01_attention.json"
HIDDEN_CASES = sorted(set(ch01_probe.case_names()) - set(ch01_probe.case_names(visible_only=True)))
HIDDEN_CHECKS = {c.name for c in ch01_judge.CHECKS if not c.visible}
DECIMAL = re.compile(r"-?\d+\.(\d{3,})")
SUBMISSIONS = [STUB, SOLUTION, *sorted(FIXTURES.glob("*.py"))]


@pytest.fixture(scope="module")
def hidden_values():
    """{decimals: set of hidden reference values formatted with that many decimals} for 3 … 12 decimals."""
    cases = json.loads(REFERENCE.read_text(encoding="utf-8"))["cases"]
    assert set(HIDDEN_CASES) <= set(cases)
    values = [v for case in HIDDEN_CASES for v in floats_in(cases[case])]
    assert values, "the hidden cases should have reference values"
    return {d: {f"{v:.{d}f}" for v in values} | {f"{abs(v):.{d}f}" for v in values} for d in range(3, 13)}


def _hidden_messages():
    for path in SUBMISSIONS:
        for result in grade(path, hidden=True):
            if result.name in HIDDEN_CHECKS and result.message:
                yield path.stem, result.name, result.message


def test_some_hidden_diagnoses_exist():
    """The fixtures fail every hidden check at least once (so the leak tests below look at real messages)."""
    failed = {check for _, check, _ in _hidden_messages()}
    assert failed == HIDDEN_CHECKS


def _leaks(messages, hidden_values):
    """[(submission, check, number)] for each 3+-decimal number that is a hidden reference value."""
    leaks = []
    for name, check, message in messages:
        for match in DECIMAL.finditer(message):
            if match.group(0).lstrip("-") in hidden_values.get(len(match.group(1)), ()):
                leaks.append((name, check, match.group(0)))
    return leaks


def test_leak_detector_finds_a_planted_value(hidden_values):
    """Sanity check of the detector: a hidden reference value quoted with 4 decimals is caught."""
    value = sorted(hidden_values[4])[len(hidden_values[4]) // 2]
    planted = [("planted", "batched_3d", f"기대값은 {value}입니다.")]
    assert _leaks(planted, hidden_values) == [("planted", "batched_3d", value)]


def test_no_hidden_reference_number_in_hidden_diagnoses(hidden_values):
    """No number with 3+ decimals in a hidden check's diagnosis equals a hidden reference value at that precision."""
    assert _leaks(_hidden_messages(), hidden_values) == []


def test_no_hidden_test_code_in_diagnoses():
    """No diagnosis (hidden or visible) contains hidden-test markers or the hidden cases' seeds."""
    seeds = {str(ch01_probe.CASES[case].seed) for case in HIDDEN_CASES}
    for path in SUBMISSIONS:
        for result in grade(path, hidden=True):
            assert "### BEGIN HIDDEN" not in result.message and "HIDDEN TESTS" not in result.message
            assert not any(seed in result.message.replace(",", "").replace("_", "") for seed in seeds), result


def test_hidden_errors_do_not_quote_the_exception():
    """An unrecognised error on a hidden input is reported by type only (its message may show hidden shapes)."""
    for path in SUBMISSIONS:
        for result in grade(path, hidden=True):
            if result.name in HIDDEN_CHECKS and "실행 중 오류가 났습니다" in result.message:
                assert re.search(r"실행 중 오류가 났습니다 \(\w+\)\.", result.message), result.message
