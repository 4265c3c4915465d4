"""`python -m grader check 01 [PATH] [--json] [--hidden]`: the self-check command students and instructors run.

Most tests call the CLI's `main` in process (same code path as `python -m grader`, whose exit status
is main's return value, without a torch start-up per test); one runs it as a real subprocess to pin
the exit status a shell or CI sees.
"""
import json
import re

import pytest

from grader import cli
from grader.checks import ch01_judge, tracks

from .chapters import ChapterUnderTest
from .support import PYTHON, ROOT, filled_notebook, finish, start

CH01 = ChapterUnderTest("01_attention")
SOLUTION, STUB, fixture_path = CH01.solution, CH01.stub, CH01.fixture

pytestmark = pytest.mark.checks

HANGUL = re.compile(r"[\uac00-\ud7a3]")
VISIBLE = [c for c in ch01_judge.CHECKS if c.visible]
GRADESCOPE_TEST_KEYS = {"name", "score", "max_score", "status", "output", "visibility"}


def check(capsys, *args):
    """Run `python -m grader check …` in process; return (exit status, stdout, stderr)."""
    status = cli.main(["check", *map(str, args)])
    out, err = capsys.readouterr()
    return status, out, err


def total_line(out):
    """The table's last line, e.g. '합계 … 70/70'."""
    return [line for line in out.splitlines() if line.startswith("합계")][-1]


def test_stub_subprocess_prints_korean_table_with_zero_and_fails():
    """`python -m grader check 01` (no path: the exercises/ stub) prints the Korean table with 0/70 and exits ≠ 0."""
    status, out, err = finish(start([PYTHON, "-m", "grader", "check", "01"], cwd=ROOT))
    assert status != 0
    assert "검사" in out and "실패" in out
    assert re.search(r"합계\s+0/70", out)
    assert ch01_judge.BUGS["stub"] in out
    assert "Traceback" not in out + err


def test_solution_full_marks_and_exit_zero(capsys):
    """On the solution file the check prints every visible check as passed, 70/70, and exits 0."""
    status, out, err = check(capsys, "01", SOLUTION)
    assert status == 0, out + err
    assert re.search(r"합계\s+70/70", out)
    assert out.count("통과") == len(VISIBLE)
    assert "실패" not in out


def test_table_lists_every_visible_check_with_its_points(capsys):
    """The table has one row per visible check (Korean title, score/points) and no hidden check."""
    status, out, _ = check(capsys, "01", STUB)
    assert status == 1
    for c in VISIBLE:
        assert re.search(re.escape(c.title) + rf"\s+0/{c.points:g}\s+실패", out), c.title
    assert not any(c.title in out for c in ch01_judge.CHECKS if not c.visible)


def test_json_has_gradescope_keys(capsys):
    """`--json` prints Gradescope's results.json: score, max_score and tests[] with the six per-test keys."""
    status, out, _ = check(capsys, "01", SOLUTION, "--json")
    document = json.loads(out)
    assert status == 0
    assert (document["score"], document["max_score"]) == (70, 70)
    assert [t["name"] for t in document["tests"]] == [c.name for c in VISIBLE]
    for test, c in zip(document["tests"], VISIBLE):
        assert GRADESCOPE_TEST_KEYS <= set(test)
        assert (test["score"], test["max_score"], test["status"], test["visibility"]) == (c.points, c.points, "passed", "visible")
        assert c.title in test["output"]


def test_json_hidden_reports_all_checks_and_failures(capsys):
    """`--json --hidden` on a wrong file: 14 tests, hidden ones 'after_published', failures carry the diagnosis."""
    status, out, _ = check(capsys, "01", fixture_path("transpose_12"), "--json", "--hidden")
    document = json.loads(out)
    assert status == 1
    assert (document["score"], document["max_score"]) == (94, 100)
    tests = {t["name"]: t for t in document["tests"]}
    assert len(tests) == len(ch01_judge.CHECKS)
    assert {t["visibility"] for n, t in tests.items() if n in {"batched_3d", "batched_4d"}} == {"after_published"}
    assert tests["batched_4d"]["status"] == "failed" and tests["batched_4d"]["score"] == 0
    assert ch01_judge.BUGS["transpose_12"] in tests["batched_4d"]["output"]


def test_filled_notebook_path_gets_full_marks(tmp_path, capsys):
    """A released notebook whose answer cell holds the solution checks like the .py file: 70/70, exit 0."""
    notebook = filled_notebook(SOLUTION.read_text(encoding="utf-8"), tmp_path / "01_attention.ipynb")
    status, out, err = check(capsys, "01", notebook)
    assert status == 0, out + err
    assert re.search(r"합계\s+70/70", total_line(out))


def test_unfilled_notebook_names_the_stub(tmp_path, capsys):
    """The released notebook as handed out (answer cell = stub) scores 0 with the not-written-yet diagnosis, in the
    notebook's words (the answer cell, not transformer.py)."""
    notebook = filled_notebook(STUB.read_text(encoding="utf-8"), tmp_path / "01_attention.ipynb")
    status, out, _ = check(capsys, "01", notebook)
    assert status == 1
    assert re.search(r"합계\s+0/70", total_line(out))
    assert tracks.worded(ch01_judge.BUGS["stub"], tracks.NOTEBOOK) in out
    assert "답안 셀의 TODO" in out


def _missing(tmp_path):
    return tmp_path / "없는파일.py"


def _empty(tmp_path):
    path = tmp_path / "empty.py"
    path.write_text("")
    return path


def _not_utf8(tmp_path):
    path = tmp_path / "euc_kr.py"
    path.write_bytes("# 한글 주석\ndef attention(q, k, v):\n    return q\n".encode("euc-kr"))
    return path


def _corrupt_notebook(tmp_path):
    path = tmp_path / "broken.ipynb"
    path.write_text('{"cells": [ {"cell_type": "code", "source": "impo', encoding="utf-8")
    return path


def _syntax_error(tmp_path):
    path = tmp_path / "syntax.py"
    path.write_text("import torch\n\ndef attention(query, key, value)\n    return query\n", encoding="utf-8")
    return path


BAD_INPUTS = {
    "missing_file": (_missing, "찾을 수 없습니다"),
    "empty_file": (_empty, "비어 있습니다"),
    "not_utf8": (_not_utf8, "UTF-8"),
    "corrupt_ipynb": (_corrupt_notebook, "중간에서 잘려"),  # cut short: the reason, not a generic "손상"
    "syntax_error": (_syntax_error, "SyntaxError"),
}


@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
def test_bad_input_gives_korean_message_zero_and_no_traceback(case, tmp_path, capsys):
    """A missing, empty, non-UTF-8, corrupt-notebook or syntax-error submission: Korean reason, 0 points, no traceback."""
    make, phrase = BAD_INPUTS[case]
    status, out, err = check(capsys, "01", make(tmp_path))
    assert status == 1
    assert re.search(r"합계\s+0/70", total_line(out))
    assert phrase in out
    reasons = [line for line in out.splitlines() if line.lstrip().startswith("└")]
    assert reasons and all(HANGUL.search(line) for line in reasons)
    assert "Traceback" not in out + err


def test_bad_input_json_is_still_valid(tmp_path, capsys):
    """`--json` on a broken submission still prints valid Gradescope JSON with score 0 and the Korean reason."""
    status, out, _ = check(capsys, "01", _empty(tmp_path), "--json")
    document = json.loads(out)
    assert status == 1 and document["score"] == 0 and document["max_score"] == 70
    assert all(t["status"] == "failed" and "비어 있습니다" in t["output"] for t in document["tests"])


def test_unknown_chapter_is_a_korean_error(capsys):
    """An unknown chapter id exits 2 with a Korean message instead of a traceback."""
    status, out, err = check(capsys, "99")
    assert status == 2
    assert "알 수 없는 장" in err
    assert "Traceback" not in out + err


def test_printing_student_still_gets_a_readable_table(capsys):
    """A submission that prints a lot (at import and in every call) still gets 70/70 and the table at the end."""
    status, out, _ = check(capsys, "01", fixture_path("ok_printing"))
    assert status == 0
    assert out.rstrip().splitlines()[-1].rstrip() == total_line(out).rstrip()
    assert re.search(r"합계\s+70/70", total_line(out))
