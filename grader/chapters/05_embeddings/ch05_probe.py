"""Chapter 05 probe: the student's `Embeddings` and `PositionalEncoding`, recorded as plain data.

Sandbox side. A "module" case builds a class under a fixed seed and records its structure (is `pe` a
buffer?). An "embed" case also loads weights drawn from the case's seed into the student's
`Embeddings` by its own state_dict names and looks up token ids. A "fresh" case runs a freshly built
`PositionalEncoding` as it is — loading a state_dict would overwrite the `pe` table the student
computed — in eval mode or in seeded train mode (dropout only shows there). Hidden cases and their
seeds live between the hidden-test markers and never reach students.
"""
from dataclasses import dataclass

import torch

from . import modules
from .tensors import portable_randn

DATA_FILES = ("ch05_given.json",)  # the units this chapter ships written, as the course wrote them (given.py)

EMBEDDINGS = "Embeddings"
POSITIONAL = "PositionalEncoding"


@dataclass(frozen=True)
class Case:
    """One build of a student's class, and one forward call unless `kind` is "module"."""

    visible: bool
    text: str  # the case in Korean, as diagnoses name it
    kind: str  # "module" | "embed" | "fresh"
    cls: str = POSITIONAL
    seed: int = 0
    d_model: int = 20
    vocab: int = 11  # Embeddings only
    dropout: float = 0.1  # PositionalEncoding only
    max_len: int = None  # None leaves the default (5000)
    shape: tuple = (2, 6)  # token ids' shape, or the input's leading axes (the last axis is d_model)
    train: bool = False


CASES = {
    "embeddings_module": Case(visible=True, text="Embeddings(16, 11)의 구조", kind="module", cls=EMBEDDINGS,
                              seed=501, d_model=16),
    "embeddings": Case(visible=True, text="Embeddings(16, 11)에 토큰 번호 (2, 5)", kind="embed", cls=EMBEDDINGS,
                       seed=502, d_model=16, shape=(2, 5)),
    "pe_module": Case(visible=True, text="PositionalEncoding(20, 0.1)의 구조", kind="module", seed=503),
    # A non-default max_len: the pe table has max_len rows (a class that ignores max_len keeps 5000).
    "pe_max_len": Case(visible=True, text="PositionalEncoding(20, 0.1, max_len=30)의 구조", kind="module", seed=506,
                       max_len=30),
    "pe_eval": Case(visible=True, text="새로 만든 PositionalEncoding(20, 0.1), eval 모드 입력 (2, 6, 20)",
                    kind="fresh", seed=504),
    "pe_dropout_train": Case(visible=True, text="PositionalEncoding(20, 0.5), train 모드 입력 (2, 6, 20) "
                             "(torch.manual_seed로 고정)", kind="fresh", seed=505, dropout=0.5, train=True),
    ### BEGIN HIDDEN TESTS
    "hidden_embeddings": Case(visible=False, text="숨겨진 Embeddings 입력 (다른 d_model, vocab, 모양)", kind="embed",
                              cls=EMBEDDINGS, seed=855_101, d_model=25, vocab=7, shape=(3, 4)),
    "hidden_pe": Case(visible=False, text="숨겨진 PositionalEncoding 입력 (다른 d_model, max_len, 길이)",
                      kind="fresh", seed=855_202, d_model=32, max_len=64, shape=(3, 50)),
    "hidden_pe_dropout": Case(visible=False, text="숨겨진 train 모드 PositionalEncoding 입력", kind="fresh",
                              seed=855_303, d_model=12, dropout=0.3, max_len=40, shape=(2, 9), train=True),
    ### END HIDDEN TESTS
}


def case_names(visible_only=False):
    """Names of the cases, in a stable order; only the visible ones if asked."""
    return [name for name, case in CASES.items() if case.visible or not visible_only]


def make_inputs(name):
    """The case's inputs, the same way every time: (token ids,) or (x,)."""
    case = CASES[name]
    generator = torch.Generator().manual_seed(case.seed)
    if case.cls == EMBEDDINGS:
        return (torch.randint(0, case.vocab, case.shape, generator=generator),)
    return (portable_randn((*case.shape, case.d_model), generator),)


def constructor(case):
    """(args, kwargs) the case builds its class with."""
    if case.cls == EMBEDDINGS:
        return (case.d_model, case.vocab), {}
    return (case.d_model, case.dropout), ({} if case.max_len is None else {"max_len": case.max_len})


def run_case(namespace, name):
    """Run case `name` against the student's classes and describe what happened as plain data."""
    case = CASES[name]
    args, kwargs = constructor(case)
    if case.kind == "module":
        return modules.record(namespace, case.cls, args, kwargs, case.seed)
    return modules.record(namespace, case.cls, args, kwargs, case.seed, make_inputs(name), case.train,
                          load=case.kind == "embed")  # fresh: a loaded state_dict would replace the student's pe
