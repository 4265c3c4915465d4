"""Chapter 07 material specifics: a changed padding token leaves the other outputs exactly unchanged, the
parameter counts, chapter 06 shipped solved."""
import pytest

from grader import paths
from tests.checks.test_module_chapter_material import demo_output, results_section

pytestmark = [pytest.mark.checks, pytest.mark.ch07]

CHAPTER = "07_encoder"


def test_demo_shows_padding_changes_nothing_else():
    """With the mask, changing the padding tokens moves no other token's output (exactly 0.0); without it, they do."""
    out = demo_output(CHAPTER)
    assert "문장 0, 토큰 0–3의 출력 차이 최댓값: 0.0\n" in out
    assert "문장 1의 출력 차이 최댓값: 0.0\n" in out
    without = out.split("mask 없이(None) 같은 비교를 하면 토큰 0–3의 차이 최댓값: ", 1)[1].split("\n", 1)[0]
    assert float(without) > 0
    assert "layers[0]과 layers[1]이 같은 가중치 텐서인가: False" in out


def test_text_quotes_the_exact_zero_and_the_counts():
    """The "what to look for" section quotes the 0.0 and the parameter counts the demo prints."""
    out, section = demo_output(CHAPTER), results_section(CHAPTER)
    assert "`0.0`" in section
    for count in ("8544", "17152", "4224", "4192"):
        assert f"`{count}`" in section and count in out


def test_stub_ships_chapter_06_solved():
    """The chapter-07 stub carries LayerNorm and SublayerConnection as plain code and leaves the encoder blank."""
    stub = (paths.EXERCISES / CHAPTER / "transformer.py").read_text(encoding="utf-8")
    assert "        return x + self.dropout(sublayer(self.norm(x)))" in stub.splitlines()
    assert "self.layers = clones(layer, N)" not in stub
    assert "self.self_attn(x, x, x, mask))" not in stub and "return self.norm(x)" not in stub
