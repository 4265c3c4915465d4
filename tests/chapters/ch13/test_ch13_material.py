"""Chapter 13 material: the demo copies [1 … 10] and prints the accuracy the text quotes, the same under torch's plain
kernels; no reference decoding rests on a near tie; the trained copy model reaches every place that decodes with it;
the stub ships chapter 12 solved."""
import re

import pytest

from grader import paths
from grader.checks import references, trained
from grader.sandbox import staging
from tests.checks.test_module_chapter_material import results_section
from tests.checks.support import solution_demo_output
from tests.seams import english_words

pytestmark = [pytest.mark.checks, pytest.mark.ch13]

CHAPTER = "13_decoding"
DECODED = re.compile(r"max_len=(?: \d|\d\d): ys \(1, \d+\)  \[[\d, ]+\]\n|맞힌 토큰 \d+ / 900 = \d\.\d\d\n|평가 손실: \d\.\d\d")
SMALLEST_GAP = 0.02  # log-probability between the best and the second-best token at every reference step


@pytest.fixture(scope="module")
def output():
    return solution_demo_output(CHAPTER)


def test_text_quotes_the_demo(output):
    """Every number, shape and token list the "what to look for" section quotes in backticks is printed by the demo."""
    section = results_section(CHAPTER)
    quoted = re.findall(r"`([^`]+)`", section)
    assert {"[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]", "0.97", "875", "0.10", "torch.int64"} <= set(quoted)
    for text in quoted:
        if re.fullmatch(r"[\d.\[\], ()]+|torch\.int64", text):
            assert text in output, text
    assert "max_len=10: ys (1, 10)  [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]" in output


@pytest.mark.slow  # the demo run again, under torch's plain kernels
def test_demo_is_the_same_with_torchs_plain_kernels(output):
    """Under ATEN_CPU_CAPABILITY=default (another CPU's kernels) the demo decodes and scores the same."""
    assert DECODED.findall(solution_demo_output(CHAPTER, ATEN_CPU_CAPABILITY="default")) == DECODED.findall(output)


def test_no_reference_step_is_a_near_tie():
    """At every step of every case the solution's best token beats the second best by SMALLEST_GAP (log-probability),
    so another CPU's last digits never change a reference token."""
    for name, case in references.load(CHAPTER)["cases"].items():
        gaps = [call["gap"] for call in case["calls"]["generator"]]
        assert gaps and min(gaps) >= SMALLEST_GAP, (name, gaps)


def test_the_trained_model_copies_and_goes_wherever_it_is_decoded():
    """The stored weights load strictly into the solution's make_model and copy [1 … 10]; the sandbox staging, the
    students' selfcheck/ and the Gradescope zip carry the weights file beside trained.py."""
    digits = references.load(CHAPTER)["cases"]["digits"]["result"]["data"]
    assert digits == list(range(1, 11))
    staged = [path.name for path in staging.data_files("grader.checks.trained")]
    assert staged == [trained.FILE]
    shipped = paths.EXERCISES / "_selfcheck" / trained.FILE  # beside the shared trained.py
    assert shipped.read_bytes() == (paths.CHECKS / trained.FILE).read_bytes()
    from grader.gradescope.bundle import files
    from grader.gradescope.settings import Settings

    assert f"grader/checks/{trained.FILE}" in files(Settings(CHAPTER, "after_published", wall_seconds=20))


def test_stub_ships_chapter_12_solved():
    """The chapter-13 stub carries run_epoch and data_gen as plain code and blanks greedy_decode."""
    stub = (paths.EXERCISES / CHAPTER / "transformer.py").read_text(encoding="utf-8")
    lines = {line.strip() for line in stub.splitlines()}
    assert "yield Batch(src, tgt, 0)" in lines and "optimizer.zero_grad(set_to_none=True)" in lines
    assert "def greedy_decode(model, src, src_mask, max_len, start_symbol):" in lines
    for solved in ("memory = model.encode(src, src_mask)", "prob = model.generator(out[:, -1])", "return ys"):
        assert solved not in lines, solved


def test_demo_output_reads_korean(output):
    """The demo's log (run_epoch's progress lines included) has no English status or log words."""
    assert "학습 단계:" in output or "평가 손실" in output
    assert english_words(output) == []
