"""Chapter 07 probe: the student's `EncoderLayer` and `Encoder`, built from their own classes, as plain data.

Sandbox side. Every case builds `EncoderLayer(d_model, MultiHeadedAttention(h, d_model, dropout),
PositionwiseFeedForward(d_model, d_ff, dropout), dropout)` from the student's namespace (chapters 03-04
ship solved) and, for the encoder, `Encoder(layer, N)`, under a fixed seed. A "module" case records the
structure (shared layers and sublayers show as names of one tensor); a "forward" case loads weights drawn
from the case's seed for the module's own state_dict names, runs it in eval or seeded train mode on an
input with a padding mask (batch, 1, length), and records the output and layer 0's `self_attn.attn`.
Hidden cases and their seeds live between the hidden-test markers and never reach students.
"""
import types
from dataclasses import dataclass

import torch

from . import module_calls, modules
from .tensors import encode, portable_randn

DATA_FILES = ("ch07_given.json",)  # the units this chapter ships written, as the course wrote them (given.py)

LAYER = "EncoderLayer"
ENCODER = "Encoder"
PARTS = ("MultiHeadedAttention", "PositionwiseFeedForward")


@dataclass(frozen=True)
class Case:
    """One build of the student's EncoderLayer (or Encoder of N such layers), and one forward unless a "module" case."""

    visible: bool
    text: str  # the case in Korean, as diagnoses name it
    kind: str = "forward"  # "module" | "forward"
    cls: str = ENCODER
    seed: int = 0
    d_model: int = 16
    h: int = 2
    d_ff: int = 32
    n: int = 2  # layers (Encoder only)
    dropout: float = 0.1
    lengths: tuple = (5, 3)  # tokens per sentence; the rest of each row is padding
    length: int = 5
    train: bool = False
    layer: str = "student"  # Encoder: "student" (its EncoderLayer) | "stand_in" (the probe's LayerDouble)


ALONE = "(EncoderLayer 대신 채점기의 대역)"


CASES = {
    "layer_module": Case(visible=True, text="EncoderLayer(16, ...)의 구조 (h=2, d_ff=32, dropout=0.2)", kind="module",
                         cls=LAYER, seed=701, dropout=0.2),
    "encoder_module": Case(visible=True, text="Encoder(layer, 2)의 구조 (d_model=16, h=2, d_ff=32, dropout=0.2)",
                           kind="module", seed=702, dropout=0.2),
    "layer_eval": Case(visible=True, text="EncoderLayer(16, ...), eval 모드 입력 (3, 5, 16)과 padding mask (3, 1, 5)",
                       cls=LAYER, seed=703, lengths=(5, 3, 4)),
    # The picture's case: layer 0's self-attention over a sentence with two padding tokens.
    "encoder_eval": Case(visible=True, text="Encoder(layer, 2), eval 모드 입력 (2, 6, 16)과 padding mask (2, 1, 6), h=4",
                         seed=704, h=4, lengths=(4, 6), length=6),
    "encoder_train": Case(visible=True, text="Encoder(layer, 2), train 모드 dropout=0.3 입력 (2, 5, 16)과 padding mask "
                          "(torch.manual_seed로 고정)", seed=705, dropout=0.3, lengths=(5, 3), train=True),
    # Each Encoder case again with the probe's LayerDouble as the layer: judged instead when EncoderLayer fails its own
    "encoder_module_alone": Case(visible=True, text=f"Encoder(layer, 2)의 구조 {ALONE}", kind="module", seed=702,
                                 dropout=0.2, layer="stand_in"),
    "encoder_eval_alone": Case(visible=True, text=f"Encoder(layer, 2), eval 모드 입력 (2, 6, 16)과 padding mask {ALONE}",
                               seed=704, h=4, lengths=(4, 6), length=6, layer="stand_in"),
    "encoder_train_alone": Case(visible=True, text=f"Encoder(layer, 2), train 모드 dropout=0.3 입력 (2, 5, 16) {ALONE}",
                                seed=705, dropout=0.3, lengths=(5, 3), train=True, layer="stand_in"),
    ### BEGIN HIDDEN TESTS
    "hidden_layer": Case(visible=False, text="숨겨진 EncoderLayer 입력 (다른 크기와 padding)", cls=LAYER, seed=877_101,
                         d_model=24, h=3, d_ff=40, lengths=(2, 7), length=7),
    "hidden_encoder": Case(visible=False, text="숨겨진 Encoder 입력 (다른 크기, 층 수와 padding)", seed=877_202,
                           d_model=20, h=4, d_ff=24, n=3, lengths=(6, 1, 4), length=6),
    "hidden_train": Case(visible=False, text="숨겨진 train 모드 Encoder 입력", seed=877_303, d_model=12, h=2, d_ff=20,
                         n=3, dropout=0.25, lengths=(3, 4), length=4, train=True),
    "hidden_encoder_alone": Case(visible=False, text=f"숨겨진 Encoder 입력 {ALONE}", seed=877_202, d_model=20, h=4,
                                 d_ff=24, n=3, lengths=(6, 1, 4), length=6, layer="stand_in"),
    "hidden_train_alone": Case(visible=False, text=f"숨겨진 train 모드 Encoder 입력 {ALONE}", seed=877_303, d_model=12,
                               h=2, d_ff=20, n=3, dropout=0.25, lengths=(3, 4), length=4, train=True,
                               layer="stand_in"),
    ### END HIDDEN TESTS
}


def case_names(visible_only=False):
    """Names of the cases, in a stable order; only the visible ones if asked."""
    return [name for name, case in CASES.items() if case.visible or not visible_only]


def padding_mask(lengths, length):
    """(batch, 1, length) bool: True where a token is real, False on the padding after it."""
    return (torch.arange(length)[None, :] < torch.tensor(lengths)[:, None]).unsqueeze(-2)


def make_inputs(name):
    """The case's (x, mask), the same way every time."""
    case = CASES[name]
    generator = torch.Generator().manual_seed(case.seed)
    x = portable_randn((len(case.lengths), case.length, case.d_model), generator)
    return x, padding_mask(case.lengths, case.length)


def attn_path(case):
    """Where layer 0's attention weights live, from the recorded module."""
    return "self_attn.attn" if case.cls == LAYER else "layers.0.self_attn.attn"


def builder(namespace, case, built, inputs=None):
    """A namespace whose one class builds the case's module from the student's own classes (kept in `built`); with
    `inputs` ({name: tensor}) its parts' calls are recorded (`module_calls`), the recorder kept after the module."""

    def make():
        if case.layer == "stand_in":
            module = LayerDouble(case.d_model, case.dropout)
        else:
            attn = namespace.MultiHeadedAttention(case.h, case.d_model, case.dropout)
            feed_forward = namespace.PositionwiseFeedForward(case.d_model, case.d_ff, case.dropout)
            module = namespace.EncoderLayer(case.d_model, attn, feed_forward, case.dropout)
        if case.cls == ENCODER:
            module = namespace.Encoder(module, case.n)
        built.append(module)
        if inputs is not None:
            built.append(module_calls.watch(module, inputs))
        return module

    return types.SimpleNamespace(**{case.cls: make})


class LayerDouble(torch.nn.Module):
    """The probe's stand-in for the student's EncoderLayer inside Encoder (the "_alone" cases): a `size` like the
    original's and a layer of its own, not the chapter's (each position mixed with the mean of the real tokens, so a
    mask that does not reach it shows), with a dropout that only train mode uses."""

    def __init__(self, features, dropout):
        super().__init__()
        self.size = features
        self.mix = torch.nn.Linear(features, features)
        self.dropout = torch.nn.Dropout(dropout)

    def forward(self, x, mask):
        keep = mask.transpose(-2, -1).to(x.dtype)  # (batch, length, 1): 1 at real tokens
        pooled = (x * keep).sum(-2, keepdim=True) / keep.sum(-2, keepdim=True)
        return x + self.dropout(torch.tanh(self.mix(x + pooled)))


def nested_attribute(module, path):
    """The attribute at a dotted `path` ("layers.0.self_attn.attn": list items by index), encoded, or missing."""
    value = module
    for part in path.split("."):
        try:
            value = value[int(part)] if part.isdigit() else getattr(value, part)
        except (AttributeError, IndexError, KeyError, TypeError):
            return modules.MISSING
    return encode(value)


def run_case(namespace, name):
    """Run case `name` against the student's classes and describe what happened as plain data."""
    case = CASES[name]
    needed = ((*PARTS, LAYER) if case.layer == "student" else ()) + ((ENCODER,) if case.cls == ENCODER else ())
    missing = next((cls for cls in needed if not callable(getattr(namespace, cls, None))), None)
    if missing:
        return {"error": {"type": "MissingFunction", "message": missing}}
    built = []
    if case.kind == "module":
        return modules.record(builder(namespace, case, built), case.cls, (), {}, case.seed, attribute_names=("size",))
    x, mask = make_inputs(name)
    trace = modules.record(builder(namespace, case, built, {"x": x, "mask": mask}), case.cls, (), {}, case.seed,
                           (x, mask), case.train)
    if "result" in trace:
        trace["attributes"][attn_path(case)] = nested_attribute(built[0], attn_path(case))
    if len(built) > 1 and built[1] is not None:
        trace["calls"] = built[1].calls
        built[1].remove()
    return trace
