"""What every page shares: the chapter's declared picture (chapter 02 too), text from submissions escaped everywhere."""
import html
import re

import pytest

from grader.report import diagnoses, picture, texts
from grader.report.result_files import safe_name

from tests.seams import english_words, entities

from .conftest import CHAPTER_02, MARKUP
from .test_feedback import _heatmaps

pytestmark = pytest.mark.report


def test_each_chapter_declares_its_picture():
    """Chapter 01 draws p_attn of the seed input (the default); chapter 02 declares p_attn under the causal mask."""
    assert picture.declared("01_attention") == picture.Declaration("seed", 1, "p_attn")
    assert picture.declared(CHAPTER_02) == picture.Declaration("causal", 1, "p_attn")


def test_chapter_02_page_draws_the_causal_triangle(graded_02):
    """Chapter 02's page draws the declared case: 5 × 5 weights, 0 above the diagonal in the reference and in the
    correct answer; a student who fills masked scores with 0 shows weight there, next to the triangle."""
    folder, _ = graded_02
    page = (folder / "feedback" / "solution" / "feedback.html").read_text(encoding="utf-8")
    assert diagnoses.case_text(CHAPTER_02, "causal") in page
    (mine, student), (reference_caption, reference) = _heatmaps(page)
    assert (mine, reference_caption) == ("내 p_attn", "기준 p_attn")
    for rows in (student, reference):
        assert len(rows) == 5 and all(len(row) == 5 for row in rows)
        assert all(rows[i][j] == "0.000" for i in range(5) for j in range(i + 1, 5))
        assert all(rows[i][i] != "0.000" for i in range(5))
    wrong = _heatmaps((folder / "feedback" / "fill_zero" / "feedback.html").read_text(encoding="utf-8"))[0][1]
    assert any(wrong[i][j] != "0.000" for i in range(5) for j in range(i + 1, 5))


def test_markup_from_a_submission_is_escaped_in_every_page(graded_markup):
    """A student id and a check name/message with <script>, & and " appear as text (escaped) in the feedback page's
    title, heading, tables and diagnoses, in the class report and its chart, and in both Markdown files."""
    folder, document = graded_markup
    escaped = html.escape(MARKUP)
    feedback = (folder / "feedback" / safe_name(MARKUP) / "feedback.html").read_text(encoding="utf-8")
    report = (folder / "report.html").read_text(encoding="utf-8")
    for page in (feedback, report):
        assert "<script" not in page and "<b>" not in page and MARKUP not in page
        assert '"quoted"' not in page and " & " not in page
    assert re.search(rf"<title>[^<]*{re.escape(escaped)}</title>", feedback)
    assert re.search(rf"<h1>[^<]*{re.escape(escaped)}</h1>", feedback)
    assert f"진단 {escaped}" in feedback and f"제목 {escaped}" in feedback
    assert f"<td>{escaped}</td>" in report  # the class table
    assert f"check {escaped}</text>" in report  # the pass-rate chart's label
    markdown = (folder / "feedback" / safe_name(MARKUP) / "feedback.md").read_text(encoding="utf-8")
    for text in (markdown, (folder / "report.md").read_text(encoding="utf-8")):  # CommonMark's backslash, no entities
        assert not re.search(r"(?<!\\)<(script|b>)", text) and "\\<script>" in text and "&amp;" not in text
    assert document["student_id"] == MARKUP


def test_pages_and_reports_read_korean_without_seams(graded):
    """Every feedback page and the class report (Markdown and HTML) name run statuses in Korean words, and the
    Markdown carries no HTML entity; the statuses of the graded runs (timeout, crashed, unreadable) are all there."""
    folder, _ = graded
    pages = sorted(folder.rglob("*.md")) + sorted(folder.rglob("*.html"))
    assert len(pages) >= 4
    for path in pages:
        text = path.read_text(encoding="utf-8")
        assert english_words(text, markup=path.suffix == ".html") == [], path
        if path.suffix == ".md":
            assert entities(text) == [], path
    report = (folder / "report.md").read_text(encoding="utf-8")
    assert all(f"{texts.status_word(status)} 1건" in report for status in ("timeout", "crashed", "unreadable"))


def test_the_seam_finder_sees_seams():
    """The scanner itself: it finds status codes and entities outside code, and ignores code spans."""
    assert english_words("실행 상태: ok 5건, unreadable 2건") == ["ok", "unreadable"]
    assert english_words("`timeout` 인자를 쓰세요, <code>ok</code>", markup=True) == []
    assert entities("dim &gt; 1인 parameter") == ["&gt;"] and entities("`a &amp; b`") == []
