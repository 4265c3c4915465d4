"""Chapter 02 probe: call the student's `attention` (with masks and dropout) and `subsequent_mask`.

Sandbox side. Each case builds its inputs deterministically (tensors from a seeded generator,
masks from a recipe); `run_case` returns plain data. For dropout cases the probe makes the
`torch.nn.Dropout` itself, seeds the global RNG right before the call and records, through a
forward hook, what the student passed to the dropout module. Hidden cases and their seeds live
between the hidden-test markers and never reach students.
"""
from dataclasses import dataclass

import torch

from .tensors import describe_exception, encode, portable_randn

MAX_DROPOUT_CALLS = 3


@dataclass(frozen=True)
class Case:
    """One call of `attention(query, key, value, mask=…, dropout=…)` or of `subsequent_mask(size)`."""

    visible: bool
    text: str  # the case in Korean, as diagnoses name it
    function: str = "attention"
    seed: int = 0
    query: tuple = None
    key: tuple = None
    value: tuple = None
    self_attention: bool = False
    mask: tuple = None  # ("causal", n) | ("padding", lengths, seq) | ("pad_causal", lengths, n) | ("rows", rows)
    mask_dtype: str = "bool"
    head_axis: bool = False  # insert a heads axis of size 1 at dim 1, as multi-head attention does
    dropout: float = None  # p of the torch.nn.Dropout the probe passes in
    train: bool = False
    defaults: bool = False  # call attention(query, key, value) with no keyword arguments at all
    size: int = None  # subsequent_mask(size)


FULLY_MASKED_ROWS = ((1, 0, 0, 0), (0, 0, 0, 0), (1, 1, 1, 0), (1, 1, 1, 1))

CASES = {
    # Chapter 01's seed input, called the chapter-01 way: attention(x, x, x) with the defaults.
    "nomask": Case(visible=True, text="mask=None 입력 (1장의 시드 입력, attention(x, x, x))",
                   seed=0, query=(1, 3, 4), self_attention=True, defaults=True),
    # Causal mask (1, 5, 5) on self-attention.
    "causal": Case(visible=True, text="causal mask (1, 5, 5) 입력",
                   seed=201, query=(1, 5, 8), self_attention=True, mask=("causal", 5)),
    # Padding mask (batch, 1, seq): the second sentence has 2 pad positions.
    "padding": Case(visible=True, text="padding mask (2, 1, 5) 입력",
                    seed=202, query=(2, 5, 8), key=(2, 5, 8), value=(2, 5, 4),
                    mask=("padding", (5, 3), 5)),
    # Query 1 sees no key at all; the mask (1, 4, 4) broadcasts over the batch.
    "fully_masked": Case(visible=True, text="한 행이 전부 가려진 mask 입력",
                         seed=203, query=(2, 4, 6), key=(2, 4, 6), value=(2, 4, 3),
                         mask=("rows", FULLY_MASKED_ROWS)),
    # The same inputs with a torch.nn.Dropout(0.5) in eval mode, then in train mode.
    "dropout_eval": Case(visible=True, text="eval 모드 Dropout(0.5) 입력",
                         seed=204, query=(2, 4, 6), key=(2, 4, 6), value=(2, 4, 5),
                         mask=("causal", 4), dropout=0.5, train=False),
    "dropout_train": Case(visible=True, text="train 모드 Dropout(0.5) 입력 (torch.manual_seed로 고정)",
                          seed=204, query=(2, 4, 6), key=(2, 4, 6), value=(2, 4, 5),
                          mask=("causal", 4), dropout=0.5, train=True),
    "subsequent_4": Case(visible=True, text="subsequent_mask(4)",
                         function="subsequent_mask", size=4),
    "subsequent_1": Case(visible=True, text="subsequent_mask(1)",
                         function="subsequent_mask", size=1),
    ### BEGIN HIDDEN TESTS
    "cross_lengths": Case(visible=False, text="숨겨진 입력 (query 길이 ≠ key 길이, padding mask)",
                          seed=822_301, query=(2, 3, 6), key=(2, 7, 6), value=(2, 7, 5),
                          mask=("padding", (7, 4), 7)),
    "batched_4d": Case(visible=False, text="숨겨진 4차원 입력 (batch, heads, seq, d_k)와 (batch, 1, seq, seq) mask",
                       seed=822_402, query=(2, 3, 5, 8), key=(2, 3, 5, 8), value=(2, 3, 5, 8),
                       mask=("pad_causal", (5, 3), 5), head_axis=True),
    "int_mask": Case(visible=False, text="숨겨진 입력 (0/1 정수 mask)",
                     seed=822_503, query=(2, 4, 6), key=(2, 4, 6), value=(2, 4, 6),
                     mask=("pad_causal", (4, 2), 4), mask_dtype="int64"),
    "empty_sentence": Case(visible=False, text="숨겨진 입력 (padding뿐인 문장이 있는 batch)",
                           seed=822_705, query=(3, 4, 6), key=(3, 4, 6), value=(3, 4, 6),
                           mask=("padding", (4, 0, 2), 4)),
    "dropout_hidden": Case(visible=False, text="숨겨진 train 모드 dropout 입력",
                           seed=822_604, query=(2, 5, 8), key=(2, 6, 8), value=(2, 6, 4),
                           mask=("padding", (6, 4), 6), dropout=0.3, train=True),
    "subsequent_9": Case(visible=False, text="숨겨진 크기의 subsequent_mask",
                         function="subsequent_mask", size=9),
    ### END HIDDEN TESTS
}


def case_names(visible_only=False):
    """Names of the cases, in a stable order; only the visible ones if asked."""
    return [name for name, case in CASES.items() if case.visible or not visible_only]


def build_mask(recipe, dtype="bool", head_axis=False):
    """A mask from its recipe: 1/True = may attend, 0/False = masked."""
    kind = recipe[0]
    if kind == "causal":
        n = recipe[1]
        mask = torch.ones(1, n, n, dtype=torch.bool).tril()
    elif kind == "padding":
        lengths, seq = recipe[1], recipe[2]
        mask = (torch.arange(seq)[None, :] < torch.tensor(lengths)[:, None]).unsqueeze(-2)
    elif kind == "pad_causal":
        lengths, n = recipe[1], recipe[2]
        padding = (torch.arange(n)[None, :] < torch.tensor(lengths)[:, None]).unsqueeze(-2)
        mask = padding & torch.ones(1, n, n, dtype=torch.bool).tril()
    elif kind == "rows":
        mask = torch.tensor(recipe[1], dtype=torch.bool).unsqueeze(0)
    else:
        raise ValueError(f"unknown mask recipe {recipe!r}")
    if head_axis:
        mask = mask.unsqueeze(1)
    return mask.to(getattr(torch, dtype))


def make_inputs(name):
    """The case's arguments, the same way every time: (query, key, value, mask) or (size,)."""
    case = CASES[name]
    if case.function == "subsequent_mask":
        return (case.size,)
    generator = torch.Generator().manual_seed(case.seed)

    def draw(shape):
        return portable_randn(shape, generator)

    if case.self_attention:
        query = key = value = draw(case.query)
    else:
        query, key, value = draw(case.query), draw(case.key), draw(case.value)
    mask = build_mask(case.mask, case.mask_dtype, case.head_axis) if case.mask else None
    return query, key, value, mask


def make_dropout(name):
    """The case's `torch.nn.Dropout` in the case's mode, or None."""
    case = CASES[name]
    if case.dropout is None:
        return None
    return torch.nn.Dropout(case.dropout).train(case.train)


def run_case(namespace, name):
    """Call the student's function on case `name` and describe the result as plain data."""
    case = CASES[name]
    function = getattr(namespace, case.function, None)
    if not callable(function):
        return {"error": {"type": "MissingFunction", "message": case.function}}
    if case.function == "subsequent_mask":
        try:
            result = function(case.size)
        except BaseException as error:  # a student's SystemExit is a failed call too
            return {"error": describe_exception(error)}
        return {"result": encode(result)}
    query, key, value, mask = make_inputs(name)
    dropout = make_dropout(name)
    calls = []
    if case.dropout is not None:
        dropout.register_forward_hook(lambda module, args, output: calls.append(encode(args[0]) if args else None))
    try:
        if case.defaults:
            result = function(query, key, value)
        else:
            if case.dropout is not None:
                torch.manual_seed(case.seed)  # right before the call: the student's dropout draws from here
            result = function(query, key, value, mask=mask, dropout=dropout)
    except BaseException as error:
        return {"error": describe_exception(error)}
    trace = {"result": encode(result)}
    if case.dropout is not None:
        trace["dropout_calls"] = len(calls)
        trace["dropout_inputs"] = [c if c is not None else {"kind": "none"} for c in calls[:MAX_DROPOUT_CALLS]]
    return trace
