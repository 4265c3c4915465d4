"""Chapter 03 specifics beyond its expectations table: when a mistake shows, and what the messages name."""
import pytest

from .chapters import CHAPTERS, grade

pytestmark = [pytest.mark.checks, pytest.mark.ch03]

CH03 = next(chapter for chapter in CHAPTERS if chapter.id == "03_multihead")


def _results(name):
    return {r.name: r for r in grade(CH03, CH03.fixture(name))}


def test_mask_without_head_axis_is_only_wrong_with_per_example_padding():
    """Without mask.unsqueeze(1) a (1, seq, seq) causal mask still broadcasts right; per-example padding does not."""
    results = _results("no_unsqueeze")
    assert results["hidden_causal"].passed
    assert not results["padding_mask"].passed and not results["hidden_cross_mask"].passed


def test_key_as_value_is_only_wrong_when_key_differs_from_value():
    """Projecting the key as the value only shows on cross-attention cases with value ≠ key."""
    results = _results("key_as_value")
    assert results["self_attention"].passed and results["padding_mask"].passed
    assert not results["cross_attention"].passed


def test_shared_weights_name_the_aliased_parameters():
    """`[nn.Linear(...)] * 4`: the structure check names the parameters that are one tensor."""
    assert "`linears.0.weight` = `linears.1.weight`" in _results("shared_clones")["module_structure"].message


@pytest.mark.parametrize("chapter_id, fixture, expected, found", [
    ("03_multihead", "renamed_linears", "linears.0.weight", "layers.0.weight"),
    ("04_feedforward", "renamed_layers", "w_1.weight", "linear1.weight"),
])
def test_other_names_show_expected_and_found_names(chapter_id, fixture, expected, found):
    """Attributes named otherwise than the contract: the visible structure check lists both sets of names."""
    chapter = next(c for c in CHAPTERS if c.id == chapter_id)
    message = {r.name: r for r in grade(chapter, chapter.fixture(fixture))}["module_structure"].message
    assert f"`{expected}`" in message and f"`{found}`" in message
    assert "기준의 이름" in message and "찾은 이름" in message
