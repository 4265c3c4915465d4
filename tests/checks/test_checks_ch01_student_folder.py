"""The student folders are self-contained: copied anywhere, `python -m selfcheck` works.

A student gets the `exercises/` folder (a chapter folder and the shared `_selfcheck/` its `selfcheck/` joins), or the
notebook alone (its setup cell carries the checks: test_notebook_alone.py), and nothing else from this repository.
Each test copies a chapter folder (with `_selfcheck/` beside it) to a temporary directory, fills in the solution, and
runs the self-check as a student would: a plain `python -m selfcheck` (not `-I`, so the folder itself is on sys.path)
with cwd = the folder and PYTHONPATH unset.
"""
import json
import re

import pytest

from grader.checks import messages

from .chapters import ChapterUnderTest
from .support import PYTHON, ROOT, copy_folder, filled_notebook, finish, release_notebook, start

CH01 = ChapterUnderTest("01_attention")
SOLUTION, EXERCISE_DIR, NOTEBOOK = CH01.solution, CH01.exercise_dir, release_notebook(CH01.id)

pytestmark = pytest.mark.checks

# Heavy or instructor-only modules the self-check must not import (it ships without them / must stay fast).
FORBIDDEN_IMPORTS = ("grader", "nbformat", "nbgrader", "matplotlib", "jupyter_client", "IPython")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Both folders' self-checks, started together: {'exercises': (status, out, err), 'release': …}."""
    exercise = copy_folder(EXERCISE_DIR, tmp_path_factory.mktemp("alone") / "01_attention")
    exercise.joinpath("transformer.py").write_bytes(SOLUTION.read_bytes())
    release = copy_folder(EXERCISE_DIR, tmp_path_factory.mktemp("notebook") / "01_attention")
    filled_notebook(SOLUTION.read_text(encoding="utf-8"), release / NOTEBOOK.name)  # the released notebook, filled
    processes = {
        # -X importtime only adds a list of imported modules to stderr.
        "exercises": start([PYTHON, "-X", "importtime", "-m", "selfcheck"], cwd=exercise),
        "release": start([PYTHON, "-m", "selfcheck", NOTEBOOK.name], cwd=release),
    }
    return {name: finish(process) for name, process in processes.items()}


def test_exercise_folder_alone_passes_with_the_solution(runs):
    """exercises/01_attention copied (with _selfcheck/), solution as transformer.py: `python -m selfcheck` → 70/70."""
    status, out, err = runs["exercises"]
    assert status == 0, out + err[-3000:]
    assert re.search(r"합계\s+70/70", out)


def test_released_notebook_filled_passes_in_the_exercise_folder(runs):
    """The released notebook, answer cell filled, in the exercise folder: `python -m selfcheck 01_attention.ipynb` →
    70/70, exit 0."""
    status, out, err = runs["release"]
    assert status == 0, out + err
    assert re.search(r"합계\s+70/70", out)


def test_selfcheck_imports_nothing_from_the_repository_or_heavy_tools(runs):
    """The self-check imports neither the repo's `grader` package nor nbformat/nbgrader/matplotlib/Jupyter."""
    _, _, err = runs["exercises"]
    imported = {line.rsplit("|", 1)[-1].strip() for line in err.splitlines() if line.startswith("import time:")}
    assert "selfcheck" in imported
    top_level = {name.split(".")[0] for name in imported}
    assert not top_level & set(FORBIDDEN_IMPORTS), top_level & set(FORBIDDEN_IMPORTS)


def test_shipped_checks_have_no_hidden_material():
    """The shipped selfcheck/ and the shared _selfcheck/ have no hidden-test region; reference.json only the visible
    cases."""
    from grader.checks import ch01_probe

    package = EXERCISE_DIR / "selfcheck"
    sources = [*package.glob("*.py"), *(EXERCISE_DIR.parent / "_selfcheck").glob("*.py")]
    assert len(sources) > 10
    for source in sources:
        text = source.read_text(encoding="utf-8")
        assert "BEGIN HIDDEN" not in text and "END HIDDEN" not in text, source.name
    reference = (package / "reference.json").read_text(encoding="utf-8")
    for case in set(ch01_probe.case_names()) - set(ch01_probe.case_names(visible_only=True)):
        assert f'"{case}"' not in reference, case


def test_a_module_beside_the_file_fails_as_it_does_when_graded(tmp_path):
    """transformer.py imports `attention` from my_helpers.py beside it. The grader receives transformer.py alone, so
    there it is a ModuleNotFoundError; `python -m selfcheck` and the student's `pytest test_visible.py` run where
    my_helpers.py is importable, and still give the same score (0) and the same message as `python -m grader grade`."""
    folder = copy_folder(EXERCISE_DIR, tmp_path / "student" / "01_attention")
    solution = SOLUTION.read_text(encoding="utf-8")
    folder.joinpath("my_helpers.py").write_text("import math\n\nimport torch\n\n\n" + solution[solution.index("def attention"):],
                                                encoding="utf-8")
    stub = folder.joinpath("transformer.py").read_text(encoding="utf-8")
    folder.joinpath("transformer.py").write_text(stub + "\nfrom my_helpers import attention  # noqa: E402\n",
                                                 encoding="utf-8")
    graded = tmp_path / "graded"
    processes = {
        "selfcheck": start([PYTHON, "-m", "selfcheck"], cwd=folder),
        "pytest": start([PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_visible.py"], cwd=folder),
        "grade": start([PYTHON, "-m", "grader", "grade", "01", str(folder / "transformer.py"), "--json", "--no-feedback",
                        "--out", str(graded)], cwd=ROOT),
    }
    done = {name: finish(process, timeout=300) for name, process in processes.items()}
    (result,) = json.loads(done["grade"][1])
    assert result["score"] == 0
    message = result["tests"][0]["output"].split("\n", 1)[1]
    assert "No module named 'my_helpers'" in message and messages.MODULE_HINT in message
    status, out, err = done["selfcheck"]
    assert status != 0 and re.search(r"합계\s+0/70", out) and message in out, out + err[-2000:]
    status, out, err = done["pytest"]
    assert status != 0 and "7 failed" in out and out.count(message) >= 7, out[-3000:]
