"""Particles chosen by the last syllable (or how a code name is said), not "을(를)"."""
import pytest

from grader.checks.korean import attach, final_sound, particle

pytestmark = pytest.mark.checks


@pytest.mark.parametrize("word, pair, expected", [
    ("사과", "을", "를"), ("책", "를", "을"), ("물", "으로", "로"), ("값", "으로", "으로"), ("가중치", "이", "가"), ("텐서", "이/가", "가"), ("값", "가", "이"),
    ("모델", "은", "은"), ("마스크", "는", "는"), ("층", "과", "과"), ("인코더", "과", "와"),
    ("서울", "으로", "로"), ("집", "로", "으로"), ("바다", "으로", "로"),
    ("src_attn", "을", "을"), ("`self.attn`", "이", "이"), ("mask", "을", "를"), ("model", "으로", "로"),
    ("model", "을", "을"), ("step", "을", "을"), ("weight", "을", "를"), ("tensor", "이", "가"), ("batch", "은", "는"),
    ("p_attn", "과", "과"), ("padding", "을", "을"), ("GPU", "으로", "로"), ("RNN", "을", "을"), ("URL", "로", "로"),
    ("pack", "이", "이"), ("input", "을", "을"), ("float", "이", "가"),
    ("1", "이", "이"), ("2", "을", "를"), ("3", "으로", "으로"), ("10", "이", "이"), ("100", "을", "을"),
    ("1000", "으로", "으로"), ("8", "로", "로"), ("UTF-8", "으로", "로"), ("d_model=512", "이", "가"),
])
def test_particle_follows_the_final_sound(word, pair, expected):
    assert particle(word, pair) == expected


def test_attach_and_unread_characters():
    assert attach("src_attn", "을") == "src_attn을"
    assert attach("`layers[0].self_attn`", "이") == "`layers[0].self_attn`이"
    assert final_sound("") is None and final_sound("...") is None
    with pytest.raises(ValueError):
        particle("책", "의")
