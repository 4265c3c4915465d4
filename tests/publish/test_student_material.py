"""What students receive: visible tests, the demo, the nbgrader notebook — solution passes, stub fails."""
import json
import re
import shutil

import pytest

from grader import chapters, paths
from grader.publish import shipping
from tests.checks.support import carried_package, copy_folder
from tests.conftest import PYTHON, ROOT, run, run_together

pytestmark = pytest.mark.build

SEED = ROOT / "tests/fixtures/seed/000_470fc1058e017f48.txt"
SOLUTION = paths.SOLUTIONS / "01_attention/transformer.py"


def _exercise_copy(tmp_path, module_source=None):
    folder = copy_folder(paths.EXERCISES / "01_attention", tmp_path / "01_attention")
    if module_source is not None:
        (folder / "transformer.py").write_text(module_source, encoding="utf-8")
    return folder


def test_a_chapter_folder_without_the_shared_framework_says_what_to_copy(tmp_path):
    """A chapter folder copied without `exercises/_selfcheck/`: the self-check, the visible tests (plain `pytest` too)
    and the demo stop with a Korean message saying to copy the whole `exercises/` folder or to use the notebook; it is
    the first thing printed, and no traceback follows."""
    folder = tmp_path / "01_attention"
    shutil.copytree(paths.EXERCISES / "01_attention", folder, ignore=shutil.ignore_patterns("__pycache__"))
    commands = (["-m", "selfcheck"], ["-m", "pytest", "-q", "-p", "no:cacheprovider", "test_visible.py"],
                ["-m", "pytest", "-p", "no:cacheprovider", "test_visible.py"], ["demo.py"])
    for command, done in zip(commands, run_together(*[([PYTHON, *c], {"cwd": folder}) for c in commands])):
        assert done.returncode == 1, (command, done.stdout, done.stderr)
        said = done.stdout + done.stderr
        assert "exercises 폴더 전체" in said and "01_attention.ipynb" in said, said[-2000:]
        first = said.strip().splitlines()[0]
        assert "selfcheck의 공통 검사 틀을 찾지 못했습니다" in first and first.split("selfcheck")[0] in ("", "Exit: "), said
        assert "Traceback" not in said and "Error" not in said, said


def _words(text):
    return " ".join(text.split())


def test_demo_prints_the_seed_numbers():
    """The solution's demo prints exactly what the seed chapter prints (torch.manual_seed(0), CPU)."""
    seed = SEED.read_text(encoding="utf-8")
    expected = seed[seed.index("입력 x :"): seed.index("기울기가 사라진다") + len("기울기가 사라진다")]
    done = run([PYTHON, "demo.py"], cwd=paths.SOLUTIONS / "01_attention")
    assert done.returncode == 0, done.stderr
    assert _words(done.stdout) == _words(expected)


def test_demo_with_solution_in_student_folder(tmp_path):
    """The student folder's demo, with the solution filled in, prints the seed's weights."""
    folder = _exercise_copy(tmp_path, SOLUTION.read_text(encoding="utf-8"))
    done = run([PYTHON, "demo.py"], cwd=folder)
    assert done.returncode == 0, done.stderr
    assert "[0.9630, 0.0100, 0.0270]" in done.stdout


def test_demo_with_stub_explains_in_korean(tmp_path):
    """With the stub, the demo prints one short Korean line (no traceback) and exits non-zero."""
    done = run([PYTHON, "demo.py"], cwd=_exercise_copy(tmp_path))
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert "아직 작성하지 않은 함수" in done.stderr
    assert len(done.stderr.strip().splitlines()) <= 2


def test_visible_tests_pass_with_solution(tmp_path):
    """The folder's visible pytest tests pass with the solution module."""
    folder = _exercise_copy(tmp_path, SOLUTION.read_text(encoding="utf-8"))
    done = run([PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_visible.py"], cwd=folder)
    assert done.returncode == 0, done.stdout
    assert re.search(r"\b7 passed\b", done.stdout)


def test_visible_tests_fail_with_stub(tmp_path):
    """The folder's visible pytest tests all fail with the stub, naming the unwritten function."""
    done = run([PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_visible.py"], cwd=_exercise_copy(tmp_path))
    assert done.returncode != 0
    assert re.search(r"\b7 failed\b", done.stdout)
    assert "NotImplementedError" in done.stdout


def _release_copy(tmp_path, answer):
    folder = tmp_path / "01_attention"
    shutil.copytree(paths.RELEASE / "01_attention", folder)
    notebook_path = folder / "01_attention.ipynb"
    notebook = json.loads(notebook_path.read_text(encoding="utf-8"))
    (cell,) = [c for c in notebook["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == "answer"]
    if answer is not None:
        cell["source"] = answer
    notebook_path.write_text(json.dumps(notebook, ensure_ascii=False), encoding="utf-8")
    return notebook_path


@pytest.mark.slow
def test_release_notebook_with_solution_passes_nbgrader_validate(tmp_path):
    """`nbgrader validate` accepts the released notebook once its answer cell holds the solution."""
    notebook = _release_copy(tmp_path, SOLUTION.read_text(encoding="utf-8"))
    done = run(["nbgrader", "validate", notebook.name], cwd=notebook.parent, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success! Your notebook passes all the tests." in done.stdout


@pytest.mark.slow
def test_release_notebook_with_stub_fails_nbgrader_validate(tmp_path):
    """`nbgrader validate` rejects the released notebook as handed out (answer not written)."""
    notebook = _release_copy(tmp_path, None)
    done = run(["nbgrader", "validate", notebook.name], cwd=notebook.parent, timeout=600)
    assert "Success!" not in done.stdout
    assert "NotImplementedError" in done.stdout + done.stderr


def test_release_notebook_has_no_solution_or_hidden_tests():
    """The released notebook carries the stub and no hidden-test region; graded cells keep their points."""
    notebook = json.loads((paths.RELEASE / "01_attention/01_attention.ipynb").read_text(encoding="utf-8"))
    text = json.dumps(notebook, ensure_ascii=False)
    assert "BEGIN HIDDEN TESTS" not in text and "BEGIN SOLUTION" not in text
    points = sum(c["metadata"]["nbgrader"].get("points", 0) for c in notebook["cells"]
                 if c["metadata"].get("nbgrader", {}).get("grade"))
    assert points == 100


def test_readme_states_each_notebooks_size():
    """The README's table of released notebook sizes (the embedded self-check included) is within 10% of the files."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    stated = {number: int(kb) for row in re.findall(r"^   \| (\d\d) \| (\d+) KB \| (\d\d) \| (\d+) KB \|$", readme, re.M)
              for number, kb in (row[:2], row[2:])}
    released = {folder.name[:2]: (folder / f"{folder.name}.ipynb").stat().st_size / 1024
                for folder in paths.RELEASE.iterdir() if folder.is_dir()}
    assert stated.keys() == released.keys()
    assert all(abs(stated[n] - released[n]) <= 0.1 * released[n] for n in released), (stated, released)


def test_every_released_notebook_carries_the_selfcheck_setup_cell():
    """Each chapter's notebook has one locked, ungraded setup cell, before its first check cell."""
    for folder in sorted(p for p in paths.RELEASE.iterdir() if p.is_dir()):
        cells = json.loads((folder / f"{folder.name}.ipynb").read_text(encoding="utf-8"))["cells"]
        ids = [c.get("metadata", {}).get("nbgrader", {}).get("grade_id") for c in cells]
        assert ids.count("selfcheck-setup") == 1, folder.name
        setup = ids.index("selfcheck-setup")
        first_check = min(i for i, c in enumerate(cells) if "from selfcheck import verify" in "".join(c["source"]))
        assert setup < first_check, folder.name


def test_every_released_demo_cell_runs_as_jupyter_reads_it():
    """Each chapter's demo cell is its `demo.py` without the whole `from transformer import` statement (ch14's spans two
    lines: its second line was left behind, an IndentationError in Jupyter) and passes IPython's own rewrite."""
    from IPython.core.inputtransformer2 import TransformerManager

    for folder in sorted(p for p in paths.RELEASE.iterdir() if p.is_dir()):
        cells = json.loads((folder / f"{folder.name}.ipynb").read_text(encoding="utf-8"))["cells"]
        (demo,) = ["".join(c["source"]) for c in cells if c["metadata"].get("nbgrader", {}).get("grade_id") == "demo"]
        compile(TransformerManager().transform_cell(demo), folder.name, "exec")
        script = (paths.SOLUTIONS / folder.name / "demo.py").read_text(encoding="utf-8")
        assert "transformer" not in demo and demo.count("\n") < script.count("\n"), folder.name


def test_every_notebook_carries_exactly_the_exercise_files():
    """Each released (and source) notebook's setup cell carries its chapter's package byte for byte as `exercises/`
    holds it (the chapter's own `selfcheck/` and the shared files it uses), so the leak tests that read `exercises/`
    read what the notebooks carry too."""
    for chapter in chapters.all_chapters():
        own = {f"selfcheck/{p.name}" for p in (paths.EXERCISES / chapter.id / "selfcheck").iterdir()
               if p.is_file() and p.name != "__init__.py"}
        for top in (paths.RELEASE, paths.NBGRADER_SOURCE):
            carried = carried_package(top / chapter.id / f"{chapter.id}.ipynb")
            assert own <= carried.keys() and "selfcheck/__init__.py" in carried, chapter.id
            for name, data in carried.items():
                assert data == (paths.EXERCISES / shipping.exercise_path(chapter, name)).read_bytes(), (chapter.id, name)
