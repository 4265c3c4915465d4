"""Copy only the modules a worker needs into a private directory, and give it a minimal environment.

The worker imports `grader` from this copy only, so neither the repository nor anything else in
it (solutions, reference data, judges, other submissions, the gradebook) is visible to it. What is
copied: every `grader/sandbox/*.py`, the probe, `grader.checks.execute`, every `grader` module they
import (transitively, wherever the import statement is), and the `__init__.py` of each package on
the way. Package `__init__` files are copied but not followed: their lazy imports serve the
self-check, not the worker.
"""
import ast
import os
import shutil
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
ROOT_PACKAGE = "grader"
ALWAYS = ("grader.checks.execute",)
CHECKS_PACKAGE = "grader.checks"
CHAPTER_FOLDERS = REPO_ROOT / "grader" / "chapters"


def _package_folders(package):
    """The folders of `package` ("grader.checks"): its own, and for `grader.checks` every chapter folder that joins
    it (see `grader/checks/__init__.py`)."""
    own = REPO_ROOT.joinpath(*package.split("."))
    if package != CHECKS_PACKAGE:
        return [own]
    return [own, *sorted(p for p in CHAPTER_FOLDERS.glob("[0-9][0-9]_*") if p.is_dir())]


def module_path(name):
    """The repository file of module `name` (a package's `__init__.py`), or None."""
    parent, _, last = name.rpartition(".")
    folders = _package_folders(parent) if parent else [REPO_ROOT]
    for folder in folders:
        for candidate in (folder / f"{last}.py", folder / last / "__init__.py"):
            if candidate.is_file():
                return candidate
    return None


def _package_of(name, path):
    """The package that relative imports in module `name` (file `path`) start from."""
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def imported_modules(name):
    """Names of the `grader` modules that module `name` imports, anywhere in its code."""
    path = module_path(name)
    package = _package_of(name, path).split(".")
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            target = base + (node.module.split(".") if node.module else [])
            found.add(".".join(target))
            found.update(".".join(target + [alias.name]) for alias in node.names)
    return {module for module in found
            if (module == ROOT_PACKAGE or module.startswith(ROOT_PACKAGE + ".")) and module_path(module)}


def data_files(name):
    """The files beside module `name` that it declares as `DATA_FILES = ("file", ...)` (a literal), or ()."""
    path = module_path(name)
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "DATA_FILES" for t in node.targets):
            return tuple(path.parent / file for file in ast.literal_eval(node.value))
    return ()


def sandbox_modules():
    """The names of every `grader/sandbox/*.py` module but the package's `__init__`."""
    return [f"{__package__}.{path.stem}" for path in sorted(Path(__file__).parent.glob("*.py")) if path.stem != "__init__"]


def closure(modules, follow_packages=False):
    """`modules`, their parent packages and every `grader` module they import, transitively (sorted names).

    A package's `__init__` is followed only with `follow_packages`.
    """
    todo, needed = list(modules), set()
    while todo:
        name = todo.pop()
        if name in needed:
            continue
        needed.add(name)
        parts = name.split(".")
        parents = [".".join(parts[:depth]) for depth in range(1, len(parts))]
        if follow_packages:
            todo.extend(parents)
        else:
            needed.update(parents)
        if follow_packages or module_path(name).name != "__init__.py":
            todo.extend(imported_modules(name) - needed)
    return sorted(needed)


def needed_modules(probe_module):
    """Every module name the worker needs for `probe_module` (see the module docstring)."""
    return closure([probe_module, *ALWAYS, *sandbox_modules()])


def stage(destination, probe_module):
    """Copy what a worker for `probe_module` needs under `destination` (world-readable); return it."""
    if module_path(probe_module) is None or not probe_module.startswith(ROOT_PACKAGE + "."):
        raise ValueError(f"probe module {probe_module!r} is not a module of the {ROOT_PACKAGE} package")
    destination = Path(destination)
    destination.mkdir(mode=0o755, parents=True, exist_ok=True)
    destination.chmod(0o755)
    for name in needed_modules(probe_module):
        path = module_path(name)
        # Staged where the module's name says (a chapter's probe joins `grader/checks/` there): one flat package.
        home = destination.joinpath(*name.split(".")[:-1]) if path.name != "__init__.py" else destination.joinpath(*name.split("."))
        for source in (path, *data_files(name)):
            target = home / source.name
            for directory in reversed(target.relative_to(destination).parents[:-1]):
                (destination / directory).mkdir(mode=0o755, exist_ok=True)
                (destination / directory).chmod(0o755)
            shutil.copyfile(source, target)
            target.chmod(0o644)
    return destination


# Inherited when set: the worker runs the same torch kernels as the judge (e.g. `ATEN_CPU_CAPABILITY=default`).
PASSED_THROUGH = ("ATEN_CPU_CAPABILITY",)


def environment(code_dir, home, threads=1):
    """The whole environment of a worker: no inherited variables but the kernel choice, `threads` OpenMP/MKL
    threads (the chapter's budget; one by default), a fixed hash seed."""
    passed = {name: os.environ[name] for name in PASSED_THROUGH if name in os.environ}
    return {**passed,
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": str(home),
        "TMPDIR": str(home),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONPATH": str(code_dir),
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONIOENCODING": "utf-8",
        "PYTHONNOUSERSITE": "1",
        "OMP_NUM_THREADS": str(threads),
        "MKL_NUM_THREADS": str(threads),
        "OPENBLAS_NUM_THREADS": str(threads),
    }
