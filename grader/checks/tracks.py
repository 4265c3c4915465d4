"""Wording that depends on how the student works: a `.py` file (`transformer.py`) or a notebook (cells).

Judges write their diagnoses for the `.py` track; `worded` rewrites the few phrases that name the file,
at the moment a result is shown (self-check table, notebook check cell, pytest, feedback). A notebook exported as a
`.py` file (Colab's download) is the notebook track: the student wrote it in cells and has no `transformer.py`.
"""
import dataclasses

from .loading import EXPORTED

PY, NOTEBOOK = "py", "notebook"

NOTEBOOK_WORDING = {
    "transformer.py의 TODO": "답안 셀의 TODO",  # "TODO를 채우세요", "TODO(02)를 채우세요", …
    "transformer.py에서 TODO": "답안 셀에서 TODO",
    "파일 전체가 오류 없이 실행되는지": "노트북의 코드 셀이 위에서부터 차례로 오류 없이 실행되는지",
}


def track_of(path, notes=()):
    """NOTEBOOK for a `.ipynb` path or a `.py` file read as an exported notebook (its load's `notes` hold
    `loading.EXPORTED`), else PY."""
    return NOTEBOOK if str(path).lower().endswith(".ipynb") or EXPORTED in notes else PY


def worded(message, track):
    """`message` in the words of `track`."""
    if track == NOTEBOOK:
        for py_words, notebook_words in NOTEBOOK_WORDING.items():
            message = message.replace(py_words, notebook_words)
    return message


def results_for(results, track):
    """CheckResults with their messages in the words of `track`."""
    return [dataclasses.replace(r, message=worded(r.message, track)) for r in results]
