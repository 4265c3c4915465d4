"""Chapter 03 scores and diagnoses: the solution, the stub, correct variants and one fixture per listed mistake.

Every wrong fixture must lose points on exactly the checks listed here, and every lost point must
come with the named Korean diagnosis (referenced through `ch03_judge.BUGS`, never retyped).
"""
import functools
import warnings

import pytest

from grader.checks import ch03_judge, ch03_probe
from tests.conftest import ROOT

pytestmark = pytest.mark.checks

CHAPTER = "03_multihead"
FIXTURES = ROOT / "tests" / "fixtures" / "ch03"
SOLUTION = ROOT / "solutions" / CHAPTER / "transformer.py"
STUB = ROOT / "exercises" / CHAPTER / "transformer.py"

BUGS = ch03_judge.BUGS
ALL = frozenset(check.name for check in ch03_judge.CHECKS)
VISIBLE = frozenset(check.name for check in ch03_judge.CHECKS if check.visible)

FORWARD = frozenset({"self_attention", "stores_attn", "cross_attention", "padding_mask", "dropout_train",
                     "hidden_causal", "hidden_cross_mask", "hidden_dropout", "hidden_gradients"})
OUTPUTS = FORWARD - {"stores_attn"}  # wrong output, right self.attn
KEY_NOT_VALUE = frozenset({"cross_attention", "hidden_cross_mask", "hidden_dropout", "hidden_gradients"})
TRAIN = frozenset({"dropout_train", "hidden_dropout"})
PADDING = frozenset({"padding_mask", "hidden_cross_mask", "hidden_dropout"})  # per-example padding masks

# fixture -> {check that must lose points: bug key whose explanation its message must contain}.
BUG_FIXTURES = {
    "no_split_transpose": dict.fromkeys(FORWARD, "no_split_transpose"),  # view(…, h, d_k) without transpose(1, 2)
    "no_merge_transpose": dict.fromkeys(OUTPUTS, "no_merge_transpose"),  # x.contiguous().view(…) before the output
    "no_contiguous": dict.fromkeys(FORWARD, "no_contiguous"),  # transpose(1, 2).view(…): RuntimeError
    "no_unsqueeze": dict.fromkeys(PADDING, "no_unsqueeze"),  # mask used as (batch, 1, key length)
    "shared_clones": dict.fromkeys(ALL, "clones_shared"),  # nn.ModuleList([module] * N)
    "shallow_copy": dict.fromkeys(ALL, "clones_shared"),  # copy.copy(module)
    "plain_list": dict.fromkeys(ALL, "clones_list"),  # [copy.deepcopy(module) for …]: nothing registered
    "no_output_projection": dict.fromkeys(OUTPUTS, "no_output_projection"),  # return x
    "dk_is_d_model": dict.fromkeys(FORWARD, "dk_is_d_model"),  # self.d_k = d_model
    "dropout_not_passed": dict.fromkeys(TRAIN, "dropout_not_passed"),  # attention(…, mask=mask)
    "attn_not_stored": {"stores_attn": "attn_not_stored"},  # x, attn = attention(…)
    "key_as_value": dict.fromkeys(KEY_NOT_VALUE, "key_as_value"),  # zip(self.linears, (query, key, key))
}
# Named differently from the contract: the diagnosis lists the expected and the found names.
RENAMED = "renamed_linears"  # self.layers instead of self.linears

CORRECT_VARIANTS = [
    "ok_reshape",  # ModuleList().append(deepcopy); reshape + permute; mask[:, None]; positional attention args
    "ok_loop_einsum",  # generator in ModuleList; a loop over linears[:3]; einsum to merge the heads
]


@functools.lru_cache(maxsize=None)
def _graded(path):
    from grader.checks import runner

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return tuple(runner.run(CHAPTER, path, visible_only=False))


def grade(path):
    """Every check (visible and hidden) on the file at `path`, cached."""
    return list(_graded(str(path)))


def total(results):
    return round(sum(r.score for r in results), 4)


def fixture(name):
    path = FIXTURES / f"{name}.py"
    assert path.exists(), f"missing fixture {path}"
    return path


def test_points_add_up_to_100():
    """The chapter's checks are worth 100 points, visible and hidden together, with unique names."""
    assert sum(check.points for check in ch03_judge.CHECKS) == 100
    assert len(ALL) == len(ch03_judge.CHECKS)
    assert VISIBLE and ALL - VISIBLE


def test_every_check_names_cases_of_the_probe():
    """Each check's cases exist in the probe, and a visible check only uses visible cases."""
    for check in ch03_judge.CHECKS:
        for case in check.cases:
            assert case in ch03_probe.CASES, (check.name, case)
            if check.visible:
                assert ch03_probe.CASES[case].visible, (check.name, case)


def test_solution_scores_100():
    """The chapter's solution passes every check, visible and hidden."""
    results = grade(SOLUTION)
    assert {r.name: r.message for r in results if not r.passed} == {}
    assert total(results) == 100


def test_stub_scores_0_with_the_stub_diagnosis():
    """The student stub scores 0 and every check says the TODO is unwritten."""
    results = grade(STUB)
    assert total(results) == 0
    for result in results:
        assert BUGS["stub"] in result.message, (result.name, result.message)


@pytest.mark.parametrize("name", CORRECT_VARIANTS)
def test_correct_variants_score_100(name):
    """A correct solution written differently scores 100."""
    results = grade(fixture(name))
    assert {r.name: r.message for r in results if not r.passed} == {}
    assert total(results) == 100


@pytest.mark.parametrize("name", sorted(BUG_FIXTURES))
def test_bug_fixture_loses_points_with_its_diagnosis(name):
    """A fixture with one listed mistake loses points on exactly the expected checks, each naming the mistake."""
    expected = BUG_FIXTURES[name]
    results = {r.name: r for r in grade(fixture(name))}
    failing = {n for n, r in results.items() if not r.passed}
    assert failing == set(expected), f"{name}: failing {sorted(failing)}"
    for check, bug in expected.items():
        assert BUGS[bug] in results[check].message, (name, check, results[check].message)
    assert total(results.values()) < 100


def test_renamed_attribute_shows_expected_and_found_names():
    """`self.layers` instead of `self.linears`: the structure check lists the expected and the found names."""
    results = {r.name: r for r in grade(fixture(RENAMED))}
    message = results["module_structure"].message
    assert "`linears.0.weight`" in message and "`layers.0.weight`" in message
    assert "기준의 이름" in message and "찾은 이름" in message
    assert {n for n, r in results.items() if not r.passed} == ALL - {"clones_deep_copies"}


def test_every_fixture_is_listed():
    """Every file in tests/fixtures/ch03 is a listed bug fixture, the renamed fixture or a correct variant."""
    on_disk = {path.stem for path in FIXTURES.glob("*.py")}
    assert on_disk == set(BUG_FIXTURES) | set(CORRECT_VARIANTS) | {RENAMED}


def test_mask_without_head_axis_is_only_wrong_with_per_example_padding():
    """Without mask.unsqueeze(1) a (1, seq, seq) causal mask still broadcasts right; per-example padding does not."""
    results = {r.name: r for r in grade(fixture("no_unsqueeze"))}
    assert results["hidden_causal"].passed
    assert not results["padding_mask"].passed and not results["hidden_cross_mask"].passed


def test_key_as_value_is_only_wrong_when_key_differs_from_value():
    """Projecting the key as the value only shows on cross-attention cases with value ≠ key."""
    results = {r.name: r for r in grade(fixture("key_as_value"))}
    assert results["self_attention"].passed and results["padding_mask"].passed
    assert not results["cross_attention"].passed


def test_hidden_diagnoses_do_not_show_hidden_shapes_or_sizes():
    """Messages of hidden checks never print the hidden cases' shapes or exception details."""
    hidden = {check.name: check.cases for check in ch03_judge.CHECKS if not check.visible}
    for name in list(BUG_FIXTURES) + [RENAMED]:
        for result in grade(fixture(name)):
            if result.name in hidden and result.message:
                assert "모양:" not in result.message and "RuntimeError:" not in result.message
                for case in hidden[result.name]:
                    spec = ch03_probe.CASES[case]
                    assert f"d_model={spec.d_model}" not in result.message
                    assert f", {spec.d_model})" not in result.message, (name, result.message)


def test_visible_only_run_skips_hidden_checks():
    """The self-check (visible only) runs the visible checks alone, worth 70 points."""
    from grader.checks import runner

    results = runner.run(CHAPTER, SOLUTION, visible_only=True)
    assert {r.name for r in results} == VISIBLE
    assert sum(r.points for r in results) == 70
