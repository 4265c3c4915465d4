"""Student material of every nn.Module chapter: the text quotes the demo, the stub names the contract, the
notebook is worth 100, the commands work, and `verify` says what the grader says."""
import json
import re
import shutil
import types
import warnings

import pytest

from grader import paths
from grader.checks import runner, verify
from grader.checks.loading import module_from_source
from tests.checks.module_chapters import TABLES
from tests.conftest import PYTHON, run

pytestmark = pytest.mark.checks

CHAPTERS = sorted(TABLES)


def demo_output(chapter):
    """The solution's demo output (it must run cleanly)."""
    done = run([PYTHON, "demo.py"], cwd=paths.SOLUTIONS / chapter)
    assert done.returncode == 0, done.stderr
    return done.stdout


def results_section(chapter):
    """The chapter text's "what to look for in the output" section."""
    text = (paths.SOLUTIONS / chapter / "chapter.md").read_text(encoding="utf-8")
    return text.split("## 실행 결과에서 볼 것", 1)[1].split("<!-- cell: demo -->", 1)[0]


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_chapter_text_quotes_what_the_demo_prints(chapter):
    """Every shape, every number of three or more digits and every `True`/`False` in the text's "what to look
    for" section is in the demo's output; the demo prints the same every time."""
    out = demo_output(chapter)
    section = results_section(chapter)
    shapes = set(re.findall(r"\(\d+(?:, \d+)+\)", section)) - set(TABLES[chapter].text_arguments)
    assert shapes
    for shape in shapes:
        assert shape in out, shape
    for number in set(re.findall(r"(?<![\d.])\d{3,}(?![\d.])", section)):
        assert number in out, number
    for word in set(re.findall(r"`(True|False|\[\d+\]|\d+\.\d+)`", section)):
        assert word in out, word
    assert demo_output(chapter) == out


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_stub_names_the_contract_and_marks_every_todo(chapter):
    """The stub has a TODO(NN) above every NotImplementedError and names the attributes of the contract."""
    stub = (paths.EXERCISES / chapter / "transformer.py").read_text(encoding="utf-8")
    lines = stub.splitlines()
    todo = f"TODO({chapter[:2]})"
    for number, line in enumerate(lines):
        if "raise NotImplementedError" in line:
            above = [text.strip() for text in lines[max(0, number - 8):number] if text.strip().startswith("#")]
            assert any(todo in text for text in above), f"stub line {number + 1} has no {todo} above it"
    for name in TABLES[chapter].contract:
        assert name in stub, name
    previous = int(chapter[:2]) - 1
    assert f"TODO({previous:02d})" not in stub  # earlier chapters ship solved


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_release_notebook_has_100_points_and_no_solution(chapter):
    """The released notebook's graded cells are the chapter's checks, worth 100; no marker survives."""
    notebook = json.loads((paths.RELEASE / chapter / f"{chapter}.ipynb").read_text(encoding="utf-8"))
    whole = "\n".join("".join(cell["source"]) for cell in notebook["cells"])
    assert "BEGIN SOLUTION" not in whole and "BEGIN HIDDEN TESTS" not in whole
    graded = [c["metadata"]["nbgrader"] for c in notebook["cells"] if c["metadata"].get("nbgrader", {}).get("grade")]
    assert sum(meta["points"] for meta in graded) == 100
    assert {meta["grade_id"] for meta in graded} == TABLES[chapter].checks


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_grader_check_passes_the_solution_and_explains_the_stub(chapter):
    """`python -m grader check NN` passes every visible check of the solution, and explains the stub in Korean."""
    number, points = chapter[:2], TABLES[chapter].visible_points
    done = run([PYTHON, "-m", "grader", "check", number, str(paths.SOLUTIONS / chapter / "transformer.py")])
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(rf"합계\s+{points}/{points}", done.stdout)
    done = run([PYTHON, "-m", "grader", "check", number])
    assert done.returncode != 0
    assert TABLES[chapter].judge.BUGS["stub"] in done.stdout
    assert "Traceback" not in done.stdout + done.stderr


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_demo_with_stub_explains_in_korean(chapter, tmp_path):
    """The student folder's demo, run on the stub, prints one Korean line and no traceback."""
    folder = shutil.copytree(paths.EXERCISES / chapter, tmp_path / chapter,
                             ignore=shutil.ignore_patterns("__pycache__"))
    done = run([PYTHON, "demo.py"], cwd=folder, env={"PATH": "/usr/bin:/bin", "PYTHONWARNINGS": "ignore"})
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert "아직 작성하지 않은 함수" in done.stderr


def _verify_message(chapter, path, check):
    """What `verify` (the notebook's test cells and test_visible.py) says for `check` on the file at `path`."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = module_from_source(path.read_text(encoding="utf-8"))
        try:
            verify(chapter, check, types.SimpleNamespace(**vars(module)))
        except AssertionError as error:
            return str(error)
    return ""


AGREEMENT_CASES = [(chapter, name) for chapter in CHAPTERS for name in
                   sorted(TABLES[chapter].bug_fixtures) + sorted(TABLES[chapter].renamed)
                   + list(TABLES[chapter].correct_variants)]


@pytest.mark.parametrize("chapter, name", AGREEMENT_CASES)
def test_verify_and_the_grader_give_the_same_message(chapter, name, capsys):
    """For every visible check, `verify` fails exactly when the grader's run does, with the grader's message."""
    path = TABLES[chapter].fixture(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = runner.run(chapter, path, visible_only=True)
    for result in results:
        said = _verify_message(chapter, path, result.name)
        if result.passed:
            assert said == "", (name, result.name, said)
        else:
            assert result.message in said, (name, result.name, said, result.message)
    capsys.readouterr()
