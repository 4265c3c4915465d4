"""Chapter 11 probe: the student's `rate` (learning-rate schedule) and `LabelSmoothing`, recorded as plain data.

Sandbox side. A "rate" case calls `rate(step, model_size, factor, warmup)` at each of its steps and
records each value (a float; "inf"/"nan" spelled as strings) or the exception of that step alone, so a
step 0 that divides by zero never hides the other steps. A "module" case builds `LabelSmoothing(size,
padding_idx, smoothing)` and records its attributes and its criterion's reduction; a "forward" case
calls it on log-probabilities (log_softmax of seeded logits, never the log of a zero) and targets, and
records the loss and the `true_dist` it stored. Hidden cases live between the hidden-test markers.
"""
import math
from dataclasses import dataclass

import torch

from . import modules
from .tensors import describe_exception, encode, portable_randn

DATA_FILES = ("ch11_given.json",)  # the units this chapter ships written, as the course wrote them (given.py)

RATE = "rate"
CLASS = "LabelSmoothing"
ATTRIBUTES = ("padding_idx", "confidence", "smoothing", "size")


@dataclass(frozen=True)
class Case:
    """Calls of `rate` at `steps`, or one `LabelSmoothing(size, padding_idx, smoothing)` (built, or also run)."""

    visible: bool
    text: str  # the case in Korean, as diagnoses name it
    kind: str  # "rate" | "module" | "forward"
    seed: int = 0
    model_size: int = 512
    factor: float = 1.0
    warmup: int = 4000
    steps: tuple = ()
    size: int = 5
    padding_idx: int = 0
    smoothing: float = 0.4
    targets: tuple = ()


CASES = {
    "rate_zero": Case(visible=True, text="rate(0, 512, 1.0, 4000)과 rate(1, 512, 1.0, 4000)", kind="rate",
                      steps=(0, 1)),
    "rate_warmup": Case(visible=True, text="rate(step, 512, 1.0, 4000), warmup 동안의 step 1~4000", kind="rate",
                        steps=(1, 2, 10, 100, 1000, 2000, 3999, 4000)),
    "rate_decay": Case(visible=True, text="rate(step, 512, 1.0, 4000), warmup 뒤의 step 4001~100000", kind="rate",
                       steps=(4001, 5000, 8000, 20000, 100000)),
    "rate_config": Case(visible=True, text="rate(step, 64, 2.0, 400), step 1~10000", kind="rate",
                        model_size=64, factor=2.0, warmup=400, steps=(1, 50, 200, 400, 401, 1000, 10000)),
    "ls_module": Case(visible=True, text="LabelSmoothing(5, 0, 0.4)의 속성", kind="module"),
    # The demo's call: true_dist depends on the shape of x and the targets only.
    "ls_demo": Case(visible=True, text="LabelSmoothing(5, 0, 0.4), x (5, 5), target [2, 1, 0, 3, 3]",
                    kind="forward", seed=1101, targets=(2, 1, 0, 3, 3)),
    "ls_batch": Case(visible=True, text="LabelSmoothing(7, 1, 0.2), x (8, 7), target [3, 1, 6, 0, 2, 1, 5, 4] "
                     "(padding 행 2개)", kind="forward", seed=1102, size=7, padding_idx=1, smoothing=0.2,
                     targets=(3, 1, 6, 0, 2, 1, 5, 4)),
    ### BEGIN HIDDEN TESTS
    "hidden_rate": Case(visible=False, text="숨겨진 model_size, factor, warmup과 step", kind="rate",
                        model_size=1024, factor=0.8, warmup=2000,
                        steps=(1, 3, 250, 1999, 2000, 2001, 7777, 123456)),
    "hidden_ls": Case(visible=False, text="숨겨진 LabelSmoothing 입력 (다른 어휘 크기, padding 번호, smoothing)",
                      kind="forward", seed=1_193_101, size=11, padding_idx=10, smoothing=0.25,
                      targets=(4, 10, 0, 7, 2, 10, 9, 1, 5)),
    "hidden_ls_no_pad": Case(visible=False, text="숨겨진 LabelSmoothing 입력 (padding 행이 없는 target)",
                             kind="forward", seed=1_193_202, size=6, padding_idx=3, smoothing=0.15,
                             targets=(0, 5, 2, 4, 1, 2)),
    ### END HIDDEN TESTS
}


def case_names(visible_only=False):
    """Names of the cases, in a stable order; only the visible ones if asked."""
    return [name for name, case in CASES.items() if case.visible or not visible_only]


def make_inputs(name):
    """(x, target) of a forward case: x = log_softmax of seeded logits (token, size); () for other cases."""
    case = CASES[name]
    if case.kind != "forward":
        return ()
    generator = torch.Generator().manual_seed(case.seed)
    logits = portable_randn((len(case.targets), case.size), generator, torch.float64) * 2
    return logits.log_softmax(-1).to(torch.float32), torch.tensor(case.targets, dtype=torch.long)


def run_case(namespace, name):
    """Run case `name` against the student's code and describe what happened as plain data."""
    case = CASES[name]
    if case.kind == "rate":
        return run_rate(namespace, case)
    args = (case.size, case.padding_idx, case.smoothing)
    if case.kind == "module":
        module, failed = modules.build(namespace, CLASS, args, seed=case.seed)
        return failed or {"attributes": modules.attributes(module, ATTRIBUTES), "criterion": criterion(module)}
    return modules.record(namespace, CLASS, args, seed=case.seed, inputs=make_inputs(name), load=False,
                          attribute_names=("true_dist",))


def criterion(module):
    """The type of `module.criterion` and its `reduction` (None when it has none)."""
    found = getattr(module, "criterion", None)
    if found is None:
        return {"type": None, "reduction": None}
    reduction = getattr(found, "reduction", None)
    return {"type": type(found).__name__, "reduction": reduction if isinstance(reduction, str) else None}


def run_rate(namespace, case):
    """`rate` at each step: {"steps", "values"}, each value a number or {"error": …}; one error if every step raised."""
    function = getattr(namespace, RATE, None)
    if not callable(function):
        return {"error": {"type": "MissingFunction", "message": RATE}}
    values = [rate_value(function, step, case) for step in case.steps]
    errors = [value["error"] for value in values if isinstance(value, dict)]
    if len(errors) == len(values):
        return {"error": errors[0]}
    return {"steps": list(case.steps), "values": values}


def rate_value(function, step, case):
    """One call of the student's `rate` as plain data: a float, "inf"/"-inf"/"nan", {"error"} or {"kind": …}."""
    try:
        value = function(step, case.model_size, case.factor, case.warmup)
    except BaseException as error:
        return {"error": describe_exception(error)}
    if isinstance(value, torch.Tensor) and value.numel() == 1:
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        try:
            value = float(value)  # numpy scalars and the like
        except (TypeError, ValueError):
            return encode(value)
    value = float(value)
    if not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return value
