"""The course's chapters: one folder per chapter in `solutions/`, in order, and every file that belongs to one.

A chapter lives in three folders: `solutions/NN_name/` (solution, demo, chapter text), `grader/chapters/NN_name/`
(its probe and judge, which join the `grader.checks` package) and `tests/chapters/chNN/` (fixtures and expectations).
`ChapterSource` is the one place (with `grader.checks` for the checks' file names) that knows where a
chapter's files live; `checks` is its loaded contract.
"""
import re
from dataclasses import dataclass
from pathlib import Path

from grader import checks as checks_package
from grader import paths

CHAPTER_DIR = re.compile(r"^(\d\d)_[a-z0-9_]+$")


class UnknownChapter(ValueError):
    """A chapter id that matches no folder in `solutions/`."""


@dataclass(frozen=True)
class ChapterSource:
    """One chapter's source folder: solution module, demo script and Korean text."""

    id: str
    folder: Path

    @property
    def number(self):
        return self.id[:2]

    @property
    def module(self):
        return self.folder / "transformer.py"

    @property
    def demo(self):
        return self.folder / "demo.py"

    @property
    def text(self):
        return self.folder / "chapter.md"

    @property
    def grader_folder(self):
        """The chapter's grader content: its probe and judge (`grader/chapters/NN_name/`)."""
        return paths.CHAPTERS / self.id

    @property
    def probe_file(self):
        return self.grader_folder / checks_package.probe_file(self.number)

    @property
    def judge_file(self):
        return self.grader_folder / checks_package.judge_file(self.number)

    @property
    def probe_module(self):
        """The probe's importable name (what sandbox workers import)."""
        return checks_package.probe_module_name(self.number)

    @property
    def reference_file(self):
        return paths.REFERENCE / f"{self.id}.json"

    @property
    def checks(self):
        """The chapter's `grader.checks.contract.Chapter` (cases, checks, bug texts, picture), checked on load."""
        return checks_package.chapter(self.id)


def all_chapters(root=None):
    """Every chapter under `solutions/`, sorted by number."""
    root = Path(root or paths.SOLUTIONS)
    folders = sorted(p for p in root.iterdir() if p.is_dir() and CHAPTER_DIR.match(p.name))
    return [ChapterSource(p.name, p) for p in folders]


def find(chapter_id, root=None):
    """The chapter named `01` or `01_attention`."""
    chapters = all_chapters(root)
    for chapter in chapters:
        if chapter_id in (chapter.id, chapter.number):
            return chapter
    known = ", ".join(c.id for c in chapters)
    raise UnknownChapter(f"unknown chapter {chapter_id!r} (known: {known})")


def previous(chapter, root=None):
    """The chapter before `chapter`, or None for the first one."""
    chapters = all_chapters(root)
    index = [c.id for c in chapters].index(chapter.id)
    return chapters[index - 1] if index > 0 else None
