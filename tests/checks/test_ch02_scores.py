"""Chapter 02 scores and diagnoses: the solution, the stub, correct variants and one fixture per bug class.

Every wrong fixture must lose points on exactly the checks listed here, and every lost point must
come with the named Korean diagnosis. Diagnoses are referenced through `ch02_judge.BUGS` (never
retyped), so rewording a diagnosis does not break these tests but naming the wrong bug does.
"""
import functools
import warnings

import pytest

from grader.checks import ch02_judge, ch02_probe
from tests.conftest import ROOT

pytestmark = pytest.mark.checks

CHAPTER = "02_masking"
FIXTURES = ROOT / "tests" / "fixtures" / "ch02"
SOLUTION = ROOT / "solutions" / CHAPTER / "transformer.py"
STUB = ROOT / "exercises" / CHAPTER / "transformer.py"

BUGS = ch02_judge.BUGS
ALL = frozenset(check.name for check in ch02_judge.CHECKS)
VISIBLE = frozenset(check.name for check in ch02_judge.CHECKS if check.visible)

# Checks that pass a mask to attention: a bug in how the mask is applied breaks all of them...
MASKED = frozenset({"masked_exact_zero", "causal_mask", "padding_mask", "fully_masked_row", "dropout_eval",
                    "dropout_train", "cross_lengths", "batched_4d", "int_mask", "empty_sentence", "dropout_hidden"})
# Checks whose mask is smaller than the scores and must broadcast (not the causal (1, 5, 5) or int (2, 4, 4) cases).
BROADCAST = MASKED - {"causal_mask", "int_mask"}
DROPOUT_TRAIN = frozenset({"dropout_train", "dropout_hidden"})
FULLY_MASKED = frozenset({"fully_masked_row", "empty_sentence"})  # a row with every key masked
NO_DROPOUT_MODULE = ALL - {"dropout_eval", "dropout_train", "dropout_hidden"} - {
    "subsequent_mask_dtype", "subsequent_mask_shape", "subsequent_mask_values", "subsequent_mask_hidden"}
SUBSEQUENT_VALUES = frozenset({"subsequent_mask_values", "subsequent_mask_hidden"})

# fixture -> {check that must lose points: bug key whose explanation its message must contain}.
BUG_FIXTURES = {
    # the mask in attention
    "inverted_mask": dict.fromkeys(MASKED, "inverted_mask"),  # masked_fill(mask == 1, -1e9)
    "mask_true_filled": {**dict.fromkeys(MASKED, "inverted_mask"), "int_mask": "mask_bool_only"},  # masked_fill(mask, …)
    "fill_zero": dict.fromkeys(MASKED, "fill_zero"),  # masked_fill(mask == 0, 0)
    "multiply_mask": dict.fromkeys(MASKED, "fill_zero"),  # scores * mask
    "neg_inf": dict.fromkeys(FULLY_MASKED, "neg_inf"),  # float("-inf"): NaN on fully masked rows only
    "where_neg_inf": dict.fromkeys(FULLY_MASKED, "neg_inf"),  # torch.where(…, -math.inf, …)
    "after_softmax": dict.fromkeys(MASKED, "after_softmax"),  # p_attn.masked_fill(mask == 0, 0)
    "mask_not_assigned": dict.fromkeys(MASKED, "mask_ignored"),  # scores.masked_fill(…) result dropped
    "no_if_mask": {"no_mask_unchanged": "mask_none"},  # masked_fill even when mask is None
    "boolean_index": dict.fromkeys(BROADCAST, "boolean_index"),  # scores[mask == 0] = -1e9
    "bitwise_not": {"int_mask": "mask_bool_only"},  # ~mask on a 0/1 integer mask
    "head_axis": dict.fromkeys(MASKED, "head_axis"),  # mask.unsqueeze(1) inside attention
    "old_signature": dict.fromkeys(MASKED, "signature"),  # def attention(query, key, value)
    # dropout
    "dropout_on_scores": dict.fromkeys(DROPOUT_TRAIN, "dropout_scores"),
    "dropout_on_output": dict.fromkeys(DROPOUT_TRAIN, "dropout_output"),
    "dropout_ignored": dict.fromkeys(DROPOUT_TRAIN, "dropout_ignored"),
    "dropout_not_returned": dict.fromkeys(DROPOUT_TRAIN, "dropout_not_returned"),
    "functional_dropout": {"dropout_eval": "dropout_eval_ignored"},  # F.dropout(p_attn, p): training=True
    "no_if_dropout": dict.fromkeys(NO_DROPOUT_MODULE, "dropout_none"),  # dropout(p_attn) with dropout=None
    # subsequent_mask
    "triu_diagonal_0": dict.fromkeys(SUBSEQUENT_VALUES, "subsequent_diagonal"),
    "triu_diagonal_neg1": dict.fromkeys(SUBSEQUENT_VALUES, "subsequent_diagonal"),
    "tril_eq0": dict.fromkeys(SUBSEQUENT_VALUES, "subsequent_inverted"),
    "forgot_eq0": {"subsequent_mask_dtype": "subsequent_uint8", "subsequent_mask_values": "subsequent_inverted",
                   "subsequent_mask_hidden": "subsequent_uint8"},  # uint8 triu returned as is
    "float_mask": {"subsequent_mask_dtype": "subsequent_float", "subsequent_mask_hidden": "subsequent_float"},
    "no_batch_axis": {"subsequent_mask_shape": "subsequent_no_batch", "subsequent_mask_hidden": "subsequent_no_batch"},
}

# Written differently from the solution, but correct.
CORRECT_VARIANTS = [
    "ok_tril_bool",  # tril(ones(size, size)).bool().unsqueeze(0); masked_fill(~mask.bool(), -1e9)
    "ok_where",  # torch.where(mask.bool(), scores, -1e9); F.dropout(…, training=dropout.training); arange triangle
    "ok_in_place",  # scores.masked_fill_(…) on the fresh scores tensor; ones(…, dtype=bool).tril()
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
    assert sum(check.points for check in ch02_judge.CHECKS) == 100
    assert len(ALL) == len(ch02_judge.CHECKS)
    assert VISIBLE and ALL - VISIBLE


def test_every_check_names_cases_of_the_probe():
    """Each check's cases exist in the probe, and a visible check only uses visible cases."""
    for check in ch02_judge.CHECKS:
        for case in check.cases:
            assert case in ch02_probe.CASES, (check.name, case)
            if check.visible:
                assert ch02_probe.CASES[case].visible, (check.name, case)


def test_solution_scores_100():
    """The chapter's solution passes every check, visible and hidden."""
    results = grade(SOLUTION)
    assert [r.name for r in results if not r.passed] == []
    assert total(results) == 100


def test_stub_scores_0_with_the_stub_diagnosis():
    """The student stub (exercises/02_masking/transformer.py) scores 0 and every check says the TODO is unwritten."""
    results = grade(STUB)
    assert total(results) == 0
    for result in results:
        assert BUGS["stub"] in result.message, (result.name, result.message)


@pytest.mark.parametrize("name", CORRECT_VARIANTS)
def test_correct_variants_score_100(name):
    """A correct solution written differently (tril/where/in-place/functional dropout) scores 100."""
    results = grade(fixture(name))
    assert {r.name: r.message for r in results if not r.passed} == {}
    assert total(results) == 100


@pytest.mark.parametrize("name", sorted(BUG_FIXTURES))
def test_bug_fixture_loses_points_with_its_diagnosis(name):
    """A fixture with one bug class loses points on exactly the expected checks, each naming the bug."""
    expected = BUG_FIXTURES[name]
    results = {r.name: r for r in grade(fixture(name))}
    failing = {n for n, r in results.items() if not r.passed}
    assert failing == set(expected), f"{name}: failing {sorted(failing)}"
    for check, bug in expected.items():
        assert BUGS[bug] in results[check].message, (name, check, results[check].message)
    assert total(results.values()) < 100


def test_every_bug_fixture_exists_and_no_fixture_is_unlisted():
    """Every file in tests/fixtures/ch02 is either a listed bug fixture or a listed correct variant."""
    on_disk = {path.stem for path in FIXTURES.glob("*.py")}
    assert on_disk == set(BUG_FIXTURES) | set(CORRECT_VARIANTS)


def test_the_named_diagnoses_are_covered():
    """The bug classes the chapter must recognise each have a fixture that triggers them."""
    named = {bug for expected in BUG_FIXTURES.values() for bug in expected.values()}
    required = {"inverted_mask", "fill_zero", "neg_inf", "after_softmax", "subsequent_diagonal",
                "subsequent_inverted", "dropout_scores", "dropout_output", "subsequent_uint8", "subsequent_float",
                "subsequent_no_batch"}
    assert required <= named


def test_neg_inf_is_only_wrong_on_fully_masked_rows():
    """-inf equals -1e9 wherever a row keeps one visible key, so only the fully-masked checks catch it,
    and their message mentions NaN."""
    results = {r.name: r for r in grade(fixture("neg_inf"))}
    assert results["causal_mask"].passed and results["padding_mask"].passed
    assert "NaN" in results["fully_masked_row"].message


def test_dropout_output_right_but_weights_not_returned_gets_half():
    """Mixing value with dropped weights but returning the undropped p_attn earns half of a dropout check."""
    results = {r.name: r for r in grade(fixture("dropout_not_returned"))}
    assert results["dropout_train"].score == results["dropout_train"].points / 2


def test_hidden_diagnoses_do_not_show_hidden_shapes_or_values():
    """Messages of hidden checks never print the hidden inputs' shapes or numbers, even for shape bugs."""
    hidden = ALL - VISIBLE
    for name in ("no_batch_axis", "head_axis", "boolean_index", "fill_zero"):
        for result in grade(fixture(name)):
            if result.name in hidden and result.message:
                assert "모양:" not in result.message
                assert "(3, 4, 6)" not in result.message and "(2, 3, 5, 8)" not in result.message


def test_visible_only_run_skips_hidden_checks():
    """The self-check (visible only) runs the visible checks alone, worth 75 points."""
    from grader.checks import runner

    results = runner.run(CHAPTER, SOLUTION, visible_only=True)
    assert {r.name for r in results} == VISIBLE
    assert sum(r.points for r in results) == 75
