"""The public part of a chapter's checks, shipped to students as the `selfcheck/` package."""
import ast
import json

from grader import paths
from grader.checks import references
from grader.sandbox.staging import data_files

from . import headers
from .regions import remove_hidden, remove_models

PACKAGE = "selfcheck"


# What a student runs: the package (`python -m selfcheck`, `verify`) and the demo's friendly error hook.
ENTRY_MODULES = ("__init__.py", "__main__.py", "friendly.py")


def _relative_imports(name):
    """The sibling modules `grader/checks/<name>` imports (`from . import x`, `from .x import y`), anywhere in it."""
    found = set()
    for node in ast.walk(ast.parse((paths.CHECKS / name).read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            candidates = [node.module] if node.module else [alias.name for alias in node.names]
            found.update(f"{module.split('.')[0]}.py" for module in candidates)
    return {module for module in found if (paths.CHECKS / module).is_file()}


def shipped_modules(chapter):
    """The modules a chapter's `selfcheck/` needs: the entry points, its probe and judge, and what they import."""
    needed, queue = set(), [*ENTRY_MODULES, chapter.probe_file.name, chapter.judge_file.name]
    while queue:
        name = queue.pop()
        if name not in needed:
            needed.add(name)
            queue.extend(_relative_imports(name) - needed)
    return tuple(sorted(needed))


def files(chapter, reference_document, generated=None):
    """{relative path: bytes} of the `selfcheck/` package for `chapter`: hidden regions removed, bug-model code
    replaced by `MODEL_CODE = None` (the visible cases' model results ship in reference.json), and the data files
    a shipped module declares (`DATA_FILES`, e.g. the trained copy model's weights: from `generated`, {path: bytes},
    when this build made it)."""
    out = {}
    for name in shipped_modules(chapter):
        source = paths.CHECKS / name
        text = remove_models(remove_hidden(source.read_text(encoding="utf-8")))
        out[f"{PACKAGE}/{name}"] = (headers.python(f"grader/checks/{name}") + text).encode()
        for data in data_files(f"grader.checks.{name[:-3]}"):
            out[f"{PACKAGE}/{data.name}"] = (generated or {}).get(data) or data.read_bytes()
    probe = chapter.checks.probe
    public = references.visible_only(reference_document, probe)
    out[f"{PACKAGE}/reference.json"] = dump_json(public)
    return out


def dump_json(document):
    """Deterministic, readable JSON bytes."""
    return (json.dumps(document, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n").encode()
