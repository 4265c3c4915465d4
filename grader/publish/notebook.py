"""The notebook track: the chapter's nbgrader *source* notebook (solutions and hidden tests included)."""
import json

from grader import chapters
from grader.checks.loading import DEMO_MARK, fingerprint

from . import chaptertext, codechange, embedded, headers
from .regions import BEGIN_HIDDEN, END_HIDDEN

ANSWER_NOTE = (
    "## 작성할 코드\n\n아래 답안 셀에서 `TODO` 표시가 있는 함수의 본문을 채운다. 함수 이름, 인자, docstring은 그대로 둔다. "
    "도우미 함수는 답안 셀이나 새로 추가한 코드 셀에 써도 된다: 채점은 노트북을 위에서부터 실행한 그대로, "
    "직접 쓰거나 추가한 코드 셀을 모두 포함한다 (데모 셀과 검사 셀은 제외). `%`·`!` 명령은 채점할 때 건너뛴다.\n"
)
CHECKS_NOTE = (
    "## 스스로 점검\n\n아래 검사 셀을 실행하면 공개 검사마다 통과 여부와 한국어 진단이 나온다. 노트북 하나만 있어도 된다 "
    "(Colab, 노트북 하나뿐인 폴더): 바로 아래의 읽기 전용 '자가 점검 준비' 셀이 노트북에 담긴 공개 검사를 풀어 주므로, "
    "노트북을 위에서부터 차례로 실행하면 된다 (Jupyter: Run All, Colab: 런타임 → 모두 실행). "
    "숨겨진 검사는 채점할 때만 실행된다.\n"
)
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


def _nbgrader(grade_id, *, solution=False, grade=False, locked=False, points=None):
    """nbgrader cell metadata (schema version 3, as nbgrader 0.9 writes it)."""
    meta = {"grade": grade, "grade_id": grade_id, "locked": locked, "schema_version": 3, "solution": solution, "task": False}
    if points is not None:
        meta["points"] = points
    return meta


def _markdown(cell_id, text):
    return {"cell_type": "markdown", "id": cell_id, "metadata": {}, "source": text}


def _code(cell_id, text, nbgrader=None, extra=None):
    metadata = {"nbgrader": nbgrader} if nbgrader else {}
    metadata.update(extra or {})
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


def setup_cell(package):
    """The read-only, ungraded cell that unpacks the embedded `selfcheck` package when it is not importable."""
    return _code(embedded.CELL_ID, embedded.setup_source(package).rstrip("\n"), _nbgrader(embedded.CELL_ID, locked=True),
                 embedded.METADATA)


def demo_source(chapter):
    """The demo cell's code: the course's first line (`DEMO_MARK`), then the chapter's demo script."""
    return f"{DEMO_MARK}\n{chaptertext.demo_for_notebook(chapter).rstrip()}"


def course_document():
    """`loading.COURSE_FILE`: the cells an exported notebook's reading needs to know (see `loading.DATA_FILES`), each by its
    line count and hash (`fingerprint`), a text cell also by its first line's: every chapter's demo, and the text
    cells Colab's download would end early (they hold a triple quote, or end in a quote)."""
    demos, texts = [], []
    for chapter in chapters.all_chapters():
        for cell in cells(chapter):
            lines = cell["source"].splitlines()
            if cell["cell_type"] == "code" and cell["id"] == "demo":
                demos.append({"chapter": chapter.id, "lines": len(lines), "sha256": fingerprint(lines)})
            elif cell["cell_type"] == "markdown" and ('"""' in cell["source"] or cell["source"].rstrip().endswith('"')):
                texts.append({"chapter": chapter.id, "first": fingerprint(lines[:1]), "lines": len(lines),
                              "sha256": fingerprint(lines)})
    return {"_generated": headers.note("solutions/ by grader/publish/notebook.py"), "demos": demos, "texts": texts}


def cells(chapter, package=None):
    """The notebook's cells, in the order of the chapter text; with `package` ({`selfcheck/…`: bytes}) the check cells
    are preceded by the setup cell carrying it."""
    out = []
    for index, (kind, value) in enumerate(chaptertext.parts(chapter)):
        if kind == "markdown":
            out.append(_markdown(f"text-{index:02d}", value))
        elif value == "diff":
            out.append(_markdown("code-change", codechange.markdown(chapter)))
        elif value == "solution":
            out.append(_markdown("answer-note", ANSWER_NOTE))
            source = chapter.module.read_text(encoding="utf-8").rstrip("\n")
            out.append(_code("answer", source, _nbgrader("answer", solution=True)))
        elif value == "demo":
            out.append(_code("demo", demo_source(chapter), _nbgrader("demo", locked=True)))
        elif value == "checks":
            out.append(_markdown("checks-note", CHECKS_NOTE))
            if package:
                out.append(setup_cell(package))
            out.extend(check_cell(chapter, check) for check in chapter.checks.checks)
    return out


def source_notebook(chapter, package=None):
    """The nbgrader source notebook as deterministic JSON bytes (with the embedded `selfcheck` package, if given)."""
    document = {
        "cells": [_split_source(cell) for cell in cells(chapter, package)],
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
