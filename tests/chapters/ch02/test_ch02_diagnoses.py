"""Chapter 02 diagnoses that need more than the expectations table."""
import pytest

from grader.checks import ch02_judge

from tests.checks.chapters import ChapterUnderTest, grade

pytestmark = pytest.mark.checks

CH02 = ChapterUnderTest("02_masking")


def results(name):
    return {r.name: r for r in grade(CH02, CH02.fixture(name))}


def test_the_named_diagnoses_are_covered():
    """The bug classes the chapter must recognise each have a fixture that triggers them."""
    named = {key for bug in CH02.expected.values() for keys in bug.diagnoses.values() for key in keys}
    required = {"inverted_mask", "fill_zero", "neg_inf", "after_softmax", "subsequent_diagonal",
                "subsequent_inverted", "dropout_scores", "dropout_output", "subsequent_uint8", "subsequent_float",
                "subsequent_no_batch"}
    assert required <= named


def test_neg_inf_is_only_wrong_on_fully_masked_rows():
    """-inf equals -1e9 wherever a row keeps one visible key, so only the fully-masked checks catch it, with NaN named."""
    found = results("neg_inf")
    assert found["causal_mask"].passed and found["padding_mask"].passed
    assert "NaN" in found["fully_masked_row"].message


def test_dropout_output_right_but_weights_not_returned_gets_half():
    """Mixing value with dropped weights but returning the undropped p_attn earns half of a dropout check."""
    found = results("dropout_not_returned")
    assert found["dropout_train"].score == found["dropout_train"].points / 2


def test_a_missing_function_is_named():
    """A file without subsequent_mask is told which function is missing, on the subsequent_mask checks only."""
    source = CH02.solution.read_text(encoding="utf-8").replace("def subsequent_mask(", "def _subsequent_mask(")
    from grader.checks.framework import judge
    from grader.checks import references
    from grader.checks.execute import execute

    outcome = execute(source, ch02_judge.probe, ch02_judge.probe.case_names())
    found = {r.name: r for r in judge(CH02.contract.checks, ch02_judge.probe, outcome, references.load(CH02.id))}
    assert "subsequent_mask 함수를 찾을 수 없습니다" in found["subsequent_mask_values"].message
    assert found["causal_mask"].passed
