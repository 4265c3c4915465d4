"""The probe's own copy of itself, bound before student code runs, and the evidence of what that code replaced.

Student code shares the probe's interpreter. `bind` (called before the student's code is loaded) gives the
probe and every grader module it uses private copies: a module object per grader module whose functions are
clones reading *those* globals, so replacing `ch09_probe.spread`, `modules.forward` or a function's `__code__`
in the real modules changes nothing the probe calls. `Bound.changes` then lists, after the run, what in the
real modules (and in the library modules and classes the probe relies on) is no longer what it was: the
evidence of a tampered run. Nothing in-process is airtight (a student can still walk `gc`), which is why the
judges prefer outputs on hidden inputs, and why the sandbox edge bounds whatever comes back.
"""
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
        self.snapshot = tuple(self._take())
        self.real = tuple(self._real.items())

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

    def _take(self):
        """(where, name, owner namespace, the value then, its function parts then) for everything watched."""
        watched = [(name, vars(module)) for name, module in self._real.items()]
        watched += [(f"{name}.{key}", value.__dict__) for name, module in self._real.items()
                    for key, value in list(vars(module).items())
                    if isinstance(value, type) and value.__module__ == name]  # the probe's own classes (Spy, …)
        watched += [(name, vars(sys.modules[name])) for name in LIBRARY_MODULES if name in sys.modules]
        for module_name, class_name in LIBRARY_CLASSES:
            cls = getattr(sys.modules.get(module_name), class_name, None)
            if isinstance(cls, type):
                watched.append((f"{module_name}.{class_name}", cls.__dict__))
        for where, namespace in watched:
            for key, value in list(namespace.items()):
                if key not in IGNORED_NAMES:
                    parts = tuple(getattr(value, part, None) for part in _FUNCTION_PARTS) \
                        if isinstance(value, types.FunctionType) else ()
                    yield where, key, namespace, value, parts


_GONE = object()


def bind(probe):
    """(the probe's private copy, the Bound that made it) — call before the student's code is loaded."""
    bound = Bound()
    return bound.private(probe), bound


def changes(bound):
    """Evidence lines ("<where>.<name> replaced", "code of … replaced") of what differs now from `bound`'s snapshot
    (call the private copy of this function: `bound.private(guard).changes`)."""
    found = []
    for where, key, namespace, value, parts in bound.snapshot:
        now = namespace.get(key, _GONE)
        if now is not value:
            found.append(f"{where}.{key} {'removed' if now is _GONE else 'replaced'}")
        elif parts and any(getattr(value, part, None) is not then for part, then in zip(_FUNCTION_PARTS, parts)):
            found.append(f"code of {where}.{key} replaced")
    found += [f"grader module {name} replaced in sys.modules" for name, module in bound.real
              if sys.modules.get(name) is not module]
    return found

