"""Chapter 04 material specifics: the demo shows that changing position j changes only output j."""
import re

import pytest

from grader import paths
from tests.checks.test_module_chapter_material import demo_output

pytestmark = [pytest.mark.checks, pytest.mark.ch04]

CHAPTER = "04_feedforward"


def test_demo_changes_only_the_changed_position():
    """Changing input position 2 changes output position 2 only (the other positions by exactly 0)."""
    out = demo_output(CHAPTER)
    row = re.search(r"최댓값\):\n\s+([\d. ]+)\n", out).group(1).split()
    assert len(row) == 5 and float(row[2]) > 0 and all(float(v) == 0 for i, v in enumerate(row) if i != 2)
    assert "출력이 바뀐 위치: [2]" in out
    assert "parameter 수: 552 = 2 × 8 × 32 + 32 + 8" in out


def test_stub_ships_chapter_03_solved():
    """The chapter-04 stub carries clones and MultiHeadedAttention as plain code."""
    lines = (paths.EXERCISES / CHAPTER / "transformer.py").read_text(encoding="utf-8").splitlines()
    assert "    return nn.ModuleList([copy.deepcopy(module) for _ in range(N)])" in lines
    assert "        return self.linears[-1](x)" in lines
