"""Feedback pages land where nbgrader 0.9.6's release_feedback / fetch_feedback find them."""
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from grader import paths
from grader.report import nbgrader_feedback, preview, write_all

pytestmark = pytest.mark.report
COURSE_ID = "annotated-transformer-ko"
ASSIGNMENT = "01_attention"
SECRET = "f00d" * 32
TIMESTAMP = "2026-03-09 10:00:00.000000 UTC"


def _submitted_course(root, with_secret=True):
    """A course whose student `minji` submitted the release notebook through the exchange (secret + timestamp)."""
    submitted = root / "submitted" / "minji" / ASSIGNMENT
    submitted.mkdir(parents=True)
    (submitted / f"{ASSIGNMENT}.ipynb").write_bytes((paths.RELEASE / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_bytes())
    (submitted / "timestamp.txt").write_text(TIMESTAMP)
    if with_secret:
        (submitted / "submission_secret.txt").write_text(SECRET)
    return root


def _graded(folder):
    preview.write(folder, ASSIGNMENT, {"minji": paths.SOLUTIONS / ASSIGNMENT / "transformer.py"})
    return folder


def test_pages_are_placed_like_generate_feedback(tmp_path):
    """<course>/feedback/<student>/<assignment>/<notebook>.html plus timestamp.txt and submission_secret.txt."""
    course = _submitted_course(tmp_path / "course")
    answer = write_all(_graded(tmp_path / "out"), "01", course_root=course)
    target = course / "feedback" / "minji" / ASSIGNMENT
    assert sorted(p.name for p in target.iterdir()) == [f"{ASSIGNMENT}.html", "submission_secret.txt", "timestamp.txt"]
    assert (target / f"{ASSIGNMENT}.html").read_bytes() == (tmp_path / "out" / "feedback" / "minji" / "feedback.html").read_bytes()
    assert (target / "submission_secret.txt").read_text() == SECRET
    assert nbgrader_feedback.ready_for_release(course, ASSIGNMENT, "minji")
    assert len(answer["nbgrader"]) == 3


def test_zip_collected_submission_is_placed_but_not_releasable(tmp_path):
    """Without an exchange secret (LMS / zip_collect) the page is placed, and reported as not releasable by nbgrader."""
    course = _submitted_course(tmp_path / "course", with_secret=False)
    write_all(_graded(tmp_path / "out"), "01", course_root=course)
    assert (course / "feedback" / "minji" / ASSIGNMENT / f"{ASSIGNMENT}.html").is_file()
    assert not nbgrader_feedback.ready_for_release(course, ASSIGNMENT, "minji")


def test_students_not_in_the_course_are_skipped(tmp_path):
    """A graded student with no submitted/ folder in the course gets no nbgrader copy (only DIR/feedback/)."""
    course = tmp_path / "course"
    course.mkdir()
    answer = write_all(_graded(tmp_path / "out"), "01", course_root=course)
    assert answer["nbgrader"] == [] and not (course / "feedback").exists()


def _nbgrader(args, cwd):
    env = dict(os.environ, PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
    done = subprocess.run([str(Path(sys.executable).with_name("nbgrader"))] + args, cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


@pytest.mark.slow
def test_release_feedback_and_fetch_feedback_deliver_the_page(tmp_path):
    """Real `nbgrader release_feedback` publishes the page under md5(secret + notebook id), and real
    `nbgrader fetch_feedback` brings it to the student's `01_attention/feedback/<timestamp>/01_attention.html`."""
    course = _submitted_course(tmp_path / "course")
    (course / "nbgrader_config.py").write_text(f"c = get_config()\nc.CourseDirectory.course_id = {COURSE_ID!r}\n")
    exchange, cache, home = tmp_path / "exchange", tmp_path / "cache", tmp_path / "student"
    exchange.mkdir()
    home.mkdir()
    write_all(_graded(tmp_path / "out"), "01", course_root=course)
    options = [f"--Exchange.root={exchange}", f"--Exchange.cache={cache}", f"--CourseDirectory.course_id={COURSE_ID}"]

    _nbgrader(["release_feedback", ASSIGNMENT] + options, course)
    released = exchange / COURSE_ID / "feedback" / (hashlib.md5((SECRET + ASSIGNMENT).encode()).hexdigest() + ".html")
    page = (tmp_path / "out" / "feedback" / "minji" / "feedback.html").read_bytes()
    assert released.read_bytes() == page

    # what `nbgrader submit` leaves in the student's cache
    submission = cache / COURSE_ID / f"minji+{ASSIGNMENT}+{TIMESTAMP}"
    submission.mkdir(parents=True)
    (submission / f"{ASSIGNMENT}.ipynb").write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    (submission / "submission_secret.txt").write_text(SECRET)
    _nbgrader(["fetch_feedback", ASSIGNMENT, "--student=minji"] + options, home)
    assert (home / ASSIGNMENT / "feedback" / TIMESTAMP / f"{ASSIGNMENT}.html").read_bytes() == page


def test_place_all_copies_existing_pages(tmp_path):
    """`place_all` puts pages written earlier (e.g. by the grade command) into the course without redrawing them."""
    course = _submitted_course(tmp_path / "course")
    write_all(_graded(tmp_path / "out"), "01")
    assert not (course / "feedback").exists()
    from grader.report.run import place_all

    placed = place_all(tmp_path / "out", "01", course)
    assert (course / "feedback" / "minji" / ASSIGNMENT / f"{ASSIGNMENT}.html") in placed
