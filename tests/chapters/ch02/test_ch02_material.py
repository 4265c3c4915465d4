"""Chapter 02 student material: chapter 01 ships solved, the code change is shown, the commands work.

The `.py` track (exercises/02_masking/), the nbgrader notebooks (grader/nbgrader_source/, release/) and the
`python -m grader check` / `build --check` commands, as a student or an instructor would use them.
"""
import json
import os
import re

import pytest

from grader import chapters, paths
from grader.publish import codechange, regions
from grader.checks import ch02_judge
from tests.checks.support import copy_folder
from tests.conftest import PYTHON, ROOT, run, run_together

pytestmark = pytest.mark.checks

CHAPTER = "02_masking"
EXERCISE = paths.EXERCISES / CHAPTER
SOLUTION = paths.SOLUTIONS / CHAPTER / "transformer.py"
CHAPTER_01 = paths.SOLUTIONS / "01_attention" / "transformer.py"
SOURCE_NOTEBOOK = paths.NBGRADER_SOURCE / CHAPTER / f"{CHAPTER}.ipynb"
RELEASE_NOTEBOOK = paths.RELEASE / CHAPTER / f"{CHAPTER}.ipynb"


def _student_env():
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env["PYTHONWARNINGS"] = "ignore"
    return env


def _exercise_copy(tmp_path, module_source=None):
    folder = copy_folder(EXERCISE, tmp_path / CHAPTER)
    if module_source is not None:
        (folder / "transformer.py").write_text(module_source, encoding="utf-8")
    return folder


def _chapter_01_code_lines():
    """The code lines of chapter 01's finished attention body (comments and the old signature left out)."""
    finished = regions.drop_markers(CHAPTER_01.read_text(encoding="utf-8"))
    return [line for line in finished.splitlines()
            if line.strip() and not line.lstrip().startswith(("#", "def attention"))]


def _notebook_text(path):
    notebook = json.loads(path.read_text(encoding="utf-8"))
    return notebook, ["".join(cell["source"]) for cell in notebook["cells"]]


def test_stub_ships_chapter_01_solved():
    """exercises/02_masking/transformer.py carries chapter 01's attention code (d_k, scores, softmax,
    return) as plain code; NotImplementedError only stands where a TODO(02) asks for new code."""
    stub = (EXERCISE / "transformer.py").read_text(encoding="utf-8")
    lines = stub.splitlines()
    for line in _chapter_01_code_lines():
        assert line in lines, f"chapter 01 line missing from the chapter 02 stub: {line!r}"
    assert "    d_k = query.size(-1)" in lines
    assert "    scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(d_k)" in lines
    assert "def attention(query, key, value, mask=None, dropout=None):" in stub
    assert "def subsequent_mask(size):" in stub
    for number, line in enumerate(lines):
        if "raise NotImplementedError" in line:
            above = [text.strip() for text in lines[max(0, number - 4):number] if text.strip().startswith("#")]
            assert any("TODO(02)" in text for text in above), f"stub line {number + 1} has no TODO(02) above it"
    assert "TODO(01)" not in stub  # chapter 01 is done here
    solution_lines = {line.strip() for line in regions.region_lines(SOLUTION.read_text(encoding="utf-8"), "solution")}
    assert not solution_lines & {line.strip() for line in lines}  # no chapter 02 solution line


def test_solution_keeps_the_chapter_01_lines_outside_solution_regions():
    """In solutions/02_masking/transformer.py the chapter-01 lines are plain code, never inside a solution region."""
    text = SOLUTION.read_text(encoding="utf-8")
    inside = {line.strip() for line in regions.region_lines(text, "solution")}
    for line in _chapter_01_code_lines():
        assert line.strip() not in inside, line


def test_readme_shows_the_code_change_against_chapter_01():
    """The chapter's README has the diff from chapter 01 to the chapter-02 stub: the new signature, the TODOs and
    the stub lines where the student writes, but none of the mask, dropout or subsequent_mask solution lines."""
    readme = (EXERCISE / "README.md").read_text(encoding="utf-8")
    diff = codechange.code_change(chapters.find("02"))
    assert f"```diff\n{diff}```" in readme
    assert "--- 01_attention/transformer.py" in diff and "+++ 02_masking/transformer.py" in diff
    lines = diff.splitlines()
    for added in ("+def attention(query, key, value, mask=None, dropout=None):",
                  "+def subsequent_mask(size):",
                  f"+    {regions.CODE_STUB}"):
        assert added in lines
    assert any(line.startswith("+    # TODO(02): mask가 주어지면") for line in lines)
    assert "-def attention(query, key, value):" in lines
    for solution in regions.region_lines(SOLUTION.read_text(encoding="utf-8"), "solution"):
        assert not any(line[1:].strip() == solution.strip() for line in lines), solution


@pytest.mark.parametrize("notebook_path", [SOURCE_NOTEBOOK, RELEASE_NOTEBOOK], ids=["source", "release"])
def test_notebooks_show_the_code_change(notebook_path):
    """Both the nbgrader source and the released notebook have the code-change cell with the stub's diff."""
    notebook, texts = _notebook_text(notebook_path)
    change = [cell for cell in notebook["cells"] if cell.get("id") == "code-change"]
    assert len(change) == 1
    text = "".join(change[0]["source"])
    assert "+def subsequent_mask(size):" in text
    assert "masked_fill" not in text and "torch.triu" not in text.replace("torch.triu와", "")


def test_release_notebook_has_chapter_01_solved_and_100_points():
    """The released notebook's answer cell has chapter 01's code and the stub for chapter 02; no solution or
    hidden-test marker survives; the graded cells add up to 100 points."""
    notebook, texts = _notebook_text(RELEASE_NOTEBOOK)
    whole = "\n".join(texts)
    assert "BEGIN SOLUTION" not in whole and "BEGIN HIDDEN TESTS" not in whole
    (answer,) = [c for c in notebook["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == "answer"]
    answer_lines = "".join(answer["source"]).splitlines()
    for line in _chapter_01_code_lines():
        assert line in answer_lines, line
    assert any(regions.CODE_STUB in line for line in answer_lines)
    graded = [c["metadata"]["nbgrader"] for c in notebook["cells"] if c["metadata"].get("nbgrader", {}).get("grade")]
    assert sum(meta["points"] for meta in graded) == 100
    assert {meta["grade_id"] for meta in graded} == {check.name for check in ch02_judge.CHECKS}


def test_grader_check_passes_the_solution():
    """`python -m grader check 02 solutions/02_masking/transformer.py` exits 0 with every visible check passed."""
    done = run([PYTHON, "-m", "grader", "check", "02", str(SOLUTION)])
    assert done.returncode == 0, done.stdout + done.stderr
    assert "실패" not in done.stdout
    assert re.search(r"합계\s+75/75", done.stdout)


def test_grader_check_fails_the_stub():
    """`python -m grader check 02` on the handed-out stub exits non-zero and explains the TODO in Korean."""
    done = run([PYTHON, "-m", "grader", "check", "02"])
    assert done.returncode != 0
    assert ch02_judge.BUGS["stub"] in done.stdout
    assert "Traceback" not in done.stdout + done.stderr


def test_grader_check_json_for_both_chapters():
    """`--json` works for chapter 02 next to chapter 01 (two chapters in one checks package)."""
    done, first = run_together([PYTHON, "-m", "grader", "check", "02", str(SOLUTION), "--json", "--hidden"],
                               [PYTHON, "-m", "grader", "check", "01", str(CHAPTER_01), "--json"])
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["score"] == 100 and document["max_score"] == 100
    assert first.returncode == 0, first.stderr


def test_visible_tests_in_the_exercise_folder(tmp_path):
    """In a copy of exercises/02_masking, `pytest test_visible.py` passes with the solution and fails with the stub."""
    visible = sum(1 for check in ch02_judge.CHECKS if check.visible)
    solved = _exercise_copy(tmp_path / "solved", SOLUTION.read_text(encoding="utf-8"))
    stub = _exercise_copy(tmp_path / "stub")
    command = [PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_visible.py"]
    done, failed = run_together((command, {"cwd": solved, "env": _student_env()}),
                                (command, {"cwd": stub, "env": _student_env()}))
    assert done.returncode == 0, done.stdout
    assert re.search(rf"\b{visible} passed\b", done.stdout)
    assert failed.returncode != 0
    assert re.search(rf"\b{visible} failed\b", failed.stdout)


def test_selfcheck_in_the_exercise_folder(tmp_path):
    """`python -m selfcheck` in the student folder knows chapter 02 alone and passes the solution."""
    folder = _exercise_copy(tmp_path, SOLUTION.read_text(encoding="utf-8"))
    done = run([PYTHON, "-m", "selfcheck"], cwd=folder, env=_student_env())
    assert done.returncode == 0, done.stdout + done.stderr
    assert not (folder / "selfcheck" / "ch01_judge.py").exists()


def test_demo_shows_what_the_chapter_text_promises():
    """The solution's demo prints the triangle, exact zeros, uniform vs NaN rows and the eval no-op."""
    done, again = run_together(*[([PYTHON, "demo.py"], {"cwd": paths.SOLUTIONS / CHAPTER})] * 2)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "torch.bool" in out and "(1, 4, 4)" in out
    assert "가려진 자리에 나온 값: [0.0]" in out
    assert "['0.3333', '0.3333', '0.3333']" in out and "['nan', 'nan', 'nan']" in out
    assert "eval 모드 결과 == dropout 없는 결과: True" in out
    assert "(2, 1, 5)" in out and "(1, 5, 5)" in out
    sums = re.search(r"train 모드 행마다 합: \[(.*)\]", out).group(1)
    assert any(abs(float(v.strip(" '")) - 1.0) > 0.01 for v in sums.split(","))
    assert again.stdout == out  # seeded: the same every time


def test_demo_with_stub_explains_in_korean(tmp_path):
    """With the stub, the student folder's demo prints one short Korean line and no traceback."""
    done = run([PYTHON, "demo.py"], cwd=_exercise_copy(tmp_path), env=_student_env())
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert "아직 작성하지 않은 함수" in done.stderr


def test_readme_adding_a_chapter_names_the_files_chapter_02_has():
    """README's "Adding a chapter" table lists the files an author writes; each pattern, spelled for chapter 02, finds
    chapter 02's files, and they lie in the chapter's three folders only."""
    section = (ROOT / "README.md").read_text(encoding="utf-8").split("### Adding a chapter", 1)[1].split("\n### ", 1)[0]
    patterns = re.findall(r"^\| `([^`]+)`", section, flags=re.M)
    assert len(patterns) >= 7, patterns
    for pattern in patterns:
        spelled = pattern.replace("NN_name", "02_masking").replace("chNN", "ch02")
        found = sorted(ROOT.glob(spelled))
        assert found, f"README names {pattern}, but {spelled} finds nothing"
        assert spelled.startswith(("solutions/02_masking/", "grader/chapters/02_masking/", "tests/chapters/ch02/"))
