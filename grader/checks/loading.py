"""Read a student's code from a `.py` file or a filled-in notebook, and run it as a module.

Shipped to students as part of `selfcheck/` and used inside the grading sandbox; it never sees
reference data. Every failure is a `SubmissionError` with a Korean message for the student.
"""
import json
import types
from pathlib import Path

MAX_SUBMISSION_BYTES = 5 * 1024 * 1024


class SubmissionError(Exception):
    """A submission that cannot be read; the message is Korean and meant for the student."""


def read_source(path):
    """Return the Python source of a `.py` file or of a notebook's answer cells."""
    path = Path(path)
    try:
        size = path.stat().st_size
    except OSError:
        raise SubmissionError(f"제출 파일을 찾을 수 없습니다: {path.name}") from None
    if size > MAX_SUBMISSION_BYTES:
        raise SubmissionError(f"제출 파일이 너무 큽니다 ({size:,} 바이트, 최대 {MAX_SUBMISSION_BYTES:,}).")
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise SubmissionError("제출 파일이 UTF-8 텍스트가 아닙니다. 파일을 UTF-8로 다시 저장해 주세요.") from None
    if not text.strip():
        raise SubmissionError("제출 파일이 비어 있습니다.")
    if path.suffix == ".ipynb":
        return notebook_source(text)
    return text


def notebook_source(text):
    """Join the code of a notebook's answer cells (nbgrader `solution` cells, else every non-test code cell)."""
    try:
        notebook = json.loads(text)
        cells = [cell for cell in notebook["cells"] if cell.get("cell_type") == "code"]
    except (ValueError, KeyError, TypeError, AttributeError):
        raise SubmissionError("노트북 파일(.ipynb)이 손상되어 읽을 수 없습니다. Jupyter에서 열어 다시 저장해 주세요.") from None
    answers = [cell for cell in cells if _nbgrader(cell).get("solution")]
    if not answers:
        answers = [cell for cell in cells if not _nbgrader(cell).get("grade")]
    if not answers:
        raise SubmissionError("노트북에 코드 셀이 없습니다.")
    return "\n\n".join(_without_magics(_cell_text(cell)) for cell in answers)


def _nbgrader(cell):
    metadata = cell.get("metadata")
    nbgrader = metadata.get("nbgrader") if isinstance(metadata, dict) else None
    return nbgrader if isinstance(nbgrader, dict) else {}


def _cell_text(cell):
    source = cell.get("source", "")
    if isinstance(source, list):
        source = "".join(str(part) for part in source)
    if not isinstance(source, str):
        raise SubmissionError("노트북 셀의 내용이 올바른 형식이 아닙니다.")
    return source


def _without_magics(source):
    """Comment out IPython-only lines (`%magic`, `!shell`) so the cell is plain Python."""
    lines = source.splitlines()
    return "\n".join("# " + line if line.lstrip().startswith(("%", "!")) else line for line in lines)


def module_from_source(source, name="submission"):
    """Execute `source` as a fresh module named `name` and return it (exceptions propagate)."""
    module = types.ModuleType(name)
    module.__file__ = f"<{name}>"
    exec(compile(source, f"<{name}>", "exec"), module.__dict__)
    return module
