"""Chapter checks, shared by the student self-check, the notebook's test cells and the grader.

Each chapter NN contributes `chNN_probe.py` (runs next to student code) and `chNN_judge.py`
(judges plain-data traces and declares `CHAPTER`, see `contract.py`). This package is copied, minus
hidden-test regions and other chapters, into every student folder as `selfcheck/`, so all ways of
checking run the same code. Its front door: the file-name rule (`naming`), the chapters found
(`discovery`) and a notebook's `verify()` (`verifying`), each imported on first use: the sandbox
copies this file without following its imports.

In the repository each chapter's probe and judge live with the chapter, in `grader/chapters/NN_name/`; those folders
join this package's `__path__` here, as a student's `selfcheck/` joins its chapter folder to `_selfcheck/`.
"""
from pathlib import Path as _Path

_CHAPTER_FOLDERS = _Path(__file__).resolve().parent.parent / "chapters"
if _CHAPTER_FOLDERS.is_dir():
    __path__ += sorted(str(folder) for folder in _CHAPTER_FOLDERS.glob("[0-9][0-9]_*") if folder.is_dir())
DISCOVERY = ("chapter", "chapter_ids", "judge_module")
NAMING = ("CHAPTER_FILE", "HERE", "FOLDERS", "find", "judge_file", "judge_module_name", "probe_file", "probe_module_name")


def __getattr__(name):
    """`grader.checks.chapter`, `.verify`, `.probe_file` … from the module that defines it, imported now."""
    if name in DISCOVERY:
        from . import discovery as home
    elif name in NAMING:
        from . import naming as home
    elif name == "verify":
        from . import verifying as home
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(home, name)
