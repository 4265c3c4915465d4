"""The gradebook holds exactly what grades.csv holds: each student's best submission, fractional scores included.

Real judge, real nbgrader: the submissions (trusted fixtures) run in this process, the rows go through the
production path (Report → grades.csv; GradebookProcess → nbgrader.api), and nbgrader's own API reads them back.
"""
import csv
import os
import sys
from pathlib import Path

import pytest

from grader.checks import ch01_judge, ch01_probe
from grader.checks.execute import execute
from grader.grading.collect import Submission
from grader.grading.gradebook_process import GradebookProcess
from grader.grading.judging import Judge, Verdicts
from grader.grading.outputs import Report
from grader.sandbox import Limits, status

from .helpers import CHAPTER, fixture_path, solution_source

pytestmark = pytest.mark.grading

# (submission id, student, fixture or None for the solution): kim's best attempt is neither the first nor the last.
SUBMISSIONS = [
    ("kim_1", "kim", "no_scale"),
    ("kim_2", "kim", "half_dk"),
    ("kim_3", "kim", "log_softmax"),
    ("lee", "lee", "hardcoded_dk"),
    ("park", "park", "query_as_value"),
    ("yoon", "yoon", None),
]
# Exact totals from the chapter-01 judge (scaling_statistics gives 10/3 points to the two d_k mistakes).
SCORES = {"kim_1": 33, "kim_2": 64.33, "kim_3": 20, "lee": 41.33, "park": 71, "yoon": 100}
BEST = {"kim": "kim_2", "lee": "lee", "park": "park", "yoon": "yoon"}


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """Grade SUBMISSIONS in process, write grades.csv and, through the helper process, a new gradebook.db."""
    root = tmp_path_factory.mktemp("course")
    judge = Judge(ch01_judge, Limits())
    report = Report(root / "graded")
    old_path = os.environ.get("PATH", "")
    os.environ["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), old_path])  # nbgrader runs alembic
    try:
        helper = GradebookProcess(root / "gradebook.db", root)
    finally:
        os.environ["PATH"] = old_path
    with helper:
        for submission_id, student, fixture in SUBMISSIONS:
            source = solution_source() if fixture is None else fixture_path(fixture).read_text(encoding="utf-8")
            outcome = execute(source, ch01_probe, ch01_probe.case_names())
            verdicts = Verdicts(judge.judge(outcome), status.OK, judge.picture(outcome))
            report.add(Submission(submission_id, student, origin=submission_id), verdicts)
        report.write_csv()
        written = helper.finish(CHAPTER, {check.name: check.points for check in ch01_judge.CHECKS}, report.rows)
    assert written == len(BEST)
    return root


def csv_rows(root):
    with open(root / "graded" / "grades.csv", encoding="utf-8") as handle:
        return {row["submission"]: row for row in csv.DictReader(handle)}


def gradebook_scores(root):
    """{student: (total, {cell name: score})} read back with nbgrader's API."""
    from nbgrader.api import Gradebook

    scores = {}
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}", "annotated-transformer-ko") as gradebook:
        for student in gradebook.students:
            submission = gradebook.find_submission(CHAPTER, student.id)
            notebook = submission.notebooks[0]
            scores[student.id] = (submission.score, {grade.name: grade.score for grade in notebook.grades})
    return scores


def test_grades_csv_has_the_exact_fractional_scores(course):
    """grades.csv holds each submission's total to two decimals; the d_k mistakes score 10/3 (3.33) on a check."""
    rows = csv_rows(course)
    assert {name: float(row["score"]) for name, row in rows.items()} == SCORES
    assert rows["kim_2"]["scaling_statistics"] == rows["lee"]["scaling_statistics"] == "3.33"


def test_gradebook_holds_each_students_best_submission(course):
    """nbgrader's gradebook has one submission per student, with the total of that student's best row of grades.csv
    (kim's second of three attempts), to two decimals."""
    rows = csv_rows(course)
    scores = gradebook_scores(course)
    assert set(scores) == set(BEST)
    for student, submission_id in BEST.items():
        assert round(scores[student][0], 2) == round(float(rows[submission_id]["score"]), 2), student


def test_gradebook_cells_hold_the_check_scores_of_grades_csv(course):
    """Every grade cell named like a check holds that check's score from grades.csv (fractions kept), to two decimals."""
    rows = csv_rows(course)
    scores = gradebook_scores(course)
    checks = [check.name for check in ch01_judge.CHECKS]
    for student, submission_id in BEST.items():
        cells = scores[student][1]
        assert set(checks) <= set(cells)
        for name in checks:
            assert round(cells[name], 2) == round(float(rows[submission_id][name]), 2), (student, name)
    assert round(scores["kim"][1]["scaling_statistics"], 2) == 3.33
