"""`python -m grader grade` on notebooks as students write them: helper cells count, magics are skipped with a
note in results.json and on the feedback page, one crash reads the same on every check, and no gradebook is
touched unless asked (issue 10)."""
import json
import sqlite3

import pytest

from grader.report import diagnoses
from grader.report.result_files import Result
from tests.checks.test_notebook_as_run import CH01_ANSWER, CH01_HELPER, student_notebook

from .helpers import grade, results

pytestmark = [pytest.mark.grading, pytest.mark.slow]


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """A helper-cell notebook with magics, the same with a typo, and a .py stub, graded in the sandbox in a folder
    that holds a gradebook.db nobody asked to write."""
    folder = tmp_path_factory.mktemp("course")
    sqlite3.connect(folder / "gradebook.db").close()
    before = (folder / "gradebook.db").read_bytes()
    submissions = folder / "in"
    submissions.mkdir()
    student_notebook(submissions / "helper.ipynb", "01_attention", CH01_ANSWER, CH01_HELPER)
    student_notebook(submissions / "typo.ipynb", "01_attention", CH01_ANSWER.replace("p_attn, value)", "p_attn, valeu)"),
                     CH01_HELPER)
    done = grade(["01", "in", "--out", "graded"], cwd=folder)
    assert done.returncode == 0, done.stderr
    return done, folder, before


def test_helper_cell_and_magics_score_100_with_notes(graded):
    """The helper-cell notebook scores 100; the skipped `!ls` and `%matplotlib` are noted in results.json (`notes`,
    Gradescope's `output`) and on the feedback page, which tells a notebook student how to re-check."""
    _, folder, _ = graded
    document = results(folder / "graded")["helper"]
    assert document["score"] == 100 and document["status"] == "ok" and document["track"] == "notebook"
    assert len(document["notes"]) == 2 and "`!ls`" in document["notes"][0]
    assert "`!ls`" in document["output"]
    page = (folder / "graded" / "feedback" / "helper" / "feedback.md").read_text(encoding="utf-8")
    assert "`!ls`" in page and "`01_attention.ipynb`의 셀을 위에서부터 차례로 실행" in page and "모두 실행" in page
    assert "python -m selfcheck" not in page and "python demo.py" not in page  # the notebook alone: no terminal


def test_one_crash_is_one_topic(graded):
    """A typo's NameError reads the same on visible and hidden checks (with the cell and line), so the class report
    counts it as one topic."""
    _, folder, _ = graded
    result = Result(folder / "graded" / "results" / "typo.json",
                    json.loads((folder / "graded" / "results" / "typo.json").read_text(encoding="utf-8")))
    assert result.score == 0
    bugs, cases = diagnoses.vocabulary("01_attention")
    found = [topic for topic in diagnoses.topics(result, bugs, cases) if "NameError" in topic]
    assert len(found) == 1 and "코드 셀의" in found[0] and "valeu" in found[0]


def test_an_unrequested_gradebook_is_left_alone(graded):
    """Without --gradebook or c.GraderGrade.gradebook, the folder's gradebook.db is not opened for writing."""
    done, folder, before = graded
    assert (folder / "gradebook.db").read_bytes() == before
    assert "gradebook" not in done.stderr
