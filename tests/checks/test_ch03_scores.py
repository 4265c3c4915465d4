"""Chapter 03 specifics beyond its expectation table: when a mistake shows, and when it does not."""
import pytest

from tests.checks.module_chapters import CH03, grade

pytestmark = pytest.mark.checks


def _results(name):
    return {r.name: r for r in grade(CH03.chapter, CH03.fixture(name))}


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
    message = _results("shared_clones")["module_structure"].message
    assert "`linears.0.weight` = `linears.1.weight`" in message


def test_renamed_linears_keeps_clones_points():
    """A module with other attribute names still earns the clones check (clones itself is right)."""
    results = _results("renamed_linears")
    assert results["clones_deep_copies"].passed
    assert {n for n, r in results.items() if not r.passed} == CH03.checks - {"clones_deep_copies"}
