"""Chapter 08 probe: the student's `DecoderLayer` and `Decoder`, recorded as plain data.

Sandbox side. Every case builds its parts from the student's own namespace (`MultiHeadedAttention`
twice, `PositionwiseFeedForward`, shipped solved from chapters 03-04) under a fixed seed. A "module"
case records the structure; a "forward" case also loads weights drawn from the case's seed for the
module's own state_dict names and runs it in eval or seeded train mode on a target `x`, an encoder
`memory` of another length, a padding `src_mask` (batch, 1, S) and a causal + padding `tgt_mask`
(batch, T, T). A `Decoder` case also keeps layer 0's `src_attn.attn` (the feedback picture). Hidden
cases and their seeds live between the hidden-test markers and never reach students.
"""
import types
from dataclasses import dataclass

import torch

from . import module_calls, modules
from .tensors import describe_exception, encode, portable_randn

DATA_FILES = ("ch08_given.json",)  # the units this chapter ships written, as the course wrote them (given.py)

LAYER = "DecoderLayer"
DECODER = "Decoder"
SOURCE_ATTENTION = "layers.0.src_attn.attn"  # what the Decoder's forward kept: the feedback picture


@dataclass(frozen=True)
class Case:
    """One build of a student's class from its parts, and one forward call unless `kind` is "module"."""

    visible: bool
    text: str  # the case in Korean, as diagnoses name it
    kind: str  # "module" | "forward"
    cls: str = LAYER
    seed: int = 0
    d_model: int = 16
    h: int = 2
    d_ff: int = 32
    dropout: float = 0.1
    N: int = 2  # Decoder only
    src_lengths: tuple = (7, 4)  # memory length S = max; one entry per batch element
    tgt_lengths: tuple = (5, 3)  # target length T = max
    train: bool = False
    layer: str = "student"  # Decoder: "student" (its DecoderLayer) | "stand_in" (the probe's LayerDouble)


ALONE = "(DecoderLayer 대신 채점기의 대역)"


CASES = {
    "layer_module": Case(visible=True, text="DecoderLayer(16, …, 0.1)의 구조", kind="module", seed=801),
    "layer_eval": Case(visible=True, text="DecoderLayer, eval 모드, target 길이 5, memory 길이 7 (padding 있음)",
                       kind="forward", seed=802),
    "same_length": Case(visible=True, text="DecoderLayer, eval 모드, target과 memory 길이가 같은 6 (padding 있음)",
                        kind="forward", seed=803, h=4, d_ff=24, src_lengths=(4, 6), tgt_lengths=(6, 5)),
    "decoder_module": Case(visible=True, text="Decoder(DecoderLayer(32, …), 2)의 구조", kind="module", cls=DECODER,
                           seed=804, d_model=32, h=4, d_ff=64),
    "decoder_eval": Case(visible=True, text="Decoder(N=2), eval 모드, target 길이 6, memory 길이 8 (padding 있음)",
                         kind="forward", cls=DECODER, seed=805, d_model=32, h=4, d_ff=64, src_lengths=(5, 8),
                         tgt_lengths=(6, 4)),
    "decoder_train": Case(visible=True, text="Decoder(N=2), train 모드 dropout=0.3 (torch.manual_seed로 고정), "
                          "target 길이 5, memory 길이 4", kind="forward", cls=DECODER, seed=806, dropout=0.3,
                          src_lengths=(4, 2), tgt_lengths=(5, 5), train=True),
    # Each Decoder case again with the probe's LayerDouble as the layer: judged instead when DecoderLayer fails its own
    "decoder_module_alone": Case(visible=True, text=f"Decoder(layer, 2)의 구조 {ALONE}", kind="module", cls=DECODER,
                                 seed=804, d_model=32, h=4, d_ff=64, layer="stand_in"),
    "decoder_eval_alone": Case(visible=True, text=f"Decoder(N=2), eval 모드, target 길이 6, memory 길이 8 {ALONE}",
                               kind="forward", cls=DECODER, seed=805, d_model=32, h=4, d_ff=64, src_lengths=(5, 8),
                               tgt_lengths=(6, 4), layer="stand_in"),
    "decoder_train_alone": Case(visible=True, text=f"Decoder(N=2), train 모드 dropout=0.3, target 길이 5, memory 길이 4 "
                                f"{ALONE}", kind="forward", cls=DECODER, seed=806, dropout=0.3, src_lengths=(4, 2),
                                tgt_lengths=(5, 5), train=True, layer="stand_in"),
    ### BEGIN HIDDEN TESTS
    "hidden_layer": Case(visible=False, text="숨겨진 DecoderLayer 입력 (다른 크기와 길이, batch 3)", kind="forward",
                         seed=888_101, d_model=24, h=3, d_ff=40, src_lengths=(9, 3, 6), tgt_lengths=(4, 2, 3)),
    "hidden_decoder": Case(visible=False, text="숨겨진 Decoder 입력 (N=3, memory가 target보다 짧음)", kind="forward",
                           cls=DECODER, seed=888_202, d_model=20, h=4, d_ff=36, N=3, src_lengths=(3, 5),
                           tgt_lengths=(7, 6)),
    "hidden_train": Case(visible=False, text="숨겨진 train 모드 Decoder 입력", kind="forward", cls=DECODER,
                         seed=888_303, d_model=24, h=2, d_ff=48, dropout=0.2, src_lengths=(5, 2, 4),
                         tgt_lengths=(5, 3, 4), train=True),
    "hidden_decoder_alone": Case(visible=False, text=f"숨겨진 Decoder 입력 {ALONE}", kind="forward", cls=DECODER,
                                 seed=888_202, d_model=20, h=4, d_ff=36, N=3, src_lengths=(3, 5), tgt_lengths=(7, 6),
                                 layer="stand_in"),
    "hidden_train_alone": Case(visible=False, text=f"숨겨진 train 모드 Decoder 입력 {ALONE}", kind="forward",
                               cls=DECODER, seed=888_303, d_model=24, h=2, d_ff=48, dropout=0.2,
                               src_lengths=(5, 2, 4), tgt_lengths=(5, 3, 4), train=True, layer="stand_in"),
    ### END HIDDEN TESTS
}


def case_names(visible_only=False):
    """Names of the cases, in a stable order; only the visible ones if asked."""
    return [name for name, case in CASES.items() if case.visible or not visible_only]


def padding(lengths):
    """(batch, 1, max length) bool: True where a position is a real token."""
    lengths = torch.tensor(lengths)
    return (torch.arange(int(lengths.max()))[None, :] < lengths[:, None]).unsqueeze(-2)


def make_inputs(name):
    """The case's (x, memory, src_mask, tgt_mask), the same way every time; tgt_mask = padding & causal."""
    case = CASES[name]
    generator = torch.Generator().manual_seed(case.seed)
    batch, source, target = len(case.src_lengths), max(case.src_lengths), max(case.tgt_lengths)
    x = portable_randn((batch, target, case.d_model), generator)
    memory = portable_randn((batch, source, case.d_model), generator)
    causal = torch.ones(1, target, target, dtype=torch.bool).tril()
    return x, memory, padding(case.src_lengths), padding(case.tgt_lengths) & causal


def parts(namespace, case):
    """(self_attn, src_attn, feed_forward), two attentions and a feed-forward built from the student's classes."""
    attention = getattr(namespace, "MultiHeadedAttention", None)
    feed_forward = getattr(namespace, "PositionwiseFeedForward", None)
    for name, cls in (("MultiHeadedAttention", attention), ("PositionwiseFeedForward", feed_forward)):
        if not callable(cls):
            raise LookupError(name)
    torch.manual_seed(case.seed)
    return (attention(case.h, case.d_model, case.dropout), attention(case.h, case.d_model, case.dropout),
            feed_forward(case.d_model, case.d_ff, case.dropout))


class LayerDouble(torch.nn.Module):
    """The probe's stand-in for the student's DecoderLayer inside Decoder (the "_alone" cases): a `size` like the
    original's and a layer of its own, not the chapter's (each target position mixed with the mean of the positions its
    tgt_mask lets it see and of the memory's real tokens), so a memory or mask that does not reach it shows; a dropout
    that only train mode uses."""

    def __init__(self, features, dropout):
        super().__init__()
        self.size = features
        self.mix = torch.nn.Linear(features, features)
        self.dropout = torch.nn.Dropout(dropout)

    def forward(self, x, memory, src_mask, tgt_mask):
        keep = src_mask.transpose(-2, -1).to(x.dtype)  # (batch, S, 1): 1 at the memory's real tokens
        source = (memory * keep).sum(-2, keepdim=True) / keep.sum(-2, keepdim=True)
        seen = tgt_mask.to(x.dtype)  # (batch, T, T)
        past = seen @ x / seen.sum(-1, keepdim=True).clamp(min=1)
        return x + self.dropout(torch.tanh(self.mix(past + source)))


def constructor(namespace, case):
    """(args, None) the case builds its class with (a Decoder's layer built here), or (None, an error trace)."""
    if case.layer == "stand_in":
        torch.manual_seed(case.seed)
        return (LayerDouble(case.d_model, case.dropout), case.N), None
    try:
        layer_args = (case.d_model, *parts(namespace, case), case.dropout)
    except LookupError as missing:
        return None, {"error": {"type": "MissingFunction", "message": str(missing.args[0])}}
    except BaseException as error:
        return None, {"error": describe_exception(error)}
    if case.cls == LAYER:
        return layer_args, None
    layer, failed = modules.build(namespace, LAYER, layer_args, seed=case.seed)
    return (None, failed) if failed else ((layer, case.N), None)


class Kept:
    """The student's class, keeping the module it builds (to read a nested attribute after the forward); with
    `inputs` ({name: tensor}) the calls of its parts are recorded (`module_calls`)."""

    def __init__(self, cls, inputs=None):
        self.cls, self.module, self.inputs, self.recorder = cls, None, inputs, None

    def __call__(self, *args, **kwargs):
        self.module = self.cls(*args, **kwargs)
        if self.inputs is not None and isinstance(self.module, torch.nn.Module):
            self.recorder = module_calls.watch(self.module, self.inputs)
        return self.module


def nested_attribute(module, path):
    """The attribute at a dotted `path` of submodules (`layers.0.src_attn.attn`), encoded; missing ones marked."""
    holder, _, name = path.rpartition(".")
    try:
        value = getattr(module.get_submodule(holder), name)
    except (AttributeError, TypeError, IndexError):
        return modules.MISSING
    return encode(value)


def run_case(namespace, name):
    """Run case `name` against the student's classes and describe what happened as plain data."""
    case = CASES[name]
    args, failed = constructor(namespace, case)
    if failed:
        return failed
    x, memory, src_mask, tgt_mask = make_inputs(name)
    inputs = None if case.kind == "module" else {"x": x, "memory": memory, "src_mask": src_mask, "tgt_mask": tgt_mask}
    cls = getattr(namespace, case.cls, None)
    kept = Kept(cls, inputs) if callable(cls) else None
    built = types.SimpleNamespace(**{case.cls: kept})
    if case.kind == "module":
        return modules.record(built, case.cls, args, seed=case.seed, attribute_names=("size",))
    trace = modules.record(built, case.cls, args, seed=case.seed, inputs=(x, memory, src_mask, tgt_mask),
                           train=case.train)
    if case.cls == DECODER and "result" in trace:
        trace["attributes"][SOURCE_ATTENTION] = nested_attribute(kept.module, SOURCE_ATTENTION)
    if kept is not None and kept.recorder is not None:
        trace["calls"] = kept.recorder.calls
        kept.recorder.remove()
    return trace
