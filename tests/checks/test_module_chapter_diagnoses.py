"""Diagnoses of the module chapters (03, 04) beyond their expectations tables: when a mistake shows, what the
messages name, and that the bug models draw the probe's weights again."""
import pytest

from tests.conftest import ROOT

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


@pytest.mark.parametrize("fixture", ["shared_clones", "shallow_clones_loop", "plain_list"])
def test_a_faulty_clones_costs_only_its_own_check(fixture):
    """A clones that shares (or does not register) its copies fails its own check, which says that the class checks ran
    with the probe's deep-copying stand-in; the class checks then judge the class alone (and pass here)."""
    from grader.checks import ch03_judge

    results = _results(fixture)
    assert [name for name, r in results.items() if not r.passed] == ["clones_deep_copies"]
    assert ch03_judge.STAND_IN in results["clones_deep_copies"].message


def test_shared_weights_name_the_aliased_parameters():
    """`[nn.Linear(...)] * 4` in a structure the class builds itself: the structure check names the parameters that
    are one tensor."""
    from grader.checks import module_judge

    found = {"shared": [["linears.0.weight", "linears.1.weight"]]}
    assert "`linears.0.weight` = `linears.1.weight`" in module_judge.shared_problem(found)


@pytest.mark.parametrize("chapter_id, fixture, expected, found", [
    ("03_multihead", "renamed_linears", "linears.0.weight", "layers.0.weight"),
    pytest.param("04_feedforward", "renamed_layers", "w_1.weight", "linear1.weight", marks=pytest.mark.ch04),
])
def test_other_names_show_expected_and_found_names(chapter_id, fixture, expected, found):
    """Attributes named otherwise than the contract: the visible structure check lists both sets of names."""
    chapter = next(c for c in CHAPTERS if c.id == chapter_id)
    message = {r.name: r for r in grade(chapter, chapter.fixture(fixture))}["module_structure"].message
    assert f"`{expected}`" in message and f"`{found}`" in message
    assert "기준의 이름" in message and "찾은 이름" in message


@pytest.mark.parametrize("chapter_id", ["03_multihead", pytest.param("04_feedforward", marks=pytest.mark.ch04)])
def test_the_correct_bug_model_reproduces_the_reference(chapter_id):
    """A judge's bug models draw the probe's seeded weights again by name: its correct model gives the reference
    output on every forward case (so a matched model is evidence, not chance)."""
    import json

    import torch

    from grader.checks import chapter as load_chapter
    from grader.checks.compare import close, decode

    contract = load_chapter(chapter_id)
    reference = json.loads((ROOT / "grader" / "reference" / f"{chapter_id}.json").read_text(encoding="utf-8"))
    forward = [name for name, case in contract.probe.CASES.items() if case.kind == "forward"]
    assert forward
    for case in forward:
        correct = [model for label, model in contract.model_code.models(case) if label is None]
        assert len(correct) == 1
        produced = contract.model_code.call(correct[0], case, contract.probe.make_inputs(case))
        output = produced[0] if isinstance(produced, tuple) else produced
        assert close(output.detach().to(torch.float64), decode(reference["cases"][case]["result"])), case


def test_the_stand_in_leaves_the_students_clones_in_place():
    """After the class cases ran with the stand-in, the student's own (shallow) clones is back in their namespace and
    still fails its check when it is judged later in the same session (as in a notebook)."""
    from grader.checks import ch03_probe
    from grader.checks.loading import module_from_source, read_source

    module = module_from_source(read_source(CH03.fixture("shallow_clones_loop")))
    own = module.clones
    trace = ch03_probe.run_case(module, "self_attn")
    assert "stand_in" in trace and module.clones is own and ch03_probe.clones_faulty(module)
