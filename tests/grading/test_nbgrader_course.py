"""End to end in a real nbgrader course: LMS zip → zip_collect → our grade → gradebook → export; autograde agrees."""
import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.chapters.ch01.table import EXPECTED
from tests.checks.test_notebook_as_run import CH01_ANSWER, CH01_HELPER, student_notebook
from tests.conftest import expected_sandbox

from .helpers import CHAPTER, ROOT, fixture_path, grade, lms_name, solution_source, write_notebook, write_zip

pytestmark = [pytest.mark.grading, pytest.mark.slow]

# Honest submissions whose checks are all-or-nothing, so nbgrader's per-cell grading can agree with ours.
STUDENTS = {
    "alice": None,  # the solution
    "bob": "no_scale",
    "carol": "unimplemented",
    "dave": "warns_correct",  # right, but torch warns on stderr in every cell
    "erin": "log_softmax",
    "frank": "helper_cell",  # a helper function in a cell of its own, `!ls` and `%matplotlib` (a notebook as run)
}


def nbgrader(args, cwd):
    """Run the venv's nbgrader in the course `cwd`; only the course itself provides `grader` (no PYTHONPATH)."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env.pop("PYTHONPATH", None)
    done = subprocess.run([str(Path(sys.executable).with_name("nbgrader")), *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"nbgrader {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
    return done


def new_course(folder):
    """A fresh nbgrader course laid out like this repository: the committed nbgrader_config.py and the `grader`
    package (its source/01_attention is nbgrader's source folder; hidden test cells import grader.checks)."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "nbgrader_config.py", folder / "nbgrader_config.py")
    shutil.copytree(ROOT / "grader", folder / "grader", ignore=shutil.ignore_patterns("__pycache__"))
    return folder


def grade_in(course, args):
    """`python -m grader grade …` run in the course, with the course's own grader package (in the expected sandbox)."""
    done = grade(args, cwd=course, repo_on_path=False)
    assert done.returncode == 0, done.stderr
    out = course / args[args.index("--out") + 1]
    assert {json.loads(path.read_text(encoding="utf-8"))["sandbox"] for path in (out / "results").glob("*.json")} \
        == {expected_sandbox()}
    return done


def answer(student):
    fixture = STUDENTS[student]
    return solution_source() if fixture is None else fixture_path(fixture).read_text(encoding="utf-8")


def exported(course):
    """{student id: score} from `nbgrader export` (its CSV plugin)."""
    nbgrader(["export", "--to", "export.csv"], course)
    with open(course / "export.csv", encoding="utf-8") as handle:
        return {row["student_id"]: float(row["score"]) for row in csv.DictReader(handle)
                if row["assignment"] == CHAPTER}


def ours(out):
    """{student id: score} from our grades.csv (after checking that every submission ran in the expected sandbox)."""
    sandboxes = {json.loads(path.read_text(encoding="utf-8"))["sandbox"] for path in (Path(out) / "results").glob("*.json")}
    assert sandboxes == {expected_sandbox()}
    with open(Path(out) / "grades.csv", encoding="utf-8") as handle:
        return {row["student_id"]: float(row["score"]) for row in csv.DictReader(handle)}


@pytest.fixture(scope="module")
def collected_course(tmp_path_factory):
    """A course after generate_assignment, with an LMS zip of five notebooks collected by zip_collect."""
    course = new_course(tmp_path_factory.mktemp("course") / "course")
    nbgrader(["generate_assignment", CHAPTER, "--force"], course)
    release = course / "release" / CHAPTER / f"{CHAPTER}.ipynb"
    staging = tmp_path_factory.mktemp("lms")
    members = {}
    for student in STUDENTS:
        if STUDENTS[student] == "helper_cell":
            path = student_notebook(staging / lms_name(student), CHAPTER, CH01_ANSWER, CH01_HELPER)
        else:
            path = write_notebook(staging / lms_name(student), answer(student), release=release)
        members[path.name] = path.read_bytes()
    archive = course / "downloaded" / CHAPTER / "archive"
    archive.mkdir(parents=True)
    write_zip(archive / "class.zip", members)
    nbgrader(["zip_collect", CHAPTER, "--force"], course)
    for student in STUDENTS:
        assert (course / "submitted" / student / CHAPTER / f"{CHAPTER}.ipynb").is_file()
    return course


@pytest.fixture(scope="module")
def graded_course(collected_course):
    """`python -m grader grade 01 submitted/ --gradebook gradebook.db` run in the course."""
    grade_in(collected_course, ["01", "submitted", "--gradebook", "gradebook.db", "--out", "graded"])
    return collected_course


def test_export_shows_our_scores_per_student(graded_course):
    """After `grade --gradebook`, `nbgrader export` lists each student with exactly the score we computed."""
    scores = ours(graded_course / "graded")
    assert scores == {"alice": 100, "bob": EXPECTED["no_scale"].score, "carol": 0, "dave": 100, "erin": EXPECTED["log_softmax"].score, "frank": 100}
    assert exported(graded_course) == scores


def test_zip_given_directly_grades_the_same(graded_course, tmp_path):
    """Grading the LMS zip itself gives the same scores as grading what zip_collect put in submitted/."""
    zip_path = graded_course / "downloaded" / CHAPTER / "archive" / "class.zip"
    done = grade(["01", zip_path, "--out", tmp_path / "out"], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert ours(tmp_path / "out") == ours(graded_course / "graded")


def test_nbgrader_autograde_agrees_for_honest_submissions(graded_course):
    """`nbgrader autograde` with the committed config gives the same totals (torch warnings do not zero cells)."""
    scores = ours(graded_course / "graded")
    nbgrader(["autograde", CHAPTER, "--force"], graded_course)
    assert exported(graded_course) == scores


def test_gradebook_without_assignment_is_created_from_the_source(tmp_path):
    """With no generate_assignment run, --gradebook creates the assignment from the source notebook. A later run
    without the flag leaves the gradebook alone; with `c.GraderGrade.gradebook` in nbgrader_config.py it updates
    the scores and says which setting asked for it."""
    course = new_course(tmp_path / "course")
    release = ROOT / "release" / CHAPTER / f"{CHAPTER}.ipynb"
    for student, fixture in (("kim", None), ("park", "no_scale")):
        source = solution_source() if fixture is None else fixture_path(fixture).read_text(encoding="utf-8")
        write_notebook(course / "submitted" / student / CHAPTER / f"{CHAPTER}.ipynb", source, release=release)
    done = grade_in(course, ["01", "submitted", "--gradebook", "gradebook.db", "--out", "graded"])
    assert "만들었습니다" in done.stderr
    assert exported(course) == {"kim": 100, "park": EXPECTED["no_scale"].score}
    write_notebook(course / "submitted" / "park" / CHAPTER / f"{CHAPTER}.ipynb", solution_source(), release=release)
    done = grade_in(course, ["01", "submitted/park", "--out", "graded"])  # no flag, no setting: not written
    assert exported(course) == {"kim": 100, "park": EXPECTED["no_scale"].score}
    assert "gradebook" not in done.stderr
    with open(course / "nbgrader_config.py", "a", encoding="utf-8") as config:
        config.write('\nc.GraderGrade.gradebook = "gradebook.db"\n')
    done = grade_in(course, ["01", "submitted/park", "--out", "graded"])
    assert exported(course) == {"kim": 100, "park": 100}
    assert "c.GraderGrade.gradebook" in done.stderr and str(course / "gradebook.db") in done.stderr
