"""Chapter 14 probe: the student's attention getters, `fill_attention`, `attn_map` and `visualize_layer`, as plain data.

Sandbox side. A "getters" case builds a small `make_model` with seeded weights (loaded strictly), runs one eval
forward itself and records what `get_encoder`, `get_decoder_self` and `get_decoder_src` return for the case's
layer, with the `attn` every attention module kept (by module name). A "fill" case hands the student's
`fill_attention` a seeded model left in train mode (as training leaves it) and records the tokens it returned,
whether the model was still training, and every module's `attn`. A "map" case calls `attn_map` on a probe-drawn
attention tensor with an axes of a fresh `Figure`; a "layer" case calls `visualize_layer` with a freshly built model
of the case's head count and a getter that hands out such a tensor (recording how it was called). Figures are read, never drawn: each
axes' first heatmap (`ax.images`, or a `pcolormesh` QuadMesh or `pcolor` PolyQuadMesh) as a tensor with where it sits (its extent, or its
mesh's corners), and the major ticks (locations and the labels matplotlib formats for them); the judge works out
which label sits at the centre of each row and column; and the colour range the heatmap's norm maps (its vmin and
vmax, read through matplotlib's Normalize), from which the judge decides whether it is fixed to 0–1. Hidden cases live
between the hidden-test markers.
"""
import math
import sys
from dataclasses import dataclass

import matplotlib
import torch

from . import modules
from .tensors import describe_exception, encode, portable_randn

DATA_FILES = ("ch14_given.json",)  # the units this chapter ships written, as the course wrote them (given.py)

_chosen = getattr(matplotlib.rcParams, "_get_backend_or_none", lambda: "unknown")  # an older matplotlib picks its own
if _chosen() is None:  # nobody chose a backend (the sandbox, a terminal): Agg, no windows; a notebook keeps its own
    matplotlib.use("Agg")
from matplotlib import collections as _collections  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.colors import Normalize  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.image import AxesImage  # noqa: E402

GETTERS = ("get_encoder", "get_decoder_self", "get_decoder_src")
START = 1  # the copy task's start symbol
COLORBAR = "<colorbar>"  # matplotlib's label of a colorbar's axes (not a heatmap of the figure)
MAX_TICKS = 256  # major ticks kept per axis (a heatmap's cells need one each; the cases have at most 9)
MAX_LABEL = 200  # characters kept of a tick label
# The sandbox's warm worker imports these once before it forks (pyplot and its font manager); the probe itself does
# not, so a self-check pays for pyplot only when the student's own code imports it.
WARM_IMPORTS = ("matplotlib.pyplot",)
# The meshes a heatmap may be drawn as: pcolormesh's QuadMesh and (matplotlib 3.8 on) pcolor's PolyQuadMesh, which
# keeps the same 2-D array and corner coordinates. Exact types: a colorbar's or another collection never counts.
MESHES = tuple(getattr(_collections, name) for name in ("QuadMesh", "PolyQuadMesh") if hasattr(_collections, name))


@dataclass(frozen=True)
class Case:
    """One call of the chapter's code."""

    visible: bool
    text: str  # the case in Korean, as diagnoses name it
    kind: str  # "getters" | "fill" | "map" | "layer"
    seed: int = 0
    vocab: int = 11
    N: int = 2
    d_model: int = 16
    d_ff: int = 32
    h: int = 4
    dropout: float = 0.3
    layer: int = 1
    src_length: int = 7
    tgt_length: int = 5  # getters: the target's length; fill: max_len
    batch: int = 2  # map, layer: the attention tensor's batch
    rows: int = 6  # map, layer: query positions of the tensor
    cols: int = 9  # map, layer: key positions of the tensor
    head: int = 2  # map: the head to draw
    max_dim: int = 7  # map: max_dim; layer: ntokens


CASES = {
    "getters": Case(visible=True, text="make_model(11, 11, N=2, d_model=16, d_ff=32, h=4)의 eval forward 뒤 "
                    "get_encoder, get_decoder_self, get_decoder_src(model, 1), src (2, 7), tgt (2, 5)",
                    kind="getters", seed=1401),
    "fill": Case(visible=True, text="train 모드로 넘긴 make_model(11, 11, N=2, d_model=16, d_ff=32, h=4, dropout=0.3)에 "
                 "fill_attention(model, src (1, 7), src_mask, max_len=5, start_symbol=1)", kind="fill", seed=1402),
    # rows and columns both beyond max_dim: an attn_map that forgets to crop either fails here, visibly (and the
    # visualize_layer check then judges with the probe's stand-in attn_map)
    "map": Case(visible=True, text="attn_map(attn (2, 4, 8, 9), head=2, row_tokens 8개, col_tokens 9개, max_dim=7, ax)",
                kind="map", seed=1403, rows=8),
    "layer": Case(visible=True, text="visualize_layer(model, 1, getter_fn, ntokens=5, row_tokens 6개, col_tokens 8개): "
                  "getter_fn(model, 1)이 attn (2, 3, 6, 8)을 돌려줌", kind="layer", seed=1404, h=3, cols=8,
                  max_dim=5),
    ### BEGIN HIDDEN TESTS
    # A middle layer: neither the first nor the last (layers[0] and layers[-1] both ignore `layer`).
    "hidden_getters": Case(visible=False, text="숨겨진 getter 입력 (다른 모델 크기와 층)", kind="getters", seed=881_401,
                           vocab=9, N=3, d_model=24, d_ff=40, h=3, layer=1, src_length=6, tgt_length=8),
    "hidden_fill": Case(visible=False, text="숨겨진 fill_attention 입력 (다른 모델 크기, src, max_len)", kind="fill",
                        seed=881_402, vocab=13, N=3, d_model=24, d_ff=40, h=2, dropout=0.2, src_length=9,
                        tgt_length=8),
    "hidden_map": Case(visible=False, text="숨겨진 attn_map 입력 (다른 크기, head, max_dim)", kind="map", seed=881_403,
                       batch=3, h=5, rows=8, cols=4, head=4, max_dim=6),
    "hidden_layer": Case(visible=False, text="숨겨진 visualize_layer 입력 (다른 head 수, 층, ntokens)", kind="layer",
                         seed=881_404, h=2, layer=2, rows=7, cols=9, max_dim=8),
    ### END HIDDEN TESTS
}


def case_names(visible_only=False):
    """Names of the cases, in a stable order; only the visible ones if asked."""
    return [name for name, case in CASES.items() if case.visible or not visible_only]


def tokens(batch, length, vocab, generator):
    """(batch, length) token ids in 1..vocab-1, each row starting with the start symbol."""
    ids = torch.randint(1, vocab, (batch, length), generator=generator)
    ids[:, 0] = START
    return ids


def row_tokens(case):
    """The query tokens a drawing case passes (strings, one per row of the tensor)."""
    return [f"q{i}" for i in range(case.rows)]


def col_tokens(case):
    """The key tokens a drawing case passes (strings, one per column of the tensor)."""
    return [f"k{j}" for j in range(case.cols)]


def make_inputs(name):
    """The case's inputs, the same way every time: getters (src, tgt, src_mask, tgt_mask); fill (src, src_mask);
    map and layer (attn,): softmax (float64, then float32) of seeded normals, (batch, h, rows, cols)."""
    case = CASES[name]
    generator = torch.Generator().manual_seed(case.seed)
    if case.kind in ("map", "layer"):
        scores = portable_randn((case.batch, case.h, case.rows, case.cols), generator, torch.float64) * 2
        return (scores.softmax(dim=-1).to(torch.float32),)
    if case.kind == "fill":
        src = tokens(1, case.src_length, case.vocab, generator)
        return src, torch.ones(1, 1, case.src_length, dtype=torch.bool)
    src = tokens(2, case.src_length, case.vocab, generator)
    tgt = tokens(2, case.tgt_length, case.vocab, generator)
    src_mask = torch.ones(2, 1, case.src_length, dtype=torch.bool)
    tgt_mask = torch.ones(1, case.tgt_length, case.tgt_length, dtype=torch.bool).tril().expand(2, -1, -1)
    return src, tgt, src_mask, tgt_mask


def run_case(namespace, name):
    """Run case `name` against the student's code and describe what happened as plain data."""
    case = CASES[name]
    try:
        if case.kind == "getters":
            return record_getters(namespace, case, make_inputs(name))
        if case.kind == "fill":
            return record_fill(namespace, case, make_inputs(name))
        if case.kind == "map":
            return record_map(namespace, case, make_inputs(name)[0])
        attn = make_inputs(name)[0]
        return {**record_layer(namespace, case, attn), "stand_in": layer_with_stand_in(namespace, case, attn)}
    except BaseException as error:  # a student's SystemExit is a failed call too
        return {"error": describe_exception(error)}


# ----------------------------------------------------------------------------- getters and fill_attention


def seeded_model(namespace, case):
    """(model, None) of the student's make_model at the case's sizes with seeded weights loaded strictly, or
    (None, trace) when building or loading failed."""
    model, failed = modules.build(namespace, "make_model", (case.vocab, case.vocab),
                                  {"N": case.N, "d_model": case.d_model, "d_ff": case.d_ff, "h": case.h,
                                   "dropout": case.dropout}, case.seed)
    if failed:
        return None, failed
    loaded = modules.load_seeded(model, case.seed)
    if "error" in loaded or loaded["missing"] or loaded["unexpected"]:
        return None, {"error": {"type": "LoadError", "message": str(loaded)[:300]}}
    return model, None


def kept_maps(model):
    """{module name: the `attn` tensor it kept} of every module holding one (e.g. "decoder.layers.0.src_attn")."""
    return {name: encode(module.attn) for name, module in model.named_modules()
            if isinstance(getattr(module, "attn", None), torch.Tensor)}


def call_getter(namespace, getter, model, layer):
    """What the student's getter returned for (model, layer), as plain data, or its exception."""
    function = getattr(namespace, getter, None)
    if not callable(function):
        return {"error": {"type": "MissingFunction", "message": getter}}
    try:
        return encode(function(model, layer))
    except BaseException as error:
        return {"error": describe_exception(error)}


def record_getters(namespace, case, inputs):
    """One eval forward of a seeded model (the probe's call), then each getter on the case's layer."""
    model, failed = seeded_model(namespace, case)
    if failed:
        return failed
    model.train(False)  # eval mode
    model.forward(*inputs)
    return {"getters": {getter: call_getter(namespace, getter, model, case.layer) for getter in GETTERS},
            "maps": kept_maps(model)}


def record_fill(namespace, case, inputs):
    """The student's fill_attention on a seeded model left in train mode (dropout seeded right before the call)."""
    model, failed = seeded_model(namespace, case)
    if failed:
        return failed
    src, src_mask = inputs
    model.train()
    torch.manual_seed(case.seed)
    result = namespace.fill_attention(model, src, src_mask, case.tgt_length, START)
    return {"result": encode(result), "training": bool(model.training),
            "training_modules": sum(1 for module in model.modules() if module.training), "maps": kept_maps(model)}


# ----------------------------------------------------------------------------- figures


def heatmaps(ax):
    """The heatmaps drawn on an axes: its images (imshow, matshow), then its meshes (pcolormesh, pcolor)."""
    return [*(item for item in ax.images if type(item) is AxesImage),
            *(item for item in ax.collections if type(item) in MESHES)]


def placement(heatmap):
    """Where a heatmap sits in data coordinates, as read: {"extent", "origin"} of an image, or {"corners"} of a
    mesh (its first point, the last of its first row, the first of its last row)."""
    if type(heatmap) in MESHES:
        corners = heatmap.get_coordinates()
        return {"corners": [[float(v) for v in corners[i, j]] for i, j in ((0, 0), (0, -1), (-1, 0))]}
    return {"extent": [float(v) for v in heatmap.get_extent()], "origin": str(heatmap.origin)}


def ticks(axis):
    """The axis' major ticks: {"at": locations, "labels": the labels matplotlib formats for them}."""
    locations = [float(x) for x in axis.get_majorticklocs()][:MAX_TICKS]
    texts = axis.get_major_formatter().format_ticks(locations)
    return {"at": locations, "labels": [str(text)[:MAX_LABEL] for text in texts]}


def limit(norm, name):
    """A norm's `vmin` or `vmax` as plain data, read through matplotlib's own Normalize (a subclass's property is never
    called): a finite int or float (exact types) as a float, None while unset, else {"type": its type's name}."""
    attribute = vars(Normalize).get(name)
    value = attribute.fget(norm) if isinstance(attribute, property) else object.__getattribute__(norm, name)
    if value is None:
        return None
    if type(value) in (int, float) and math.isfinite(value):
        return float(value)
    return {"type": type(value).__name__}


def colour_range(heatmap):
    """The colour range a heatmap maps its values onto: {"norm": the norm's type name, "vmin", "vmax"} (no limits when
    the norm is no matplotlib Normalize). Raw limits: whether they are 0 and 1, or the data's own, is the judge's."""
    norm = heatmap.norm
    if not isinstance(norm, Normalize):
        return {"norm": type(norm).__name__}
    return {"norm": type(norm).__name__, "vmin": limit(norm, "vmin"), "vmax": limit(norm, "vmax")}


def drawn(ax):
    """One axes as plain data: how many heatmaps, the first one's data (a tensor), placement and colour range, and the
    axes' ticks."""
    import numpy

    found = heatmaps(ax)
    if not found:
        return {"heatmaps": 0}
    first = found[0]
    data = numpy.ma.getdata(first.get_array())
    if type(first) in MESHES and data.ndim == 1:
        corners = first.get_coordinates()
        data = data.reshape(corners.shape[0] - 1, corners.shape[1] - 1)
    if data.ndim != 2:
        return {"heatmaps": len(found), "data": {"kind": "other", "type": f"{data.ndim}차원 배열"}}
    return {
        "heatmaps": len(found),
        "data": encode(torch.from_numpy(numpy.array(data))),
        "placement": placement(first),
        "colour": colour_range(first),
        "x_ticks": ticks(ax.xaxis),
        "y_ticks": ticks(ax.yaxis),
    }


def open_figures():
    """The numbers of the figures pyplot holds open; none while nothing has imported pyplot (a bare Figure is none)."""
    pyplot = sys.modules.get("matplotlib.pyplot")
    return set(pyplot.get_fignums()) if pyplot is not None else set()


def figures_made(before):
    """Close the pyplot figures opened since `before` (their numbers); how many there were."""
    new = open_figures() - before
    for number in new:
        sys.modules["matplotlib.pyplot"].close(number)
    return len(new)


def record_map(namespace, case, attn):
    """The student's attn_map on one axes of a fresh Figure: what that axes shows afterwards. When attn_map raises,
    the error with what the axes showed by then ("drawn": the heatmap is often drawn before a tick call raises)."""
    figure = Figure()
    ax = figure.add_subplot()
    before = open_figures()
    try:
        namespace.attn_map(attn, case.head, row_tokens(case), col_tokens(case), case.max_dim, ax)
    except BaseException as error:  # a student's SystemExit is a failed call too
        try:
            so_far = drawn(ax)
        except Exception:  # an axes left in a state it cannot be read in: the error alone
            so_far = {"heatmaps": 0}
        return {"error": describe_exception(error), "drawn": so_far}
    finally:
        opened = figures_made(before)
    return {"axes": drawn(ax), "figures_opened": opened}


class StandIn:
    """The model handed to visualize_layer when the namespace's make_model cannot build one: only the probe's getter
    knows what to do with it."""

    def __repr__(self):
        return "model"


class LayerModel:
    """The model handed to visualize_layer: the namespace's make_model with the case's number of heads and layer
    `case.layer` present (as built, no forward run), so that a visualize_layer reading the head count off the model
    (`model.encoder.layers[layer].self_attn.h`) or calling `model.eval()` works as it does in the notebook; its
    maps come from the getter alone. Built the first time visualize_layer reads something off it (most never do, and
    a build costs tens of ms a case); a StandIn's attributes (none) when make_model fails."""

    _OWN = ("_namespace", "_case", "_model")

    def __init__(self, namespace, case):
        self._namespace, self._case, self._model = namespace, case, None

    def __getattr__(self, name):
        if name in self._OWN or name.startswith("__"):
            raise AttributeError(name)
        if self._model is None:
            case = self._case
            model, failed = modules.build(self._namespace, "make_model", (case.vocab, case.vocab),
                                          {"N": case.layer + 1, "d_model": 4 * case.h, "d_ff": 8, "h": case.h},
                                          case.seed)
            self._model = StandIn() if failed else model.eval()
        return getattr(self._model, name)

    def __repr__(self):
        return "model"


def record_layer(namespace, case, attn):
    """The student's visualize_layer with a getter handing out `attn`: the calls it got and the returned figure."""
    model, calls = LayerModel(namespace, case), []

    def getter_fn(given, layer):
        calls.append({"model": given is model, "layer": encode(layer)})
        return attn

    before = open_figures()
    try:
        figure = namespace.visualize_layer(model, case.layer, getter_fn, case.max_dim, row_tokens(case),
                                           col_tokens(case))
    except BaseException as error:
        figures_made(before)
        return {"error": describe_exception(error), "calls": calls}
    # exact types: an object whose `__class__` says Figure (or a subclass that overrides what is read) is no figure
    trace = {"calls": calls, "returned": type(figure).__name__, "figure": type(figure) is Figure}
    if type(figure) is Figure:
        axes = [ax for ax in figure.axes if type(ax) is Axes and ax.get_label() != COLORBAR]
        trace["axes"] = [drawn(ax) for ax in axes if heatmaps(ax)]
        trace["empty_axes"] = sum(1 for ax in axes if not heatmaps(ax))
    figures_made(before)
    return trace


class MapDouble:
    """The probe's own attn_map, visualize_layer's stand-in partner when the student's attn_map fails its own check
    (visualize_layer is then judged alone). It draws no attention: a max_dim × max_dim heatmap filled with the head it
    was asked for (-1 when the tensor it got is not the one the getter handed out), so the judge reads off which head
    each axes shows, and at what size."""

    def __init__(self, attn):
        self.attn = attn
        self.calls = 0
        self.tokens = []  # [row tokens, column tokens] of each call (the first 16 calls)

    def __call__(self, attn, head, row_tokens, col_tokens, max_dim, ax):
        self.calls += 1
        if len(self.tokens) < 16:
            self.tokens.append([token_texts(row_tokens), token_texts(col_tokens)])
        size = int(max_dim)
        image = ax.imshow(torch.full((size, size), float(head) if self.given(attn) else -1.0).numpy())
        return image.axes  # the ax it drew on, as attn_map returns it

    def given(self, attn):
        """Whether `attn` holds the getter's tensor (the same values and shape, detached or a numpy copy alike)."""
        try:
            return bool(torch.equal(torch.as_tensor(attn).detach().cpu().to(self.attn.dtype), self.attn))
        except (TypeError, ValueError, RuntimeError):
            return False


def token_texts(tokens):
    """Up to 64 tokens as strings (plain data), or None for something that is not a sequence."""
    try:
        return [str(token)[:40] for token in list(tokens)[:64]]
    except Exception:
        return None


def layer_with_stand_in(namespace, case, attn):
    """record_layer with the probe's MapDouble as the attn_map that the student's visualize_layer calls (its module's
    global, put back afterwards); None when visualize_layer has no globals with an attn_map to stand in for."""
    function = getattr(namespace, "visualize_layer", None)
    names = getattr(function, "__globals__", None)
    if type(names) is not dict or "attn_map" not in names:
        return None
    student, double = names["attn_map"], MapDouble(attn)
    names["attn_map"] = double
    try:
        trace = record_layer(namespace, case, attn)
    finally:
        names["attn_map"] = student
    return {**trace, "double_calls": double.calls, "double_tokens": double.tokens}
