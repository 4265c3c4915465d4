"""Chapter 13 probe: the student's `greedy_decode`, run on a trained and on random models, recorded as plain data.

Sandbox side. A "copy" case builds the trained copy-task model (`trained.py`: the student's `make_model`, the
build's trained weights loaded strictly) and decodes a source of the copy task. A "random" case builds a small
two-layer `make_model` and loads weights drawn from the case's seed, enlarged (`scale`) so that every position,
the causal mask and the source's padding change what the model predicts. Each case records what greedy_decode
returned and, from hooks on the model's encoder, decoder and generator, what it handed them: the source mask
encode and decode got (the source mask as the target mask, or the causal mask as the source mask, named as
such), the target mask, length and batch size of each decode (and whether it returned), and each
generator call's input shape, its best token and log-probability and the gap to the second best (the reference's gaps
show that no step is a near tie), and the tokens each target embedding got; a second run under another seed says
whether the tokens depend on the random state (sampled rather than picked). Hidden cases live between the hidden-test
markers.
"""
import contextlib
from dataclasses import dataclass

import torch

from . import modules, trained
from .tensors import describe_exception, encode

DATA_FILES = ("ch13_given.json",)  # the units this chapter ships written, as the course wrote them (given.py)

FUNCTION = "greedy_decode"
PAD = 0
MAX_CALLS = 16  # hook records kept per kind (max_len stays below)
RESEED = 7919  # the second run's seed (plus the case's): sampled tokens change, picked ones do not

with contextlib.suppress(OSError, ValueError):  # the warm worker reads the weights once (the first build has none)
    trained.parameters()


@dataclass(frozen=True)
class Case:
    """One call greedy_decode(model, src, src_mask, max_len, start_symbol)."""

    visible: bool
    text: str  # the case in Korean, as diagnoses name it
    model: str  # "copy" (the trained copy model) | "random" (seeded, enlarged weights)
    seed: int = 0  # draws the source (and a random model's weights)
    length: int = 10  # source tokens, padding included
    padding: int = 0  # padding tokens (0) at the end of the source
    max_len: int = 10
    start: int = 1
    tokens: tuple = ()  # a fixed source instead of a drawn one
    vocab: int = trained.VOCAB
    N: int = 2
    d_model: int = 16
    d_ff: int = 32
    h: int = 2
    scale: float = 3.0  # random models: the seeded matrices times this (sharper attention: position and masks matter)
    embedding_scale: float = 0.25  # the token embeddings' (smaller: the last token alone does not decide the next)


COPY = "학습한 복사 모델"
CASES = {
    "digits": Case(visible=True, text=f"{COPY}, src [1, 2, …, 10], max_len=10", model="copy", tokens=tuple(range(1, 11))),
    "copy_random": Case(visible=True, text=f"{COPY}, 무작위 src (1, 10), max_len=10", model="copy", seed=1301),
    # the random models: make_model(9, 9, N=2, d_model=16, d_ff=32, h=2) and make_model(11, 11, ...) (short texts:
    # a diagnosis names its case)
    "causal": Case(visible=True, text="무작위 2층 모델, src (1, 6), max_len=8, start_symbol=4", model="random",
                   seed=1314, vocab=9, length=6, max_len=8, start=4),
    "padded": Case(visible=True, text="무작위 2층 모델, padding 3개인 src (1, 7), max_len=6, start_symbol=5",
                   model="random", seed=1304, length=7, padding=3, max_len=6, start=5, scale=2.0),
    ### BEGIN HIDDEN TESTS
    "hidden_copy": Case(visible=False, text=f"숨겨진 {COPY} 입력 (source보다 짧은 max_len)", model="copy", seed=1_391_301,
                        max_len=8),  # the source itself is not the answer here
    "hidden_causal": Case(visible=False, text="숨겨진 무작위 모델 입력 (다른 크기와 시작 기호)", model="random",
                          seed=1_391_318, vocab=13, d_model=24, d_ff=40, h=3, length=8, max_len=9, start=7, scale=2.0),
    "hidden_padded": Case(visible=False, text="숨겨진 무작위 모델 입력 (다른 padding)", model="random", seed=1_391_303,
                          vocab=10, N=3, d_model=16, d_ff=24, h=4, length=9, padding=4, max_len=7, start=2, scale=2.0),
    "hidden_short": Case(visible=False, text="숨겨진 무작위 모델 입력 (짧은 max_len)", model="random", seed=1_391_304,
                         vocab=12, length=5, padding=1, max_len=2, start=9),
    ### END HIDDEN TESTS
}


def case_names(visible_only=False):
    """Names of the cases, in a stable order; only the visible ones if asked."""
    return [name for name, case in CASES.items() if case.visible or not visible_only]


def make_inputs(name):
    """(src, src_mask) of the case: src (1, length) tokens in 1..vocab-1 (a copy source starts with the start symbol
    1), the last `padding` of them 0; src_mask (1, 1, length), True at the real tokens."""
    case = CASES[name]
    generator = torch.Generator().manual_seed(case.seed)
    if case.tokens:
        src = torch.tensor([case.tokens])
    else:
        src = torch.randint(1, case.vocab, (1, case.length), generator=generator)
        if case.model == "copy":
            src[:, 0] = 1
    src[:, case.length - case.padding:] = PAD
    return src, (src != PAD).unsqueeze(-2)


_KEPT = {"namespace": None, "models": {}}  # the last submission's models: {model key: (make_model, modules.Pristine)}


def model_for(namespace, case):
    """The case's model in eval mode: the one built before for the same submission and model, if nothing since
    changed it (the run and its re-run under another seed, the copy model's cases), else built anew (building or
    loading may raise)."""
    if _KEPT["namespace"] is not namespace:  # another submission (a notebook's namespace cannot be weakly referenced)
        _KEPT["namespace"], _KEPT["models"] = namespace, {}
    make = getattr(namespace, "make_model", None)  # a notebook may define it again between two checks
    key = "copy" if case.model == "copy" else case
    made_by, kept = _KEPT["models"].get(key, (None, None))
    if kept is not None and made_by is make and kept.intact():
        return kept.module
    model = build_model(namespace, case)
    _KEPT["models"][key] = (make, modules.Pristine(model))
    return model


def build_model(namespace, case):
    """The case's model, built with the namespace's `make_model`, in eval mode (building or loading may raise)."""
    if case.model == "copy":
        return trained.build(namespace)
    torch.manual_seed(case.seed)
    model = namespace.make_model(case.vocab, case.vocab, N=case.N, d_model=case.d_model, d_ff=case.d_ff, h=case.h)
    shapes = [(name, list(p.shape)) for name, p in model.named_parameters() if not name.endswith((".a_2", ".b_2"))]
    weights = {name: w * (case.embedding_scale if ".lut." in name else case.scale if w.dim() > 1 else 1.0)
               for name, w in modules.seeded_weights(shapes, case.seed).items()}
    model.load_state_dict({**model.state_dict(), **weights}, strict=True)
    return model.eval()


def decode(namespace, name, spy=None, seed=None):
    """Build the case's model and call `namespace.greedy_decode` on the case's inputs (hooked by `spy` if given; the
    random state reseeded with `seed` once the model is built, if given)."""
    case = CASES[name]
    function = getattr(namespace, FUNCTION)
    model = model_for(namespace, case)
    src, src_mask = make_inputs(name)
    if seed is not None:
        torch.manual_seed(seed)
    with torch.no_grad(), (spy.watching(model, src_mask) if spy else contextlib.nullcontext()):
        return function(model, src, src_mask, case.max_len, case.start)


def run_case(namespace, name):
    """Run case `name` against the student's code and describe what happened as plain data."""
    if not callable(getattr(namespace, FUNCTION, None)):
        return {"error": {"type": "MissingFunction", "message": FUNCTION}}
    spy = Spy()
    try:
        result = decode(namespace, name, spy, seed=CASES[name].seed)  # a sampling student's tokens, whatever ran before
    except BaseException as error:  # a student's SystemExit is a failed call too
        return {"error": describe_exception(error), "calls": spy.calls}
    return {"result": encode(result), "calls": spy.calls, "varies": varies(namespace, name, result)}


def varies(namespace, name, result):
    """Whether greedy_decode, run again under another seed, returns other tokens (None if the second run raised)."""
    try:
        again = decode(namespace, name, seed=RESEED + CASES[name].seed)
        return not (isinstance(again, torch.Tensor) and isinstance(result, torch.Tensor)
                    and again.shape == result.shape and torch.equal(again, result))
    except BaseException:  # the first run returned: a second that raises says nothing about sampling
        return None


# ----------------------------------------------------------------------------- what the model was handed


def mask_kind(mask, expected, right):
    """`right` when `mask` equals the boolean `expected` (broadcast, any dtype), else "none", "ones" or "other"."""
    if mask is None:
        return "none"
    try:
        found = (torch.as_tensor(mask) != 0).expand(expected.shape)
    except BaseException:
        return "other"
    if torch.equal(found, expected):
        return right
    return "ones" if bool(found.all()) else "other"


def other_kind(mask, expected, alternatives):
    """The name of the first of `alternatives` ({name: boolean mask of another shape than `expected`'s}) that `mask`
    equals in its own shape, or None: the source mask handed as the target mask, the causal mask as the source mask
    (told apart by shape, which broadcasting would hide: a causal mask of one token looks like a source mask)."""
    if not isinstance(mask, torch.Tensor):
        return None
    found = mask != 0
    for name, alternative in alternatives.items():
        if found.shape == alternative.shape != expected.shape and torch.equal(found, alternative):
            return name
    return None


def last_scores(log_probs):
    """The vocabulary scores of the last position of a (1, vocab) or (1, length, vocab) generator output, or None."""
    if not isinstance(log_probs, torch.Tensor) or log_probs.dim() not in (2, 3) or log_probs.size(0) != 1:
        return None
    return log_probs.detach().double().reshape(-1, log_probs.size(-1))[-1]


def gap(log_probs):
    """The best log-probability minus the second best of a (1, vocab) generator output (None for other shapes)."""
    if not isinstance(log_probs, torch.Tensor) or log_probs.dim() != 2 or log_probs.size(0) != 1:
        return None
    top = log_probs.detach().double().topk(2, dim=-1).values[0]
    return float(top[0] - top[1])


def best(log_probs):
    """{"best": token, "top": its log-probability} of the generator output's last position ({} for other shapes)."""
    scores = last_scores(log_probs)
    if scores is None or scores.numel() == 0:
        return {}
    top, token = scores.max(dim=-1)
    return {"best": int(token), "top": float(top)}


def tokens(x, limit=64):
    """The token ids of a (1, length) integer target as a list (None for anything else)."""
    if (not isinstance(x, torch.Tensor) or x.dim() != 2 or x.size(0) != 1 or x.size(1) > limit
            or x.is_floating_point() or x.is_complex()):
        return None
    return [int(token) for token in x[0]]


class Spy:
    """Hooks on the model's encoder, decoder and generator: `calls` holds what each was handed, as plain data."""

    def __init__(self):
        self.calls = {"encoder": [], "decoder": [], "generator": [], "target": []}
        self.src_mask = None
        self.decoder_calls = 0
        self.memories = []  # what the encoder returned (at most MAX_CALLS), to tell a decoder's memory apart

    @contextlib.contextmanager
    def watching(self, model, src_mask):
        """Hook `model` while the block runs."""
        self.src_mask = src_mask
        handles = [model.encoder.register_forward_pre_hook(self.on_encoder, with_kwargs=True),
                   model.encoder.register_forward_hook(self.on_encoded),
                   model.decoder.register_forward_pre_hook(self.on_decoder, with_kwargs=True),
                   model.decoder.register_forward_hook(self.on_decoded),
                   model.generator.register_forward_hook(self.on_generator)]
        embed = getattr(model, "tgt_embed", None)
        if isinstance(embed, torch.nn.Module):
            handles.append(embed.register_forward_pre_hook(self.on_target))
        try:
            yield
        finally:
            for handle in handles:
                handle.remove()

    def keep(self, kind, entry):
        if len(self.calls[kind]) < MAX_CALLS:
            self.calls[kind].append(entry)

    def on_encoder(self, module, args, kwargs):
        mask = args[1] if len(args) > 1 else kwargs.get("mask")
        self.keep("encoder", {"src_mask": mask_kind(mask, self.src_mask, "given")})

    def on_encoded(self, module, args, output):
        if len(self.memories) < MAX_CALLS:
            self.memories.append(output)

    def memory_kind(self, memory):
        """"encoded" when the decoder got a tensor the encoder returned (or an equal copy of one), else "other"."""
        for encoded in self.memories:
            if memory is encoded or (isinstance(memory, torch.Tensor) and isinstance(encoded, torch.Tensor)
                                     and memory.shape == encoded.shape and torch.equal(memory, encoded)):
                return "encoded"
        return "other"

    def on_decoder(self, module, args, kwargs):
        names = ("x", "memory", "src_mask", "tgt_mask")
        values = dict(zip(names, args), **kwargs)
        x = values.get("x")
        self.decoder_calls += 1
        embedded = isinstance(x, torch.Tensor) and x.dim() == 3
        length = int(x.size(1)) if embedded else None
        causal = torch.ones(1, length or 1, length or 1, dtype=torch.bool).tril()
        src_mask, tgt_mask = values.get("src_mask"), values.get("tgt_mask")
        given = torch.as_tensor(self.src_mask) != 0
        self.keep("decoder", {"length": length, "batch": int(x.size(0)) if embedded else None,
                              "src_mask": (other_kind(src_mask, given, {"causal": causal})
                                           or mask_kind(src_mask, self.src_mask, "given")),
                              "tgt_mask": (other_kind(tgt_mask, causal, {"source": given})
                                           or mask_kind(tgt_mask, causal, "causal")),
                              "memory": self.memory_kind(values.get("memory")), "done": False})

    def on_decoded(self, module, args, output):
        """The decoder's call returned (a call that raised stays not done)."""
        if self.decoder_calls <= len(self.calls["decoder"]):
            self.calls["decoder"][self.decoder_calls - 1]["done"] = True

    def on_generator(self, module, args, output):
        x = args[0] if args else None
        self.keep("generator", {"shape": list(x.shape) if isinstance(x, torch.Tensor) else None, "gap": gap(output),
                                **best(output)})

    def on_target(self, module, args):
        """The tokens the target embedding got (seen even when embedding them raises, e.g. a negative token)."""
        self.keep("target", {"tokens": tokens(args[0] if args else None)})
