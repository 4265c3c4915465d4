"""Scores carry two decimals everywhere they are shown or exported, and the per-check scores add up to the total."""
import csv
import io
import json
import types

import pytest

from grader.checks import framework, scoresheet
from grader.checks.framework import Verdict
from grader.grading.export import round_scores
from grader.grading.progress import Progress
from grader.grading.outputs import Report, Row
from grader.gradescope.document import results_json

pytestmark = pytest.mark.grading


def thirds():
    """Three checks of 10 points, each earning two thirds (6.6667 before rounding), and one full check of 70."""
    checks = [types.SimpleNamespace(name=f"c{i}", title=f"검사 {i}", points=10.0, visible=True,
                                    judge=lambda evidence: Verdict(2 / 3, "일부 입력에서 틀렸습니다.")) for i in range(3)]
    checks.append(types.SimpleNamespace(name="c3", title="검사 3", points=70.0, visible=True,
                                        judge=lambda evidence: Verdict.ok()))
    return [framework._run_check(check, None) for check in checks]


def test_number_has_at_most_two_decimals():
    assert [scoresheet.number(v) for v in (38.3333, 86.6667, 70.0, 2.5, 0.0, 0.004, 99.995)] == \
        ["38.33", "86.67", "70", "2.5", "0", "0", "100"]


def test_check_scores_are_rounded_and_add_up_to_the_total():
    """A check's score is rounded where it is made; the total is their sum, as every table shows it."""
    found = thirds()
    assert [r.score for r in found] == [6.67, 6.67, 6.67, 70.0]
    score, max_score = scoresheet.total(found)
    assert (score, max_score) == (90.01, 100.0)
    document = scoresheet.gradescope(found)
    assert document["score"] == pytest.approx(sum(test["score"] for test in document["tests"]), abs=1e-9)
    text = scoresheet.table(found)
    assert "6.67/10" in text and "90.01/100" in text and "6.6667" not in text


def test_grades_csv_progress_and_gradescope_show_two_decimals(tmp_path):
    """grades.csv, the progress line and Gradescope's results.json say 38.33, never 38.3333."""
    report = Report(tmp_path)
    report.check_names = ["c0", "c1"]
    report.rows.append(Row("s1", "kim", 38.33, 100.0, "ok", None, (("c0", 3.33, 10.0), ("c1", 35.0, 90.0))))
    with open(report.write_csv(), encoding="utf-8") as handle:
        (row,) = list(csv.DictReader(handle))
    assert (row["score"], row["max_score"], row["c0"], row["c1"]) == ("38.33", "100", "3.33", "35")
    stream = io.StringIO()
    Progress(1, stream=stream).update(report.rows[0])
    assert "38.33/100" in stream.getvalue()
    document = {"score": 38.33, "max_score": 100.0, "tests": [], "output": ""}
    assert "점수: 38.33 / 100" in json.dumps(results_json(document, "after_published", 1.0), ensure_ascii=False)


def test_nbgrader_export_is_rewritten_with_two_decimals(tmp_path):
    """nbgrader's CSV plugin writes its float sums as they come; the course's export plugin rounds them."""
    path = tmp_path / "grades.csv"
    path.write_text("assignment,duedate,timestamp,student_id,last_name,first_name,email,raw_score,"
                    "late_submission_penalty,score,max_score\n"
                    "01_attention,,2026-01-01 10:00:00,kim,,,,38.330000000000005,0.0,38.330000000000005,100.0\n",
                    encoding="utf-8")
    round_scores(path)
    (row,) = list(csv.DictReader(path.open(encoding="utf-8")))
    assert (row["raw_score"], row["score"], row["max_score"], row["student_id"]) == ("38.33", "38.33", "100", "kim")


def test_course_config_uses_the_rounding_export():
    from tests.conftest import ROOT

    assert "grader.grading.export.TwoDecimalCsvExport" in (ROOT / "nbgrader_config.py").read_text(encoding="utf-8")

