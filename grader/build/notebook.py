"""The notebook track: the chapter's nbgrader *source* notebook (solutions and hidden tests included)."""
import json


from . import chaptertext, codechange, headers
from .regions import BEGIN_HIDDEN, END_HIDDEN

KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


def _nbgrader(grade_id, *, solution=False, grade=False, locked=False, points=None):
    """nbgrader cell metadata (schema version 3, as nbgrader 0.9 writes it)."""
    meta = {"grade": grade, "grade_id": grade_id, "locked": locked, "schema_version": 3, "solution": solution, "task": False}
    if points is not None:
        meta["points"] = points
    return meta


def _markdown(cell_id, text):
    return {"cell_type": "markdown", "id": cell_id, "metadata": {}, "source": text}


def _code(cell_id, text, nbgrader=None):
    metadata = {"nbgrader": nbgrader} if nbgrader else {}
    return {"cell_type": "code", "execution_count": None, "id": cell_id, "metadata": metadata, "outputs": [], "source": text}


def check_cell(chapter, check):
    """A graded test cell: visible checks call `selfcheck.verify`; hidden ones live in a hidden-tests region."""
    kind = "공개 검사" if check.visible else "숨겨진 검사 — 채점할 때 실행됩니다"
    lines = [f"# [{check.points:g}점, {kind}] {check.title}"]
    if check.visible:
        lines += ["from selfcheck import verify", "", f'verify("{chapter.id}", "{check.name}", globals())']
    else:
        lines += [
            BEGIN_HIDDEN,
            "from grader.checks import verify as verify_hidden",
            "",
            f'verify_hidden("{chapter.id}", "{check.name}", globals())',
            END_HIDDEN,
        ]
    metadata = _nbgrader(check.name, grade=True, locked=True, points=check.points)
    return _code(check.name, "\n".join(lines), metadata)


def cells(chapter):
    """The notebook's cells, in the order of the chapter text."""
    out = []
    for index, (kind, value) in enumerate(chaptertext.parts(chapter)):
        if kind == "markdown":
            out.append(_markdown(f"text-{index:02d}", value))
        elif value == "diff":
            out.append(_markdown("code-change", codechange.markdown(chapter)))
        elif value == "solution":
            source = chapter.module.read_text(encoding="utf-8").rstrip("\n")
            out.append(_code("answer", source, _nbgrader("answer", solution=True)))
        elif value == "demo":
            out.append(_code("demo", chaptertext.demo_for_notebook(chapter).rstrip("\n"), _nbgrader("demo", locked=True)))
        elif value == "checks":
            out.extend(check_cell(chapter, check) for check in chapter.checks.checks)
    return out


def source_notebook(chapter):
    """The nbgrader source notebook as deterministic JSON bytes."""
    document = {
        "cells": [_split_source(cell) for cell in cells(chapter)],
        "metadata": {
            "generated": headers.note(f"solutions/{chapter.id}"),
            "kernelspec": KERNELSPEC,
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    return (json.dumps(document, ensure_ascii=False, indent=1, sort_keys=True) + "\n").encode()


def _split_source(cell):
    """Jupyter's on-disk form: the source as a list of lines."""
    cell = dict(cell)
    cell["source"] = cell["source"].splitlines(keepends=True)
    return cell
