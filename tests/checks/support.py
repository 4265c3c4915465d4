"""Shared helpers for the chapter-check tests: paths, cached grading of fixtures, student folders."""
import functools
import json
import os
import shutil
import subprocess
import warnings
from pathlib import Path

from tests.conftest import PYTHON, ROOT  # noqa: F401 - re-exported for the check tests

FIXTURES = ROOT / "tests" / "fixtures" / "ch01"
SOLUTION = ROOT / "solutions" / "01_attention" / "transformer.py"
STUB = ROOT / "exercises" / "01_attention" / "transformer.py"
EXERCISE_DIR = ROOT / "exercises" / "01_attention"
RELEASE_DIR = ROOT / "release" / "01_attention"
NOTEBOOK = RELEASE_DIR / "01_attention.ipynb"
CHAPTER = "01_attention"


def fixture_path(name):
    """tests/fixtures/ch01/<name>.py, which must exist."""
    path = FIXTURES / f"{name}.py"
    assert path.exists(), f"missing fixture {path}"
    return path


@functools.lru_cache(maxsize=None)
def _graded(path, visible_only):
    from grader.checks import runner

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. `x.T` on 3-D tensors warns
        return tuple(runner.run(CHAPTER, path, visible_only=visible_only))


def grade(path, hidden=True):
    """runner.run on `path` (all checks when hidden), cached: a list of CheckResult."""
    return list(_graded(str(path), not hidden))


def by_name(results):
    return {r.name: r for r in results}


def total(results):
    return round(sum(r.score for r in results), 4)


def student_env():
    """The environment a student's terminal would have: no PYTHONPATH pointing into the repository."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env["PYTHONWARNINGS"] = "ignore"
    env["OMP_NUM_THREADS"] = "1"  # tiny tensors; avoids OpenMP spin-waiting when the test machine is busy
    return env


def copy_folder(source, destination):
    """Copy a student folder (exercises/… or release/…) without caches."""
    shutil.copytree(source, destination, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    return destination


def filled_notebook(code, path):
    """The released notebook with its answer cell (nbgrader grade_id "answer") replaced by `code`."""
    notebook = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    answers = [c for c in notebook["cells"] if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == "answer"]
    assert len(answers) == 1, "the released notebook should have exactly one answer cell"
    answers[0]["source"] = code
    Path(path).write_text(json.dumps(notebook, ensure_ascii=False, indent=1), encoding="utf-8")
    return Path(path)


def start(command, cwd):
    """Start a subprocess as a student would (no PYTHONPATH); collect it later with `finish`."""
    return subprocess.Popen(command, cwd=cwd, env=student_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def finish(process, timeout=120):
    """(returncode, stdout, stderr) of a process from `start`."""
    out, err = process.communicate(timeout=timeout)
    return process.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")

