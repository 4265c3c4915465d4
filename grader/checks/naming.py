"""The file-name rule of a chapter's check modules (`chNN_probe.py`, `chNN_judge.py`), written here only."""
import re
import sys
from pathlib import Path

# The package's folders, its `__path__`: in the repository `grader/checks/` and every `grader/chapters/NN_name/`; in a
# student's copy the chapter's `selfcheck/` (its probe and judge) and the shared `_selfcheck/`.
FOLDERS = tuple(Path(folder).resolve() for folder in sys.modules[__package__].__path__)
# The package's own folder, its first `__path__` entry: `grader/checks/`, or in a student's copy the chapter's
# `selfcheck/`, never `exercises/_selfcheck/` where this module's file lies.
HERE = FOLDERS[0]
CHAPTER_FILE = re.compile(r"^ch(\d\d)_(probe|judge)\.py$")


def find(file_name):
    """The path of `file_name` in the first of the package's folders that holds it, or None."""
    return next((folder / file_name for folder in FOLDERS if (folder / file_name).is_file()), None)


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
