"""Chapter 03 material specifics: the demo's shapes and parameter count, chapter 02 shipped solved."""
import re

import pytest

from grader import paths
from grader.publish import regions
from tests.checks.test_module_chapter_material import demo_output

pytestmark = [pytest.mark.checks, pytest.mark.ch03]

CHAPTER = "03_multihead"


def test_demo_prints_the_shapes_and_parameter_count():
    """The demo follows (2, 6, 32) → per head (2, 4, 6, 8) → attn (2, 4, 6, 6) → (2, 6, 32) and counts
    4(d²+d) parameters."""
    out = demo_output(CHAPTER)
    assert re.search(r"입력 x\s+: \(2, 6, 32\)", out)
    assert re.search(r"transpose\(1, 2\)\s*: \(2, 4, 6, 8\)", out)
    assert re.search(r"mha\.attn .*: \(2, 4, 6, 6\)", out)
    assert re.search(r"출력\s+: \(2, 6, 32\)", out)
    assert "parameters() 합: 4224  공식: 4 × (1024 + 32) = 4224" in out
    assert re.search(r"\* 4의 parameter 수: 8 .*깊은 복사 4개: 32", out)


def test_stub_ships_chapter_02_solved():
    """The chapter-03 stub carries attention with mask and dropout and subsequent_mask as plain code."""
    lines = (paths.EXERCISES / CHAPTER / "transformer.py").read_text(encoding="utf-8").splitlines()
    assert "        scores = scores.masked_fill(mask == 0, -1e9)" in lines
    assert "    return subsequent_mask == 0" in lines
    text = (paths.SOLUTIONS / CHAPTER / "transformer.py").read_text(encoding="utf-8")
    inside = {line.strip() for line in regions.region_lines(text, "solution")}
    assert "scores = scores.masked_fill(mask == 0, -1e9)" not in inside
    assert "return nn.ModuleList([copy.deepcopy(module) for _ in range(N)])" in inside
