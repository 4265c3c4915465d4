"""Chapter 14 checks: the attention getters, `fill_attention` (eval mode), `attn_map` and `visualize_layer`.

Judge side. The probe records plain data: what each getter returned and the `attn` every attention module kept
(by module name), the maps `fill_attention` left and whether the model was still training, and for a drawing the
first heatmap's data of each axes with where it sits, its colour range (the norm's vmin and vmax) and the axes' ticks,
from which `labels` works out here the tick label at each row and column centre and `scale_problem` whether the
colours are fixed to 0–1 or follow the data. A getter's tensor is
placed by finding the reference map it equals (another layer, another kind of attention). A drawing's data is
matched against "bug models" — the map drawn with one known mistake (transposed, another head or batch example,
softmax applied again, not cut to max_dim, the heads in another order) — whose results the build stores.
"""
import re

import torch

from . import ch14_probe as probe
from . import messages
from .bugmodels import BugModels, ModelCode
from .calls import explain_error
from .compare import close, decode, shape_text
from .contract import Chapter, Picture
from .framework import Check, Finding, each_case, noting_stand_in, per_case
from .loading import place
from .module_judge import same_output

BUGS = {
    "stub": messages.stub("아직 작성하지 않은 부분이 있습니다", "TODO(14)"),
    "getter_layer": "getter가 인자 layer의 층이 아닌 다른 층의 가중치를 돌려줍니다(예: 늘 layers[0]). "
    "model.encoder.layers[layer]처럼 인자 layer로 층을 고르세요.",
    "getter_kind": "getter가 다른 종류의 어텐션 가중치를 돌려줍니다. get_encoder는 encoder 층의 self_attn, "
    "get_decoder_self는 decoder 층의 self_attn, get_decoder_src는 decoder 층의 src_attn(source-attention)이 저장한 "
    "attn입니다.",
    "getter_not_attn": "getter가 어텐션 가중치 텐서가 아닌 값을 돌려줍니다. MultiHeadedAttention이 forward에서 "
    "self.attn에 저장한 텐서(batch, h, query 길이, key 길이)를 그대로 돌려주세요: ….self_attn.attn.",
    "getter_changed": "getter가 저장된 가중치를 바꿔서(일부만 잘라, 축을 바꿔, 다시 계산해) 돌려줍니다. 저장된 attn "
    "(batch, h, query 길이, key 길이)를 그대로 돌려주세요.",
    "train_mode": "모델이 train 모드인 채로 디코딩했습니다. dropout이 어텐션 가중치의 일부를 0으로 만들고 나머지를 "
    "1/(1 - p)배로 키워서, 저장된 그림이 모델의 진짜 어텐션이 아닙니다. 디코딩 전에 model.eval()을 부르세요.",
    "fill_steps": "fill_attention 뒤에 저장된 가중치의 모양이 기준과 다릅니다. greedy_decode(model, src, src_mask, "
    "max_len, start_symbol)를 한 번 부르면 마지막 디코딩 단계의 decoder 입력은 max_len - 1개 토큰이라, decoder의 "
    "가중치는 (1, h, max_len - 1, …)입니다.",
    "fill_values": "fill_attention 뒤에 저장된 가중치가 기준과 다릅니다. model.eval() 다음 greedy_decode(model, src, "
    "src_mask, max_len, start_symbol)를 한 번만 부르세요.",
    "fill_return": "fill_attention은 greedy_decode가 만든 토큰 (1, max_len)을 그대로 돌려줘야 합니다.",
    "no_heatmap": "attn_map이 받은 ax에 heatmap을 그리지 않았습니다. 인자로 받은 ax에 그리세요: "
    "ax.imshow(…)(ax.matshow, ax.pcolormesh, ax.pcolor도 됩니다).",
    "new_figure": "attn_map이 받은 ax가 아닌 새 그림에 그렸습니다(plt.imshow, plt.subplots, plt.figure). 인자로 받은 "
    "ax에 그리세요: ax.imshow(…).",
    "transposed": "그림의 행과 열이 바뀌었습니다. 행(세로축)이 query 위치, 열(가로축)이 key 위치입니다. "
    "attn[0, head]를 전치(.T)하지 말고 그대로 그리세요.",
    "other_head": "다른 head의 가중치를 그렸습니다. 둘째 축이 head입니다: attn[0, head].",
    "other_batch": "batch 0이 아닌 예시를 그렸습니다. 첫 축이 batch이고, 그림은 batch 0입니다: attn[0, head].",
    "axes_swapped": "batch 축과 head 축을 바꿔 읽었습니다(attn[head, 0]). attn은 (batch, h, query 길이, key 길이)이므로 "
    "첫 축이 batch, 둘째 축이 head입니다: attn[0, head]. head 번호가 batch 크기 이상이면 IndexError가 납니다.",
    "softmax_again": "가중치에 softmax를 다시 적용했습니다. 저장된 attn은 이미 softmax를 거친 확률입니다. 값을 바꾸지 "
    "말고 그대로 그리세요.",
    "not_cropped": "max_dim으로 자르지 않았습니다. 행과 열을 모두 앞에서 max_dim개까지만 그립니다: "
    "attn[0, head, :max_dim, :max_dim].",
    "map_shape": "그린 heatmap의 모양이 기준과 다릅니다. attn[0, head, :max_dim, :max_dim]을 그리세요(행 = query, "
    "열 = key).",
    "map_values": "그린 heatmap의 값이 기준과 다릅니다. attn[0, head, :max_dim, :max_dim]을 바꾸지 말고 그대로 그리세요.",
    "ticks_missing": "눈금에 토큰이 붙어 있지 않습니다. 칸마다 눈금을 두고 토큰을 붙이세요: "
    "ax.set_xticks(range(열 수))와 ax.set_xticklabels(col_tokens[:열 수]), y축은 set_yticks와 row_tokens로.",
    "ticks_swapped": "x축과 y축의 토큰이 바뀌었습니다. x축(열)은 key 토큰 col_tokens, y축(행)은 query 토큰 "
    "row_tokens입니다.",
    "ticks_misplaced": "토큰이 칸의 자리에 붙지 않았습니다. set_xticklabels 전에 set_xticks(range(열 수))로 칸마다 "
    "눈금의 자리를 정하세요(y축도 같게). 그래야 i번째 토큰이 i번째 칸 아래에 붙습니다.",
    "scale_data": "heatmap의 색의 범위가 0–1로 고정되지 않고 그린 값을 따릅니다(vmin이나 vmax를 주지 않으면 "
    "matplotlib이 색의 범위의 끝을 그린 값의 최솟값, 최댓값에 맞춥니다). 그러면 같은 색이 head마다, 그림마다 다른 "
    "가중치를 뜻해서 그림끼리 비교할 수 없습니다. 가중치는 0과 1 사이의 확률이니 색의 범위를 vmin=0, vmax=1로 "
    "고정하세요.",
    "scale_range": "heatmap의 색의 범위가 0–1이 아닙니다. 가중치는 0과 1 사이의 확률이니, head끼리, 그림끼리 색을 비교할 "
    "수 있게 색의 범위를 vmin=0, vmax=1로 고정하세요.",
    "ticks_count": "눈금의 수와 붙인 토큰의 수가 다릅니다(matplotlib이 ValueError를 냅니다). 그림을 max_dim으로 잘랐으면 "
    "토큰도 같은 수로 자르세요: ax.set_xticklabels(col_tokens[:열 수]), y축은 row_tokens[:행 수].",
    "ticks_shifted": "눈금의 토큰이 한 칸 밀렸습니다(토큰을 더하거나 빼고 붙였습니다). i번째 칸에는 i번째 토큰을 붙이세요: "
    "ax.set_xticklabels(col_tokens[:열 수]), y축은 row_tokens[:행 수].",
    "layer_tokens_swapped": "visualize_layer가 attn_map에 row_tokens와 col_tokens를 바꿔 넘겼습니다: x축(열)에는 key 토큰 "
    "col_tokens, y축(행)에는 query 토큰 row_tokens가 붙어야 합니다. attn_map(attn, h, row_tokens, col_tokens, ntokens, ax) "
    "순서로 넘기세요.",
    "layer_tokens": "visualize_layer가 그린 눈금의 토큰이 기준과 다릅니다. 받은 row_tokens와 col_tokens를 바꾸지 말고 그대로 "
    "attn_map에 넘기세요.",
    "not_figure": "visualize_layer는 matplotlib Figure를 돌려줘야 합니다: return fig. plt.show()는 부르지 마세요 "
    "(채점기와 노트북이 돌려받은 그림을 씁니다).",
    "getter_fn_ignored": "visualize_layer가 인자 getter_fn을 쓰지 않았습니다. 가중치는 인자로 받은 getter_fn에 model과 layer를 넘겨 읽으세요. 어떤 "
    "getter를 쓸지는 부르는 쪽이 정합니다.",
    "layer_arg": "visualize_layer가 getter_fn에 (model, layer)를 그대로 넘기지 않았습니다: getter_fn(model, layer).",
    "one_axes": "head를 모두 axes 하나에 겹쳐 그렸습니다. head마다 axes를 하나씩 만드세요: fig.subplots(1, h). head 0이 "
    "왼쪽 첫 axes입니다.",
    "axes_count": "heatmap이 그려진 axes의 수가 head 수와 다릅니다. head마다 하나씩, attn.shape[1]개를 그리세요.",
    "same_head": "모든 axes에 같은 head를 그렸습니다. h번째 axes에는 head h를 그리세요: attn_map(attn, h, …).",
    "head_order": "head의 순서가 다릅니다. fig.axes의 순서(왼쪽부터)대로 head 0, 1, …을 그리세요.",
    "attn_passed": "visualize_layer가 getter_fn이 돌려준 가중치를 attn_map에 그대로 넘기지 않았습니다: "
    "attn_map(attn, h, …)의 attn은 getter_fn(model, layer)의 결과 그대로입니다.",
    "ntokens_ignored": "ntokens로 자르지 않았습니다. visualize_layer는 ntokens를 attn_map의 max_dim으로 넘깁니다: "
    "attn_map(attn, h, row_tokens, col_tokens, ntokens, ax).",
}

# where each getter's weights live: (half of the model, attention module of a layer)
PLACES = {"get_encoder": ("encoder", "self_attn"), "get_decoder_self": ("decoder", "self_attn"),
          "get_decoder_src": ("decoder", "src_attn")}
MAP_NAME = re.compile(r"^(encoder|decoder)\.layers\.(\d+)\.(self_attn|src_attn)$")

# ----------------------------------------------------------------------------- bug models
### BEGIN BUG MODELS
# Every function here draws the case's map (right or wrong) from the probe's attention tensor.


def _map(spec, attn, head=None, batch=0, transpose=False, softmax="", crop="both", swap=False):
    """attn[batch, head] (attn[head, batch] when `swap`) cut to max_dim ("both", "rows", "cols" or "none"), transposed
    and/or softmaxed again ("before" or "after" cutting) when asked: the heatmap's data one way (the defaults are the
    solution's)."""
    head = spec.head if head is None else head
    m = attn[head, batch] if swap else attn[batch, head]
    if softmax == "before":
        m = m.softmax(dim=-1)
    rows = spec.max_dim if crop in ("both", "rows") else m.size(0)
    cols = spec.max_dim if crop in ("both", "cols") else m.size(1)
    m = m[:rows, :cols]
    if softmax == "after":
        m = m.softmax(dim=-1)
    return m.T if transpose else m


MAP_WAYS = [("transposed", {"transpose": True}), ("axes_swapped", {"swap": True}),
            ("softmax_again", {"softmax": "after"}), ("softmax_again", {"softmax": "before"}),
            *[("not_cropped", {"crop": crop}) for crop in ("none", "rows", "cols")],
            (("transposed", "not_cropped"), {"transpose": True, "crop": "none"})]
LAYER_WAYS = [("transposed", {"transpose": True}),
              ("softmax_again", {"softmax": "after"}), ("softmax_again", {"softmax": "before"}),
              *[("ntokens_ignored", {"crop": crop}) for crop in ("none", "rows", "cols")]]


def _models(case):
    """(label, model) pairs for a drawing case: a model is (way of drawing one head, order of the heads)."""
    spec = probe.CASES[case]
    batches = [("other_batch", {"batch": batch}) for batch in range(1, spec.batch)]  # attn[1], attn[-1], …
    if spec.kind == "map":
        others = [("other_head", ({"head": head}, None)) for head in range(spec.h) if head != spec.head]
        return [(None, ({}, None)), *[(label, (way, None)) for label, way in [*MAP_WAYS, *batches]], *others]
    if spec.kind == "layer":
        heads = list(range(spec.h))
        orders = [("same_head", [0] * spec.h), ("same_head", [spec.h - 1] * spec.h), ("head_order", heads[::-1])]
        return [(None, ({}, heads)), *[(label, (way, heads)) for label, way in [*LAYER_WAYS, *batches]],
                *[(label, ({}, order)) for label, order in orders]]
    return []


def _call(model, case, inputs):
    """The heatmap data a model draws: one map for attn_map, the heads' maps stacked in axes order for a layer."""
    spec, (attn,) = probe.CASES[case], inputs
    way, heads = model
    if heads is None:
        return _map(spec, attn, **way)
    return torch.stack([_map(spec, attn, head=head, **way) for head in heads])


MODEL_CODE = ModelCode(models=_models, call=_call)
### END BUG MODELS

MODELS = BugModels("ch14", same=same_output, bugs=BUGS)

# ----------------------------------------------------------------------------- reading a case


SCALE_TOLERANCE = 1e-9  # colour limits are the numbers given (0 and 1), or the data's own extremes, as floats

# matplotlib's words for more tick labels than ticks (set_xticklabels with the tokens not cut to the cells drawn)
TICK_RULES = (("FixedLocator locations", "ticks_count"),)


def triage(evidence, case, error):
    """A Korean diagnosis of an exception the student's code raised on `case`: a known matplotlib refusal, or a bug
    model that raises the same exception (attn[head, 0] with head ≥ batch), then where it raised."""
    text = explain_error(evidence, case, error, BUGS, rules=TICK_RULES, models=MODELS)
    where = place(error.get("where")) if error["type"] != "NotImplementedError" else None
    return f"{text} ({where})" if where and text in BUGS.values() else text


def read(evidence, case):
    """The student's trace of `case`, or Finding with the diagnosis of the exception it raised (led by the mistake the
    drawing made before it raised, when it shows one)."""
    trace = evidence.trace(case)
    if "error" in trace:
        raise Finding(drawn_cause(evidence, case, trace) or triage(evidence, case, trace["error"]))
    return trace


def drawn_cause(evidence, case, trace):
    """When attn_map raised after drawing its heatmap: the known mistake that partial drawing already shows (the map
    transposed, the x and y tokens swapped, …), which the tick calls then stumbled on (Korean), or None. The mistake is
    the cause; matplotlib's refusal of as many labels as ticks is its consequence."""
    so_far = trace.get("drawn") or {}
    if not so_far.get("heatmaps") or tensor(so_far.get("data")) is None:
        return None
    expected = decode(evidence.reference(case)["axes"]["data"])
    problem = data_problem(evidence, case, decode(so_far["data"]), expected)
    if problem and not problem.startswith((BUGS["map_shape"], BUGS["map_values"])):
        root = problem
    elif "placement" in so_far and tick_labels_swapped(so_far, case):
        root = BUGS["ticks_swapped"]
    else:
        return None
    if any(words in str(trace["error"].get("message", "")) for words, _ in TICK_RULES):
        return f"{root} 이 실수 때문에 눈금의 수와 붙인 토큰의 수가 맞지 않아 matplotlib이 ValueError를 냈습니다."
    return f"{root} (그 뒤 실행 중 오류도 났습니다: {trace['error']['type']})"


def tick_labels_swapped(axes, case):
    """Whether a drawn axes carries query tokens on its x axis or key tokens on its y axis."""
    spec = probe.CASES[case]
    have_x, have_y = labels(axes, case)
    return (any(label in set(probe.row_tokens(spec)) for label in have_x)
            or any(label in set(probe.col_tokens(spec)) for label in have_y))


def tensor(described):
    """An encoded tensor as float64, or None when the value is not a whole tensor."""
    if not isinstance(described, dict) or described.get("kind") != "tensor" or described.get("data") is None:
        return None
    return decode(described)


def same(found, expected):
    """Whether an encoded value is the encoded reference tensor (shape and values within the grading tolerance)."""
    mine = tensor(found)
    return mine is not None and close(mine, decode(expected))


# ----------------------------------------------------------------------------- getters


def place_of(evidence, case, student):
    """(half, layer, module) of the reference map the student's tensor equals, or None."""
    for name, kept in evidence.reference(case)["maps"].items():
        if close(student, decode(kept)):
            half, layer, module = MAP_NAME.match(name).groups()
            return half, int(layer), module
    return None


def getter_problem(evidence, case, getter):
    """Why one getter's tensor on `case` is not the reference's (Korean), or None."""
    found = read(evidence, case)["getters"][getter]
    expected = decode(evidence.reference(case)["getters"][getter])
    if "error" in found:
        problem = triage(evidence, case, found["error"])
        return problem if found["error"]["type"] == "NotImplementedError" else f"{getter}: {problem}"
    student = tensor(found)
    if student is None:
        return f"{getter}: {BUGS['getter_not_attn']} (돌려준 값: {found.get('type', found.get('kind'))})"
    if close(student, expected):
        return None
    place = place_of(evidence, case, student)
    if place is None:
        return f"{getter}: {BUGS['getter_changed']}"
    half, layer, module = place
    shown = f" ({getter}가 model.{half}.layers[{layer}].{module}.attn을 돌려줍니다.)" if evidence.visible(case) else ""
    key = "getter_layer" if (half, module) == PLACES[getter] else "getter_kind"
    return f"{getter}: {BUGS[key]}{shown}"


def getters_judge(evidence):
    """Each getter on each case returns the reference's tensor; partial credit per getter."""
    items = [(case, getter) for case in evidence.cases for getter in probe.GETTERS]
    return per_case(items, lambda item: getter_problem(evidence, *item),
                    lambda item, problem: evidence.about(item[0], problem))


# ----------------------------------------------------------------------------- fill_attention


def fill_problem(evidence, case):
    """The maps fill_attention left (eval mode, the last decoding step) and the tokens it returned (Korean), or None."""
    trace = read(evidence, case)
    expected = evidence.reference(case)
    wrong = [name for name, kept in expected["maps"].items() if not same(trace["maps"].get(name), kept)]
    if wrong:
        if trace["training"] or trace["training_modules"]:
            return BUGS["train_mode"]
        shapes = [(name, trace["maps"].get(name, {}).get("shape"), expected["maps"][name]["shape"]) for name in wrong]
        reshaped = [(name, have, want) for name, have, want in shapes if have != want]
        if reshaped:
            name, have, want = reshaped[0]
            detail = (f" ({name}.attn: {shape_text(want)}이어야 하는데 {'없' if have is None else shape_text(have)}"
                      "입니다.)") if evidence.visible(case) else ""
            return BUGS["fill_steps"] + detail
        return BUGS["fill_values"]
    if not same(trace["result"], expected["result"]):
        return BUGS["fill_return"]
    return None


# ----------------------------------------------------------------------------- attn_map


def read_map_axes(evidence, case):
    """What the student's attn_map drew on the case's axes (its first heatmap's data present), or raise Finding."""
    trace = read(evidence, case)
    axes = trace["axes"]
    if not axes["heatmaps"]:
        raise Finding(BUGS["new_figure"] if trace["figures_opened"] else BUGS["no_heatmap"])
    if tensor(axes["data"]) is None:
        raise Finding(f"{BUGS['map_shape']} (그린 것: {axes['data'].get('type', axes['data'].get('kind'))})")
    return axes


def data_problem(evidence, case, student, expected):
    """Why heatmap data (a tensor) differs from the reference's (Korean), or None: the bug a model reproduces, else
    the shape (shown on a visible case), else the values."""
    if close(student, expected):
        return None
    found = MODELS.matching(evidence, case, student=student)
    if found:
        return MODELS.explain(evidence, case, found)
    if student.shape != expected.shape:
        detail = (f" ({shape_text(expected.shape)}이어야 하는데 {shape_text(student.shape)}입니다.)"
                  if evidence.visible(case) else "")
        return BUGS["map_shape"] + detail
    return BUGS["map_values"]


def map_data_problem(evidence, case):
    """attn_map's heatmap holds attn[0, head, :max_dim, :max_dim], rows queries and columns keys."""
    axes = read_map_axes(evidence, case)
    expected = decode(evidence.reference(case)["axes"]["data"])
    return data_problem(evidence, case, decode(axes["data"]), expected)


def grid(placement, rows, cols):
    """(x of column 0's centre, x step, y of row 0's centre, y step) of a heatmap of `rows` × `cols` cells placed
    as the probe read it, in data coordinates."""
    if "corners" in placement:
        (x0, y0), (x_end, _), (_, y_end) = placement["corners"]
        dx, dy = (x_end - x0) / cols, (y_end - y0) / rows
    else:
        left, right, bottom, top = placement["extent"]
        first, last = (bottom, top) if placement["origin"] == "lower" else (top, bottom)
        x0, dx, y0, dy = left, (right - left) / cols, first, (last - first) / rows
    return x0 + dx / 2, dx, y0 + dy / 2, dy


def labels_at(ticks, centres, step):
    """The tick label at each centre (None where no tick sits within a quarter cell), as matplotlib draws it."""
    found = []
    for centre in centres:
        near = [text for x, text in zip(ticks["at"], ticks["labels"]) if abs(x - centre) <= abs(step) / 4]
        found.append(str(near[0]).strip() if near else None)
    return found


def labels(axes, case):
    """(x labels, y labels): the tick label at the centre of each of the case's columns and rows of a drawn axes."""
    spec = probe.CASES[case]
    rows, cols = axes["data"]["shape"]
    if not rows or not cols:
        return [None] * spec.cols, [None] * spec.rows
    x0, dx, y0, dy = grid(axes["placement"], rows, cols)
    return (labels_at(axes["x_ticks"], [x0 + j * dx for j in range(spec.cols)], dx),
            labels_at(axes["y_ticks"], [y0 + i * dy for i in range(spec.rows)], dy))


def ticks_problem(evidence, case):
    """The tick labels at the centres of the map's columns (x) and rows (y) are the key and query tokens: on every
    cell drawn that the reference has too (a map of the wrong size is the data check's mistake, not this one's)."""
    axes = read_map_axes(evidence, case)
    reference = evidence.reference(case)["axes"]
    (rows, cols), (drawn_rows, drawn_cols) = reference["data"]["shape"], axes["data"]["shape"]
    rows, cols = min(rows, drawn_rows), min(cols, drawn_cols)
    (have_x, have_y), (want_x, want_y) = labels(axes, case), labels(reference, case)
    have_x, have_y, want_x, want_y = have_x[:cols], have_y[:rows], want_x[:cols], want_y[:rows]
    if have_x == want_x and have_y == want_y:
        return None
    spec = probe.CASES[case]
    queries, keys = set(probe.row_tokens(spec)), set(probe.col_tokens(spec))
    if any(label in queries for label in have_x) or any(label in keys for label in have_y):
        return BUGS["ticks_swapped"]
    if not any(label in keys for label in have_x) and not any(label in queries for label in have_y):
        return BUGS["ticks_missing"]
    if shifted(have_x, probe.col_tokens(spec)) or shifted(have_y, probe.row_tokens(spec)):
        return BUGS["ticks_shifted"]
    return BUGS["ticks_misplaced"]


def shifted(labels, tokens):
    """Whether the labels read at the cells' centres are the tokens one place off (a token dropped or added first).

    Every cell must carry a tick: a cell without one means the ticks themselves sit off the cells (misplaced)."""
    return len(labels) > 1 and None not in labels and (labels == tokens[1:1 + len(labels)] or labels[1:] == tokens[:len(labels) - 1])


def scale_problem(evidence, case):
    """The heatmap's colours are fixed to 0–1 (vmin=0, vmax=1, clim, set_clim or a Normalize(0, 1): the norm's limits
    as the probe read them), not the drawn values' own range (matplotlib's default) nor another one (Korean), or None."""
    axes = read_map_axes(evidence, case)
    colour = axes.get("colour") or {}
    low, high = colour.get("vmin"), colour.get("vmax")
    numbers = is_number(low) and is_number(high)
    if numbers and abs(low) <= SCALE_TOLERANCE and abs(high - 1) <= SCALE_TOLERANCE:
        return None
    data = decode(axes["data"])
    if data.numel():
        extremes = ((low, float(data.min())), (high, float(data.max())))
        if any(is_number(bound) and abs(bound - value) <= SCALE_TOLERANCE * max(1.0, abs(value))
               for bound, value in extremes):
            return BUGS["scale_data"]
    shown = f" (그린 색의 범위: {low:g}–{high:g})" if numbers and evidence.visible(case) else ""
    return BUGS["scale_range"] + shown


def is_number(value):
    """Whether a recorded colour limit is a number (not None, not {"type": …} of something else)."""
    return type(value) in (int, float)


# ----------------------------------------------------------------------------- visualize_layer


def figure_problem(evidence, case, trace):
    """What is wrong with visualize_layer's getter call, returned Figure or number of heatmap axes, or None."""
    spec = probe.CASES[case]
    calls = trace.get("calls", [])
    if "error" in trace and (trace["error"]["type"] == "NotImplementedError" or calls):
        return triage(evidence, case, trace["error"])
    if not calls:
        return BUGS["getter_fn_ignored"]
    if any(not call["model"] or call["layer"].get("value") != spec.layer for call in calls):
        return BUGS["layer_arg"]
    if "error" in trace:
        return triage(evidence, case, trace["error"])
    if not trace["figure"]:
        return f"{BUGS['not_figure']} (돌려준 값: {trace['returned']})"
    axes = trace["axes"]
    if len(axes) != spec.h:
        if len(axes) == 1 and axes[0]["heatmaps"] > 1:
            return BUGS["one_axes"]
        detail = f" (head {spec.h}개인데 heatmap이 있는 axes가 {len(axes)}개입니다.)" if evidence.visible(case) else ""
        return BUGS["axes_count"] + detail
    return None


def layer_problem(evidence, case):
    """visualize_layer: getter_fn(model, layer), a Figure, one axes per head in order, each head's map."""
    trace = evidence.trace(case)
    problem = figure_problem(evidence, case, trace)
    if problem:
        return ("error" in trace and stand_in_cause(evidence, case)) or problem
    maps = [tensor(ax["data"]) for ax in trace["axes"]]
    if any(m is None for m in maps) or len({m.shape for m in maps}) != 1:
        return BUGS["map_shape"]
    expected = torch.stack([decode(ax["data"]) for ax in evidence.reference(case)["axes"]])
    return data_problem(evidence, case, torch.stack(maps), expected) or layer_ticks_problem(evidence, case, trace)


def layer_ticks_problem(evidence, case, trace):
    """visualize_layer's tokens: each axes' tick labels at its cells are the reference's. Judged only when the student's
    attn_map labels its own cases right: otherwise the labels are attn_map's mistake, which its ticks check costs."""
    for name in map_cases(case):
        try:
            if ticks_problem(evidence, name) is not None:
                return None
        except Finding:
            return None
    spec = probe.CASES[case]
    queries, keys = set(probe.row_tokens(spec)), set(probe.col_tokens(spec))
    for drawn, wanted in zip(trace["axes"], evidence.reference(case)["axes"]):
        (have_x, have_y), (want_x, want_y) = labels(drawn, case), labels(wanted, case)
        if (have_x, have_y) == (want_x, want_y):
            continue
        if any(label in queries - keys for label in have_x) and any(label in keys - queries for label in have_y):
            return BUGS["layer_tokens_swapped"]
        return BUGS["layer_tokens"]
    return None


def stand_in_cause(evidence, case):
    """When visualize_layer raised inside the student's (right) attn_map, what its run with the probe's stand-in
    attn_map shows wrong in visualize_layer itself (e.g. a head the attention does not have asked for), or None."""
    trace = evidence.trace(case).get("stand_in")
    if not trace or not trace.get("double_calls") or "error" in trace:
        return None
    return stand_in_problem(evidence, case)


def stand_in_problem(evidence, case):
    """visualize_layer with the probe's MapDouble as its attn_map (the student's fails its own check): the getter
    call, a Figure, one axes per head, the getter's tensor passed on, head h on the h-th axes, ntokens as max_dim.
    A visualize_layer that never called attn_map draws by itself: judged on its own run as usual."""
    trace, spec = evidence.trace(case).get("stand_in"), probe.CASES[case]
    if not trace or not trace.get("double_calls"):
        return layer_problem(evidence, case)
    problem = figure_problem(evidence, case, trace)
    if problem:
        return problem
    maps = [tensor(ax["data"]) for ax in trace["axes"]]
    if any(m is None or m.dim() != 2 or m.numel() == 0 for m in maps):
        return BUGS["map_shape"]
    if any(bool((m == -1).any()) for m in maps):
        return BUGS["attn_passed"]
    heads = [float(m[0, 0]) for m in maps]
    if heads != list(range(spec.h)):
        return BUGS["same_head"] if len(set(heads)) == 1 else BUGS["head_order"]
    if any(tuple(m.shape) != (spec.max_dim, spec.max_dim) for m in maps):
        return BUGS["ntokens_ignored"]
    return tokens_problem(trace.get("double_tokens") or [], spec)


def tokens_problem(calls, spec):
    """Korean: the row and column tokens visualize_layer handed attn_map (as the stand-in recorded them) are not the
    ones it got (a cut to at least ntokens is fine), or None."""
    queries, keys = probe.row_tokens(spec), probe.col_tokens(spec)

    def starts(given, tokens):
        return given is not None and len(given) >= min(spec.max_dim, len(tokens)) and given == tokens[:len(given)]

    for rows, cols in calls:
        if starts(rows, queries) and starts(cols, keys):
            continue
        return BUGS["layer_tokens_swapped" if starts(rows, keys) and starts(cols, queries) else "layer_tokens"]
    return None


def map_cases(case):
    """The attn_map cases judged beside the visualize_layer case `case`: the visible ones, and the hidden ones too when
    `case` is hidden (its check reads them all)."""
    return [name for name, spec in probe.CASES.items()
            if spec.kind == "map" and (spec.visible or not probe.CASES[case].visible)]


def map_faulty(evidence, case):
    """Whether the student's attn_map draws wrong data on any map case beside `case` (visualize_layer is then judged
    alone)."""
    for name in map_cases(case):
        try:
            if map_data_problem(evidence, name) is not None:
                return True
        except Finding:
            return True
    return False


def alone(evidence, case):
    """visualize_layer judged on its own: with the probe's stand-in attn_map when the student's is faulty."""
    return stand_in_problem(evidence, case) if map_faulty(evidence, case) else layer_problem(evidence, case)


def map_check(judge):
    """An attn_map check's judge that, when the heatmap's data fail, says visualize_layer is judged with a stand-in."""
    return noting_stand_in(judge, STAND_IN)


def drawing_problem(evidence, case):
    """A hidden drawing case: attn_map's data and ticks, or visualize_layer's figure."""
    if probe.CASES[case].kind == "layer":
        return alone(evidence, case)
    return map_data_problem(evidence, case) or ticks_problem(evidence, case)


# ----------------------------------------------------------------------------- checks

STAND_IN = ("visualize_layer의 검사는 채점기가 만든 대역 attn_map으로 대신 채점합니다: 이 실수로는 attn_map 검사의 점수만 "
            "잃습니다.")

CHECKS = [
    Check(name="getters", points=15, title="get_encoder, get_decoder_self, get_decoder_src: layer번째 층의 그 어텐션이 "
          "저장한 attn", cases=("getters",), judge=getters_judge),
    Check(name="fill_attention", points=15, title="fill_attention: model.eval() 다음 greedy_decode, 마지막 단계의 가중치",
          cases=("fill",), judge=each_case(fill_problem)),
    Check(name="attn_map_data", points=15, title="attn_map: batch 0, head, 행 = query · 열 = key, max_dim으로 자름",
          cases=("map",), judge=map_check(each_case(map_data_problem))),
    Check(name="attn_map_ticks", points=5, title="attn_map: x축 눈금 = key 토큰, y축 눈금 = query 토큰 (칸마다)",
          cases=("map",), judge=each_case(ticks_problem)),
    Check(name="attn_map_scale", points=5, title="attn_map: 색의 범위를 0–1로 고정 (head끼리, 그림끼리 비교할 수 있게)",
          cases=("map",), judge=each_case(scale_problem)),
    Check(name="visualize_layer", points=15, title="visualize_layer: getter_fn(model, layer), head마다 axes 하나, "
          "Figure를 돌려줌", cases=("layer",), reads=("map",), judge=each_case(alone)),
]

### BEGIN HIDDEN TESTS
CHECKS += [
    Check(name="hidden_getters", points=10, title="다른 모델 크기와 층의 getter", cases=("hidden_getters",),
          judge=getters_judge, visible=False),
    Check(name="hidden_fill", points=5, title="다른 모델, src, max_len의 fill_attention", cases=("hidden_fill",),
          judge=each_case(fill_problem), visible=False),
    Check(name="hidden_drawing", points=15, title="다른 크기, head, max_dim의 attn_map과 visualize_layer",
          cases=("hidden_map", "hidden_layer"), reads=("map",), judge=each_case(drawing_problem), visible=False),
]
### END HIDDEN TESTS

# How the feedback page names and explains the picture (Korean).
PICTURE_TEXTS = {
    "title": "fill_attention 뒤 decoder 0번 층 source-attention의 head 0 가중치 그림",
    "what": "fill_attention이 마지막 디코딩 단계에서 decoder.layers[0].src_attn.attn에 남긴 가중치 중 batch 0의 head 0",
    "missing": "코드가 오류로 끝났거나 fill_attention 뒤 decoder.layers[0].src_attn에 attn 가중치가 없습니다",
    "rows": "target 위치 (query)",
    "columns": "source 토큰 (key)",
    "note": "칸의 숫자는 마지막 디코딩 단계에서 i번째 target 위치가 j번째 source 토큰을 참고하는 비율입니다. 행마다 "
    "합이 1입니다. 0인 칸이 흩어져 있거나 1/(1 - p)배로 커진 값이 보이면 train 모드(dropout)로 디코딩한 것입니다.",
}

# The feedback picture: the source attention decoder layer 0 kept after the student's fill_attention (the last
# decoding step), batch 0, head 0: rows are target positions, columns source tokens; train mode shows as dropout.
CHAPTER = Chapter(id="14_attention_maps", probe=probe, checks=CHECKS, bugs=BUGS,
                  picture=Picture(case="fill", path=("maps", "decoder.layers.0.src_attn"), index=(0, 0),
                                  label="fill_attention src_attn", texts=PICTURE_TEXTS),
                  model_code=MODEL_CODE)
