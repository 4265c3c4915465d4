"""The file-name rule of a chapter's check modules (`chNN_probe.py`, `chNN_judge.py`), written here only."""
import re
import sys
from pathlib import Path

# The package's own folder, its first `__path__` entry: `grader/checks/`, or in a student's copy the chapter's
# `selfcheck/` (its probe and judge), never `exercises/_selfcheck/` where this module's file lies.
HERE = Path(sys.modules[__package__].__path__[0]).resolve()
CHAPTER_FILE = re.compile(r"^ch(\d\d)_(probe|judge)\.py$")


def probe_file(number):
    """The probe module's file name of chapter `number` ("01")."""
    return f"ch{number}_probe.py"


def judge_file(number):
    """The judge module's file name of chapter `number` ("01")."""
    return f"ch{number}_judge.py"


def probe_module_name(number):
    """The importable name of chapter `number`'s probe (what the sandbox workers import)."""
    return f"{__package__}.{probe_file(number)[:-3]}"


def judge_module_name(number):
    """The importable name of chapter `number`'s judge."""
    return f"{__package__}.{judge_file(number)[:-3]}"
