"""The public part of a chapter's checks, shipped to students as the `selfcheck/` package."""
import json

from grader import paths
from grader.checks import is_chapter_file, references

from . import headers
from .regions import remove_hidden

PACKAGE = "selfcheck"


def common_modules():
    """The framework's modules, which every chapter ships (every .py in grader/checks but the chapters' own)."""
    return tuple(sorted(p.name for p in paths.CHECKS.glob("*.py") if not is_chapter_file(p.name)))


def files(chapter, reference_document):
    """{relative path: bytes} of the `selfcheck/` package for `chapter`, hidden regions removed."""
    out = {}
    for name in common_modules() + (chapter.probe_file.name, chapter.judge_file.name):
        source = paths.CHECKS / name
        text = remove_hidden(source.read_text(encoding="utf-8"))
        out[f"{PACKAGE}/{name}"] = (headers.python(f"grader/checks/{name}") + text).encode()
    probe = chapter.checks.probe
    public = references.visible_only(reference_document, probe)
    out[f"{PACKAGE}/reference.json"] = dump_json(public)
    return out


def dump_json(document):
    """Deterministic, readable JSON bytes."""
    return (json.dumps(document, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n").encode()
