"""Build grading inputs for the tests: filled-in notebooks, nbgrader trees, LMS zips, hostile zips."""
import copy
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

from tests import fixtures
from tests.conftest import ROOT

RELEASE_NOTEBOOK = ROOT / "release" / "01_attention" / "01_attention.ipynb"
SOLUTION = ROOT / "solutions" / "01_attention" / "transformer.py"
SUBMISSIONS = ROOT / "tests" / "fixtures" / "submissions"
CHAPTER = "01_attention"


def solution_source():
    """The chapter-01 solution without its nbgrader solution markers."""
    lines = SOLUTION.read_text(encoding="utf-8").splitlines(keepends=True)
    return "".join(line for line in lines if "### BEGIN SOLUTION" not in line and "### END SOLUTION" not in line)


def fixture_path(name):
    """A chapter-01 fixture: tests/fixtures/submissions/<name>.py, else the materialised ch01 fixture <name>."""
    if (SUBMISSIONS / f"{name}.py").exists():
        return SUBMISSIONS / f"{name}.py"
    return fixtures.path("ch01", name)


def filled_notebook(source, release=RELEASE_NOTEBOOK):
    """The release notebook as a student hands it in: its answer cell (grade_id "answer") holding `source`."""
    notebook = json.loads(Path(release).read_text(encoding="utf-8"))
    notebook = copy.deepcopy(notebook)
    answers = [c for c in notebook["cells"] if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == "answer"]
    assert len(answers) == 1, "the release notebook must have exactly one answer cell"
    answers[0]["source"] = source
    return json.dumps(notebook, ensure_ascii=False, indent=1) + "\n"


def write_notebook(path, source, release=RELEASE_NOTEBOOK):
    """Write a filled-in notebook with `source` as the answer to `path`; return the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(filled_notebook(source, release), encoding="utf-8")
    return path


def lms_name(student, day=1, file_id=f"{CHAPTER}.ipynb"):
    """A file name in the LMS (Blackboard-style) naming nbgrader's zip_collect documents."""
    return f"{CHAPTER}_{student}_attempt_2024-03-{day:02d}-10-00-00_{file_id}"


def write_zip(path, members):
    """A zip at `path` of {name: bytes or str}; returns the path."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return Path(path)


def add_symlink(path, name, target):
    """Append a symlink entry `name` → `target` to the zip at `path`."""
    info = zipfile.ZipInfo(name)
    info.create_system = 3
    info.external_attr = (0o120777 << 16)
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr(info, target)


def grade(args, cwd=ROOT, timeout=900, repo_on_path=True, path_without_bwrap=False):
    """Run `python -m grader grade …` with the venv on PATH (and this repo importable); return CompletedProcess.

    repo_on_path=False: only `cwd` provides the `grader` package (a course that is a checkout of this repo).
    path_without_bwrap=True: PATH is only the venv's bin, so no bwrap is found and grading falls back.
    """
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    if path_without_bwrap:
        env["PATH"] = str(Path(sys.executable).parent)
    env.pop("PYTHONPATH", None)
    if repo_on_path:
        env["PYTHONPATH"] = str(ROOT)
    return subprocess.run([sys.executable, "-m", "grader", "grade", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout)


def results(out):
    """{submission id: results document} of an output folder."""
    return {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted((Path(out) / "results").glob("*.json"))}


def without_timing(document):
    """A results document minus the one field that differs between runs (wall time)."""
    return {key: value for key, value in document.items() if key != "seconds"}
