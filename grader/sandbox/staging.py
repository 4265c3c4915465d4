"""Copy only the modules a worker needs into a private directory, and give it a minimal environment.

The worker imports `grader` from this copy only, so neither the repository nor anything else in
it (solutions, reference data, judges, other submissions, the gradebook) is visible to it. What is
copied: every `grader/sandbox/*.py`, the probe, `grader.checks.execute`, every `grader` module they
import (transitively, wherever the import statement is), and the `__init__.py` of each package on
the way. Package `__init__` files are copied but not followed: their lazy imports serve the
self-check, not the worker. Each module's bytecode goes with it (from the repository's own `__pycache__`,
compiled there first if missing or stale), so the worker does not compile them at every start.
"""
import ast
import functools
import importlib.util
import json
import os
import py_compile
import shutil
import sys
import tempfile
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


def _statements(path):
    """What staging reads of a module file: [the modules its import statements name, as (relative level, dotted name,
    imported names), its `DATA_FILES` literal or []] (one parse of the file, statements only)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imports, data, pending = [], [], list(tree.body)
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "DATA_FILES" for t in node.targets):
            data = list(ast.literal_eval(node.value))
            break
    while pending:  # statements only: an import is a statement, wherever it is (a function, a branch, a try)
        node = pending.pop()
        if isinstance(node, ast.Import):
            imports += [[0, alias.name, []] for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            imports.append([node.level, node.module or "", [alias.name for alias in node.names]])
        else:
            for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                pending.extend(getattr(node, field, ()))
    return [imports, data]


class _ParseCache:
    """`_statements` of each module file, kept beside the bytecode (`__pycache__/staging.json`) and used again while
    the file's size and modification time are unchanged: parsing the ~40 staged modules cost each batch's start about
    50 ms (and parsing them twice, walking every expression, 0.2 s)."""

    def __init__(self, where):
        self.where = where
        self.entries = None
        self.changed = False

    FORMAT = 1  # of the file: {"format": FORMAT, "files": {path: [[size, mtime_ns], _statements(path)]}}

    def get(self, path):
        if self.entries is None:
            try:
                document = json.loads(self.where.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                document = None
            fresh = isinstance(document, dict) and document.get("format") == self.FORMAT
            self.entries = document["files"] if fresh and isinstance(document.get("files"), dict) else {}
        status = path.stat()
        stamp = [status.st_size, status.st_mtime_ns]
        entry = self.entries.get(str(path))
        if not (isinstance(entry, list) and len(entry) == 2 and entry[0] == stamp):
            entry = self.entries[str(path)] = [stamp, _statements(path)]
            self.changed = True
        return entry[1]

    def save(self):
        """Write the entries back if any was parsed again (atomically; not at all where the folder is read-only or
        this process writes no bytecode)."""
        if not self.changed or sys.dont_write_bytecode:
            return
        try:
            self.where.parent.mkdir(exist_ok=True)
            with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=self.where.parent, delete=False) as stream:
                json.dump({"format": self.FORMAT, "files": self.entries}, stream)
            os.replace(stream.name, self.where)
            self.changed = False
        except OSError:
            pass


_PARSED = _ParseCache(Path(importlib.util.cache_from_source(__file__)).with_name("staging.json"))


def imported_modules(name, find=module_path):
    """Names of the `grader` modules that module `name` imports, anywhere in its code (`find`: `module_path`, or a
    cached copy of it)."""
    path = find(name)
    package = _package_of(name, path).split(".")
    found = set()
    for level, module, names in _PARSED.get(path)[0]:
        base = package[: len(package) - level + 1] if level else []
        target = base + (module.split(".") if module else [])
        found.add(".".join(target))
        found.update(".".join(target + [alias]) for alias in names)
    return {module for module in found
            if (module == ROOT_PACKAGE or module.startswith(ROOT_PACKAGE + ".")) and find(module)}


def data_files(name):
    """The files beside module `name` that it declares as `DATA_FILES = ("file", ...)` (a literal), or ()."""
    path = module_path(name)
    return tuple(path.parent / file for file in _PARSED.get(path)[1])


def sandbox_modules():
    """The names of every `grader/sandbox/*.py` module but the package's `__init__`."""
    return [f"{__package__}.{path.stem}" for path in sorted(Path(__file__).parent.glob("*.py")) if path.stem != "__init__"]


def closure(modules, follow_packages=False):
    """`modules`, their parent packages and every `grader` module they import, transitively (sorted names).

    A package's `__init__` is followed only with `follow_packages`.
    """
    todo, needed = list(modules), set()
    find = functools.lru_cache(maxsize=None)(module_path)  # each name looked up once (it was asked 330 times for 40)
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
        if follow_packages or find(name).name != "__init__.py":
            todo.extend(imported_modules(name, find) - needed)
    _PARSED.save()
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
            _copy(source, target)
        bytecode = _bytecode(path)
        if bytecode is not None:
            (home / "__pycache__").mkdir(mode=0o755, exist_ok=True)
            _copy(bytecode, home / "__pycache__" / bytecode.name)
    fonts = _font_list()
    if fonts is not None:  # beside the `grader` package; the worker copies it below its HOME (worker.seed_font_list)
        _copy(fonts, destination / fonts.name)
    return destination


def _font_list():
    """The host's matplotlib font list (`fontlist-v*.json` in its cache folder, as matplotlib finds it on Linux), or
    None. A worker starts with an empty HOME, so its matplotlib (chapter 14's workers import pyplot) scanned every
    system font at every start: 0.15 s here, seconds on a machine with many fonts. The list names font files only."""
    folder = os.environ.get("MPLCONFIGDIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "matplotlib")
    try:
        found = sorted(Path(folder).glob("fontlist-v*.json"))
    except OSError:
        return None
    return found[-1] if found and found[-1].is_file() else None


def _copy(source, target):
    """Copy `source` to `target` (world-readable), keeping its modification time: a module's bytecode is valid for
    its source only if they agree."""
    shutil.copyfile(source, target)
    target.chmod(0o644)
    status = source.stat()
    os.utime(target, ns=(status.st_atime_ns, status.st_mtime_ns))


def _bytecode(source):
    """The bytecode cache of module file `source` (where Python keeps it, beside the source), compiled now if it is
    missing or stale; None if it cannot be written (a read-only checkout) or this process writes no bytecode
    (PYTHONDONTWRITEBYTECODE, as on Gradescope): the worker then compiles the module.

    The worker never writes bytecode (PYTHONDONTWRITEBYTECODE: the staged folder is read-only to it), so without these
    it compiled every staged module at every start: 40-60 ms of each batch's start."""
    cached = Path(importlib.util.cache_from_source(str(source)))
    try:
        if not _bytecode_fresh(cached, source):
            if sys.dont_write_bytecode:
                return None
            py_compile.compile(str(source), cfile=str(cached), doraise=True,
                               invalidation_mode=py_compile.PycInvalidationMode.TIMESTAMP)
        return cached if _bytecode_fresh(cached, source) else None
    except (OSError, py_compile.PyCompileError):
        return None


def _bytecode_fresh(cached, source):
    """Whether `cached` is this interpreter's timestamp-checked bytecode of `source` as it is now."""
    try:
        with open(cached, "rb") as stream:
            header = stream.read(16)
        status = source.stat()
    except OSError:
        return False
    return (len(header) == 16 and header[:4] == importlib.util.MAGIC_NUMBER and header[4:8] == bytes(4)
            and int.from_bytes(header[8:12], "little") == int(status.st_mtime) & 0xFFFFFFFF
            and int.from_bytes(header[12:16], "little") == status.st_size & 0xFFFFFFFF)


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
        "MPLCONFIGDIR": f"{home}/matplotlib",  # where worker.seed_font_list puts the staged font list
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONIOENCODING": "utf-8",
        "PYTHONNOUSERSITE": "1",
        "OMP_NUM_THREADS": str(threads),
        "MKL_NUM_THREADS": str(threads),
        "OPENBLAS_NUM_THREADS": str(threads),
    }
