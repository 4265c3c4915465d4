"""The "코드 변화" section: what a chapter adds to `transformer.py`, as a diff against the previous chapter.

The new side is the chapter's stub (signature, docstring, TODO, `raise NotImplementedError`), never its
solution: the section tells the student where to write, not what. The old side is the previous chapter
solved, which the student already has.
"""
import difflib

from grader import chapters

from .regions import clear_solutions, drop_markers


def finished_module(chapter):
    """The chapter's `transformer.py` with its solutions in place and the region markers removed."""
    return drop_markers(chapter.module.read_text(encoding="utf-8"))


def stub_module(chapter):
    """The chapter's `transformer.py` as students receive it: earlier chapters solved, this one's regions blanked."""
    return clear_solutions(chapter.module.read_text(encoding="utf-8"))


def code_change(chapter):
    """A unified diff of `transformer.py` from the previous chapter solved (or from nothing) to this chapter's stub."""
    before_chapter = chapters.previous(chapter)
    before = finished_module(before_chapter) if before_chapter else ""
    before_name = f"{before_chapter.id}/transformer.py" if before_chapter else "/dev/null"
    lines = difflib.unified_diff(
        before.splitlines(keepends=True),
        stub_module(chapter).splitlines(keepends=True),
        fromfile=before_name,
        tofile=f"{chapter.id}/transformer.py",
    )
    return "".join(lines)


def markdown(chapter):
    """The Korean section that shows the code change."""
    since = chapters.previous(chapter)
    intro = (
        f"{since.id} 장의 `transformer.py`와 비교해 이번 장에서 바뀌는 부분이다. `+` 줄 가운데 `TODO` 아래의 "
        "`raise NotImplementedError(…)` 자리를 채운다."
        if since
        else "이번 장에서 `transformer.py`를 처음 만든다. `TODO` 아래의 `raise NotImplementedError(…)` 자리를 채운다."
    )
    return f"## 코드 변화\n\n{intro}\n\n```diff\n{code_change(chapter)}```\n"
