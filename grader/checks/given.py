"""Code a chapter ships written (the earlier chapters' units): the student's copy told apart from the course's, and
the course's put back while the chapter's cases run again.

A student may change what a chapter ships written (paste their own earlier chapter, edit `attention` while debugging).
The chapter's checks judge its own units: when such a change is what makes a check fail, the check is judged on a
second run with the course's version of the changed units (`course_code`), and a note names them. The course's units
come from the build (`chNN_given.json` beside the probe: the solution's definitions of `loading.given_names`), which
ships only with the chapter that gives them. Units are compared by their compiled code, not their text: the
course's source is compiled in the same interpreter (once per process) and its code objects compared with the live
function's, or a class's methods' (instructions, names, constants: comments, blank lines and formatting differ freely;
no source is read back).
"""
import contextlib
import inspect
import json
from pathlib import Path

PLAIN = (int, float, str, bool, type(None))
_UNITS = {}  # the units file's path → its units


def file_name(number):
    """The build's file of chapter `number`'s given units, beside its probe."""
    return f"ch{number}_given.json"


def units_of(probe):
    """{name: source} of the units the probe's chapter ships written, from the build's file beside it ({} if none);
    read once per process."""
    return _document(probe).get("units", {})


def _document(probe):
    path = Path(getattr(probe, "__file__", "") or ".").with_name(file_name(_number(probe)))
    if path not in _UNITS:
        try:
            _UNITS[path] = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError, TypeError):
            _UNITS[path] = {}
    return _UNITS[path]


def _number(probe):
    name = getattr(probe, "__name__", "").rsplit(".", 1)[-1]
    return name[2:4] if name.startswith("ch") else ""


_COMPILED = {}  # (probe file, unit name) → the course unit's code object, compiled once per process (see `prepare`)


def prepare(probe):
    """Compile the probe's chapter's given units now (the sandbox's warm worker does, so no child pays it)."""
    for name, source in units_of(probe).items():
        _course_code_object(probe, name, source)


def _course_code_object(probe, name, source):
    """The code objects of the course's unit `name` (its function's, or its class body's) as compiled below the
    solution's imports and alone: Python compiles `torch.matmul(…)` differently when the same compilation imported
    `torch` (a `.py` file, a notebook's whole answer cell) than when another cell did. () when it does not compile."""
    key = (getattr(probe, "__file__", ""), name)
    if key not in _COMPILED:
        found = []
        for prelude in (_document(probe).get("prelude", ""), ""):
            try:
                module = compile(f"{prelude}\n{source}" if prelude else source, f"<과정의 {name}>", "exec")
            except (SyntaxError, ValueError):
                continue
            found += [const for const in module.co_consts if inspect.iscode(const) and const.co_name == name]
        _COMPILED[key] = tuple(found)
    return _COMPILED[key]


def _same_code(mine, theirs):
    """Whether two code objects hold the same code: instructions, names and constants (nested code compared the same
    way), whatever their file, lines or positions."""
    if mine.co_code != theirs.co_code or mine.co_names != theirs.co_names or \
            mine.co_varnames != theirs.co_varnames or mine.co_freevars != theirs.co_freevars or \
            len(mine.co_consts) != len(theirs.co_consts):
        return False
    for a, b in zip(mine.co_consts, theirs.co_consts):
        if inspect.iscode(a) and inspect.iscode(b):
            if not _same_code(a, b):
                return False
        elif type(a) is not type(b) or a != b:
            return False
    return True


def _methods(code):
    """{name: code} of the functions a class body's code object defines."""
    return {const.co_name: const for const in code.co_consts if inspect.iscode(const)}


def _same_unit(value, codes):
    """Whether the student's live unit `value` (a function, or a class by its methods) is one of the course's `codes`."""
    return any(_same_as(value, code) for code in codes)


def _same_as(value, code):
    """Whether the student's live unit `value` (a function, or a class by its methods) is the course's `code`."""
    if inspect.isfunction(value):
        return _same_code(value.__code__, code)
    if inspect.isclass(value):
        theirs = _methods(code)
        mine = {name: getattr(member, "__func__", member).__code__ for name, member in vars(value).items()
                if inspect.isfunction(getattr(member, "__func__", member))}
        if set(mine) != set(theirs) or any(not _same_code(mine[name], theirs[name]) for name in mine):
            return False
        plain = {name: member for name, member in vars(value).items()
                 if type(member) in PLAIN and not name.startswith("__")}
        return all(name in code.co_names for name in plain)  # class attributes are read as names of its body
    return True  # not a function or a class: nothing to compare


def changed(namespace, units, probe):
    """The names (in the course's order) of the given units the student's `namespace` (a dict) defines otherwise.
    A unit missing from it is not counted: only a unit defined with other code is."""
    found = []
    for name, source in units.items():
        codes = _course_code_object(probe, name, source)
        try:  # the student's object may be anything (a class whose attributes raise when read)
            differs = name in namespace and codes and not _same_unit(namespace[name], codes)
        except Exception:
            differs = False
        if differs:
            found.append(name)
    return found


@contextlib.contextmanager
def course_code(namespace, units, names):
    """Inside the block, the units `names` in `namespace` (a dict: the student's module or notebook globals) are the
    course's, defined there from its source (so the student's code calls them); put back afterwards."""
    missing = object()
    saved = {name: namespace.get(name, missing) for name in names}
    try:
        for name in names:
            exec(compile(units[name], f"<과정의 {name}>", "exec"), namespace)  # noqa: S102 — the course's own code
        yield
    finally:
        for name, value in saved.items():
            if value is missing:
                namespace.pop(name, None)
            else:
                namespace[name] = value
