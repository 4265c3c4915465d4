"""Chapter checks, shared by the student self-check, the notebook's test cells and the grader.

Each chapter NN contributes `chNN_probe.py` (runs next to student code) and `chNN_judge.py`
(judges plain-data traces and declares `CHAPTER`, see `contract.py`). This package is copied, minus
hidden-test regions and other chapters, into every student folder as `selfcheck/`, so all ways of
checking run the same code. Its front door: the file-name rule (`naming`), the chapters found
(`discovery`) and a notebook's `verify()` (`verifying`).
"""
from .discovery import chapter, chapter_ids, judge_module
from .naming import CHAPTER_FILE, HERE, judge_file, judge_module_name, probe_file, probe_module_name
from .verifying import verify

__all__ = ["CHAPTER_FILE", "HERE", "chapter", "chapter_ids", "judge_file", "judge_module", "judge_module_name",
           "probe_file", "probe_module_name", "verify"]
