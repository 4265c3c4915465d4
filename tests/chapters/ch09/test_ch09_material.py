"""Chapter 09 material specifics: the demo's parameter counts and shapes, rows summing to 1, chapters ≤ 08 shipped solved."""
import pytest

from grader import paths
from tests.checks.test_module_chapter_material import demo_output, results_section

pytestmark = [pytest.mark.checks, pytest.mark.ch09]

CHAPTER = "09_model"
COUNTS = ("14,731,787", "169,803")


def test_demo_prints_parameter_counts_shapes_and_rows_summing_to_one():
    """Both parameter counts, the forward's and the generator's shapes, every row of exp(log-probs) summing to 1."""
    out = demo_output(CHAPTER)
    assert f"make_model(11, 11, N=2), 기본값 d_model=512, d_ff=2048, h=8 : {COUNTS[0]}개\n" in out
    assert f"make_model(11, 11, N=2, d_model=64, d_ff=128, h=4)           : {COUNTS[1]}개\n" in out
    assert "forward(...) 모양 (decoder 출력)   : (2, 5, 64)\n" in out
    assert "generator(출력) 모양 (로그 확률)    : (2, 5, 11)\n" in out
    assert "exp(로그 확률)의 행마다 합, 첫 문장: 1.0000 1.0000 1.0000 1.0000 1.0000\n" in out
    assert "모든 행의 합이 1: True\n" in out
    assert "padding인 src 토큰 3개(마지막 세 열)의 가중치 합: 0.0000\n" in out


def test_text_quotes_both_parameter_counts():
    """The "what to look for" section quotes both counts exactly as the demo prints them."""
    section = results_section(CHAPTER)
    assert all(f"`{count}`" in section for count in COUNTS)


def test_stub_ships_earlier_chapters_solved_and_blanks_the_model():
    """The chapter-09 stub carries the layers as plain code and leaves EncoderDecoder, Generator, make_model blank."""
    stub = (paths.EXERCISES / CHAPTER / "transformer.py").read_text(encoding="utf-8")
    lines = stub.splitlines()
    assert "        return x + self.dropout(sublayer(self.norm(x)))" in lines
    assert "        return self.lut(x) * math.sqrt(self.d_model)" in lines
    for answer in ("return log_softmax(self.proj(x), dim=-1)", "self.decode(self.encode(src, src_mask)",
                   "nn.init.xavier_uniform_(p)", "c = copy.deepcopy", "self.generator = generator"):
        assert answer not in stub, answer
