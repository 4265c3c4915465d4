"""Chapter 01 scores and diagnoses: the solution, the stub, correct variants and one fixture per bug class.

Every wrong fixture must lose points on exactly the checks listed here, and every lost point must
come with the named Korean diagnosis. Diagnoses are referenced through `ch01_judge.BUGS` (never
retyped), so rewording a diagnosis does not break these tests but naming the wrong bug does.
"""
import pytest

from grader.checks import ch01_judge, ch01_probe

from .support import FIXTURES, SOLUTION, STUB, by_name, fixture_path, grade, total

pytestmark = pytest.mark.checks

BUGS = ch01_judge.BUGS
ALL = frozenset(check.name for check in ch01_judge.CHECKS)
VISIBLE = frozenset(check.name for check in ch01_judge.CHECKS if check.visible)
HIDDEN = ALL - VISIBLE

# Groups of checks that one kind of bug typically breaks.
SCALE = frozenset({"seed_weights", "seed_output", "scaling_statistics", "no_saturation", "batched_3d", "batched_4d",
                   "cross_lengths", "float64_preserved", "gradients_flow"})
WEIGHTS = SCALE | {"rows_sum_to_one", "large_inputs_finite"}  # p_attn is not a softmax over the key axis
NOT_A_PAIR = ALL - {"inputs_untouched"}  # the call works but does not return (output, p_attn)
EVERY_CALL_FAILS = ALL  # the call raises on every input (also the untouched-inputs case)

# fixture -> (bug key whose explanation every failing check must name, the checks that must lose points).
BUG_FIXTURES = {
    # scale
    "no_scale": ("no_scale", SCALE),
    "divide_by_dk": ("divide_by_dk", SCALE),
    "half_dk": ("half_dk", SCALE - {"seed_weights", "seed_output", "gradients_flow"}),  # d_k/2 = √d_k at d_k = 4
    "half_dk_inline": ("half_dk", SCALE),  # `/ d_k ** 1 / 2` divides by 2·d_k
    "times_sqrt": ("times_sqrt", SCALE),
    "wrong_dk": ("wrong_dk", SCALE),  # query.size(-2)
    "wrong_dk_key_len": ("wrong_dk", SCALE),  # math.sqrt(key.size(-2))
    "wrong_dk_value": ("wrong_dk", {"scaling_statistics", "no_saturation", "cross_lengths", "float64_preserved"}),
    "hardcoded_dk": ("fixed_dk", SCALE - {"no_saturation"}),  # math.sqrt(512) fits the d_k = 512 inputs only
    # softmax
    "softmax_dim": ("softmax_dim", WEIGHTS),  # dim=-2
    "softmax_dim1": ("softmax_dim", WEIGHTS),  # dim=1
    "softmax_no_dim": ("softmax_dim", WEIGHTS),  # F.softmax(scores) picks dim 0 on 3-D input
    "log_softmax": ("log_softmax", WEIGHTS),
    "sigmoid": ("sigmoid", WEIGHTS),
    "unstable_softmax": ("overflow", {"large_inputs_finite"}),
    "exp_softmax": ("overflow", {"large_inputs_finite"}),
    # transpose
    "transpose_01": ("transpose_01", EVERY_CALL_FAILS),
    "transpose_12": ("transpose_12", {"batched_4d"}),
    "dot_T": ("dot_T", EVERY_CALL_FAILS),
    "no_transpose": ("no_transpose", EVERY_CALL_FAILS),
    "bmm": ("bmm", {"batched_4d"}),
    "einsum_3d": ("only_3d", {"batched_4d"}),
    # which tensor goes where (the seed input is self-attention, q = k = v, so these pass it)
    "swap_qk": ("swap_qk", WEIGHTS - {"seed_weights", "seed_output"} | {"weighted_mix"}),
    "value_as_key": ("value_as_key", WEIGHTS - {"seed_weights", "seed_output"} | {"weighted_mix"}),
    "query_as_value": ("wrong_value", {"weighted_mix", "batched_3d", "batched_4d", "cross_lengths",
                                       "float64_preserved", "gradients_flow", "large_inputs_finite"}),  # mixes key
    "query_mixed": ("wrong_value", {"rows_sum_to_one", "weighted_mix", "no_saturation", "batched_3d", "batched_4d",
                                    "cross_lengths", "float64_preserved", "gradients_flow", "large_inputs_finite"}),
    # what is returned
    "only_output": ("only_output", NOT_A_PAIR),
    "swapped_return": ("swapped_return", NOT_A_PAIR),
    "scores": ("scores", WEIGHTS - {"seed_output", "float64_preserved"} | {"weighted_mix"}),
    # side effects, autograd, dtype
    "in_place": ("in_place", {"return_contract", "seed_weights", "seed_output", "rows_sum_to_one", "weighted_mix",
                              "inputs_untouched", "gradients_flow"}),
    "no_grad": ("no_grad", {"gradients_flow"}),
    "detach": ("no_grad", {"gradients_flow"}),
    "detach_weights": ("no_grad", {"gradients_flow"}),
    "numpy_roundtrip": ("no_grad", {"gradients_flow"}),
    "float_cast": ("dtype", {"float64_preserved"}),
    "new_tensor": ("dtype", {"float64_preserved", "gradients_flow"}),
    # not written yet
    "unimplemented": ("stub", EVERY_CALL_FAILS),
}

# Checks whose diagnosis names another bug than the fixture's main one (fixture, check) -> bug keys.
OTHER_DIAGNOSES = {
    ("new_tensor", "gradients_flow"): ("no_grad",),  # torch.tensor(...) also cuts the graph
    ("query_as_value", "gradients_flow"): ("unused_input", "wrong_value"),  # value never used: no gradient
}


def test_every_bug_fixture_is_listed():
    """Each wrong fixture in tests/fixtures/ch01 has an expectation here; each correct one is named ok_*."""
    on_disk = {p.stem for p in FIXTURES.glob("*.py") if not p.stem.startswith("ok_")}
    assert on_disk == set(BUG_FIXTURES)
    assert all(key in BUGS for key, _ in BUG_FIXTURES.values())


def test_solution_full_marks_with_hidden_checks():
    """The solution earns 100/100 on all 14 checks."""
    results = grade(SOLUTION, hidden=True)
    assert {r.name for r in results} == ALL
    assert [r.name for r in results if not r.passed] == []
    assert total(results) == 100


def test_solution_full_marks_on_visible_checks():
    """Without the hidden checks the solution earns 70/70, and only visible checks are reported."""
    results = grade(SOLUTION, hidden=False)
    assert {r.name for r in results} == VISIBLE
    assert total(results) == 70 == sum(r.points for r in results)


def test_generated_stub_scores_zero_and_names_the_stub():
    """The generated exercise stub earns 0 everywhere, and every diagnosis says the function is not written yet."""
    results = grade(STUB, hidden=True)
    assert total(results) == 0
    for result in results:
        assert BUGS["stub"] in result.message, result


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("ok_*.py")), ids=lambda p: p.stem)
def test_correct_variant_full_marks(path):
    """A correct variant (einsum, @ and .mT, scaled query, stable manual softmax, SDPA, ×1/√d_k, a list, prints) gets 100."""
    results = grade(path, hidden=True)
    assert [(r.name, r.message) for r in results if not r.passed] == []
    assert total(results) == 100


def test_a_list_is_accepted_as_the_pair():
    """Decision: `return [output, p_attn]` is accepted (it unpacks like the tuple); the contract is the order and types."""
    results = by_name(grade(fixture_path("ok_list_return"), hidden=False))
    assert results["return_contract"].passed


@pytest.mark.parametrize("name", sorted(BUG_FIXTURES))
def test_bug_fixture_loses_points_on_expected_checks(name):
    """A wrong fixture loses points on exactly its expected checks and keeps full marks on all the others."""
    _, expected = BUG_FIXTURES[name]
    results = grade(fixture_path(name), hidden=True)
    failing = {r.name for r in results if not r.passed}
    assert failing == set(expected), f"unexpected: {failing - set(expected)}, missing: {set(expected) - failing}"
    assert total(results) < 100


@pytest.mark.parametrize("name", sorted(BUG_FIXTURES))
def test_bug_fixture_gets_named_diagnosis(name):
    """Every check that a wrong fixture fails explains it with the bug's Korean explanation from BUGS."""
    bug, _ = BUG_FIXTURES[name]
    for result in grade(fixture_path(name), hidden=True):
        if result.passed:
            continue
        for key in OTHER_DIAGNOSES.get((name, result.name), (bug,)):
            assert BUGS[key] in result.message, f"{result.name}: expected BUGS[{key!r}], got {result.message!r}"


@pytest.mark.parametrize("name", ["wrong_dk", "times_sqrt"])
def test_ambiguous_single_query_case_is_resolved_by_the_seed(name):
    """With one query (d_k=512 saturation input) several scale bugs coincide; the seed result names the real one."""
    bug, _ = BUG_FIXTURES[name]
    message = by_name(grade(fixture_path(name), hidden=False))["no_saturation"].message
    assert BUGS[bug] in message
    assert BUGS["no_scale"] not in message


def test_wrong_dk_diagnosis_reports_the_scale_used():
    """The wrong-d_k diagnosis says which number the scores were divided by instead of √d_k (seed: √3 for √4)."""
    message = by_name(grade(fixture_path("wrong_dk_key_len"), hidden=False))["seed_weights"].message
    assert "√d_k = 2가 아니라 약 1.73" in message


def test_partial_credit_is_per_case():
    """Checks over several visible inputs give the share of inputs that pass (swap_qk fails 1 of 5 property cases)."""
    results = by_name(grade(fixture_path("swap_qk"), hidden=False))
    cases = len(ch01_judge.PROPERTY_CASES)
    assert results["rows_sum_to_one"].score == pytest.approx(10 * (cases - 1) / cases)


def test_hidden_case_names_are_in_the_hidden_diagnoses():
    """A hidden check's diagnosis says which (described, not shown) hidden input failed."""
    message = by_name(grade(fixture_path("transpose_12"), hidden=True))["batched_4d"].message
    assert message.startswith(ch01_judge.probe.CASES["batched_4d"].text)
    assert "batched_4d" in ch01_probe.case_names() and "batched_4d" not in ch01_probe.case_names(visible_only=True)
