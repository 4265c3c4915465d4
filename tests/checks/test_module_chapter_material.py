"""Student material of the nn.Module chapters: the text quotes the demo, the stub names the contract, the
notebook is worth 100, the commands work, and the demo explains an unfinished stub."""
import functools
import json
import re
from dataclasses import dataclass

import pytest

from grader import paths
from grader.checks import chapter as load_chapter
from tests.checks.support import copy_folder
from tests.conftest import PYTHON, run

pytestmark = pytest.mark.checks


@dataclass(frozen=True)
class Material:
    """What a module chapter's material must show."""

    contract: tuple  # attribute names the stub's TODO names
    text_arguments: tuple = ()  # shapes the text's "what to look for" quotes as arguments, not outputs


MATERIAL = {
    "03_multihead": Material(("self.linears", "self.attn", "self.dropout", "self.d_k", "self.h"), ("(3, 2)",)),
    "04_feedforward": Material(("self.w_1", "self.w_2", "self.dropout")),
    "05_embeddings": Material(("self.lut", "self.d_model", "self.dropout", 'register_buffer("pe"')),
    "06_sublayer": Material(("self.a_2", "self.b_2", "self.eps", "self.norm", "self.dropout")),
    "07_encoder": Material(("self.self_attn", "self.feed_forward", "self.sublayer", "self.size", "self.layers",
                            "self.norm")),
    "08_decoder": Material(("self.size", "self.self_attn", "self.src_attn", "self.feed_forward", "self.sublayer",
                            "self.layers", "self.norm")),
    "09_model": Material(("self.encoder", "self.decoder", "self.src_embed", "self.tgt_embed", "self.generator",
                          "self.proj", "xavier_uniform_")),
    "11_smoothing": Material(("self.criterion", "self.padding_idx", "self.confidence", "self.smoothing", "self.size",
                              "self.true_dist")),
}
CHAPTERS = [pytest.param(chapter, marks=getattr(pytest.mark, f"ch{chapter[:2]}")) for chapter in sorted(MATERIAL)]


@functools.lru_cache(maxsize=None)
def demo_output(chapter):
    """The solution's demo output (it must run cleanly); run once per session, every chapter test reads the same."""
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
    shapes = set(re.findall(r"\(\d+(?:, \d+)+\)", section)) - set(MATERIAL[chapter].text_arguments)
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
    for name in MATERIAL[chapter].contract:
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
    assert {meta["grade_id"] for meta in graded} == {check.name for check in load_chapter(chapter).checks}


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_demo_with_stub_explains_in_korean(chapter, tmp_path):
    """The student folder's demo, run on the stub, prints one Korean line and no traceback."""
    folder = copy_folder(paths.EXERCISES / chapter, tmp_path / chapter)
    done = run([PYTHON, "demo.py"], cwd=folder, env={"PATH": "/usr/bin:/bin", "PYTHONWARNINGS": "ignore"})
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert "아직 작성하지 않은 함수" in done.stderr
