"""Where things live in the repository."""
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = ROOT / "solutions"
EXERCISES = ROOT / "exercises"
RELEASE = ROOT / "release"
GRADER = ROOT / "grader"
CHECKS = GRADER / "checks"
CHAPTERS = GRADER / "chapters"
NBGRADER_SOURCE = GRADER / "nbgrader_source"
REFERENCE = GRADER / "reference"
NBGRADER_CONFIG = ROOT / "nbgrader_config.py"


def check_modules():
    """Every source file of the `grader.checks` package: the framework's and each chapter's probe and judge."""
    return sorted([*CHECKS.glob("*.py"), *CHAPTERS.glob("[0-9][0-9]_*/*.py")])
