"""Chapter 07 diagnoses beyond its expectations table: the bug models draw the probe's weights again, and the
shared layers are named by the aliased parameters on a visible case only."""
import json

import pytest
import torch

from grader.checks import chapter as load_chapter
from grader.checks.compare import close, decode
from tests.conftest import ROOT

from tests.checks.chapters import CHAPTERS, grade

pytestmark = [pytest.mark.checks, pytest.mark.ch07]

CH07 = next(chapter for chapter in CHAPTERS if chapter.id == "07_encoder")


def test_the_correct_bug_model_reproduces_the_reference():
    """On every forward case exactly one bug model is unlabelled, and it gives the reference output from the probe's
    inputs, seeded weights and RNG seed (train mode included): a matched model is evidence, not chance."""
    contract = load_chapter(CH07.id)
    reference = json.loads((ROOT / "grader" / "reference" / f"{CH07.id}.json").read_text(encoding="utf-8"))
    forward = [name for name, case in contract.probe.CASES.items() if case.kind == "forward"]
    assert len(forward) >= 6
    for case in forward:
        correct = [model for label, model in contract.model_code.models(case) if label is None]
        assert len(correct) == 1
        produced = contract.model_code.call(correct[0], case, contract.probe.make_inputs(case))
        assert close(produced.detach().to(torch.float64), decode(reference["cases"][case]["result"])), case


def test_shared_layers_name_the_aliased_parameters_on_visible_cases_only():
    """`[layer] * N`: a visible check names the parameters that are one tensor; a hidden one does not (its names
    would show the hidden number of layers)."""
    results = {r.name: r for r in grade(CH07, CH07.fixture("layers_times_n"))}
    assert "`layers.0.self_attn.linears.0.weight` = `layers.1.self_attn.linears.0.weight`" in \
        results["encoder_structure"].message
    assert "layers.2" not in results["hidden_encoder"].message


def test_mask_not_passed_is_named_from_the_padding_columns():
    """The EncoderLayer's self-attention weights give padding keys weight: the attention check says the mask was not
    passed."""
    message = {r.name: r for r in grade(CH07, CH07.fixture("mask_not_passed"))}["pad_attention"].message
    assert load_chapter(CH07.id).bugs["mask_not_passed"] in message


def test_padding_check_passes_when_only_the_lambda_is_wrong():
    """The lambda uses the outer x, the mask is passed: padding weights are 0, so "padding 토큰의 가중치는 0" passes, and
    EncoderLayer's output check names the lambda by its own cause, and the Encoder (judged with the probe's stand-in
    layer) loses nothing for it."""
    results = {r.name: r for r in grade(CH07, CH07.fixture("lambda_outer_x"))}
    assert results["pad_attention"].passed and results["encoder_forward"].passed
    assert load_chapter(CH07.id).bugs["lambda_ignores_argument"] in results["layer_forward"].message


def test_the_probe_records_what_each_part_received():
    """The solution's trace says, call by call, which LayerNorm fed each attention and feed-forward and which mask
    each attention got: the evidence the judge names the lambda and mask mistakes from."""
    reference = json.loads((ROOT / "grader" / "reference" / f"{CH07.id}.json").read_text(encoding="utf-8"))
    calls = reference["cases"]["encoder_eval"]["calls"]
    assert [call["module"] for call in calls] == ["layers.0.self_attn", "layers.0.feed_forward",
                                                  "layers.1.self_attn", "layers.1.feed_forward"]
    assert calls[0]["query"] == calls[0]["key"] == "layers.0.sublayer.0.norm" and calls[0]["mask"] == "input:mask"
    assert calls[1]["x"] == "layers.0.sublayer.1.norm"


@pytest.mark.parametrize("fixture, changed, key", [("ok_given_fill_minus_ten", "attention", "padding_leak"),
                                                   ("ok_given_attn_not_stored", "MultiHeadedAttention", "attn_missing")])
def test_a_changed_given_unit_fails_pad_attention_on_its_own_run(fixture, changed, key):
    """A change of the given attention (-10 for -1e9: padding weights ~1e-5; `self.attn` never stored) fails
    pad_attention on the student's own run, naming the leak or the missing weights: the check is strict, and only the
    second run with the course's unit (given.py) earns the points, with a note naming the changed unit."""
    import contextlib
    import io

    from grader.checks import messages, references
    from grader.checks.execute import execute
    from grader.checks.framework import judge

    contract = load_chapter(CH07.id)
    with contextlib.redirect_stdout(io.StringIO()):
        outcome = execute(CH07.fixture(fixture).read_text(encoding="utf-8"), contract.probe,
                          contract.probe.case_names(visible_only=True))
    assert outcome["given"]["changed"] == [changed]
    assert messages.given_changed([changed]) in outcome["notes"]
    reference = references.load(CH07.id)
    own = {r.name: r for r in judge(contract.checks, contract.probe, {**outcome, "given": None}, reference, True)}
    assert not own["pad_attention"].passed and contract.bugs[key] in own["pad_attention"].message
    assert all(result.passed for name, result in own.items() if name != "pad_attention")
    forgiven = {r.name: r for r in judge(contract.checks, contract.probe, outcome, reference, True)}
    assert forgiven["pad_attention"].passed
