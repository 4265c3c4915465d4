"""Chapter 11 material specifics: the demo's rates and true_dist are the ones the text quotes; chapter 10 ships solved."""
import pytest

from grader import paths
from tests.checks.test_module_chapter_material import demo_output, results_section

pytestmark = [pytest.mark.checks, pytest.mark.ch11]

CHAPTER = "11_smoothing"
RATES = {0: "1.746928e-07", 1: "1.746928e-07", 4000: "6.987712e-04", 20000: "3.125000e-04"}
ROWS = {  # target → the row of true_dist the demo prints for LabelSmoothing(5, 0, 0.4)
    2: "0.0000 0.1333 0.6000 0.1333 0.1333",
    0: "0.0000 0.0000 0.0000 0.0000 0.0000",
}


def test_demo_prints_the_schedule_with_step_zero_equal_to_step_one():
    """rate(step, 512, 1, 4000) at steps 0, 1, 4000 and 20000; the peak at the warmup step."""
    out = demo_output(CHAPTER)
    for step, value in RATES.items():
        assert f"step {step:>5}: {value}\n" in out
    assert "step 0과 step 1이 같다: True" in out
    assert "가장 큰 학습률의 step: 4000" in out


def test_demo_prints_true_dist_with_a_zero_padding_row():
    """The true_dist of targets [2, 1, 0, 3, 3]: 0.6 on the target, 0.1333 elsewhere, the padding row all zeros."""
    out = demo_output(CHAPTER)
    for target, row in ROWS.items():
        assert f"target {target}: {row}" in out


def test_text_quotes_the_rates_and_the_smoothed_values():
    """The "what to look for" section quotes the rates and the two values of a smoothed row as the demo prints them."""
    section = results_section(CHAPTER)
    for value in {*RATES.values(), "0.6000", "0.1333"}:
        assert f"`{value}`" in section, value


def test_stub_ships_chapter_10_solved():
    """The chapter-11 stub carries the model and Batch as plain code and leaves rate and LabelSmoothing blank."""
    stub = (paths.EXERCISES / CHAPTER / "transformer.py").read_text(encoding="utf-8")
    lines = stub.splitlines()
    assert "            self.ntokens = (self.tgt_y != pad).data.sum()" in lines
    assert "        return log_softmax(self.proj(x), dim=-1)" in lines
    assert "step = 1" not in stub and "true_dist.scatter_" not in stub and 'reduction="sum")\n' not in stub
