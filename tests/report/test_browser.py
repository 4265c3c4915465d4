"""The pages in a real browser (headless Chromium): no console errors, heatmaps and charts drawn, Korean text drawn
with a font that has Hangul glyphs. Skipped only where Chromium is missing outside CI; under CI (CI=true) it fails."""
import os
import shutil
import subprocess

import pytest

from grader.report import browser

from .conftest import GRADED
from .pngcheck import assert_png

pytestmark = pytest.mark.report


@pytest.fixture(scope="module")
def chromium():
    """A running headless Chromium (and the installed fonts that have Hangul glyphs)."""
    if browser.executable() is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("CI=true but chromium is not installed (.ci/run installs it: apt-get install -y chromium)")
        pytest.skip("chromium is not installed (Debian: apt-get install -y chromium fonts-nanum)")
    with browser.Browser() as running:
        yield running, browser.hangul_fonts()


def _inspect(chromium, page, screenshot):
    running, fonts = chromium
    visit = running.inspect(page, screenshot=screenshot)
    assert browser.problems(visit, fonts) == []
    assert_png(screenshot)
    return visit


def test_feedback_page_in_chromium(chromium, graded, tmp_path):
    """A failing student's page: both 3 × 3 heatmaps drawn as coloured cells holding the values, Korean drawn in a
    Hangul font (title, headings, captions, axis names), no console error."""
    visit = _inspect(chromium, graded[0] / "feedback" / "no_scale" / "feedback.html", tmp_path / "feedback.png")
    assert visit.answers["heatmap_cells"] == 18
    assert all(value.replace(".", "", 1).isdigit() for value in visit.answers["heatmap_values"])
    assert "채점 결과" in visit.answers["title"]
    assert {"h1", "h2", "figcaption", "table.heatmap th"} <= set(visit.fonts)


def test_chapter_02_page_in_chromium(chromium, graded_02, tmp_path):
    """Chapter 02's declared picture (the causal 5 × 5 weights) is drawn the same way."""
    visit = _inspect(chromium, graded_02[0] / "feedback" / "fill_zero" / "feedback.html", tmp_path / "feedback02.png")
    assert visit.answers["heatmap_cells"] == 2 * 25


def test_chapter_03_page_in_chromium(chromium, graded_03, tmp_path):
    """Chapter 03's declared picture (self.attn, batch 0, head 0: 6 × 6 weights) beside the reference, drawn the same way."""
    visit = _inspect(chromium, graded_03[0] / "feedback" / "shared_clones" / "feedback.html", tmp_path / "feedback03.png")
    assert visit.answers["heatmap_cells"] == 2 * 36


def test_class_report_in_chromium(chromium, graded, documents, tmp_path):
    """The class report: both Korean charts drawn with one bar per score bin and per check, Korean labels in a Hangul
    font, no console error."""
    visit = _inspect(chromium, graded[0] / "report.html", tmp_path / "report.png")
    assert visit.answers["charts"] == ["점수 분포", "검사별 통과율"]
    assert visit.answers["chart_bars"] == 10 + len(next(iter(documents.values()))["tests"])
    assert {"h1", "h2", "svg.chart text"} <= set(visit.fonts)
    assert "학급 보고서" in visit.answers["title"] and len(GRADED) > 1


def _latin_only_fontconfig(folder, hangul):
    """A fontconfig setup that offers one installed font without Hangul glyphs, and nothing else."""
    listed = subprocess.run(["fc-list", "--format", "%{file}|%{family}\\n"], capture_output=True, text=True, timeout=60)
    latin = sorted(line.split("|")[0] for line in listed.stdout.splitlines()
                   if "|" in line and line.split("|")[0].endswith(".ttf") and not set(line.split("|")[1].split(",")) & hangul)
    assert latin, "no font without Hangul glyphs to test with"
    fonts = folder / "fonts"
    fonts.mkdir()
    shutil.copy(latin[0], fonts)
    config = folder / "fonts.conf"
    config.write_text(f'<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig><dir>{fonts}</dir>'
                      f"<cachedir>{folder / 'cache'}</cachedir></fontconfig>\n")
    return config


def test_korean_drawn_without_a_hangul_font_is_caught(chromium, graded, tmp_path):
    """The font check is armed: the same feedback page in a Chromium that only has a font without Hangul glyphs is
    reported (its Korean text falls back to that font)."""
    _, hangul = chromium
    config = _latin_only_fontconfig(tmp_path, hangul)
    with browser.Browser(env=dict(os.environ, FONTCONFIG_FILE=str(config))) as latin_only:
        visit = latin_only.inspect(graded[0] / "feedback" / "no_scale" / "feedback.html")
    assert visit.answers["korean"] and visit.fonts
    found = browser.problems(visit, hangul)
    assert found and all("none of which has Hangul glyphs" in line for line in found)
