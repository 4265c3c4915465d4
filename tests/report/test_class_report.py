"""The class report: its numbers agree with the results.json files, its charts are valid PNGs."""
import json
import re
from collections import Counter

import pytest

from grader.report import classreport, page, texts
from grader.report.result_files import diagnosis, load

from .conftest import BROKEN, GRADED
from .pngcheck import assert_png

pytestmark = pytest.mark.report


@pytest.fixture(scope="module")
def report(graded):
    """(markdown, summary) of the graded folder's class report."""
    folder, _ = graded
    return (folder / "report.md").read_text(encoding="utf-8"), classreport.summary(load(folder), "01", wall_seconds=12.5)


def test_report_files_and_charts_exist(graded):
    """report.md and report.html are written; the HTML draws both charts inline, titled in Korean."""
    folder, answer = graded
    assert answer["report"] == folder / "report.html"
    for name in ("report.md", "report.html"):
        assert (folder / name).stat().st_size > 0
    html = (folder / "report.html").read_text(encoding="utf-8")
    assert [title for title in re.findall(r'<svg class="chart" role="img" aria-label="([^"]*)"', html)] == [
        "점수 분포", "검사별 통과율"]
    assert not re.search(r"(src|href)=|url\((?!#)|<link|<img", html)


def test_charts_draw_one_bar_per_bin_and_per_check(report, graded):
    """The histogram's bar heights follow the bin counts; the pass-rate bars' widths follow the rates."""
    _, summary = report
    html = (graded[0] / "report.html").read_text(encoding="utf-8")
    histogram, rates = re.findall(r"<svg.*?</svg>", html)
    heights = [float(h) for h in re.findall(r'<rect class="bar" [^>]*height="([\d.]+)"', histogram)]
    counts = [count for _, _, count in summary["histogram"]]
    assert len(heights) == len(counts)
    assert [h / max(heights) for h in heights] == pytest.approx([c / max(counts) for c in counts], abs=1e-3)
    widths = [float(w) for w in re.findall(r'<rect class="bar" [^>]*width="([\d.]+)"', rates)]
    assert len(widths) == len(summary["pass_rates"])
    top = max(widths) / max(e["rate"] for e in summary["pass_rates"].values())
    assert widths == pytest.approx([top * e["rate"] for e in summary["pass_rates"].values()], abs=0.1)


def test_histogram_counts_match_the_scores(report, documents):
    """Every bin counts exactly the scores in [low, high) (the last bin includes the maximum); counts add up."""
    markdown, summary = report
    scores = [d["score"] for d in documents.values()]
    bins = summary["histogram"]
    assert len(bins) == 10 and bins[-1][1] == 100
    for index, (low, high, count) in enumerate(bins):
        last = index == len(bins) - 1
        assert count == sum(low <= s < high or (last and s == high) for s in scores)
        label = f"[{low:g}, {high:g}" + ("]" if last else ")")
        assert f"| {label} | {count} |" in markdown
    assert sum(count for _, _, count in bins) == len(documents) == summary["submissions"]


def test_score_summary_matches(report, documents):
    """Mean, lowest and highest score in the report are those of the results."""
    markdown, summary = report
    scores = [d["score"] for d in documents.values()]
    assert summary["scores"]["mean"] == pytest.approx(sum(scores) / len(scores))
    assert summary["scores"]["min"] == min(scores) and summary["scores"]["max"] == max(scores)
    assert f"제출 {len(scores)}건" in markdown and f"평균 {round(sum(scores) / len(scores), 2):g}점" in markdown


def test_pass_rates_match(report, documents):
    """For every check: passed/total and the percentage equal the counts of `status: passed` in results.json."""
    markdown, summary = report
    names = [t["name"] for t in next(iter(documents.values()))["tests"]]
    assert list(summary["pass_rates"]) == names
    for name in names:
        statuses = [t["status"] for d in documents.values() for t in d["tests"] if t["name"] == name]
        entry = summary["pass_rates"][name]
        assert (entry["passed"], entry["total"]) == (statuses.count("passed"), len(statuses))
        assert re.search(rf"\| {name} \|.*\| {entry['passed']}/{entry['total']} \| {100 * entry['rate']:.0f}% \|", markdown)


def test_diagnosis_counts_match(report, documents):
    """Each listed diagnosis is counted once per submission whose failed checks say it; the table shows the count."""
    markdown, summary = report
    topics = summary["topics"]
    assert topics, "some fixtures fail, so there are diagnoses"
    for text, count in topics:
        having = [d for d in documents.values() if d["status"] != "unreadable"
                  and any(text in diagnosis(t) for t in d["tests"] if t["status"] == "failed")]
        assert count == len(having), text
    for text, count in topics[: classreport.TOP_TOPICS]:
        escaped = page.md_text(text).replace("|", chr(92) + "|")
        assert f"| {count} | {escaped} |" in markdown
    counts = [count for _, count in topics]
    assert counts == sorted(counts, reverse=True)


def test_known_bugs_are_grouped_across_checks(report):
    """The no-scale explanation appears once, counted for the no_scale submission only once (not once per check)."""
    _, summary = report
    no_scale = [(text, n) for text, n in summary["topics"] if "√d_k로 나누지 않은" in text]
    assert len(no_scale) == 1 and no_scale[0][1] >= 1


def test_problem_runs_are_listed(report, documents):
    """Timeouts, crashes and unreadable submissions appear, with their status, and nothing else does."""
    markdown, summary = report
    expected = {(student, d["status"]) for student, d in documents.items() if d["status"] != "ok"}
    assert {(student, status) for student, _, status in summary["problems"]} == expected
    assert expected == {(student, status) for student, (status, _, _) in BROKEN.items()}
    assert summary["statuses"] == dict(Counter(d["status"] for d in documents.values()))
    for student, status in expected:
        assert re.search(rf"\| {student} \| {student}-1 \| {texts.status_word(status)} \|", markdown)


def test_file_problems_are_kept_apart_from_concepts(report):
    """An unreadable file is listed with its reason among the problem runs, never as a concept to re-teach."""
    markdown, summary = report
    reason = BROKEN["garbled"][2]
    assert all(reason not in text for text, _ in summary["topics"])
    teach = markdown.split("## 다시 가르칠 것", 1)[1].split("## 정상적으로 실행되지 않은 제출", 1)
    assert reason not in teach[0]
    assert re.search(rf"\| garbled \| garbled-1 \| 파일 읽기 실패 \| [^|]*{re.escape(page.md_text(reason))}", teach[1])


def test_superseded_attempts_are_listed(tmp_path, documents):
    """An older attempt set aside for a newer one appears in the report (student, its timestamp, the graded one)
    and in the summary data."""
    from grader.report import write_all

    document = dict(documents["solution"], superseded=[{"timestamp": "2024-03-01-10-00-00", "origin": "class.zip:a"}],
                    graded_attempt={"timestamp": "2024-03-03-10-00-00", "origin": "class.zip:b"})
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "solution.json").write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    write_all(tmp_path, "01")
    markdown = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "| solution | 2024-03-01-10-00-00 | 2024-03-03-10-00-00 |" in markdown
    assert classreport.summary(load(tmp_path), "01_attention")["superseded"] == [
        ("solution", "2024-03-01-10-00-00", "2024-03-03-10-00-00")]


def test_grading_time_matches(report, documents):
    """The sum of per-submission seconds and the wall time given are reported."""
    markdown, summary = report
    total = sum(d["seconds"] for d in documents.values())
    assert summary["timing"]["total"] == pytest.approx(total)
    assert summary["timing"]["timed"] == len(documents)
    assert f"| 제출별 채점 시간의 합 | {total:.1f}초 ({len(documents)}건 측정) |" in markdown
    assert "| 채점 실행의 벽시계 시간 | 12.5초 |" in markdown


def test_class_table_lists_everyone(report, documents):
    """The class table has one row per submission, with its score and status."""
    markdown, _ = report
    for student, document in documents.items():
        assert re.search(rf"\| {student} \| {round(document['score'], 2):g}/100 \| {texts.status_word(document['status'])} \|", markdown)
    assert len(documents) == len(GRADED) + len(BROKEN)


def test_empty_folder_gives_a_report(tmp_path):
    """No results at all still writes a report that says so."""
    from grader.report import write_all

    answer = write_all(tmp_path, "01")
    assert answer["results"] == 0
    assert classreport.NOTHING in (tmp_path / "report.md").read_text(encoding="utf-8")


def test_diagnosis_vocabulary_is_the_judges():
    """The known-bug and case texts are exactly the chapter contract's bug texts and case descriptions."""
    from grader.checks import chapter
    from grader.report import diagnoses

    declared = chapter("01_attention")
    bugs, cases = diagnoses.vocabulary("01_attention")
    assert set(bugs) == set(declared.bugs.values()) and set(cases) == {c.text for c in declared.probe.CASES.values()}


def test_docs_pictures_are_valid_pngs():
    """docs/feedback.png and docs/report.png (drawn by docs/make_pictures.py) are real, non-blank images."""
    from grader import paths

    for name in ("feedback.png", "report.png"):
        assert_png(paths.ROOT / "docs" / name)


def test_report_speaks_korean(graded):
    """Every heading, table header and chart label of the report is Korean (check ids and numbers aside)."""
    html = (graded[0] / "report.html").read_text(encoding="utf-8")
    hangul = re.compile("[\uac00-\ud7a3]")
    labels = re.findall(r"<h[12]>(.*?)</h[12]>", html) + [h for h in re.findall(r"<th>(.*?)</th>", html) if h]
    labels += re.findall(r'<text [^>]*text-anchor="(?:middle)"[^>]*>([^<]*[^\d\s/()%.,\[\]<][^<]*)</text>', html)
    assert len(labels) > 20
    assert [label for label in labels if not hangul.search(label)] == []
