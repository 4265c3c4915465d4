"""Chapter 09 probe: the student's `Generator`, `EncoderDecoder` and `make_model`, recorded as plain data.

Sandbox side. A "generator" case builds `Generator(d_model, vocab)`, loads seeded weights and runs it.
A "model" case builds a small `make_model(...)` under a fixed seed and records its structure and, for
every parameter with dim > 1, a strided sample of the fresh weights themselves (Xavier initialisation shows
only before loading; the judge computes their spread, so no summary made here is taken on trust). An "encode", "decode", "forward" or "train" case builds the model, loads weights drawn from
the case's seed for its own state_dict names (`modules.load_seeded`) and calls that method in eval
mode (train: seeded train mode), recording the output and the weights decoder layer 0's source
attention kept. When the student's `make_model` raises only because an init function refused a parameter with
fewer than 2 dimensions (an init loop over every parameter), each case also records a "stand_in" run: the same
`make_model` built with `lenient_init`, so the checks of the other units are judged on the student's own model.
An "encode", "decode" or "forward" case also records an "alone" run: the student's EncoderDecoder assembled from the
probe's own stand-in parts (`alone_model`), not from make_model, so that a make_model mistake costs make_model's checks
only. Hidden cases and their seeds live between the hidden-test markers and never reach students.
"""
import functools
from dataclasses import dataclass

import torch
import torch.nn.init

from . import modules
from .tensors import describe_exception, encode, portable_randn

DATA_FILES = ("ch09_given.json",)  # the units this chapter ships written, as the course wrote them (given.py)

GENERATOR = "Generator"
MAKE_MODEL = "make_model"
METHODS = {"encode": "encode", "decode": "decode", "forward": "forward", "train": "forward"}
SOURCE_ATTENTION = ("decoder", "layers", 0, "src_attn", "attn")  # the weights the picture draws
SAMPLE = 256  # fresh weights kept per matrix (every k-th): the spread of 256 uniform values is within ~3 %


@dataclass(frozen=True)
class Case:
    """One build of `Generator` or `make_model`, and one call unless `kind` is "model"."""

    visible: bool
    text: str  # the case in Korean, as diagnoses name it
    kind: str  # "generator" | "model" | "encode" | "decode" | "forward" | "train"
    seed: int = 0
    src_vocab: int = 11
    tgt_vocab: int = 11
    N: int = 2
    d_model: int = 32
    d_ff: int = 64
    h: int = 4
    dropout: float = None  # None leaves make_model's default (0.1)
    src_lengths: tuple = (7, 4)  # real tokens per example (the rest is padding); batch = len(src_lengths)
    tgt_lengths: tuple = (5, 3)
    shape: tuple = (2, 3)  # generator: the input's leading axes


SMALL = "make_model(11, 11, N=2, d_model=32, d_ff=64, h=4)"
CASES = {
    "generator": Case(visible=True, text="Generator(16, 7), 입력 (2, 3, 16)", kind="generator", seed=901,
                      d_model=16, tgt_vocab=7),
    "model": Case(visible=True, text=f"{SMALL[:-1]}, dropout=0.2)로 새로 만든 모델", kind="model", seed=902,
                  dropout=0.2),
    # encode, decode and forward call one model (same arguments and seed: built once per submission)
    "encode": Case(visible=True, text=f"{SMALL}.encode, src (2, 7) (두 번째 문장은 padding 3개)", kind="encode",
                   seed=903),
    # src length = tgt length: a mask in the wrong place gives wrong values rather than the same shape error
    "decode": Case(visible=True, text=f"{SMALL}.decode, memory (2, 7, 32), tgt (2, 7) (두 번째 문장은 padding 2개)",
                   kind="decode", seed=903, tgt_lengths=(7, 5)),
    "forward": Case(visible=True, text=f"{SMALL}.forward, src (2, 7), tgt (2, 5)", kind="forward", seed=903),
    "train": Case(visible=True, text="make_model(11, 11, N=1, d_model=32, d_ff=64, h=4, dropout=0.3), train 모드 "
                  "forward (torch.manual_seed로 고정)", kind="train", seed=906, N=1, dropout=0.3),
    ### BEGIN HIDDEN TESTS
    "hidden_model": Case(visible=False, text="숨겨진 크기로 새로 만든 모델", kind="model", seed=869_101, src_vocab=17,
                         tgt_vocab=6, N=3, d_model=48, d_ff=80, h=6, dropout=0.15),
    "hidden_generator": Case(visible=False, text="숨겨진 Generator 입력 (다른 크기, 축 4개)", kind="generator",
                             seed=869_202, d_model=24, tgt_vocab=13, shape=(3, 2, 4)),
    "hidden_decode": Case(visible=False, text="숨겨진 decode 입력 (다른 크기와 어휘, src 길이 = tgt 길이)",
                          kind="decode", seed=869_303, src_vocab=9, tgt_vocab=13, N=3, d_model=24, d_ff=40, h=3,
                          src_lengths=(6, 2, 5), tgt_lengths=(6, 4, 1)),
    "hidden_forward": Case(visible=False, text="숨겨진 forward 입력 (다른 크기와 어휘, src 길이 = tgt 길이)",
                           kind="forward", seed=869_404, src_vocab=13, tgt_vocab=9, N=3, d_model=24, d_ff=40, h=3,
                           src_lengths=(6, 2, 5), tgt_lengths=(6, 4, 1)),
    "hidden_train": Case(visible=False, text="숨겨진 train 모드 forward 입력", kind="train", seed=869_505,
                         src_vocab=8, tgt_vocab=10, N=2, d_model=16, d_ff=24, h=2, dropout=0.25,
                         src_lengths=(5, 5, 2), tgt_lengths=(4, 2, 3)),
    ### END HIDDEN TESTS
}


def case_names(visible_only=False):
    """Names of the cases, in a stable order; only the visible ones if asked."""
    return [name for name, case in CASES.items() if case.visible or not visible_only]


def padding_mask(lengths, length):
    """(batch, 1, length): True at the real tokens of each example."""
    return (torch.arange(length)[None, :] < torch.tensor(lengths)[:, None]).unsqueeze(-2)


def target_mask(lengths, length):
    """(batch, length, length): padding of the target and no peeking at later positions."""
    causal = torch.ones(1, length, length, dtype=torch.bool).tril()
    return padding_mask(lengths, length) & causal


def tokens(lengths, vocab, generator):
    """(batch, max length) token ids in 1..vocab-1, padded with 0."""
    length = max(lengths)
    ids = torch.randint(1, vocab, (len(lengths), length), generator=generator)
    return ids.masked_fill(~padding_mask(lengths, length)[:, 0], 0)


def make_inputs(name):
    """The case's inputs, the same way every time: generator (x,); encode (src, src_mask); decode (memory,
    src_mask, tgt, tgt_mask); forward and train (src, tgt, src_mask, tgt_mask); model ()."""
    case = CASES[name]
    generator = torch.Generator().manual_seed(case.seed)
    if case.kind == "generator":
        return (portable_randn((*case.shape, case.d_model), generator),)
    if case.kind == "model":
        return ()
    src = tokens(case.src_lengths, case.src_vocab, generator)
    tgt = tokens(case.tgt_lengths, case.tgt_vocab, generator)
    src_mask = padding_mask(case.src_lengths, src.size(1))
    tgt_mask = target_mask(case.tgt_lengths, tgt.size(1))
    if case.kind == "encode":
        return src, src_mask
    if case.kind == "decode":
        memory = portable_randn((*src.shape, case.d_model), generator)
        return memory, src_mask, tgt, tgt_mask
    return src, tgt, src_mask, tgt_mask


def model_arguments(case):
    """(args, kwargs) of the case's `make_model` call."""
    kwargs = {"N": case.N, "d_model": case.d_model, "d_ff": case.d_ff, "h": case.h}
    if case.dropout is not None:
        kwargs["dropout"] = case.dropout
    return (case.src_vocab, case.tgt_vocab), kwargs


def structure(module):
    """`modules.structure` with every state_dict name (a whole model has more than `modules.MAX_NAMES`) and the head
    counts (`h`) of its attention modules, which no name or shape shows."""
    found = modules.structure(module)
    found["state_dict"] = [[name, [int(n) for n in value.shape]] for name, value in module.state_dict().items()]
    found["heads"] = sorted({part.h for part in module.modules()
                             if type(part).__name__ == ATTENTION and type(getattr(part, "h", None)) is int})
    return found


def fresh_weights(module):
    """{name: up to SAMPLE values, every k-th of the flattened matrix} of every parameter with dim > 1 as built
    (shared ones under each name), at 6 significant digits: the spread is judged to 20 %, but at 4 a last digit
    that another CPU's kernels round the other way moved the reference beyond the drift check's tolerance."""
    found = {}
    for name, p in module.named_parameters(remove_duplicate=False):
        if p.ndim >= 2:
            flat = p.detach().reshape(-1)
            step = -(-flat.numel() // SAMPLE)
            found[name] = [float(f"{value:.6g}") for value in flat[::step].double().tolist()]
    return found


def call(module, method, inputs, train, seed):
    """`module.<method>(*inputs)` in eval (or seeded train) mode: (output, None) or (None, {"error": ...})."""
    module.train(train)
    try:
        if train:
            torch.manual_seed(seed)  # right before the call: the student's dropout draws from here
        return getattr(module, method)(*inputs), None
    except BaseException as error:
        return None, {"error": describe_exception(error)}


PARTS = ("src_embed", "tgt_embed", "encoder", "decoder")  # the EncoderDecoder's parts whose arguments are recorded
CALL_INPUTS = {"forward": ("src", "tgt", "src_mask", "tgt_mask"), "train": ("src", "tgt", "src_mask", "tgt_mask"),
               "encode": ("src", "src_mask"), "decode": ("memory", "src_mask", "tgt", "tgt_mask")}


def watch_parts(module, inputs, names):
    """Hooks that record which of the call's `inputs` (by identity, as `names`) each of the model's parts in PARTS
    received first ({"src_embed": ["src"], "encoder": ["other", "src_mask"], …}; "other" for another tensor): the
    record and the hooks' handles."""
    seen, handles = {}, []

    def origin(value):
        found = next((name for name, given in zip(names, inputs) if value is given), None)
        return found or ("other" if isinstance(value, torch.Tensor) else type(value).__name__)

    for part in PARTS:
        sub = getattr(module, part, None)
        if isinstance(sub, torch.nn.Module):
            def hook(_, args, kwargs, part=part):
                seen.setdefault(part, [origin(value) for value in args]
                                + [f"{key}={origin(value)}" for key, value in sorted(kwargs.items())])
            handles.append(sub.register_forward_pre_hook(hook, with_kwargs=True))
    return seen, handles


def kept_weights(module, path=SOURCE_ATTENTION):
    """The attention weights the module keeps at `path` after a forward (encoded), or missing."""
    value = module
    try:
        for step in path:
            value = value[step] if isinstance(step, int) else getattr(value, step)
    except BaseException:
        return modules.MISSING
    return encode(value)


def load_parameters(module, seed):
    """`modules.load_seeded` for the parameters; buffers (the positional table) keep the values the model computed, so
    one parameter-free module shared by src_embed and tgt_embed changes no output."""
    parameters = {name for name, _ in module.named_parameters(remove_duplicate=False)}
    buffers = {name: value.detach().clone() for name, value in module.state_dict().items() if name not in parameters}
    loaded = modules.load_seeded(module, seed)
    if "error" not in loaded:
        state = module.state_dict()
        with torch.no_grad():
            for name, value in buffers.items():
                state[name].copy_(value)
    return loaded


class lenient_init:
    """Inside the block, torch.nn.init's functions leave a tensor they refuse (fewer than 2 dimensions) as it is: the
    probe's stand-in for an init loop that calls xavier_uniform_ on every parameter. Names the student imported
    (`from torch.nn.init import xavier_uniform_`) are replaced too; everything is restored after."""

    def __init__(self, namespace):
        self.places = [torch.nn.init, namespace]
        found = getattr(getattr(namespace, MAKE_MODEL, None), "__globals__", None)
        if isinstance(found, dict):
            self.places.append(found)
        self.saved = []

    def __enter__(self):
        originals = {id(f): f for name in dir(torch.nn.init) if name.endswith("_") and not name.startswith("_")
                     and callable(f := getattr(torch.nn.init, name))}
        for place in self.places:
            items = place.items() if isinstance(place, dict) else vars(place).items()
            for name, value in list(items):
                if id(value) in originals and callable(value):
                    self.saved.append((place, name, value))
                    self._set(place, name, lenient(value))

    def __exit__(self, *exc):
        for place, name, value in reversed(self.saved):
            self._set(place, name, value)

    @staticmethod
    def _set(place, name, value):
        if isinstance(place, dict):
            place[name] = value
        else:
            setattr(place, name, value)


def lenient(function):
    """`function`, leaving a tensor of fewer than 2 dimensions as it is when `function` refuses it."""

    @functools.wraps(function)
    def call(tensor, *args, **kwargs):
        try:
            return function(tensor, *args, **kwargs)
        except ValueError:
            if isinstance(tensor, torch.Tensor) and tensor.dim() < 2:
                return tensor
            raise

    return call


def build_model(namespace, case, stand_in=False):
    """(model, None) or (None, trace) of the case's `make_model` call (with `lenient_init` as the stand-in). When the
    build raised, the trace also holds the numbers make_model handed MultiHeadedAttention first ("attention_args")."""
    args, kwargs = model_arguments(case)
    if not stand_in:
        model, failed = modules.build(namespace, MAKE_MODEL, args, kwargs, case.seed)
    else:
        with lenient_init(namespace):
            model, failed = modules.build(namespace, MAKE_MODEL, args, kwargs, case.seed)
    if failed and failed["error"]["type"] not in ("NotImplementedError", "MissingFunction"):
        given = attention_arguments(namespace, args, kwargs, case.seed)
        if given:
            failed = {**failed, "attention_args": given}
    return model, failed


ATTENTION = "MultiHeadedAttention"


def attention_arguments(namespace, args, kwargs, seed):
    """The numbers (h, d_model) make_model passed to MultiHeadedAttention on its first call (by position or keyword),
    found by building again with a recorder in its place that stops the build there; None when it never got there."""
    attention = getattr(namespace, ATTENTION, None)
    if not callable(attention):
        return None
    seen = []

    class Seen(Exception):
        pass

    def recorder(*given, **named):
        values = dict(zip(("h", "d_model"), given), **named)
        seen.append({key: values.get(key) for key in ("h", "d_model") if isinstance(values.get(key), int)})
        raise Seen

    with modules.stand_in(namespace, ATTENTION, recorder, MAKE_MODEL):
        modules.build(namespace, MAKE_MODEL, args, kwargs, seed)
    return seen[0] if seen else None


_LAST_BUILT = {}  # the last model a call case built: (namespace, arguments, model, failed)


def built(namespace, case, stand_in=False):
    """`build_model`, or the previous call case's model when it was the same submission's with the same arguments,
    seed and stand-in (loading and calling never depend on an earlier call)."""
    args, kwargs = model_arguments(case)
    key = (args, sorted(kwargs.items()), case.seed, stand_in, id(getattr(namespace, GENERATOR, None)))
    last = _LAST_BUILT.get("model")
    if last is not None and last[0] is namespace and last[1] == key:
        return last[2], last[3]
    model, failed = build_model(namespace, case, stand_in)
    _LAST_BUILT["model"] = (namespace, key, model, failed)
    return model, failed


def run_case(namespace, name):
    """Run case `name` against the student's code and describe what happened as plain data."""
    case = CASES[name]
    if case.kind == "generator":
        return modules.record(namespace, GENERATOR, (case.d_model, case.tgt_vocab), {}, case.seed, make_inputs(name))
    trace = model_run(namespace, name)
    if case.kind in ALONE_KINDS:
        trace["alone"] = alone_run(namespace, name)
    if generator_differs(namespace, case):  # make_model's weights would not load by name: a twin run to judge it by
        with modules.stand_in(namespace, GENERATOR, GeneratorDouble, MAKE_MODEL):
            trace["generator_stand_in"] = model_run(namespace, name)
    return trace


def model_run(namespace, name):
    """run_model_case, with the run under `lenient_init` as "stand_in" when make_model failed in an init function."""
    trace = run_model_case(namespace, name)
    if "structure" not in trace and trace.get("error", {}).get("type") not in ("MissingFunction", "NotImplementedError"):
        stand_in = run_model_case(namespace, name, stand_in=True)
        if "structure" in stand_in:  # make_model failed only in an init function: the rest is judged on this run
            trace["stand_in"] = stand_in
    return trace


class GeneratorDouble(torch.nn.Module):
    """The probe's stand-in for the student's Generator inside make_model when the student's has other parameter
    names or shapes than the contract's (the TODO's `proj`, d_model → vocab): then the model's weights, loaded by
    name, would not fit, and every model check would fail for the Generator's mistake. encode, decode and forward
    never call it; its forward is the bare projection (not the chapter's)."""

    def __init__(self, features, vocab):
        super().__init__()
        self.proj = torch.nn.Linear(features, vocab)

    def forward(self, x):
        return self.proj(x)


def parameter_shapes(module):
    """[(name, shape)] of a module's state_dict, in order."""
    return [(key, tuple(value.shape)) for key, value in module.state_dict().items()]


def generator_differs(namespace, case):
    """Whether the student's Generator(d_model, tgt_vocab) has other state_dict names or shapes than GeneratorDouble's
    (or cannot be built): the cue to run the case again with the double (the judge decides whether to use that run)."""
    try:
        student = getattr(namespace, GENERATOR)(case.d_model, case.tgt_vocab)
        return parameter_shapes(student) != parameter_shapes(GeneratorDouble(case.d_model, case.tgt_vocab))
    except BaseException:
        return True


def run_model_case(namespace, name, stand_in=False):
    """A "model" case: the fresh model's structure and spread; a call case: the loaded model's output (plain data)."""
    case = CASES[name]
    if case.kind == "model":
        model, failed = build_model(namespace, case, stand_in)
        return failed or {"structure": structure(model), "fresh": fresh_weights(model)}
    model, failed = built(namespace, case, stand_in)
    if failed:
        return failed
    trace = {"structure": structure(model)}
    trace["load"] = load_parameters(model, case.seed)
    inputs = make_inputs(name)
    parts, handles = watch_parts(model, inputs, CALL_INPUTS[case.kind]) if case.kind in CALL_INPUTS else (None, ())
    output, failed = call(model, METHODS[case.kind], inputs, case.kind == "train", case.seed)
    for handle in handles:
        handle.remove()
    if parts is not None:
        trace["parts"] = parts
    if failed:
        return {**trace, **failed}
    trace["result"] = encode(output)
    if case.kind == "forward":
        trace["attributes"] = {"src_attn": kept_weights(model)}
    return trace


# ----------------------------------------------------------------------------- EncoderDecoder without make_model
ALONE_KINDS = ("encode", "decode", "forward")  # the cases whose EncoderDecoder method is also run on `alone_model`


def _mix(values, queries, mask):
    """(batch, queries, d): the plain average of `values` (batch, keys, d) over the keys `mask` leaves visible (all
    when None); the mask broadcasts to (batch, queries, keys) as an attention mask does."""
    weights = torch.ones(values.size(0), queries, values.size(1), dtype=values.dtype)
    if mask is not None:
        weights = weights.masked_fill(mask == 0, 0.0)
    return weights @ values / weights.sum(-1, keepdim=True).clamp(min=1.0)


class EncoderDouble(torch.nn.Module):
    """The probe's stand-in encoder: x plus a masked average of a projection of x (not the chapter's encoder)."""

    def __init__(self, features):
        super().__init__()
        self.proj = torch.nn.Linear(features, features)

    def forward(self, x, mask):
        return x + _mix(self.proj(x), x.size(1), mask)


class DecoderDouble(torch.nn.Module):
    """The probe's stand-in decoder: x plus masked averages of x (tgt_mask) and of memory (src_mask)."""

    def __init__(self, features):
        super().__init__()
        self.own = torch.nn.Linear(features, features)
        self.source = torch.nn.Linear(features, features)

    def forward(self, x, memory, src_mask, tgt_mask):
        return x + _mix(self.own(x), x.size(1), tgt_mask) + _mix(self.source(memory), x.size(1), src_mask)


class EmbedDouble(torch.nn.Module):
    """The probe's stand-in embedding: a lookup table alone."""

    def __init__(self, vocab, features):
        super().__init__()
        self.lut = torch.nn.Embedding(vocab, features)

    def forward(self, x):
        return self.lut(x)


def alone_model(namespace, case):
    """The student's EncoderDecoder around the probe's stand-in parts (built under the case's seed)."""
    d = case.d_model
    torch.manual_seed(case.seed)
    return getattr(namespace, "EncoderDecoder")(EncoderDouble(d), DecoderDouble(d), EmbedDouble(case.src_vocab, d),
                                                EmbedDouble(case.tgt_vocab, d), GeneratorDouble(d, case.tgt_vocab))


def alone_run(namespace, name):
    """The case's method of the student's EncoderDecoder built by `alone_model` with seeded weights, as plain data."""
    case = CASES[name]
    try:
        model = alone_model(namespace, case)
    except BaseException as error:
        return {"error": describe_exception(error)}
    trace = {"load": load_parameters(model, case.seed)}
    output, failed = call(model, METHODS[case.kind], make_inputs(name), False, case.seed)
    if failed:
        return {**trace, **failed}
    trace["result"] = encode(output)
    return trace
