"""Chapter 06 material specifics: LN([1,2,3,4]) next to nn.LayerNorm's, a zero sublayer, chapter 05 shipped solved."""
import pytest

from grader import paths
from tests.checks.test_module_chapter_material import demo_output, results_section

pytestmark = [pytest.mark.checks, pytest.mark.ch06]

CHAPTER = "06_sublayer"
OURS = "-1.1619 -0.3873 0.3873 1.1619"
TORCH = "-1.3416 -0.4472 0.4472 1.3416"


def test_demo_prints_layer_norm_next_to_nn_layer_norm():
    """LN([1, 2, 3, 4]) with the unbiased std, next to nn.LayerNorm's biased one; a zero sublayer is the identity."""
    out = demo_output(CHAPTER)
    assert f"LayerNorm(4)(x)       : {OURS}\n" in out
    assert f"nn.LayerNorm(4)(x)    : {TORCH}\n" in out
    assert "sublayer가 0을 돌려주면 출력 == 입력: True" in out
    assert "sublayer가 0일 때 post-norm 출력 == 입력: False" in out


def test_text_quotes_both_layer_norms():
    """The "what to look for" section quotes both rows exactly as the demo prints them."""
    section = results_section(CHAPTER)
    assert f"`{OURS}`" in section and f"`{TORCH}`" in section


def test_stub_ships_chapter_05_solved():
    """The chapter-06 stub carries Embeddings and PositionalEncoding as plain code and leaves LayerNorm blank."""
    stub = (paths.EXERCISES / CHAPTER / "transformer.py").read_text(encoding="utf-8")
    assert "        return self.lut(x) * math.sqrt(self.d_model)" in stub.splitlines()
    assert "std = x.std(-1, keepdim=True)" not in stub and "x + self.dropout(sublayer" not in stub
