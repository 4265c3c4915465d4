"""Copy the few modules a worker needs into a private directory, and give it a minimal environment.

The worker imports `grader` from this copy only, so neither the repository nor anything else in
it (solutions, reference data, other submissions, the gradebook) has to be visible to it.
"""
import shutil
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
CODE_PATTERNS = ("grader/__init__.py", "grader/checks/*.py", "grader/sandbox/*.py")


def stage(destination):
    """Copy the worker's modules under `destination` (created world-readable) and return it."""
    destination = Path(destination)
    destination.mkdir(mode=0o755, parents=True, exist_ok=True)
    destination.chmod(0o755)
    for pattern in CODE_PATTERNS:
        for source in sorted(REPO_ROOT.glob(pattern)):
            target = destination / source.relative_to(REPO_ROOT)
            for directory in reversed(target.relative_to(destination).parents[:-1]):
                (destination / directory).mkdir(mode=0o755, exist_ok=True)
                (destination / directory).chmod(0o755)
            shutil.copyfile(source, target)
            target.chmod(0o644)
    return destination


def has_module(code_dir, module):
    """Whether `module` (dotted name) is a staged `.py` file."""
    return (Path(code_dir) / (module.replace(".", "/") + ".py")).is_file()


def environment(code_dir, home):
    """The whole environment of a worker: no inherited variables, one thread, a fixed hash seed."""
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": str(home),
        "TMPDIR": str(home),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONPATH": str(code_dir),
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONIOENCODING": "utf-8",
        "PYTHONNOUSERSITE": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
    }
