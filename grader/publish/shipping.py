"""The public part of a chapter's checks, shipped to students as the `selfcheck/` package."""
import ast
import json

from grader import paths
from grader.checks import find, given, references
from grader.sandbox.staging import data_files

from . import headers
from .regions import remove_hidden, remove_models

PACKAGE = "selfcheck"
SHARED = "_selfcheck"  # exercises/_selfcheck/: the framework once, joined to each chapter's package by its __init__.py
REFERENCE = "reference.json"


# What a student runs: the package (`python -m selfcheck`, `verify`) and the demo's friendly error hook.
ENTRY_MODULES = ("__init__.py", "__main__.py", "friendly.py")


def _relative_imports(name):
    """The sibling modules module file `name` of `grader.checks` imports (`from . import x`, `from .x import y`)."""
    found = set()
    for node in ast.walk(ast.parse(find(name).read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            candidates = [node.module] if node.module else [alias.name for alias in node.names]
            found.update(f"{module.split('.')[0]}.py" for module in candidates)
    return {module for module in found if find(module)}


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
        source = find(name)
        text = remove_models(remove_hidden(source.read_text(encoding="utf-8")))
        out[f"{PACKAGE}/{name}"] = (headers.python(source.relative_to(paths.ROOT).as_posix()) + text).encode()
        for data in data_files(f"grader.checks.{name[:-3]}"):
            out[f"{PACKAGE}/{data.name}"] = (generated or {}).get(data) or data.read_bytes()
    probe = chapter.checks.probe
    public = references.visible_only(reference_document, probe)
    out[f"{PACKAGE}/{REFERENCE}"] = dump_json(public)
    return out


def is_chapter_specific(chapter, relative):
    """Whether package file `relative` (`selfcheck/…`) belongs to this chapter alone: its probe, judge, references and
    the units it ships written."""
    return relative.split("/", 1)[1] in (chapter.probe_file.name, chapter.judge_file.name, REFERENCE,
                                         given.file_name(chapter.number))


def exercise_path(chapter, relative):
    """Where package file `relative` lives under `exercises/`: the chapter's `selfcheck/` or the shared folder."""
    if is_chapter_specific(chapter, relative):
        return f"{chapter.id}/{relative}"
    return f"{SHARED}/{relative.split('/', 1)[1]}"


def split_package(chapter, package):
    """{path under `exercises/`: bytes}: the package's framework files in the shared folder, the chapter's own in
    `NN/selfcheck/` together with the `__init__.py` that joins the two."""
    out = {exercise_path(chapter, relative): data for relative, data in package.items()}
    out[f"{chapter.id}/{PACKAGE}/__init__.py"] = chapter_init(chapter).encode()
    return out


CHAPTER_INIT = '''"""{chapter} 장의 selfcheck: 이 장의 검사만 여기 있고, 공통 검사 틀은 exercises/{shared}/에 있습니다."""
from pathlib import Path as _Path

_SHARED = _Path(__file__).resolve().parent.parent.parent / "{shared}"
if not (_SHARED / "__init__.py").is_file():
    import sys as _sys

    _MESSAGE = (
        f"selfcheck의 공통 검사 틀을 찾지 못했습니다: {{_SHARED}} 폴더가 없습니다.\\n"
        "장 폴더만 따로 복사하면 검사가 돌지 않습니다. exercises 폴더 전체({shared} 폴더 포함)를 복사해서 "
        "그 안의 장 폴더에서 실행하거나, 노트북({chapter}.ipynb)으로 푸세요: 노트북은 파일 하나만으로 검사됩니다."
    )
    _MAIN = getattr(_sys.modules.get("__main__"), "__file__", None)
    if _sys.argv[:1] == ["-m"] or (_MAIN and _Path(_MAIN).resolve().parent == _Path(__file__).resolve().parent.parent):
        raise SystemExit(_MESSAGE)  # `python -m selfcheck`, demo.py: the Korean message alone, no traceback
    raise ImportError(_MESSAGE)  # pytest (conftest.py shows it alone), a notebook (its setup cell has a copy)
__path__.append(str(_SHARED))  # noqa: F821  the framework's modules are this package's modules
exec(compile((_SHARED / "__init__.py").read_text(encoding="utf-8"), str(_SHARED / "__init__.py"), "exec"))
'''


def chapter_init(chapter):
    """The chapter package's `__init__.py`: find the shared folder (or say in Korean what to copy), extend the
    package's `__path__` with it and run the framework's `__init__.py` as this package's own."""
    return headers.python("grader/publish/shipping.py") + CHAPTER_INIT.format(chapter=chapter.id, shared=SHARED)


def dump_json(document):
    """Deterministic, readable JSON bytes."""
    return (json.dumps(document, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n").encode()
