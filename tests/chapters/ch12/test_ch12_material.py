"""Chapter 12 material: the demo's copy-task losses fall epoch by epoch as the text quotes, the same under torch's
plain kernels; the stub ships chapters 07-11 solved and blanks this chapter's code."""
import re

import pytest

from grader import paths
from tests.checks.test_module_chapter_material import results_section
from tests.checks.support import solution_demo_output
from tests.seams import english_words

pytestmark = [pytest.mark.checks, pytest.mark.ch12]

CHAPTER = "12_training"
LOSSES = re.compile(r"에포크 (\d+): 평가 손실 (\d+\.\d\d)\n")


@pytest.fixture(scope="module")
def output():
    return solution_demo_output(CHAPTER)


def test_losses_fall_epoch_by_epoch(output):
    """Ten epochs of the copy task under a fixed seed: every evaluation loss is below the one before."""
    losses = [float(value) for _, value in LOSSES.findall(output)]
    assert len(losses) == 10
    assert all(later < earlier for earlier, later in zip(losses, losses[1:])), losses


def test_text_quotes_the_demo(output):
    """Every number the "what to look for" section quotes in backticks is printed by the demo."""
    section = results_section(CHAPTER)
    quoted = re.findall(r"`(\d+(?:\.\d+)?)`", section)
    assert {"18", "54.1238", "3.0069", "2.25", "1.64", "0.34"} <= set(quoted)
    for number in quoted:
        assert number in output, number
    assert "합계는 그래프 없음: True   토큰당 손실은 backward 가능: True" in output


def test_losses_are_the_same_with_torchs_plain_kernels(output):
    """Under ATEN_CPU_CAPABILITY=default (another CPU's kernels) the demo prints the same rounded losses."""
    assert LOSSES.findall(solution_demo_output(CHAPTER, ATEN_CPU_CAPABILITY="default")) == LOSSES.findall(output)


def test_stub_ships_earlier_chapters_solved():
    """The chapter-12 stub carries make_model, Batch, rate and LabelSmoothing as plain code and blanks this chapter."""
    stub = (paths.EXERCISES / CHAPTER / "transformer.py").read_text(encoding="utf-8")
    lines = {line.strip() for line in stub.splitlines()}
    assert 'self.criterion = nn.KLDivLoss(reduction="sum")' in lines and "self.tgt_y = tgt[:, 1:]" in lines
    assert "def make_model(src_vocab, tgt_vocab, N=6, d_model=512, d_ff=2048, h=8, dropout=0.1):" in lines
    for solved in ("return sloss.data * norm, sloss", "optimizer.zero_grad(set_to_none=True)", "data[:, 0] = 1",
                   "yield Batch(src, tgt, 0)", "scheduler.step()"):
        assert solved not in lines, solved


def test_demo_output_reads_korean(output):
    """The demo's log (run_epoch's progress lines included) has no English status or log words."""
    assert "학습 단계:" in output or "평가 손실" in output
    assert english_words(output) == []
