"""Chapter 10's feedback picture: the student's `tgt_mask` (a trace path, sentence 0 of the visible pad=2 case)
beside the public reference; a Batch that raises shows the reference alone and says why."""
import json

import pytest

from grader import paths
from grader.checks import chapter
from grader.report import heatmap
from tests import fixtures

from .conftest import graded_chapter
from .test_feedback import _heatmaps

pytestmark = pytest.mark.report

CHAPTER = "10_batching"
STUDENTS = {
    "solution": paths.SOLUTIONS / CHAPTER / "transformer.py",
    "no_padding": fixtures.path("ch10", "tgt_mask_no_padding"),
    "no_staticmethod": fixtures.path("ch10", "no_staticmethod"),
}


@pytest.fixture(scope="module")
def graded_10(tmp_path_factory):
    return graded_chapter(tmp_path_factory, CHAPTER, STUDENTS)[0]


def _page(folder, student):
    return (folder / "feedback" / student / "feedback.html").read_text(encoding="utf-8")


def _public_sentence_0():
    """tgt_mask of the visible pad2 case, sentence 0, from the students' public reference file, as the page writes it."""
    path = paths.EXERCISES / CHAPTER / "selfcheck" / "reference.json"
    encoded = json.loads(path.read_text(encoding="utf-8"))["cases"]["pad2"]["attributes"]["tgt_mask"]
    batch, side, _ = encoded["shape"]
    assert batch == 3
    flat = encoded["data"][:side * side]
    return [[heatmap.label(float(x)) for x in flat[i * side:(i + 1) * side]] for i in range(side)]


def test_the_solutions_tgt_mask_is_the_reference(graded_10):
    """The solution's picture equals the public reference: a 6 × 6 triangle whose pad columns 4 and 5 are 0."""
    page = _page(graded_10, "solution")
    (mine, student), (reference_caption, reference) = _heatmaps(page)
    assert (mine, reference_caption) == ("내 tgt_mask", "기준 tgt_mask")
    assert student == reference == _public_sentence_0()
    assert [row[4:] for row in reference] == [["0.000", "0.000"]] * 6
    assert chapter("10").picture.texts["title"] in page


def test_a_mask_without_padding_shows_the_pad_columns(graded_10):
    """subsequent_mask alone: the student's triangle reaches into the pad columns the reference hides."""
    (_, student), (_, reference) = _heatmaps(_page(graded_10, "no_padding"))
    assert student != reference
    assert student[5][4:] == ["1.000", "1.000"] and reference[5][4:] == ["0.000", "0.000"]


def test_a_batch_that_raises_shows_the_reference_and_says_why(graded_10):
    """No tgt_mask to draw: only the reference heatmap, with the Korean note naming self.tgt_mask."""
    page = _page(graded_10, "no_staticmethod")
    assert [caption for caption, _ in _heatmaps(page)] == ["기준 tgt_mask"]
    assert "제출한 코드의 그림은 그릴 수 없습니다" in page and "self.tgt_mask를 (batch, 길이, 길이) mask로" in page
