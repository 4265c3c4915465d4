"""Chapter 08 material specifics: a change at target position 5 moves outputs from position 5 on only, the padded
memory gets no weight, chapter 07 shipped solved."""
import re

import pytest

from grader import paths
from tests.checks.test_module_chapter_material import demo_output, results_section

pytestmark = [pytest.mark.checks, pytest.mark.ch08]

CHAPTER = "08_decoder"


def _differences(out):
    """{position: max difference} the demo prints after changing target position 5."""
    return {int(p): float(v) for p, v in re.findall(r"위치 (\d+): 최대 차이 (\d+\.\d+)", out)}


def test_demo_changes_outputs_from_position_5_on_only():
    """Positions 0-4 keep their outputs exactly (to 4 decimals), positions 5-7 change."""
    differences = _differences(demo_output(CHAPTER))
    assert sorted(differences) == list(range(8))
    assert all(differences[p] == 0 for p in range(5)) and all(differences[p] > 0 for p in range(5, 8))


def test_text_quotes_the_demo_differences():
    """The "what to look for" section quotes position 5's, 6's and 7's differences as the demo prints them."""
    out, section = demo_output(CHAPTER), results_section(CHAPTER)
    for position in (5, 6, 7):
        assert f"`{_differences(out)[position]:.4f}`" in section
    assert "padding인 memory 위치 7~9가 받는 가중치의 최대: 0.0000" in out


def test_stub_ships_chapter_07_solved():
    """The chapter-08 stub carries EncoderLayer and Encoder as plain code and leaves the decoder blank."""
    lines = (paths.EXERCISES / CHAPTER / "transformer.py").read_text(encoding="utf-8").splitlines()
    assert "        x = self.sublayer[0](x, lambda x: self.self_attn(x, x, x, mask))" in lines
    assert "        self.layers = clones(layer, N)" in lines  # the Encoder's
    assert "        x = self.sublayer[1](x, lambda x: self.src_attn(x, m, m, src_mask))" not in lines
    assert "        self.sublayer = clones(SublayerConnection(size, dropout), 3)" not in lines
