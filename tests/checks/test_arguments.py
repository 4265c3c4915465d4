"""Every argument is exercised: each parameter with a default of a chapter's public functions and classes is given
another value by at least one case (visible or hidden), so code that ignores it cannot pass."""
import contextlib
import functools
import inspect
import warnings

import pytest

from grader.checks import chapter as load_chapter
from grader.checks.loading import WRITTEN_IN, module_from_source, read_source

from .chapters import CHAPTERS

pytestmark = pytest.mark.checks

# (chapter, "Name.parameter") pairs not yet exercised, each with a reason; keep this empty where possible.
KNOWN_GAPS = {}


def _targets(module, number):
    """[(label, owner, attribute, function)] of the chapter's own functions, and its classes' __init__ and public
    methods defined in the class itself."""
    found = []
    for name in WRITTEN_IN.get(number, ()):
        value = getattr(module, name, None)
        if inspect.isclass(value):
            for attribute, member in vars(value).items():
                if inspect.isfunction(member) and (attribute == "__init__" or not attribute.startswith("_")):
                    label = name if attribute == "__init__" else f"{name}.{attribute}"
                    found.append((label, value, attribute, member))
        elif inspect.isfunction(value):
            found.append((name, module, name, value))
    return found


def _defaults(function):
    """{parameter: default} of the parameters with a default (self excluded)."""
    return {name: p.default for name, p in inspect.signature(function).parameters.items()
            if p.default is not inspect.Parameter.empty}


def _differs(value, default):
    if value is default:
        return False
    try:
        return bool(value != default)
    except (TypeError, ValueError, RuntimeError):  # tensors and other values without a plain truth value
        return True


@contextlib.contextmanager
def _recording(targets, seen):
    """Each target wrapped to add to `seen[label]` the parameters a call gave a non-default value."""
    saved = []
    for label, owner, attribute, function in targets:
        defaults = _defaults(function)
        signature = inspect.signature(function)

        def wrapper(*args, _f=function, _label=label, _defaults=defaults, _signature=signature, **kwargs):
            try:
                bound = _signature.bind(*args, **kwargs)
            except TypeError:
                bound = None
            if bound is not None:
                seen.setdefault(_label, set()).update(
                    name for name, value in bound.arguments.items()
                    if name in _defaults and _differs(value, _defaults[name]))
            return _f(*args, **kwargs)

        functools.update_wrapper(wrapper, function)
        saved.append((owner, attribute, vars(owner)[attribute] if isinstance(owner, type) else function))
        setattr(owner, attribute, wrapper)
    try:
        yield
    finally:
        for owner, attribute, original in saved:
            setattr(owner, attribute, original)


@pytest.mark.parametrize("chapter", [pytest.param(c, id=c.marker, marks=getattr(pytest.mark, c.marker)) for c in CHAPTERS])
def test_every_parameter_with_a_default_is_given_another_value(chapter):
    """Run every case (visible and hidden) on the solution with its own functions and classes recording their calls."""
    contract = load_chapter(chapter.id)
    module = module_from_source(read_source(chapter.solution))
    targets = _targets(module, chapter.number)
    seen = {}
    with warnings.catch_warnings(), _recording(targets, seen):
        warnings.simplefilter("ignore")
        for case in contract.probe.case_names():
            contract.probe.run_case(module, case)
    never = sorted(f"{label}.{name}" if "." not in label else f"{label}({name})"
                   for label, _, _, function in targets for name in _defaults(function)
                   if name not in seen.get(label, set()))
    assert [gap for gap in never if gap not in KNOWN_GAPS.get(chapter.number, {})] == []
