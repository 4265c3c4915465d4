"""Chapter 03 probe: the student's `clones` and `MultiHeadedAttention`, recorded as plain data.

Sandbox side. A "clones" case calls `clones(nn.Linear(3, 2), 4)` and records what came back and
what it shares. A "module" case builds `MultiHeadedAttention(h, d_model[, dropout])` under a fixed
seed and records its structure; a "forward" case also loads weights drawn from the case's seed for
the module's own state_dict names (`modules.load_seeded`), runs it in eval mode or seeded train
mode, and records the output, `self.attn` and, if asked, the gradients. Hidden cases and their
seeds live between the hidden-test markers and never reach students.
"""
import copy
from dataclasses import dataclass

import torch

from . import modules
from .tensors import describe_exception, encode, portable_randn

DATA_FILES = ("ch03_given.json",)  # the units this chapter ships written, as the course wrote them (given.py)

CLASS = "MultiHeadedAttention"
ATTRIBUTES = ("attn", "d_k", "h")
BUILT = ("d_k",)  # read as built, before the forward (which may raise because of it)


@dataclass(frozen=True)
class Case:
    """One build of the student's class (and a forward call), or one call of `clones`."""

    visible: bool
    text: str  # the case in Korean, as diagnoses name it
    kind: str = "forward"  # "clones" | "module" | "forward"
    seed: int = 0
    h: int = 4
    d_model: int = 32
    dropout: float = None  # passed as dropout=…; None leaves the default (0.1)
    batch: int = 2
    query_len: int = 6
    key_len: int = None  # None: self-attention, query = key = value
    distinct_value: bool = False  # cross-attention with value ≠ key
    mask: tuple = None  # ("padding", lengths) | ("causal",)
    train: bool = False
    gradients: bool = False


CASES = {
    "clones": Case(visible=True, text="clones(nn.Linear(3, 2), 4)", kind="clones", seed=301),
    "module": Case(visible=True, text="MultiHeadedAttention(4, 32)의 구조", kind="module", seed=302, h=4, d_model=32),
    # The demo's shapes: self-attention on (2, 6, 32) with 4 heads.
    "self_attn": Case(visible=True, text="self-attention 입력 (2, 6, 32), h=4",
                      seed=303, h=4, d_model=32, batch=2, query_len=6),
    # Cross-attention: 4 queries against 6 keys, value ≠ key.
    "cross": Case(visible=True, text="cross-attention 입력 (query 4개, key 6개, key ≠ value), h=2",
                  seed=304, h=2, d_model=16, batch=2, query_len=4, key_len=6, distinct_value=True),
    # A padding mask (batch, 1, key length) per example; batch 3 ≠ 2 heads.
    "padding": Case(visible=True, text="padding mask (3, 1, 5) 입력, batch 3, h=2",
                    seed=305, h=2, d_model=16, batch=3, query_len=5, mask=("padding", (5, 3, 4))),
    # Seeded train-mode forward with a non-default dropout rate.
    "dropout_train": Case(visible=True, text="train 모드 dropout=0.5 입력 (torch.manual_seed로 고정)",
                          seed=306, h=4, d_model=32, dropout=0.5, batch=2, query_len=5, train=True),
    ### BEGIN HIDDEN TESTS
    "hidden_causal": Case(visible=False, text="숨겨진 입력 (다른 h와 d_model, causal mask)",
                          seed=833_101, h=8, d_model=48, batch=2, query_len=7, mask=("causal",)),
    "hidden_cross_mask": Case(visible=False, text="숨겨진 입력 (cross-attention, padding mask, batch = head 수)",
                              seed=833_202, h=2, d_model=24, batch=2, query_len=3, key_len=5,
                              distinct_value=True, mask=("padding", (5, 2))),
    "hidden_dropout": Case(visible=False, text="숨겨진 train 모드 dropout 입력",
                           seed=833_303, h=2, d_model=20, dropout=0.3, batch=3, query_len=4,
                           key_len=6, distinct_value=True, mask=("padding", (6, 4, 1)), train=True),
    "hidden_gradients": Case(visible=False, text="숨겨진 기울기 입력",
                             seed=833_404, h=3, d_model=12, batch=2, query_len=4, key_len=5,
                             distinct_value=True, gradients=True),
    ### END HIDDEN TESTS
}


def case_names(visible_only=False):
    """Names of the cases, in a stable order; only the visible ones if asked."""
    return [name for name, case in CASES.items() if case.visible or not visible_only]


def build_mask(case):
    """The case's mask (1/True = may attend), or None."""
    if case.mask is None:
        return None
    key_len = case.key_len or case.query_len
    if case.mask[0] == "causal":
        return torch.ones(1, case.query_len, case.query_len, dtype=torch.bool).tril()
    lengths = torch.tensor(case.mask[1])
    return (torch.arange(key_len)[None, :] < lengths[:, None]).unsqueeze(-2)


def make_inputs(name):
    """The case's (query, key, value, mask), the same way every time."""
    case = CASES[name]
    generator = torch.Generator().manual_seed(case.seed)

    def draw(length):
        return portable_randn((case.batch, length, case.d_model), generator)

    query = draw(case.query_len)
    if case.key_len is None:
        key = value = query
    else:
        key = draw(case.key_len)
        value = draw(case.key_len) if case.distinct_value else key
    return query, key, value, build_mask(case)


def constructor_kwargs(case):
    """Keyword arguments of the class besides (h, d_model)."""
    return {} if case.dropout is None else {"dropout": case.dropout}


def run_case(namespace, name):
    """Run case `name` against the student's code and describe what happened as plain data."""
    case = CASES[name]
    if case.kind == "clones":
        return run_clones(namespace, case)
    trace = run_module(namespace, name)
    if clones_faulty(namespace):
        with modules.stand_in(namespace, "clones", deep_clones, CLASS):
            trace["stand_in"] = run_module(namespace, name)
    return trace


def run_module(namespace, name):
    """Build the student's class for case `name` (and run its forward on a "forward" case): the trace."""
    case = CASES[name]
    args = (case.h, case.d_model)
    if case.kind == "module":
        return modules.record(namespace, CLASS, args, constructor_kwargs(case), case.seed, attribute_names=ATTRIBUTES)
    query, key, value, mask = make_inputs(name)
    return modules.record(namespace, CLASS, args, constructor_kwargs(case), case.seed, (query, key, value),
                          case.train, {"mask": mask}, ATTRIBUTES, case.gradients, built_names=BUILT)


def deep_clones(module, N):
    """The probe's own `clones` (N deep copies in an nn.ModuleList): the stand-in for a student's faulty one."""
    return torch.nn.ModuleList([copy.deepcopy(module) for _ in range(N)])


def clones_faulty(namespace):
    """Whether the student's `clones` (defined) fails what the "clones" case checks: N deep copies, equal, registered."""
    if not callable(getattr(namespace, "clones", None)):
        return False
    with torch.random.fork_rng(devices=[]):
        trace = run_clones(namespace, CASES["clones"])
    if "error" in trace or trace.get("type") != "ModuleList" or trace.get("length") != 4:
        return True
    copies = trace["copies"]
    return trace["shared_between_copies"] or not all(
        c["same_values"] and (c["is_original"] or not c["shares_with_original"]) for c in copies)


def run_clones(namespace, case):
    """`clones(nn.Linear(3, 2), 4)`: its type, length, and whether the copies share anything."""
    clones = getattr(namespace, "clones", None)
    if not callable(clones):
        return {"error": {"type": "MissingFunction", "message": "clones"}}
    torch.manual_seed(case.seed)
    original = torch.nn.Linear(3, 2)
    try:
        result = clones(original, 4)
    except BaseException as error:
        return {"error": describe_exception(error)}
    try:
        items = list(result)
    except TypeError:
        return {"result": encode(result), "type": type(result).__name__}
    seen, shared_between = set(), False
    copies = []
    for item in items[:16]:
        parameters = list(item.parameters()) if isinstance(item, torch.nn.Module) else []
        ids = {id(p) for p in parameters}
        shared_between = shared_between or bool(ids & seen)
        seen |= ids
        copies.append({
            "type": type(item).__name__,
            "is_original": item is original,
            "shares_with_original": bool(ids & {id(p) for p in original.parameters()}),
            "same_values": isinstance(item, torch.nn.Linear)
            and torch.equal(item.weight, original.weight) and torch.equal(item.bias, original.bias),
        })
    return {
        "type": type(result).__name__,
        "is_module": isinstance(result, torch.nn.Module),
        "length": len(items),
        "copies": copies,
        "shared_between_copies": shared_between,
        "registered_parameters": len(list(result.parameters())) if isinstance(result, torch.nn.Module) else 0,
    }
