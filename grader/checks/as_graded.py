"""The submitted file alone: what the grader's sandbox sees, kept true in the student's own self-check.

The grader receives one file (`transformer.py` or the notebook) and runs it in an empty folder, so a module the
student keeps beside it (`from my_helpers import attention`) is a ModuleNotFoundError there. The self-check runs in
the student's folder, where Python would find that module. `folder_out_of_reach` hides the folder while the student's
source runs in process (`python -m selfcheck`), so the import fails as it does when graded; `local_modules` finds what
an already imported namespace took from that folder (`test_visible.py`'s `import transformer`, a notebook kernel's
`globals()`), so `verify` fails the way the grader does.
"""
import contextlib
import os
import sys
import types

# The course's own package (`selfcheck` in the student's folder, `grader` in this repository): never the student's module.
COURSE_PACKAGE = __name__.partition(".")[0]
# What every grading environment has besides the standard library (torch's and matplotlib's own dependencies aside):
# the packages the course uses, and IPython's and Colab's names a notebook may import (colab.py stands in for Colab's).
COURSE_MODULES = frozenset({"torch", "numpy", "matplotlib", "IPython", "google", COURSE_PACKAGE, "__future__"})


def _spellings(folder):
    """The ways a module's file under `folder` may begin: the folder as given and resolved, and each sys.path entry
    that resolves to it (a module's `__file__` is built from the entry it was found through), each ending in a
    separator. Plain string prefixes: no file of the thousands of imported modules is resolved."""
    folder = os.fspath(folder)
    resolved = os.path.realpath(folder)
    cwd = os.getcwd()
    spellings = {folder, resolved} | {entry or cwd for entry in sys.path
                                      if isinstance(entry, str) and os.path.realpath(entry or cwd) == resolved}
    return tuple(os.path.join(spelling, "") for spelling in spellings)


def _ours(name):
    return name == COURSE_PACKAGE or name.startswith(COURSE_PACKAGE + ".")


def _installed():
    """Where installed modules live (the interpreter's prefixes, its site-packages), as prefixes: a virtual environment
    made inside the student's folder holds torch, which is never the student's own module."""
    import site

    places = {sys.prefix, sys.base_prefix, sys.exec_prefix, *getattr(site, "getsitepackages", lambda: [])()}
    return tuple(os.path.join(place, "") for place in places if place)


def _from_folder(module, prefixes, installed=None):
    """Whether `module` is a file under one of `prefixes` (`_spellings`), neither installed nor the course's package."""
    path = getattr(module, "__file__", None)
    return (isinstance(path, str) and path.startswith(prefixes) and not path.startswith(installed or _installed())
            and not _ours(getattr(module, "__name__", "") or ""))


@contextlib.contextmanager
def folder_out_of_reach(folder):
    """While the block runs, modules of `folder` cannot be imported (its sys.path entries and its modules already
    imported are set aside, and put back afterwards)."""
    prefixes, installed = _spellings(folder), _installed()
    kept_path = list(sys.path)
    sys.path[:] = [entry for entry in sys.path
                   if not isinstance(entry, str) or os.path.join(entry or os.getcwd(), "") not in prefixes]
    hidden = {name: module for name, module in list(sys.modules.items()) if _from_folder(module, prefixes, installed)}
    for name in hidden:
        del sys.modules[name]
    try:
        yield
    finally:
        sys.path[:] = kept_path
        for name, module in list(sys.modules.items()):
            if _from_folder(module, prefixes, installed) and name not in hidden:
                del sys.modules[name]  # imported by the student's code after all (e.g. through importlib by path)
        sys.modules.update(hidden)


@contextlib.contextmanager
def no_input():
    """stdin at its end while the block runs, as the sandbox's is (/dev/null): `input()` raises EOFError in both."""
    kept = sys.stdin
    with open(os.devnull, encoding="utf-8") as empty:
        sys.stdin = empty
        try:
            yield
        finally:
            sys.stdin = kept


def local_modules(namespace, folder, own=None):
    """Names of the modules of `folder` that `namespace` (a module or a notebook's globals) holds or took names from,
    `own` (the namespace's own module name) aside, in a stable order."""
    values = namespace.values() if isinstance(namespace, dict) else vars(namespace).values()
    prefixes, installed = _spellings(folder), _installed()
    found = set()
    for value in list(values):
        name = getattr(value, "__module__", None)
        module = value if isinstance(value, types.ModuleType) else sys.modules.get(name if isinstance(name, str) else "")
        if module is not None and getattr(module, "__name__", None) != own and _from_folder(module, prefixes, installed):
            found.add(module.__name__)
    return sorted(found)


def import_line(path, module_name):
    """{"file", "line", "text"} of the first statement of file `path` that imports `module_name`, or None."""
    import ast

    try:
        with open(path, encoding="utf-8-sig") as handle:
            text = handle.read()
        tree = ast.parse(text)
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    for node in ast.walk(tree):
        names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                 else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
        if any(name == module_name or name.startswith(module_name + ".") for name in names):
            line = text.splitlines()[node.lineno - 1].strip()[:200]
            return {"file": os.path.basename(path), "line": node.lineno, "text": line}
    return None


def missing_module_outcome(namespace, folder, own=None):
    """The outcome the grader gets from a namespace that uses a module of `folder` (the ModuleNotFoundError it raises
    there, where the file imports it), or None."""
    found = local_modules(namespace, folder, own)
    if not found:
        return None
    error = {"type": "ModuleNotFoundError", "message": f"No module named '{found[0]}'"}
    path = None if isinstance(namespace, dict) else getattr(namespace, "__file__", None)
    where = import_line(path, found[0]) if isinstance(path, str) else None
    return {"load_error": {**error, "where": where} if where else error}


def imported_roots(source):
    """The top-level modules the submission's code imports (`import a.b`, `from a import b`; relative imports aside),
    read, not run: every cell of a notebook, IPython syntax rewritten as IPython would."""
    import ast

    from . import ipython
    from .loading import units

    roots = []
    for _, code in units(source):
        try:
            tree = ast.parse(code)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            try:  # IPython syntax: rewritten only then (importing IPython's rewriter costs the self-check its speed)
                tree = ast.parse(ipython.translate(code))
            except (SyntaxError, ValueError, RecursionError, MemoryError, ipython.IPythonMissing):
                continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                roots += [alias.name.partition(".")[0] for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                roots.append(node.module.partition(".")[0])
    return list(dict.fromkeys(roots))


def foreign_imports(source):
    """The modules the submission imports that are neither the standard library nor the course's (COURSE_MODULES):
    on the student's machine they may be installed, when graded they may not."""
    return [root for root in imported_roots(source)
            if root not in sys.stdlib_module_names and root not in COURSE_MODULES]


def foreign_note(name):
    """The self-check's warning for one such module (Korean)."""
    from .korean import attach

    return (f"`{name}`: {attach(name, '은')} 과정에서 쓰는 패키지(표준 라이브러리, torch, numpy, matplotlib)가 아닙니다. 여러분의 "
            "컴퓨터에는 있어도 채점 환경에는 없을 수 있고, 없으면 import에서 ModuleNotFoundError가 나 0점이 됩니다. 이 "
            "패키지 없이 쓰세요.")
