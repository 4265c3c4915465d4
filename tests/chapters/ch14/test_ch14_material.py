"""Chapter 14 material: the demo's numbers are the ones the text quotes (also under torch's plain kernels), its
pictures land in the git-ignored attention_pictures/ folder, and the stub ships chapters 12-13 solved."""
import re
import subprocess

import pytest

from grader import paths
from tests.checks.test_module_chapter_material import results_section
from tests.checks.support import solution_demo_output

pytestmark = [pytest.mark.checks, pytest.mark.ch14]

CHAPTER = "14_attention_maps"
PICTURES = ("encoder_self.png", "decoder_self.png", "decoder_src.png")
HEADS = re.compile(r"head (\d): i\+1열 평균 (\d\.\d\d), i열 평균 (\d\.\d\d)")


@pytest.fixture(scope="module")
def output():
    return solution_demo_output(CHAPTER)


def test_source_attention_follows_the_shifted_diagonal(output):
    """The trained copy model copies the source, and every head puts most of a row on the next source token."""
    assert "복사 성공: True" in output
    heads = HEADS.findall(output)
    assert len(heads) == 4
    assert all(float(shifted) > 0.5 > float(diagonal) for _, shifted, diagonal in heads), heads
    assert "대각선 위(미래 위치) 칸의 합 0.0000" in output


def test_text_quotes_the_demo(output):
    """Every shape, list and number the "what to look for" section quotes in backticks is printed by the demo."""
    section = results_section(CHAPTER)
    quoted = re.findall(r"`([^`]+)`", section)
    numbers = [q for q in quoted if re.fullmatch(r"\d+(\.\d+)?|\(\d+(, \d+)+\)|\[\d+(, \d+)+\]|True", q)]
    assert {"0.647", "38", "1.024", "(1, 4, 9, 10)", "0.68", "0.0000", "True"} <= set(numbers)
    for number in numbers:
        assert number in output, number


@pytest.mark.slow  # the demo run again, under torch's plain kernels
def test_demo_is_the_same_with_torchs_plain_kernels(output):
    """Under ATEN_CPU_CAPABILITY=default (another CPU's kernels) the demo prints exactly the same."""
    assert solution_demo_output(CHAPTER, ATEN_CPU_CAPABILITY="default") == output


def test_pictures_are_written_and_ignored_by_git(output):
    """The three PNG files are in attention_pictures/ next to the demo, and git does not see them."""
    folder = paths.SOLUTIONS / CHAPTER / "attention_pictures"
    for name in PICTURES:
        assert (folder / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name
    done = subprocess.run(["git", "status", "--porcelain", "--", str(folder)], cwd=paths.ROOT, capture_output=True,
                          text=True)
    assert done.returncode == 0 and done.stdout == "", done.stdout


def test_stub_ships_earlier_chapters_solved():
    """The chapter-14 stub carries run_epoch and greedy_decode as plain code and blanks this chapter."""
    stub = (paths.EXERCISES / CHAPTER / "transformer.py").read_text(encoding="utf-8")
    lines = {line.strip() for line in stub.splitlines()}
    assert "optimizer.zero_grad(set_to_none=True)" in lines and "prob = model.generator(out[:, -1])" in lines
    for solved in ("model.eval()", "return model.decoder.layers[layer].src_attn.attn", "return fig",
                   "attn = getter_fn(model, layer)"):
        assert solved not in lines, solved
