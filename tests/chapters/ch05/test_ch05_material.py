"""Chapter 05 material specifics: the demo's PE rows and norms, the text quoting them, chapter 04 shipped solved."""
import math
import re

import pytest

from grader import paths
from tests.checks.test_module_chapter_material import demo_output, results_section

pytestmark = [pytest.mark.checks, pytest.mark.ch05]

CHAPTER = "05_embeddings"


def test_demo_prints_the_pe_rows_and_their_norm():
    """PE row 0 is [0, 1, 0, 1, …] (d=20), row 1 begins sin(1), cos(1), …, and every ‖PE_pos‖ is √(d/2)."""
    out = demo_output(CHAPTER)
    assert "위치 0: " + " ".join(["0.0000 1.0000"] * 10) + "\n" in out
    assert "위치 1: 0.8415 0.5403 0.3877 0.9218 0.1578 0.9875 …" in out
    assert f"최소 {math.sqrt(10):.4f}, 최대 {math.sqrt(10):.4f}" in out
    assert "parameters() 개수: 0" in out and "buffers()        : ['pe']" in out


def test_text_quotes_the_demo_rows():
    """The "what to look for" section quotes row 1 and the norm exactly as the demo prints them."""
    out, section = demo_output(CHAPTER), results_section(CHAPTER)
    row = re.search(r"위치 1의 행은 `([\d. ]+)`", section).group(1)
    assert f"위치 1: {row} …" in out
    for number in re.findall(r"\d+\.\d{4}", section):
        assert number in out, number


def test_stub_ships_chapter_04_solved():
    """The chapter-05 stub carries PositionwiseFeedForward as plain code and leaves pe to the student."""
    stub = (paths.EXERCISES / CHAPTER / "transformer.py").read_text(encoding="utf-8")
    assert "        return self.w_2(self.dropout(self.w_1(x).relu()))" in stub.splitlines()
    assert "torch.sin" not in stub and "math.sqrt(self.d_model)" not in stub
