"""The probe's own copy of itself, bound before student code runs, and the evidence of what that code replaced.

Student code shares the probe's interpreter. `bind` (called before the student's code is loaded) gives the
probe and every grader module it uses private copies: a module object per grader module whose functions are
clones reading *those* globals, so replacing `ch09_probe.spread`, `modules.forward` or a function's `__code__`
in the real modules changes nothing the probe calls. `Bound.changes` then lists, after the run, what in the
real modules (and in the library modules and classes the probe relies on) is no longer what it was: the
evidence of a tampered run. Nothing in-process is airtight (a student can still walk `gc`), which is why the
judges prefer outputs on hidden inputs, and why the sandbox edge bounds whatever comes back.

`changes` first asks whether anything watched can have changed at all — each watched dict's version tag
(CPython bumps it on every write) and each watched function's code, defaults and kwdefaults pointers, read as raw
memory — and compares name by name only the entries of a dict that was written or of a function that changed. Reading touches no object: in a child forked from the
sandbox's worker, touching (a reference count) copies the page, and comparing thousands of torch names that way
cost a third of a cheap chapter's submission. Where the layout is not the one checked at bind time (another Python)
the comparison is always made name by name.
"""
import ctypes
import struct
import sys
import types

PACKAGE = __name__.rpartition(".")[0].rpartition(".")[0] + "."  # "grader." (the selfcheck copy: its own)
LIBRARY_MODULES = ("builtins", "json", "json.encoder", "json.decoder", "pickle", "copyreg", "math", "torch",
                   "torch.nn", "torch.nn.functional", "torch.nn.modules.module", "matplotlib.figure",
                   "matplotlib.axes", "matplotlib.collections", "matplotlib.image")  # not pyplot: switch_backend rebinds its globals
LIBRARY_CLASSES = (("torch", "Tensor"), ("torch._C", "TensorBase"), ("torch.nn", "Module"),
                   ("torch.nn", "Parameter"), ("torch", "Generator"), ("matplotlib.figure", "Figure"),
                   ("matplotlib.figure", "FigureBase"), ("matplotlib.axes", "Axes"),
                   ("matplotlib.collections", "QuadMesh"), ("matplotlib.image", "AxesImage"), ("builtins", "dict"),
                   ("builtins", "list"))
IGNORED_NAMES = frozenset({"_", "__", "___", "_LAST_BUILT", "__warningregistry__", "__loader__", "__spec__"})
_FUNCTION_PARTS = ("__code__", "__defaults__", "__kwdefaults__")
_WORD = ctypes.sizeof(ctypes.c_void_p)
_DICT_VERSION_AT = 3 * _WORD  # PyDictObject: refcount, type, ma_used, ma_version_tag (CPython 3.11-3.13)
_read_memory = ctypes.string_at  # bound now: replacing ctypes.string_at or struct.iter_unpack later changes nothing
_addresses = struct.iter_unpack


def _ours(name):
    return name.startswith(PACKAGE) and not name.startswith(PACKAGE + "sandbox")


class Bound:
    """Private copies of the grader modules loaded now (`module(name)`) and a snapshot of what they and the
    library rely on."""

    def __init__(self):
        self._real = {name: module for name, module in list(sys.modules.items())
                      if _ours(name) and isinstance(module, types.ModuleType)}
        self._private = {name: types.ModuleType(name, module.__doc__) for name, module in self._real.items()}
        self._clones = {}
        for name, module in self._real.items():
            self._private[name].__dict__.update(module.__dict__)
        for private in self._private.values():
            namespace = private.__dict__
            for key, value in list(namespace.items()):
                namespace[key] = self._bound(value)
        watched = self._watched()
        self.snapshot = tuple(self._take(watched))
        self.real = tuple(self._real.items())
        # The watched classes' names then: a name added to one (`torch.Tensor.tolist = …` shadows TensorBase's method
        # for every tensor) replaces what the probe calls as surely as a name replaced.
        self.class_names = tuple((where, namespace, frozenset(namespace))
                                 for where, namespace in watched if type(namespace) is not dict)
        self.library_dirs = _library_dirs()
        self.fingerprint = _Fingerprint.of(self.snapshot)

    def private(self, module):
        """The private copy of a grader module (`module` itself when it is not one)."""
        return self._private.get(getattr(module, "__name__", None), module)

    def _bound(self, value):
        """A grader function as a clone reading private globals, a grader module as its copy; else `value`."""
        if isinstance(value, types.ModuleType) and value.__name__ in self._private:
            return self._private[value.__name__]
        if not isinstance(value, types.FunctionType) or value.__module__ not in self._private:
            return value
        if value.__globals__ is not self._real[value.__module__].__dict__:  # a wrapper (functools.wraps) from elsewhere
            return value
        if id(value) not in self._clones:
            clone = types.FunctionType(value.__code__, self._private[value.__module__].__dict__, value.__name__,
                                       value.__defaults__, value.__closure__)
            clone.__kwdefaults__ = value.__kwdefaults__
            clone.__dict__.update(value.__dict__)
            clone.__qualname__, clone.__doc__ = value.__qualname__, value.__doc__
            self._clones[id(value)] = (value, clone)
        return self._clones[id(value)][1]

    def _take(self, watched):
        """(where, name, owner namespace, the value then, its function parts then) for everything `watched`."""
        for where, namespace in watched:
            for key, value in list(namespace.items()):
                if key not in IGNORED_NAMES:
                    parts = tuple(getattr(value, part, None) for part in _FUNCTION_PARTS) \
                        if isinstance(value, types.FunctionType) else ()
                    yield where, key, namespace, value, parts

    def _watched(self):
        """(where, namespace) of every watched module (a dict) and class (its `__dict__` proxy)."""
        watched = [(name, vars(module)) for name, module in self._real.items()]
        watched += [(f"{name}.{key}", value.__dict__) for name, module in self._real.items()
                    for key, value in list(vars(module).items())
                    if isinstance(value, type) and value.__module__ == name]  # the probe's own classes (Spy, …)
        watched += [(name, vars(sys.modules[name])) for name in LIBRARY_MODULES if name in sys.modules]
        for module_name, class_name in LIBRARY_CLASSES:
            cls = getattr(sys.modules.get(module_name), class_name, None)
            if isinstance(cls, type):
                watched.append((f"{module_name}.{class_name}", cls.__dict__))
        return watched


class _Fingerprint:
    """Where the watched dicts and functions are in memory, what those bytes were, and which snapshot entries each
    one covers: compared without touching an object (see the module's doc). `of` gives None where this interpreter's
    layout is not the expected one."""

    def __init__(self, dicts, functions, offset):
        self.dicts = struct.pack(f"{len(dicts)}Q", *dicts)
        self.functions = struct.pack(f"{len(functions)}Q", *functions)
        self.entries = tuple(_packed(entries) for entries in [*dicts.values(), *functions.values()])
        self.offset = offset
        self.then = _now(self)

    @classmethod
    def of(cls, snapshot):
        offset = _function_parts_offset()
        if offset is None or not _dict_versions_work():
            return None
        dicts, functions = {}, {}  # address -> indices of the snapshot entries it covers
        for index, (_, _, namespace, value, parts) in enumerate(snapshot):
            real = namespace if type(namespace) is dict else _underlying_dict(namespace)
            if real is None:
                return None
            dicts.setdefault(id(real), []).append(index)
            if parts:
                functions.setdefault(id(value), []).append(index)
        return cls(dicts, functions, offset)


def _packed(indices):
    return struct.pack(f"{len(indices)}I", *indices)


def _now(fingerprint):
    """The watched bytes as they are now: the dicts' version tags, the functions' three part pointers (a module
    function, so `changes` calls its private copy, which reads the `_read_memory` bound before the student's code)."""
    versions = [_read_memory(address + _DICT_VERSION_AT, 8) for (address,) in _addresses("Q", fingerprint.dicts)]
    parts = [_read_memory(address + fingerprint.offset, 3 * _WORD)
             for (address,) in _addresses("Q", fingerprint.functions)]
    return b"".join(versions) + b"".join(parts)


def _suspects(fingerprint):
    """Indices (in snapshot order) of the entries whose dict was written or whose function's parts changed."""
    now, then = _now(fingerprint), fingerprint.then
    if now == then:
        return []
    dicts = len(fingerprint.dicts) // 8
    spans = [(8 * i, 8) for i in range(dicts)] + [(8 * dicts + 3 * _WORD * j, 3 * _WORD)
                                                 for j in range(len(fingerprint.functions) // 8)]
    found = set()
    for number, (start, size) in enumerate(spans):
        if now[start:start + size] != then[start:start + size]:
            found.update(index for (index,) in _addresses("I", fingerprint.entries[number]))
    return sorted(found)


def _sample(a, b=1, *, c=2):
    return a, b, c


def _function_parts_offset():
    """Where a function object keeps its __code__, __defaults__, __kwdefaults__ pointers side by side (None if not)."""
    if sys.implementation.name != "cpython" or _WORD != 8:
        return None
    wanted = struct.pack("3Q", id(_sample.__code__), id(_sample.__defaults__), id(_sample.__kwdefaults__))
    for offset in range(2 * _WORD, 16 * _WORD, _WORD):
        if _read_memory(id(_sample) + offset, 3 * _WORD) == wanted:
            return offset
    return None


def _dict_versions_work():
    """Whether a dict's version tag is where `_DICT_VERSION_AT` says and changes on every write (CPython 3.11-3.13)."""
    if sys.implementation.name != "cpython" or _WORD != 8 or not (3, 11) <= sys.version_info[:2] <= (3, 13):
        return False
    probe, seen = {"a": 1}, []
    for write in (lambda: probe.__setitem__("b", 2), lambda: probe.__setitem__("b", 3), lambda: probe.pop("b")):
        seen.append(_read_memory(id(probe) + _DICT_VERSION_AT, 8))
        write()
    seen.append(_read_memory(id(probe) + _DICT_VERSION_AT, 8))
    return len(set(seen)) == len(seen) and _read_memory(id(probe) + 2 * _WORD, 8) == struct.pack("q", len(probe))


def _underlying_dict(proxy):
    """The dict a class's `__dict__` mapping proxy shows (None if it is not one)."""
    import gc

    inner = [referent for referent in gc.get_referents(proxy) if type(referent) is dict]
    return inner[0] if len(inner) == 1 and inner[0].keys() == proxy.keys() else None


_GONE = object()
# Names a library rebinds itself when its own API is called: `torch.set_default_dtype` points `torch.Storage` at
# another of torch's storage classes.
LIBRARY_ALIASES = frozenset({("torch", "Storage")})


def _library_dirs():
    """{top package: its folder} of the watched libraries, read at bind time (before the student's code)."""
    found = {}
    for name in LIBRARY_MODULES:
        top = name.partition(".")[0]
        module = sys.modules.get(top)
        path = getattr(module, "__file__", None)
        if path and top != "builtins":
            found[top] = path.rpartition("/")[0] + "/"
    return found


def _rebound_by_library(library_dirs, where, key, then, now):
    """Whether a watched library's module name was rebound by that library's own code, not by the student's: torch
    wraps `torch.manual_seed` in a wrapper of its own (`__wrapped__` the original, code in torch's folder) the first
    time an optimizer steps or deterministic algorithms are asked for, and moves LIBRARY_ALIASES. Student code that
    calls the library's API is not tampering."""
    top = where.partition(".")[0]
    folder = library_dirs.get(top)
    if folder is None or where not in LIBRARY_MODULES or now is _GONE:
        return False
    if (where, key) in LIBRARY_ALIASES:
        return isinstance(now, type) and now.__module__ == top and now.__name__.endswith(key)
    code = getattr(now, "__code__", None)
    return (isinstance(now, types.FunctionType) and getattr(now, "__wrapped__", None) is then
            and code is not None and code.co_filename.startswith(folder))


def bind(probe):
    """(the probe's private copy, the Bound that made it) — call before the student's code is loaded."""
    bound = Bound()
    return bound.private(probe), bound


def changes(bound):
    """Evidence lines ("<where>.<name> replaced", "code of … replaced") of what differs now from `bound`'s snapshot
    (call the private copy of this function: `bound.private(guard).changes`)."""
    modules = [f"grader module {name} replaced in sys.modules" for name, module in bound.real
               if sys.modules.get(name) is not module]
    suspects = range(len(bound.snapshot)) if bound.fingerprint is None else _suspects(bound.fingerprint)
    found, written = [], set()
    for index in suspects:  # only these entries are touched: see the module's doc
        where, key, namespace, value, parts = bound.snapshot[index]
        written.add(id(namespace))
        now = namespace.get(key, _GONE)
        if now is not value and not _rebound_by_library(bound.library_dirs, where, key, value, now):
            found.append(f"{where}.{key} {'removed' if now is _GONE else 'replaced'}")
        elif parts and any(getattr(value, part, None) is not then for part, then in zip(_FUNCTION_PARTS, parts)):
            found.append(f"code of {where}.{key} replaced")
    for where, namespace, names in bound.class_names:  # a class dict that was written: any name added?
        if id(namespace) in written:
            found += [f"{where}.{key} added" for key in namespace if key not in names and key not in IGNORED_NAMES]
    return found + modules
