"""Chapter 03 student material: the text matches the demo, earlier chapters ship solved, the commands work,
and the ways of checking give the same message."""
import json
import re
import types
import warnings

import pytest

from grader import paths
from grader.build import regions
from grader.checks import ch03_judge, runner, verify
from grader.checks.loading import module_from_source
from tests.checks.test_ch03_scores import BUG_FIXTURES, CORRECT_VARIANTS, RENAMED, fixture
from tests.conftest import PYTHON, run

pytestmark = pytest.mark.checks

CHAPTER = "03_multihead"
SOURCE = paths.SOLUTIONS / CHAPTER
EXERCISE = paths.EXERCISES / CHAPTER
RELEASE_NOTEBOOK = paths.RELEASE / CHAPTER / f"{CHAPTER}.ipynb"


def _demo_output():
    done = run([PYTHON, "demo.py"], cwd=SOURCE)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _results_section():
    text = (SOURCE / "chapter.md").read_text(encoding="utf-8")
    return text.split("## 실행 결과에서 볼 것", 1)[1].split("<!-- cell: demo -->", 1)[0]


def test_demo_prints_the_shapes_and_parameter_count():
    """The demo follows (2, 6, 32) → per head (2, 4, 6, 8) → attn (2, 4, 6, 6) → (2, 6, 32), counts 4(d²+d)
    parameters, and prints the same every time (seeded)."""
    out = _demo_output()
    assert re.search(r"입력 x\s+: \(2, 6, 32\)", out)
    assert re.search(r"transpose\(1, 2\)\s*: \(2, 4, 6, 8\)", out)
    assert re.search(r"mha\.attn .*: \(2, 4, 6, 6\)", out)
    assert re.search(r"출력\s+: \(2, 6, 32\)", out)
    assert "parameters() 합: 4224  공식: 4 × (1024 + 32) = 4224" in out
    assert _demo_output() == out


def test_chapter_text_quotes_what_the_demo_prints():
    """Every shape and every number of three or more digits in the text's "what to look for" section is in
    the demo's output, and the True/False it promises for clones are the demo's."""
    out = _demo_output()
    section = _results_section()
    shapes = set(re.findall(r"\(\d+(?:, \d+)+\)", section))
    assert {"(2, 6, 32)", "(2, 4, 6, 8)", "(2, 4, 6, 6)"} <= shapes
    for shape in shapes - {"(3, 2)"}:  # nn.Linear(3, 2) is an argument, not an output
        assert shape in out, shape
    for number in set(re.findall(r"(?<![\d.])\d{3,}(?![\d.])", section)):
        assert number in out, number
    assert "0번과 1번의 처음 weight가 같은가: True" in out
    assert "0번과 1번이 같은 parameter 객체인가: False" in out
    assert re.search(r"\* 4의 parameter 수: 8 .*깊은 복사 4개: 32", out)
    for name in ("linears.0.weight", "linears.3.bias"):
        assert f"`{name}`" in section and name in out


def test_stub_ships_chapters_01_and_02_solved_and_names_the_contract():
    """exercises/03_multihead/transformer.py: attention and subsequent_mask as plain code, a TODO(03) above
    every NotImplementedError, and the attribute names of the contract in the TODO."""
    stub = (EXERCISE / "transformer.py").read_text(encoding="utf-8")
    lines = stub.splitlines()
    assert "        scores = scores.masked_fill(mask == 0, -1e9)" in lines
    assert "    return subsequent_mask == 0" in lines
    for number, line in enumerate(lines):
        if "raise NotImplementedError" in line:
            above = [text.strip() for text in lines[max(0, number - 8):number] if text.strip().startswith("#")]
            assert any("TODO(03)" in text for text in above), f"stub line {number + 1} has no TODO(03) above it"
    for name in ("self.linears", "self.attn", "self.dropout", "self.d_k", "self.h"):
        assert name in stub
    assert "def clones(module, N):" in stub
    assert "def __init__(self, h, d_model, dropout=0.1):" in stub
    assert "def forward(self, query, key, value, mask=None):" in stub


def test_release_notebook_has_100_points_and_no_solution():
    """The released notebook's graded cells are the chapter's checks, worth 100; no marker survives."""
    notebook = json.loads(RELEASE_NOTEBOOK.read_text(encoding="utf-8"))
    whole = "\n".join("".join(cell["source"]) for cell in notebook["cells"])
    assert "BEGIN SOLUTION" not in whole and "BEGIN HIDDEN TESTS" not in whole
    graded = [c["metadata"]["nbgrader"] for c in notebook["cells"] if c["metadata"].get("nbgrader", {}).get("grade")]
    assert sum(meta["points"] for meta in graded) == 100
    assert {meta["grade_id"] for meta in graded} == {check.name for check in ch03_judge.CHECKS}


def test_grader_check_passes_the_solution_and_explains_the_stub():
    """`python -m grader check 03` gives 70/70 on the solution, and the stub's Korean diagnosis without a traceback."""
    done = run([PYTHON, "-m", "grader", "check", "03", str(SOURCE / "transformer.py")])
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"합계\s+70/70", done.stdout)
    done = run([PYTHON, "-m", "grader", "check", "03"])
    assert done.returncode != 0
    assert ch03_judge.BUGS["stub"] in done.stdout
    assert "Traceback" not in done.stdout + done.stderr


def test_demo_with_stub_explains_in_korean(tmp_path):
    """The student folder's demo, run on the stub, prints one Korean line and no traceback."""
    import shutil

    folder = tmp_path / CHAPTER
    shutil.copytree(EXERCISE, folder, ignore=shutil.ignore_patterns("__pycache__"))
    done = run([PYTHON, "demo.py"], cwd=folder, env={"PATH": "/usr/bin:/bin", "PYTHONWARNINGS": "ignore"})
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert "아직 작성하지 않은 함수" in done.stderr


def _verify_message(path, check):
    """What `verify` (the notebook's test cells and test_visible.py) says for `check` on the file at `path`."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = module_from_source(path.read_text(encoding="utf-8"))
        try:
            verify(CHAPTER, check, types.SimpleNamespace(**vars(module)))
        except AssertionError as error:
            return str(error)
    return ""


@pytest.mark.parametrize("name", sorted(BUG_FIXTURES) + [RENAMED] + CORRECT_VARIANTS)
def test_verify_and_the_grader_give_the_same_message(name, capsys):
    """For every visible check, `verify` fails exactly when the grader's run does, with the grader's message."""
    path = fixture(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = runner.run(CHAPTER, path, visible_only=True)
    for result in results:
        said = _verify_message(path, result.name)
        if result.passed:
            assert said == "", (name, result.name, said)
        else:
            assert result.message in said, (name, result.name, said, result.message)
    capsys.readouterr()


def test_solution_lines_stay_in_solution_regions():
    """The chapter-02 code stands outside solution regions in chapter 03's source (shipped solved)."""
    text = (SOURCE / "transformer.py").read_text(encoding="utf-8")
    inside = {line.strip() for line in regions.region_lines(text, "solution")}
    assert "scores = scores.masked_fill(mask == 0, -1e9)" not in inside
    assert "return nn.ModuleList([copy.deepcopy(module) for _ in range(N)])" in inside
