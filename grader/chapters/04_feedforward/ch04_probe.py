"""Chapter 04 probe: the student's `PositionwiseFeedForward`, recorded as plain data.

Sandbox side. A "module" case builds `PositionwiseFeedForward(d_model, d_ff[, dropout])` under a
fixed seed and records its structure; a "forward" case also loads weights drawn from the case's seed
for the module's own state_dict names, runs it in eval mode or seeded train mode (dropout placement
only shows there) and records the output and, if asked, the gradients. Hidden cases and their seeds
live between the hidden-test markers and never reach students.
"""
from dataclasses import dataclass

import torch

from . import modules
from .tensors import portable_randn

DATA_FILES = ("ch04_given.json",)  # the units this chapter ships written, as the course wrote them (given.py)

CLASS = "PositionwiseFeedForward"


@dataclass(frozen=True)
class Case:
    """One build of the student's class, and one forward call unless `kind` is "module"."""

    visible: bool
    text: str  # the case in Korean, as diagnoses name it
    kind: str = "forward"  # "module" | "forward"
    seed: int = 0
    d_model: int = 8
    d_ff: int = 32
    dropout: float = None  # passed as dropout=…; None leaves the default (0.1)
    shape: tuple = (2, 5)  # the input's leading axes; the last axis is d_model
    train: bool = False
    gradients: bool = False


CASES = {
    "module": Case(visible=True, text="PositionwiseFeedForward(8, 32)의 구조", kind="module", seed=401),
    "eval": Case(visible=True, text="eval 모드 입력 (2, 5, 8), d_ff=32", seed=402),
    # One sentence without a batch axis: nn.Linear works on any leading axes.
    "no_batch_axis": Case(visible=True, text="batch 축이 없는 입력 (7, 6), d_ff=10",
                          seed=403, d_model=6, d_ff=10, shape=(7,)),
    "dropout_train": Case(visible=True, text="train 모드 dropout=0.5 입력 (torch.manual_seed로 고정)",
                          seed=404, dropout=0.5, train=True),
    ### BEGIN HIDDEN TESTS
    "hidden_sizes": Case(visible=False, text="숨겨진 입력 (다른 d_model, d_ff, 축 수)",
                         seed=844_101, d_model=12, d_ff=20, shape=(2, 3, 4)),
    "hidden_dropout": Case(visible=False, text="숨겨진 train 모드 dropout 입력",
                           seed=844_202, d_model=6, d_ff=24, dropout=0.3, shape=(3, 4), train=True),
    "hidden_gradients": Case(visible=False, text="숨겨진 기울기 입력",
                             seed=844_303, d_model=10, d_ff=16, shape=(2, 3), gradients=True),
    ### END HIDDEN TESTS
}


def case_names(visible_only=False):
    """Names of the cases, in a stable order; only the visible ones if asked."""
    return [name for name, case in CASES.items() if case.visible or not visible_only]


def make_inputs(name):
    """The case's inputs, the same way every time: (x,)."""
    case = CASES[name]
    generator = torch.Generator().manual_seed(case.seed)
    return (portable_randn((*case.shape, case.d_model), generator),)


def run_case(namespace, name):
    """Run case `name` against the student's class and describe what happened as plain data."""
    case = CASES[name]
    args = (case.d_model, case.d_ff)
    kwargs = {} if case.dropout is None else {"dropout": case.dropout}
    if case.kind == "module":
        return modules.record(namespace, CLASS, args, kwargs, case.seed)
    return modules.record(namespace, CLASS, args, kwargs, case.seed, make_inputs(name), case.train,
                          with_gradients=case.gradients)
