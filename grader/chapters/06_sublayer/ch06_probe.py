"""Chapter 06 probe: the student's `LayerNorm` and `SublayerConnection`, recorded as plain data.

Sandbox side. A "module" case builds a class under a fixed seed and records its structure. A
"fresh" case runs a freshly built `LayerNorm` as it is (a_2 and b_2 swapped shows only there); a
"seeded" case first loads weights drawn from the case's seed by the module's own state_dict names.
`SublayerConnection` gets a fixed linear sublayer (its matrix drawn from the case's seed) and runs in
eval or seeded train mode (dropout only shows there). Each `SublayerConnection` case has a twin ("_alone") built
with the probe's `NormDouble` in place of the student's `LayerNorm`: when LayerNorm fails its own checks,
SublayerConnection is judged on that run, so one mistake costs its own unit. Hidden cases and their seeds live
between the hidden-test markers and never reach students.
"""
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from . import modules
from .tensors import encode, portable_randn

DATA_FILES = ("ch06_given.json",)  # the units this chapter ships written, as the course wrote them (given.py)

LAYER_NORM = "LayerNorm"
SUBLAYER = "SublayerConnection"


@dataclass(frozen=True)
class Case:
    """One build of a student's class, and one forward call unless `kind` is "module"."""

    visible: bool
    text: str  # the case in Korean, as diagnoses name it
    kind: str  # "module" | "fresh" | "seeded"
    cls: str = LAYER_NORM
    seed: int = 0
    size: int = 8  # features / size
    eps: float = None  # LayerNorm only; None leaves the default (1e-6)
    dropout: float = 0.1  # SublayerConnection only
    shape: tuple = (2, 5)  # the input's leading axes; the last axis is `size`
    spread: float = 1.0  # the input's spread around its per-token offset (small: low variance)
    train: bool = False
    norm: str = "student"  # SublayerConnection: "student" (its LayerNorm) | "stand_in" (the probe's NormDouble)


ALONE = "(LayerNorm 대신 채점기의 대역)"
CASES = {
    "ln_module": Case(visible=True, text="LayerNorm(8)의 구조", kind="module", seed=601),
    "ln_fresh": Case(visible=True, text="새로 만든 LayerNorm(8), 입력 (2, 5, 8)", kind="fresh", seed=602),
    "ln_seeded": Case(visible=True, text="a_2, b_2를 넣은 LayerNorm(8), 입력 (2, 5, 8)", kind="seeded", seed=603),
    "ln_eps": Case(visible=True, text="LayerNorm(6, eps=0.1), 분산이 작은 입력 (3, 6)", kind="fresh", seed=604,
                   size=6, eps=0.1, shape=(3,), spread=0.05),
    "ln_default_eps": Case(visible=True, text="LayerNorm(6) (기본 eps), 분산이 작은 입력 (3, 6)", kind="fresh",
                           seed=608, size=6, shape=(3,), spread=0.03),
    "sub_module": Case(visible=True, text="SublayerConnection(8, 0.1)의 구조", kind="module", cls=SUBLAYER,
                       seed=605),
    "sub_eval": Case(visible=True, text="SublayerConnection(8, 0.1), eval 모드 입력 (2, 5, 8)과 선형 sublayer",
                     kind="seeded", cls=SUBLAYER, seed=606),
    "sub_train": Case(visible=True, text="SublayerConnection(8, 0.5), train 모드 입력 (2, 5, 8) "
                      "(torch.manual_seed로 고정)", kind="seeded", cls=SUBLAYER, seed=607, dropout=0.5, train=True),
    "sub_module_alone": Case(visible=True, text=f"SublayerConnection(8, 0.1)의 구조 {ALONE}", kind="module", cls=SUBLAYER,
                             seed=605, norm="stand_in"),
    "sub_eval_alone": Case(visible=True, text=f"SublayerConnection(8, 0.1), eval 모드 입력 (2, 5, 8)과 선형 sublayer {ALONE}",
                           kind="seeded", cls=SUBLAYER, seed=606, norm="stand_in"),
    "sub_train_alone": Case(visible=True, text=f"SublayerConnection(8, 0.5), train 모드 입력 (2, 5, 8) "
                            f"(torch.manual_seed로 고정) {ALONE}", kind="seeded", cls=SUBLAYER, seed=607, dropout=0.5,
                            train=True, norm="stand_in"),
    ### BEGIN HIDDEN TESTS
    "hidden_ln": Case(visible=False, text="숨겨진 LayerNorm 입력 (다른 크기와 축 수)", kind="seeded", seed=866_101,
                      size=12, shape=(3, 2, 4), spread=3.0),
    "hidden_ln_eps": Case(visible=False, text="숨겨진 분산이 작은 입력", kind="fresh", seed=866_202, size=5,
                          eps=0.02, shape=(4, 3), spread=0.01),
    "hidden_sub_train": Case(visible=False, text="숨겨진 train 모드 SublayerConnection 입력", kind="seeded",
                             cls=SUBLAYER, seed=866_303, size=10, dropout=0.3, shape=(3, 4), train=True),
    "hidden_sub_train_alone": Case(visible=False, text=f"숨겨진 train 모드 SublayerConnection 입력 {ALONE}",
                                   kind="seeded", cls=SUBLAYER, seed=866_303, size=10, dropout=0.3, shape=(3, 4),
                                   train=True, norm="stand_in"),
    ### END HIDDEN TESTS
}


def case_names(visible_only=False):
    """Names of the cases, in a stable order; only the visible ones if asked."""
    return [name for name, case in CASES.items() if case.visible or not visible_only]


def make_inputs(name):
    """The case's inputs, the same way every time: (x,) or, for SublayerConnection, (x, sublayer matrix)."""
    case = CASES[name]
    generator = torch.Generator().manual_seed(case.seed)
    offset = portable_randn((*case.shape, 1), generator) * 3
    x = offset + portable_randn((*case.shape, case.size), generator) * case.spread
    if case.cls == LAYER_NORM:
        return (x,)
    return (x, portable_randn((case.size, case.size), generator) / case.size ** 0.5)


def constructor(case):
    """(args, kwargs) the case builds its class with."""
    if case.cls == SUBLAYER:
        return (case.size, case.dropout), {}
    return (case.size,), ({} if case.eps is None else {"eps": case.eps})


def linear_sublayer(matrix):
    """The sublayer the student's SublayerConnection calls: y ↦ y @ matrix."""
    return lambda y: y @ matrix


class NormDouble(torch.nn.Module):
    """The probe's stand-in for the student's LayerNorm inside SublayerConnection: parameters a_2 and b_2 like the
    original's, torch's own layer_norm formula (not the chapter's)."""

    def __init__(self, features, eps=1e-6):
        super().__init__()
        self.a_2 = torch.nn.Parameter(torch.ones(features))
        self.b_2 = torch.nn.Parameter(torch.zeros(features))
        self.variance_floor = eps

    def forward(self, x):
        return F.layer_norm(x, self.a_2.shape, self.a_2, self.b_2, self.variance_floor)


def run_case(namespace, name):
    """Run case `name` against the student's classes (a stand-in case: with `NormDouble` as LayerNorm)."""
    if CASES[name].norm == "stand_in":
        with modules.stand_in(namespace, LAYER_NORM, NormDouble, SUBLAYER):
            return run_student(namespace, name)
    return run_student(namespace, name)


def run_student(namespace, name):
    """Run case `name` against the student's classes and describe what happened as plain data."""
    case = CASES[name]
    args, kwargs = constructor(case)
    if case.kind == "module":
        return modules.record(namespace, case.cls, args, kwargs, case.seed)
    inputs = make_inputs(name)
    call = inputs if case.cls == LAYER_NORM else (inputs[0], linear_sublayer(inputs[1]))
    initial = ("a_2", "b_2") if case.cls == LAYER_NORM and case.kind == "fresh" else ()
    trace = modules.record(namespace, case.cls, args, kwargs, case.seed, call, case.train, fresh_names=initial,
                           load=case.kind == "seeded")  # fresh: the initial a_2 = 1, b_2 = 0 as built
    if case.cls == LAYER_NORM:  # x -= mean: the output is right, but the caller's x (the residual) is not any more
        trace["input_changed"] = not torch.equal(inputs[0], make_inputs(name)[0])
    if case.cls == LAYER_NORM and case.kind == "fresh" and case.spread < 1:
        trace["float64_result"] = float64_run(namespace, case, make_inputs(name)[0])
    return trace


def float64_run(namespace, case, x):
    """A fresh build of the same LayerNorm run on the low-variance input in float64 (plain data, or None when it
    could not run): a formula that is right but loses float32 digits (E[x²] − E[x]², two large numbers nearly
    cancelling) is right here."""
    module, failed = modules.build(namespace, case.cls, *constructor(case), case.seed)
    if failed:
        return None
    output, failed = modules.forward(module, (x.double(),), False, case.seed)
    return None if failed or not isinstance(output, torch.Tensor) else encode(output)
