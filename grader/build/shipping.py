"""The public part of a chapter's checks, shipped to students as the `selfcheck/` package."""
import json

from grader import paths
from grader.checks import judge_module, references

from . import headers
from .regions import remove_hidden

PACKAGE = "selfcheck"
# Modules every chapter ships; the chapter adds its own chNN_probe.py and chNN_judge.py.
COMMON = ("__init__.py", "__main__.py", "compare.py", "errortext.py", "execute.py", "framework.py", "friendly.py",
          "ipython.py", "loading.py", "references.py", "results.py", "runner.py", "tensors.py", "tracks.py")


def files(chapter, reference_document):
    """{relative path: bytes} of the `selfcheck/` package for `chapter`, hidden regions removed."""
    number = chapter.number
    out = {}
    for name in COMMON + (f"ch{number}_probe.py", f"ch{number}_judge.py"):
        source = paths.CHECKS / name
        text = remove_hidden(source.read_text(encoding="utf-8"))
        out[f"{PACKAGE}/{name}"] = (headers.python(f"grader/checks/{name}") + text).encode()
    probe = judge_module(chapter.id).probe
    public = references.visible_only(reference_document, probe)
    out[f"{PACKAGE}/reference.json"] = dump_json(public)
    return out


def dump_json(document):
    """Deterministic, readable JSON bytes."""
    return (json.dumps(document, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n").encode()
