"""Chapter 01 diagnoses that need more than the expectations table: ties, numbers in messages, wording.

A diagnosis never contradicts its check's title or its own numbers; where the cause is unknown it says
what differs.
"""
import re

import pytest

from grader.checks import ch01_judge, verify
from grader.checks.loading import module_from_source, read_source

from tests.checks.chapters import ChapterUnderTest, grade

pytestmark = pytest.mark.checks

CH01 = ChapterUnderTest("01_attention")
BUGS = ch01_judge.BUGS


def results(name, hidden=False):
    return {r.name: r for r in grade(CH01, CH01.fixture(name), hidden=hidden)}


def test_a_list_is_accepted_as_the_pair():
    """Decision: `return [output, p_attn]` is accepted (it unpacks like the tuple); the contract is the order and types."""
    assert results("ok_list_return")["return_contract"].passed


@pytest.mark.parametrize("name, bug", [("wrong_dk", "wrong_dk"), ("times_sqrt", "times_sqrt")])
def test_ambiguous_single_query_case_is_resolved_by_the_seed(name, bug):
    """With one query (d_k=512 saturation input) several scale bugs coincide; the seed result names the real one."""
    message = results(name)["no_saturation"].message
    assert BUGS[bug] in message and BUGS["no_scale"] not in message


def test_wrong_dk_diagnosis_reports_the_scale_used():
    """The wrong-d_k diagnosis says which number the scores were divided by instead of √d_k (seed: √3 for √4)."""
    assert "√d_k = 2가 아니라 약 1.73" in results("wrong_dk_key_len")["seed_weights"].message


def test_partial_credit_is_per_case():
    """Checks over several visible inputs give the share of inputs that pass (swap_qk fails 1 of 5 property cases)."""
    cases = len(ch01_judge.PROPERTY_CASES)
    assert results("swap_qk")["rows_sum_to_one"].score == pytest.approx(round(10 * (cases - 1) / cases, 2))


def test_hidden_case_names_are_in_the_hidden_diagnoses():
    """A hidden check's diagnosis says which (described, not shown) hidden input failed."""
    message = results("transpose_12", hidden=True)["batched_4d"].message
    assert message.startswith(ch01_judge.probe.CASES["batched_4d"].text)


def test_saturation_diagnosis_follows_the_largest_weight():
    """Dividing by d_k spreads the weights (largest ≈ 0.1): the saturation check says so, not "saturated";
    not dividing at all piles them on one key: the same check says it saturated."""
    spread = results("divide_by_dk")["no_saturation"].message
    assert "고르게 퍼졌습니다" in spread and "몰렸" not in spread
    largest, expected = map(float, re.search(r"가장 큰 가중치가 ([\d.]+)입니다\(기대 ([\d.]+)\)", spread).groups())
    assert largest < expected
    assert BUGS["divide_by_dk"] in spread
    piled = results("no_scale")["no_saturation"].message
    assert "한 칸에 몰렸습니다(포화)" in piled and BUGS["no_scale"] in piled


@pytest.mark.parametrize("name", ["log_softmax", "sigmoid", "scores"])
def test_weights_that_are_no_distribution_are_not_called_spread_or_saturated(name):
    """Negative weights or rows not summing to 1 (log_softmax, sigmoid, raw scores) are said to be no distribution."""
    message = results(name)["no_saturation"].message
    assert message.startswith("가중치가 확률 분포가 아닙니다") and "몰렸" not in message and "퍼졌" not in message


def test_a_wrong_scale_in_the_output_alone_is_named_on_the_output():
    """scaled_dot_product_attention(scale=√d_k) beside a right p_attn: the weighted-mix check says the output was
    mixed with other weights (and which), never that p_attn was not divided by √d_k."""
    found = results("sdpa_scale_sqrt")
    assert found["seed_weights"].passed and found["rows_sum_to_one"].passed
    for check in ("weighted_mix", "seed_output"):
        message = found[check].message
        assert "다른 가중치로 value를 섞은" in message and BUGS["times_sqrt"] in message
        assert BUGS["no_scale"] not in message


def test_verify_failure_message_carries_the_diagnosis(capsys):
    """verify() raises AssertionError whose text has the check title, its score and the Korean diagnosis."""
    module = module_from_source(read_source(CH01.fixture("no_scale")))
    with pytest.raises(AssertionError) as failure:
        verify(CH01.id, "seed_weights", module)
    text = str(failure.value)
    assert "시드 입력의 가중치 p_attn" in text and "0/15점" in text and BUGS["no_scale"] in text


def test_tensors_of_two_dtypes_in_one_operation_are_named():
    """`scores.float().softmax(…)` on the hidden float64 case: the second matmul raises, and the message names the two
    dtypes mixed (with the line), not only "실행 중 오류가 났습니다", and hides the hidden case's exception text."""
    from grader.checks import errortext

    message = results("softmax_float32", hidden=True)["float64_preserved"].message
    assert errortext.DTYPE.split("(")[0] in message and "transformer.py" in message
    assert "expected" not in message
