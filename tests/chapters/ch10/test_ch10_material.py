"""Chapter 10 material: the demo prints what the text quotes, the stub blanks Batch and ships the model solved,
the notebook is worth 100, the commands work, and the picture is the public tgt_mask of the pad=2 case."""
import json
import re

import pytest

from grader import paths
from grader.publish import regions
from grader.checks import chapter as load_chapter
from grader.report import picture
from tests.checks.test_module_chapter_material import demo_output, results_section
from tests.checks.support import copy_folder
from tests.conftest import PYTHON, run

pytestmark = [pytest.mark.checks, pytest.mark.ch10]

CHAPTER = "10_batching"
# What the demo prints for src = tgt = [[1, 5, 6, 0, 0]], pad=0, and the text quotes.
SHIFTED = {"tgt (디코더 입력)   : ": "1 5 6 0", "tgt_y (맞힐 정답)   : ": "5 6 0 0", "src_mask[0]  : ": "1 1 1 0 0"}
GRID = ("0행: 1 0 0 0", "1행: 1 1 0 0", "2행: 1 1 1 0", "3행: 1 1 1 0")


def test_demo_prints_the_shift_the_masks_and_ntokens():
    """tgt and tgt_y one token apart, ntokens 2, src_mask (1, 1, 5), tgt_mask (1, 4, 4) as a grid with column 3 hidden."""
    out = demo_output(CHAPTER)
    for label, values in SHIFTED.items():
        assert f"{label}{values}\n" in out, label
    assert re.search(r"ntokens\s+: 2 ", out)
    assert "src_mask 모양: (1, 1, 5)  dtype: torch.bool" in out
    assert "tgt_mask 모양: (1, 4, 4)  dtype: torch.bool" in out
    assert "\n".join(f"   {row}" for row in GRID) in out
    assert "3번 토큰(pad)은 어느 행에서도 보이지 않는다: True" in out
    assert "Batch.make_std_mask(tgt, 2) 모양: (2, 4, 4)" in out
    assert "tgt 속성이 있는가: False" in out
    assert demo_output(CHAPTER) == out


def test_text_quotes_what_the_demo_prints():
    """Every shape, token row, `True`/`False` and number the "what to look for" section quotes is in the demo's output."""
    out = demo_output(CHAPTER)
    section = results_section(CHAPTER)
    for values in SHIFTED.values():
        assert f"`{values}`" in section
    assert "`2`" in section and "ntokens             : 2 " in out
    quoted = set(re.findall(r"`(\(\d+(?:, \d+)+\)|True|False|\d(?: \d)+)`", section))
    assert len(quoted) >= 8
    for text in quoted:
        assert text in out, text


def test_stub_blanks_batch_and_ships_the_model_solved():
    """The stub keeps Batch's signature and @staticmethod with a TODO(10) above each blank, names the attributes,
    and carries every earlier chapter as plain code (none of its own solution lines)."""
    stub = (paths.EXERCISES / CHAPTER / "transformer.py").read_text(encoding="utf-8")
    lines = stub.splitlines()
    assert "    def __init__(self, src, tgt=None, pad=2):  # 2 = <blank>" in lines
    assert "    @staticmethod" in lines and "    def make_std_mask(tgt, pad):" in lines
    blanks = [n for n, line in enumerate(lines) if "raise NotImplementedError" in line]
    assert len(blanks) == 2
    for number in blanks:
        assert any("TODO(10)" in line for line in lines[max(0, number - 8):number]), number
    for name in ("self.src", "self.src_mask", "self.tgt", "self.tgt_y", "self.tgt_mask", "self.ntokens"):
        assert name in stub, name
    assert "        return log_softmax(self.proj(x), dim=-1)" in lines
    assert "        return x + self.dropout(sublayer(self.norm(x)))" in lines
    solution = (paths.SOLUTIONS / CHAPTER / "transformer.py").read_text(encoding="utf-8")
    inside = [line.strip() for line in regions.region_lines(solution, "solution") if line.strip()]
    assert "self.tgt_y = tgt[:, 1:]" in inside
    assert not [line for line in inside if line in {text.strip() for text in lines}]
    assert not re.search(r"TODO\(0\d\)", stub)


def test_release_notebook_has_100_points_and_no_solution():
    """The released notebook's graded cells are the chapter's checks, worth 100; no marker and no solution line."""
    notebook = json.loads((paths.RELEASE / CHAPTER / f"{CHAPTER}.ipynb").read_text(encoding="utf-8"))
    whole = "\n".join("".join(cell["source"]) for cell in notebook["cells"])
    assert "BEGIN SOLUTION" not in whole and "BEGIN HIDDEN TESTS" not in whole
    assert "self.tgt_y = tgt[:, 1:]" not in whole and "(self.tgt_y != pad).data.sum()" not in whole
    graded = [c["metadata"]["nbgrader"] for c in notebook["cells"] if c["metadata"].get("nbgrader", {}).get("grade")]
    assert sum(meta["points"] for meta in graded) == 100
    assert {meta["grade_id"] for meta in graded} == {check.name for check in load_chapter(CHAPTER).checks}


def test_demo_with_stub_explains_in_korean(tmp_path):
    """The student folder's demo, run on the stub, prints one Korean line and no traceback."""
    folder = copy_folder(paths.EXERCISES / CHAPTER, tmp_path / CHAPTER)
    done = run([PYTHON, "demo.py"], cwd=folder, env={"PATH": "/usr/bin:/bin", "PYTHONWARNINGS": "ignore"})
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert "아직 작성하지 않은 함수" in done.stderr


def test_picture_is_the_public_tgt_mask_of_the_first_sentence():
    """The page draws tgt_mask of the visible pad=2 case, sentence 0: the causal triangle with its pad columns hidden,
    read from the students' public reference (tokens 0 6 4 1 2 2 after the shift: columns 4 and 5 are pads)."""
    declared = picture.declared(CHAPTER)
    assert (declared.case, declared.where, declared.index, declared.label) == (
        "pad2", ("attributes", "tgt_mask"), (0,), "tgt_mask")
    rows = picture.reference(CHAPTER)
    assert len(rows) == 6 and all(len(row) == 6 for row in rows)
    for i, row in enumerate(rows):
        assert row == [1.0 if j <= i and j < 4 else 0.0 for j in range(6)], i
