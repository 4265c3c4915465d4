"""Colab's own module (`google.colab`) where it does not exist: a stand-in whose calls are noted, not run.

A notebook written on Colab often starts with `from google.colab import drive` and `drive.mount(...)`. On Colab that
runs; in the grading sandbox and in a self-check outside Colab there is no `google.colab`, and the import would stop
the notebook before the student's answer is defined: the same notebook would pass its check cells on Colab and score
0 when graded. Like IPython's magics (`ipython.SkippingShell`), Colab's functions stand in here: each call is noted
for the student and returns None. Where the real module exists (on Colab) it is the one imported: `install` puts the
stand-in's finder last, after every real one.
"""
import importlib.abc
import importlib.machinery
import sys
import types

ROOT, PACKAGE = "google", "google.colab"


def install(notes):
    """Make `google.colab` importable where it is not, its calls noted in `notes` (the load's list)."""
    finder = next((found for found in sys.meta_path if isinstance(found, ColabFinder)), None)
    if finder is None:
        finder = ColabFinder()
        sys.meta_path.append(finder)
    finder.notes = notes


class ColabFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds `google` (only when no real one exists: it is asked last) and `google.colab` with its submodules."""

    notes = None

    def find_spec(self, name, path=None, target=None):
        if name in (ROOT, PACKAGE) or name.startswith(PACKAGE + "."):
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        module = StandInModule(spec.name)
        module.__path__ = []
        module.finder = self
        return module

    def exec_module(self, module):
        """Nothing to run: the stand-in's attributes are made when they are asked for."""


class StandInModule(types.ModuleType):
    """`google.colab` or one of its submodules: every attribute not set is a `StandIn` (a function, a class, a
    submodule: `drive`, `files.upload`, `output.enable_custom_widget_manager`)."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return StandIn(f"{self.__name__.removeprefix(PACKAGE + '.')}.{name}", self.finder)


class StandIn:
    """A Colab function (or anything reached through one): a call is noted and returns None."""

    def __init__(self, path, finder):
        self._path, self._finder = path, finder

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return StandIn(f"{self._path}.{name}", self._finder)

    def __call__(self, *args, **kwargs):
        shown = ", ".join([*map(repr, args), *(f"{key}={value!r}" for key, value in kwargs.items())])
        note = (f"`{self._path.removeprefix(PACKAGE + '.')}({shown[:80]})`: Colab 전용 기능(google.colab)은 채점과 "
                "자가 점검에서 실행하지 않고 건너뜁니다 (점수에는 영향이 없습니다).")
        notes = self._finder.notes
        if notes is not None and note not in notes:
            notes.append(note)
        return None
