"""The file-name rule of a chapter's check modules (`chNN_probe.py`, `chNN_judge.py`), written here only."""
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
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
