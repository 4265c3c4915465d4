"""No import circles among the hand-written modules of `grader/`, module by module and package by package.

Imports are read with `ast` (also those inside functions: a deferred import is still a dependency), so a circle
is named before it bites at import time. Generated folders (shipped copies, references, demo answers) are not ours.
"""
import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GENERATED = ("grader/nbgrader_source", "grader/reference", "grader/demo_class/answers")


def module_name(path):
    """`grader/checks/loading.py` → "grader.checks.loading"; a package's `__init__.py` → the package; a chapter's
    `grader/chapters/NN_name/chNN_judge.py` → "grader.checks.chNN_judge" (chapter folders join `grader.checks`)."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    if parts[:2] == ("grader", "chapters") and len(parts) == 4:
        return f"grader.checks.{parts[-1]}"
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def hand_written():
    """{module name: path} of every hand-written module under grader/."""
    found = {}
    for path in sorted((ROOT / "grader").rglob("*.py")):
        if not path.relative_to(ROOT).as_posix().startswith(GENERATED):
            found[module_name(path)] = path
    return found


def imported(path, name, known):
    """The known modules `path` (module `name`) imports; `from P import M` counts as M when M is a module."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package if node.level else ""
            source = ".".join(part for part in (base, node.module) if part)
            targets.update(f"{source}.{alias.name}" if f"{source}.{alias.name}" in known else source
                           for alias in node.names)
    return {target for target in targets if target in known and target != name}


def graph():
    """{module: the hand-written modules it imports}."""
    known = hand_written()
    return {name: imported(path, name, known) for name, path in known.items()}


def layer(name):
    """The part of grader/ a module belongs to: "grader.checks" for grader.checks.loading, "grader.chapters" alone."""
    return ".".join(name.split(".")[:2])


def layers(edges):
    """The module graph folded onto the parts of grader/ (a part importing itself is no circle)."""
    folded = {}
    for name, targets in edges.items():
        folded.setdefault(layer(name), set()).update(layer(t) for t in targets if layer(t) != layer(name))
    return folded


def circles(edges):
    """Every strongly connected group of more than one node (Tarjan), each sorted: the import circles."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while not group or group[-1] != node:
                group.append(stack.pop())
                on_stack.discard(group[-1])
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_the_reader_sees_relative_and_deferred_imports(tmp_path):
    """The parser resolves `from . import x`, `from ..y import z` and an import inside a function."""
    known = {"grader.checks", "grader.checks.loading", "grader.checks.ipython", "grader.report", "grader.report.page"}
    code = "from . import ipython\nfrom ..report.page import x\ndef f():\n    from grader.checks import loading\n"
    path = tmp_path / "loading.py"
    path.write_text(code, encoding="utf-8")
    assert imported(path, "grader.checks.loading", known) == {"grader.checks.ipython", "grader.report.page"}


def test_a_circle_is_found_and_named():
    """Two modules importing each other form a circle; a chain does not."""
    assert circles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b"]]
    assert circles({"a": {"b"}, "b": {"c"}, "c": set()}) == []
    assert layers({"grader.report.preview": {"grader.grading.judging"}, "grader.grading.judging": {"grader.report"}}) \
        == {"grader.report": {"grader.grading"}, "grader.grading": {"grader.report"}}


@pytest.mark.parametrize("level", ["modules", "packages"])
def test_no_import_circles(level):
    """No hand-written module (and no part of grader/: checks, report, grading, chapters…) imports itself back."""
    edges = graph()
    assert len(edges) > 100, "the reader found too few modules"
    found = circles(edges if level == "modules" else layers(edges))
    assert not found, "import circles: " + "; ".join(" ↔ ".join(group) for group in found)


@pytest.mark.parametrize("package", ["grader", "grader/checks"])
def test_staged_package_front_doors_import_nothing_when_loaded(package):
    """The sandbox stager copies `grader/` and `grader/checks/` `__init__.py` without following their imports, so a
    module-level import of a project module there would be missing in the sandbox (the worker fails to start); the
    standard library is always there."""
    tree = ast.parse((ROOT / package / "__init__.py").read_text(encoding="utf-8"))

    def project(node):
        names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else [node.module or ""]
        return getattr(node, "level", 0) > 0 or any(name.split(".")[0] not in sys.stdlib_module_names for name in names)

    eager = [node.lineno for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom)) and project(node)]
    assert not eager, f"{package}/__init__.py imports at load (lines {eager}); import inside a function instead"
