"""Diagnoses of chapters 05 and 06 beyond their expectations tables: the names a renamed attribute shows, and
that the bug models draw the probe's weights again (their correct model gives the reference)."""
import json

import pytest
import torch

from grader.checks import chapter as load_chapter
from grader.checks.compare import close, decode
from tests.conftest import ROOT

from .chapters import CHAPTERS, grade

pytestmark = pytest.mark.checks


@pytest.mark.parametrize("chapter_id, fixture, check, expected, found", [
    pytest.param("05_embeddings", "renamed_lut", "embeddings_structure", "lut.weight", "embedding.weight",
                 marks=pytest.mark.ch05),
    pytest.param("06_sublayer", "renamed_gain_bias", "ln_structure", "a_2", "gain", marks=pytest.mark.ch06),
    pytest.param("06_sublayer", "renamed_norm", "sub_structure", "norm.b_2", "layer_norm.b_2", marks=pytest.mark.ch06),
])
def test_other_names_show_expected_and_found_names(chapter_id, fixture, check, expected, found):
    """Attributes named otherwise than the contract: the visible structure check lists both sets of names."""
    chapter = next(c for c in CHAPTERS if c.id == chapter_id)
    message = {r.name: r for r in grade(chapter, chapter.fixture(fixture))}[check].message
    assert f"`{expected}`" in message and f"`{found}`" in message
    assert "기준의 이름" in message and "찾은 이름" in message


@pytest.mark.parametrize("chapter_id", [pytest.param("05_embeddings", marks=pytest.mark.ch05),
                                        pytest.param("06_sublayer", marks=pytest.mark.ch06)])
def test_the_correct_bug_model_reproduces_the_reference(chapter_id):
    """On every case with a forward, exactly one bug model is unlabelled (the solution's way), and it gives the
    reference output from the probe's inputs, seeded weights and RNG seed: a matched model is evidence, not chance."""
    contract = load_chapter(chapter_id)
    reference = json.loads((ROOT / "grader" / "reference" / f"{chapter_id}.json").read_text(encoding="utf-8"))
    forward = [name for name, case in contract.probe.CASES.items() if case.kind != "module"]
    assert len(forward) >= 5
    for case in forward:
        correct = [model for label, model in contract.model_code.models(case) if label is None]
        assert len(correct) == 1, case
        produced = contract.model_code.call(correct[0], case, contract.probe.make_inputs(case))
        assert close(produced.detach().to(torch.float64), decode(reference["cases"][case]["result"])), case
