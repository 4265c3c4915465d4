"""Every terminal command a student is told to run works where the text says to run it (issue 23).

The commands are read from the texts themselves — the .py track's feedback steps, the chapter folder's README.md, the
repository README's student quick start — and run exactly as written (`python` is the venv's) in a copy of the folder
the text names: `exercises/NN/` with `_selfcheck/` beside it and the solution filled in. A notebook student may hold
the notebook alone (nbgrader's release folder, Colab), so the notebook's texts point at its own cells, not a terminal.
"""
import json
import re
import shlex

import pytest

from grader import chapters, paths
from grader.report import texts
from tests.checks.support import copy_folder, student_env
from tests.conftest import ROOT, run_together

pytestmark = pytest.mark.build

CHAPTER = "01_attention"
QUOTED = re.compile(r"`(python [^`]+)`")
BASH = re.compile(r"```bash\n(.*?)```", re.S)


def _block_commands(text):
    """The commands of a Markdown text's ```bash blocks (comments and blank lines dropped)."""
    lines = [line.split("#", 1)[0].strip() for block in BASH.findall(text) for line in block.splitlines()]
    return [line for line in lines if line]


def _py_feedback_commands(chapter_id):
    intro, steps = texts.self_check("py", chapter_id)
    assert f"`exercises/{chapter_id}/`" in intro
    return [QUOTED.search(step).group(1) for step in steps]


def _quick_start_commands():
    """The commands of the README's student quick start, whose code block says it runs in exercises/01_attention/."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index("## 학생용 빠른 시작")
    section = readme[start:readme.index("\n## ", start + 1)]
    blocks = BASH.findall(section)
    assert blocks and all(f"exercises/{CHAPTER}/" in block.splitlines()[0] for block in blocks), blocks
    return _block_commands(section)


def test_every_command_a_py_student_is_given_runs_in_a_copy_of_the_exercise_folder(tmp_path):
    commands = dict.fromkeys([*_py_feedback_commands(CHAPTER),
                              *_block_commands((paths.EXERCISES / CHAPTER / "README.md").read_text(encoding="utf-8")),
                              *_quick_start_commands()])
    assert {"python demo.py", "python -m selfcheck", "python -m pytest test_visible.py"} <= commands.keys()
    folder = copy_folder(paths.EXERCISES / CHAPTER, tmp_path / CHAPTER)
    (folder / "transformer.py").write_bytes((paths.SOLUTIONS / CHAPTER / "transformer.py").read_bytes())
    done = run_together(*[(shlex.split(command), {"cwd": folder, "env": student_env()}) for command in commands])
    for command, result in zip(commands, done):
        assert result.returncode == 0, (command, result.stdout[-2000:], result.stderr[-2000:])
        assert "Traceback" not in result.stdout + result.stderr, command


@pytest.mark.parametrize("chapter_id", [chapter.id for chapter in chapters.all_chapters()])
def test_every_chapter_gives_the_same_commands(chapter_id):
    """The commands are the same in every chapter's texts (so running chapter 01's stands for all)."""
    readme = (paths.EXERCISES / chapter_id / "README.md").read_text(encoding="utf-8")
    assert _block_commands(readme) == _block_commands((paths.EXERCISES / CHAPTER / "README.md").read_text("utf-8"))
    assert _py_feedback_commands(chapter_id) == _py_feedback_commands(CHAPTER)


@pytest.mark.parametrize("chapter_id", [chapter.id for chapter in chapters.all_chapters()])
def test_a_notebook_students_texts_point_at_the_notebook_not_a_terminal(chapter_id):
    """The feedback page's re-check steps and the released notebook's own notes: run the notebook's cells (Run All);
    no terminal command, which would need files the release folder does not hold."""
    intro, steps = texts.self_check("notebook", chapter_id)
    said = " ".join([intro, *steps])
    assert f"`{chapter_id}.ipynb`" in said and "모두 실행" in said and "검사 셀" in said
    assert not QUOTED.search(said) and "터미널에서" not in said
    notebook = json.loads((paths.RELEASE / chapter_id / f"{chapter_id}.ipynb").read_text(encoding="utf-8"))
    notes = ["".join(cell["source"]) for cell in notebook["cells"] if cell["cell_type"] == "markdown"]
    assert any("모두 실행" in note and "자가 점검 준비" in note for note in notes)
    for note in notes:
        assert not QUOTED.search(note) and "python -m" not in note, note
