"""Shared helpers for the chapter-check tests: student folders, filled notebooks, student-like subprocesses."""
import json
import os
import shutil
import subprocess
from pathlib import Path

from tests.conftest import PYTHON, ROOT, run

__all__ = ["PYTHON", "ROOT", "student_env", "copy_folder", "release_notebook", "filled_notebook", "start", "finish",
           "solution_demo_output"]


def student_env():
    """The environment a student's terminal would have: no PYTHONPATH pointing into the repository."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env["PYTHONWARNINGS"] = "ignore"
    env["OMP_NUM_THREADS"] = "1"  # tiny tensors; avoids OpenMP spin-waiting when the test machine is busy
    return env


SHARED = "_selfcheck"  # exercises/_selfcheck/: the self-check framework every chapter folder's selfcheck/ joins


def copy_folder(source, destination):
    """Copy a student folder (exercises/… or release/…) without caches; a chapter of exercises/ with the shared
    framework folder beside it, as a student copies the `exercises/` folder."""
    ignore = shutil.ignore_patterns("__pycache__", ".pytest_cache")
    shared = Path(source).parent / SHARED
    if shared.is_dir() and not (Path(destination).parent / SHARED).exists():
        shutil.copytree(shared, Path(destination).parent / SHARED, ignore=ignore)
    shutil.copytree(source, destination, ignore=ignore)
    return destination


def carried_package(notebook_path):
    """{`selfcheck/…`: bytes} that a notebook's setup cell carries (its embedded, xz-compressed tar)."""
    import base64
    import io
    import lzma
    import re
    import tarfile

    cells = json.loads(Path(notebook_path).read_text(encoding="utf-8"))["cells"]
    (source,) = ["".join(c["source"]) for c in cells if c.get("metadata", {}).get("nbgrader", {}).get("grade_id")
                 == "selfcheck-setup"]
    blob = re.search(r'_prepare_selfcheck\("([A-Za-z0-9+/=]+)"\)', source).group(1)
    with tarfile.open(fileobj=io.BytesIO(lzma.decompress(base64.b64decode(blob)))) as archive:
        return {member.name: archive.extractfile(member).read() for member in archive.getmembers()}


def release_notebook(chapter_id):
    """The released notebook of a chapter: release/<id>/<id>.ipynb."""
    return ROOT / "release" / chapter_id / f"{chapter_id}.ipynb"


def filled_notebook(code, path, chapter_id="01_attention"):
    """The chapter's released notebook with its answer cell (nbgrader grade_id "answer") replaced by `code`."""
    notebook = json.loads(release_notebook(chapter_id).read_text(encoding="utf-8"))
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


def solution_demo_output(chapter_id, **env):
    """The stdout of solutions/<chapter>/demo.py (it must run cleanly), with `env` added to the environment."""
    done = run([PYTHON, "demo.py"], cwd=ROOT / "solutions" / chapter_id, env={**os.environ, **env})
    assert done.returncode == 0, done.stderr
    return done.stdout
