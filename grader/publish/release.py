"""The nbgrader release: run real `nbgrader generate_assignment` on the generated source folders (one nbgrader
process for all of them: `nbgrader_batch`)."""
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from grader import paths


class ReleaseError(RuntimeError):
    """nbgrader refused to generate an assignment."""


def nbgrader_environment():
    """The environment for nbgrader: this interpreter's bin first on PATH (nbgrader runs `alembic` from it)."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return env


def files(sources):
    """{assignment id: {path: bytes}} of nbgrader source folders → {release-relative path: bytes}."""
    out = {}
    with tempfile.TemporaryDirectory(prefix="grader-release-") as course:
        course = Path(course)
        shutil.copy(paths.NBGRADER_CONFIG, course / "nbgrader_config.py")
        shutil.copytree(paths.GRADER / "publish", course / "grader" / "publish")  # the config imports the stub text
        (course / "grader" / "__init__.py").write_text("")
        for assignment, folder in sources.items():
            for relative, data in folder.items():
                target = course / "grader" / "nbgrader_source" / assignment / relative
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
        done = subprocess.run(
            [sys.executable, "-m", "grader.publish.nbgrader_batch", *sources],
            cwd=course, env=nbgrader_environment(), capture_output=True, text=True, timeout=600,
        )
        if done.returncode != 0:
            raise ReleaseError(f"nbgrader generate_assignment failed:\n{done.stdout}\n{done.stderr}")
        release = course / "release"
        for path in sorted(release.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                out[path.relative_to(release).as_posix()] = path.read_bytes()
    return out
