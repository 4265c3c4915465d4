"""`python -m grader grade`: real sandbox, real judge; outputs, bad inputs, sandbox statuses, determinism."""
import csv
import json
import os

import pytest

from grader.checks import ch01_judge, references
from grader.checks.compare import decode
from grader.grading.collect import Inputs
from grader.grading.course import Course
from grader.grading.judging import Judge
from grader.grading.batch import grade as grade_batch
from grader.sandbox import Limits, SandboxPool

from tests.chapters.ch01.table import EXPECTED
from tests.conftest import expected_sandbox

from .helpers import (CHAPTER, SUBMISSIONS, fixture_path, grade, results, solution_source, without_timing,
                      write_notebook)

pytestmark = [pytest.mark.grading, pytest.mark.slow]

RESULT_KEYS = {"score", "max_score", "tests", "submission", "student_id", "status", "sandbox", "seconds", "picture"}


@pytest.fixture(scope="module")
def mixed_class(tmp_path_factory):
    """A folder of submissions: the solution, wrong answers, a notebook, broken files, one that exits early."""
    folder = tmp_path_factory.mktemp("class")
    (folder / "solution.py").write_text(solution_source(), encoding="utf-8")
    for name in ("no_scale", "log_softmax", "unimplemented", "warns_correct", "exits_at_import"):
        (folder / f"{name}.py").write_bytes(fixture_path(name).read_bytes())
    write_notebook(folder / "notebook_half_dk.ipynb", fixture_path("half_dk").read_text(encoding="utf-8"))
    for name in ("corrupt.ipynb", "euc_kr.py", "empty.py"):
        (folder / name).write_bytes((SUBMISSIONS / name).read_bytes())
    return folder


@pytest.fixture(scope="module")
def graded(mixed_class, tmp_path_factory):
    """`grade 01 <folder> --json --jobs 2` on the mixed class: (CompletedProcess, output folder)."""
    out = tmp_path_factory.mktemp("graded")
    done = grade(["01", mixed_class, "--json", "--jobs", "2", "--out", out])
    assert done.returncode == 0, done.stderr
    assert {d["sandbox"] for d in results(out).values() if d["status"] != "unreadable"} == {expected_sandbox()}
    return done, out


def test_json_on_stdout_is_every_result_sorted(graded):
    """--json prints one results object per submission, sorted by id, equal to the files in results/."""
    done, out = graded
    printed = json.loads(done.stdout)
    ids = [item["submission"] for item in printed]
    assert ids == sorted(ids) and len(ids) == 10
    assert printed == list(results(out).values())
    for item in printed:
        assert RESULT_KEYS <= set(item)
        assert item["score"] == pytest.approx(sum(test["score"] for test in item["tests"]))
    assert "[10/10]" in done.stderr  # plain progress lines when stderr is not a terminal


def test_scores_statuses_and_messages(graded):
    """Right answers get 100 (a torch warning does not matter); bad files 0 with a Korean reason; exit → no_result."""
    _, out = graded
    found = results(out)
    assert found["solution"]["score"] == 100 and found["solution"]["status"] == "ok"
    assert found["warns_correct"]["score"] == 100
    assert found["no_scale"]["score"] == EXPECTED["no_scale"].score and found["unimplemented"]["score"] == 0
    assert found["log_softmax"]["score"] == EXPECTED["log_softmax"].score
    assert found["notebook_half_dk"]["score"] == pytest.approx(64.33, abs=1e-9)  # 10/3 on scaling_statistics, as 3.33
    for name, words in (("corrupt", "중간에서 잘려"), ("euc_kr", "UTF-8"), ("empty", "비어")):
        document = found[name]
        assert (document["status"], document["score"], document["sandbox"]) == ("unreadable", 0, None)
        assert words in document["output"] and all(words in test["output"] for test in document["tests"])
    early = found["exits_at_import"]
    assert early["status"] == "no_result" and early["score"] == 0 and "결과 없이 종료" in early["output"]


def test_every_submission_that_ran_ran_in_bubblewrap(graded):
    """Where bubblewrap is installed every run says "bubblewrap" (a silent fall-back fails here), with no warning;
    the unreadable files never ran (sandbox null)."""
    done, out = graded
    found = results(out)
    ran = {name: document["sandbox"] for name, document in found.items() if document["status"] != "unreadable"}
    assert len(ran) == 7 and set(ran.values()) == {expected_sandbox()}, ran
    if expected_sandbox() == "bubblewrap":
        assert "WARNING" not in done.stderr


def test_without_bubblewrap_grading_is_contained(tmp_path):
    """With no bwrap on PATH the same submissions are graded in root's namespaces under another uid (or, not as
    root, refused; see test_contained.py): every result says "contained" and the scores are unchanged."""
    (tmp_path / "solution.py").write_text(solution_source(), encoding="utf-8")
    (tmp_path / "no_scale.py").write_bytes(fixture_path("no_scale").read_bytes())
    done = grade(["01", tmp_path / "solution.py", tmp_path / "no_scale.py", "--out", tmp_path / "out", "--no-feedback"],
                 path_without_bwrap=True)
    if os.geteuid() != 0:
        assert done.returncode == 1 and "--trusted" in done.stderr
        return
    assert done.returncode == 0, done.stderr
    found = results(tmp_path / "out")
    assert {name: (d["sandbox"], d["score"]) for name, d in found.items()} == {
        "solution": ("contained", 100), "no_scale": ("contained", EXPECTED["no_scale"].score)}
    assert "WARNING" not in done.stderr


def test_picture_is_the_students_seed_weights(graded):
    """`picture` holds the student's p_attn on the seed case (first batch element); null when there is none."""
    _, out = graded
    found = results(out)
    expected = decode(references.load(CHAPTER)["cases"]["seed"]["result"]["items"][1])[0]
    picture = found["solution"]["picture"]
    assert (picture["case"], picture["label"]) == ("seed", "p_attn")
    assert len(picture["student"]) == expected.shape[0]
    assert all(abs(a - b) < 1e-6 for row, ref in zip(picture["student"], expected.tolist()) for a, b in zip(row, ref))
    assert found["unimplemented"]["picture"]["student"] is None
    assert found["corrupt"]["picture"] == {"case": "seed", "label": "p_attn", "student": None}


def test_grades_csv_has_one_column_per_check(graded):
    """grades.csv: submission, student_id, score, max_score, status, then every check, rows sorted by id."""
    _, out = graded
    with open(out / "grades.csv", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    checks = [check.name for check in ch01_judge.CHECKS]
    assert list(rows[0]) == ["submission", "student_id", "score", "max_score", "status", *checks]
    assert [row["submission"] for row in rows] == sorted(row["submission"] for row in rows)
    solution = next(row for row in rows if row["submission"] == "solution")
    assert solution["score"] == "100" and all(solution[name] == f"{c.points:g}" for name, c in
                                              zip(checks, ch01_judge.CHECKS))


def test_jobs_1_and_2_and_repeated_runs_agree(mixed_class, graded, tmp_path):
    """--jobs 1, and a second --jobs 2 run, give the same results (wall time aside) and the same grades.csv."""
    _, first = graded
    for jobs, out in (("1", tmp_path / "one"), ("2", tmp_path / "again")):
        done = grade(["01", mixed_class, "--jobs", jobs, "--out", out])
        assert done.returncode == 0, done.stderr
        assert {k: without_timing(v) for k, v in results(out).items()} == \
               {k: without_timing(v) for k, v in results(first).items()}
        assert (out / "grades.csv").read_bytes() == (first / "grades.csv").read_bytes()


def test_timeout_becomes_a_korean_failure(tmp_path):
    """A submission that never finishes ends as "timeout" and scores 0 with 시간 초과 in every message."""
    endless = tmp_path / "endless.py"
    endless.write_text("while True:\n    pass\n")
    (tmp_path / "fine.py").write_text(solution_source())
    limits = Limits(wall_seconds=3, cpu_seconds=3)
    with Inputs([str(endless), str(tmp_path / "fine.py")], CHAPTER, Course()) as inputs, \
            SandboxPool(probe_module="grader.checks.ch01_probe", jobs=2, limits=limits) as pool:
        judge = Judge(ch01_judge, limits)
        graded = list(grade_batch(inputs.submissions, pool, judge))
    found = {s.submission_id: v for s, v, _ in graded}
    assert {run.sandbox for _, _, run in graded} == {expected_sandbox()}
    assert found["endless"].status == "timeout"
    assert all(r.score == 0 and "시간 초과" in r.message for r in found["endless"].results)
    assert found["fine"].status == "ok" and all(r.passed for r in found["fine"].results)


def test_usage_errors(tmp_path):
    """An unknown chapter or nothing to grade exits 2 with a Korean message, writing no results."""
    done = grade(["99", tmp_path, "--out", tmp_path / "out"])
    assert done.returncode == 2 and "알 수 없는 장" in done.stderr
    done = grade(["01", tmp_path / "missing.py", "--out", tmp_path / "out"])
    assert done.returncode == 2 and "경로가 없습니다" in done.stderr
