"""Pictures of module chapters: chapter 03 draws the student's `self.attn` (a trace path, batch 0, head 0) beside the
public reference; chapters that declare `picture=None` show no picture at all."""
import json

import pytest

from grader import paths
from grader.checks import chapter
from grader.report import heatmap, picture

from .conftest import CHAPTER_03, CHAPTER_04
from .test_feedback import _heatmaps

pytestmark = pytest.mark.report
SIDE = 6  # the self_attn case: query length = key length = 6


def _page(folder, student):
    return (folder / "feedback" / student / "feedback.html").read_text(encoding="utf-8")


def _document(folder, student):
    return json.loads((folder / "results" / f"{student}.json").read_text(encoding="utf-8"))


def _public_head_0():
    """Batch 0, head 0 of self.attn on the visible self_attn case, from the students' public reference file."""
    path = paths.EXERCISES / CHAPTER_03 / "selfcheck" / "reference.json"
    encoded = json.loads(path.read_text(encoding="utf-8"))["cases"]["self_attn"]["attributes"]["attn"]
    assert encoded["shape"] == [2, 4, SIDE, SIDE]
    flat = [float(x) for x in encoded["data"][:SIDE * SIDE]]
    return [flat[i * SIDE:(i + 1) * SIDE] for i in range(SIDE)]


def _written(rows):
    return [[heatmap.label(x) for x in row] for row in rows]


def test_declarations():
    """Chapter 03 declares self.attn of the visible self_attn case at a trace path; 04–06 declare none."""
    assert picture.declared(CHAPTER_03) == picture.Declaration(
        case="self_attn", label="self.attn", path=("attributes", "attn"), index=(0, 0))
    assert picture.declared(CHAPTER_03).where == ("attributes", "attn")
    assert picture.declared("01_attention").where == ("result", "items", 1)
    for chapter_id in (CHAPTER_04, "05_embeddings", "06_sublayer"):
        assert picture.declared(chapter_id) is None and picture.reference(chapter_id) is None


def test_chapter_03_page_draws_the_students_self_attn_and_the_reference(graded_03):
    """A student whose clones share one Linear: the page's left heatmap holds that student's head-0 weights (as results.json
    recorded them from its self.attn), which differ from the right one, the public reference's head 0."""
    folder, _ = graded_03
    page = _page(folder, "shared_clones")
    (mine, student), (reference_caption, reference) = _heatmaps(page)
    assert (mine, reference_caption) == ("내 self.attn", "기준 self.attn")
    recorded = _document(folder, "shared_clones")["picture"]
    assert recorded["case"] == "self_attn" and recorded["label"] == "self.attn"
    assert len(recorded["student"]) == SIDE and all(len(row) == SIDE for row in recorded["student"])
    assert student == _written(recorded["student"])
    assert reference == _written(_public_head_0())
    assert student != reference
    assert chapter("03").picture.texts["title"] in page
    assert "self-attention 입력 (2, 6, 32), h=4" in page


def test_the_solutions_self_attn_is_the_reference(graded_03):
    """The solution's head-0 weights equal the public reference (each row sums to 1)."""
    folder, _ = graded_03
    (_, student), (_, reference) = _heatmaps(_page(folder, "solution"))
    assert student == reference == _written(_public_head_0())
    for row in _document(folder, "solution")["picture"]["student"]:
        assert sum(row) == pytest.approx(1.0, abs=1e-5)


def test_chapter_03_without_self_attn_shows_the_reference_and_says_why(graded_03):
    """A forward that does not keep self.attn: only the reference heatmap, with a Korean note naming self.attn."""
    folder, _ = graded_03
    page = _page(folder, "attn_not_stored")
    assert [caption for caption, _ in _heatmaps(page)] == ["기준 self.attn"]
    assert _document(folder, "attn_not_stored")["picture"]["student"] is None
    assert "제출한 코드의 그림은 그릴 수 없습니다" in page and "self.attn에 (batch, h, query 길이, key 길이)" in page


def test_a_chapter_without_a_picture_has_no_picture_section(graded_04):
    """Chapter 04 (picture=None): no heatmap, no picture heading, no fallback to chapter 01's seed p_attn."""
    folder, _ = graded_04
    page = _page(folder, "solution")
    markdown = (folder / "feedback" / "solution" / "feedback.md").read_text(encoding="utf-8")
    assert _document(folder, "solution")["picture"] == {}
    for text in (page, markdown):
        assert 'class="heatmap"' not in text and "p_attn" not in text and "그림" not in text
    assert "<figure" not in page and not _heatmaps(page) and "점수:" in page
