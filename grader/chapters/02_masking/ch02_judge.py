"""Chapter 02 checks: masking and dropout in `attention`, and `subsequent_mask`. Content only.

A failed check names the most likely bug by running bug models (a way to mask × a place for dropout, with the
global RNG seeded as the probe seeded it); for `subsequent_mask` the triangle's diagonal offset is read off the values.
"""
import math

import torch

from . import ch02_probe as probe
from . import messages
from .bugmodels import BugModels, ModelCode
from .calls import explain_error, named, read_pair, read_tensor, reference_check, reference_pair
from .compare import close, decode, shape_text
from .contract import Chapter, Picture
from .framework import Check, Verdict, each_case

# Korean explanations of the bug classes this chapter recognises.
BUGS = {
    "stub": messages.stub("아직 작성하지 않은 부분이 있습니다", todo="TODO(02)"),
    "signature": "attention이 mask, dropout 인자를 받지 못합니다. "
    "def attention(query, key, value, mask=None, dropout=None): 처럼 이름과 기본값 None을 그대로 쓰세요.",
    "mask_none": "mask가 None일 때도 masked_fill을 부릅니다. mask가 주어졌을 때(None이 아닐 때)만 가리세요.",
    "dropout_none": "dropout이 None일 때도 dropout(...)을 부릅니다. dropout이 주어졌을 때(None이 아닐 때)만 적용하세요.",
    "inverted_mask": "mask를 반대로 썼습니다. mask가 1(True)인 자리는 볼 수 있는 자리이고, 0(False)인 자리를 가려야 합니다. "
    "scores.masked_fill(mask == 0, -1e9)처럼 `mask == 0`인 자리를 채우세요.",
    "fill_zero": "가릴 자리의 점수를 0(또는 -1e-9처럼 0에 가까운 수)으로 채운 것 같습니다(또는 scores * mask). 점수 0은 "
    "exp(0) = 1이라 가린 자리도 가중치를 받습니다. 아주 작은 수 -1e9(= -1 × 10⁹, 지수는 양수)로 채우세요.",
    "fill_positive": "가릴 자리를 -1e9가 아니라 양수(1e9 등)로 채운 것 같습니다. 그러면 가린 자리가 가장 큰 점수가 되어 가중치를 "
    "거의 다 가져갑니다. 부호를 확인해 scores.masked_fill(mask == 0, -1e9)로 채우세요.",
    "mask_arith": "bool mask로 뺄셈을 했습니다(1 - mask 등). torch는 bool 텐서의 뺄셈을 허용하지 않습니다. "
    "scores.masked_fill(mask == 0, -1e9)로 가리세요(굳이 더하려면 (mask == 0) * -1e9).",
    "mask_truthiness": "텐서를 if 조건에 그대로 썼습니다(`if mask:` 등). 원소가 여러 개인 텐서는 참/거짓이 정해지지 않아 오류가 납니다. "
    "mask가 주어졌는지는 텐서의 값이 아니라 mask가 None인지로 확인하세요.",
    "neg_inf": "가릴 자리를 -inf로 채운 것 같습니다. 한 행이 전부 가려지면 softmax 안에서 -inf - (-inf) = NaN이 생깁니다. "
    "-inf 대신 유한한 -1e9로 채우세요.",
    "after_softmax": "softmax를 한 다음에 가린 것 같습니다. 그러면 가린 자리는 0(또는 -1e9)이 되지만 행 합이 1이 아닙니다. "
    "softmax 앞에서 점수를 -1e9로 채우세요.",
    "mask_ignored": "mask가 결과에 반영되지 않았습니다. masked_fill은 새 텐서를 돌려주므로 "
    "그 결과를 scores에 다시 받아야 합니다(또는 softmax에 masked_fill 전의 점수를 넘기지 않았는지 확인).",
    "mask_transposed": "mask를 전치해서 썼습니다. padding mask (batch, 1, key 길이)는 key 열을 가리는 것이고, "
    "mask를 그대로 점수 (batch, query 길이, key 길이)에 broadcast하면 됩니다.",
    "head_axis": "attention 안에서 mask에 축을 더했습니다(mask.unsqueeze(1) 등). head 축은 멀티헤드 어텐션(3장)이 넣습니다. "
    "attention에서는 mask를 그대로 점수에 broadcast하세요.",
    "boolean_index": "scores[mask == 0] = -1e9 같은 boolean 인덱싱은 mask가 점수와 모양이 똑같아야 합니다. "
    "padding mask (batch, 1, seq)처럼 broadcast되는 mask에는 scores.masked_fill(mask == 0, -1e9)을 쓰세요.",
    "mask_bool_only": "mask가 bool이라고 가정했습니다(~mask, masked_fill(mask, …) 등). 0/1 정수 mask도 쓰이므로 "
    "`mask == 0`으로 비교해 가릴 자리를 고르세요.",
    "dropout_scores": "dropout을 softmax 전의 점수(scores)에 적용한 것 같습니다. dropout은 softmax가 끝난 가중치(p_attn)에 적용합니다.",
    "dropout_output": "dropout을 출력(p_attn @ value)에 적용한 것 같습니다. dropout은 value와 섞기 전의 가중치(p_attn)에 적용합니다.",
    "dropout_value": "dropout을 value에 적용한 것 같습니다. value는 그대로 두고, softmax가 끝난 가중치(p_attn)에 dropout을 "
    "적용한 뒤 value와 곱하세요.",
    "dropout_ignored": "train 모드 dropout을 넘겼는데 결과가 dropout 없는 결과와 같습니다. "
    "dropout이 주어졌을 때 softmax 뒤의 가중치에 적용했는지 확인하세요.",
    "dropout_eval_ignored": "eval 모드 dropout인데도 값이 지워졌습니다. F.dropout(p_attn, p)처럼 직접 부르면 training 기본값이 True입니다. "
    "넘겨받은 dropout 모듈을 그대로 `dropout(p_attn)`으로 부르세요.",
    "softmax_axis": "softmax를 마지막 축이 아닌 축(dim=-2 등)에서 계산했습니다. query(행)마다 key들에 대한 가중치의 합이 1이 "
    "되도록 마지막 축에서 softmax하세요: scores.softmax(dim=-1).",
    "scale_not_sqrt": "점수를 √d_k가 아니라 d_k로 나눴습니다. scaled dot-product attention은 query·key를 math.sqrt(d_k)로 "
    "나눕니다.",
    "no_scale": "점수를 √d_k로 나누지 않았습니다: torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(d_k).",
    "dropout_own": "넘겨받은 dropout 대신 새 Dropout을 만들어 쓴 것 같습니다. 인자로 받은 dropout 모듈을 그대로 부르세요.",
    "dropout_after_output": "출력을 dropout 전의 가중치로 계산한 뒤에 p_attn에 dropout을 적용했습니다. dropout을 먼저 "
    "p_attn에 적용한 뒤, dropout을 거친 그 p_attn으로 출력(p_attn @ value)을 계산하세요.",
    "dropout_not_returned": "출력에는 dropout이 반영됐지만 돌려준 p_attn은 dropout 전의 가중치입니다. "
    "dropout을 적용한 가중치로 p_attn을 덮어써서, 같은 p_attn으로 출력을 계산하고 돌려주세요.",
    "dropout_twice": "dropout 모듈을 두 번 이상 불렀습니다. p_attn에 한 번만 적용하세요.",
    "not_finite": messages.NOT_FINITE,
    "subsequent_uint8": "subsequent_mask가 uint8 텐서를 돌려줍니다. triu 결과에 `== 0`을 해서 bool 텐서를 돌려주세요.",
    "subsequent_float": "subsequent_mask가 float 텐서를 돌려줍니다(torch.ones/triu/tril의 결과 그대로). "
    "`== 0` 비교나 .bool()로 bool 텐서를 돌려주세요.",
    "subsequent_int": "subsequent_mask가 bool이 아닌 정수 텐서를 돌려줍니다. `== 0` 비교나 .bool()로 bool 텐서를 돌려주세요.",
    "subsequent_no_batch": "subsequent_mask의 맨 앞 축 1이 빠졌습니다. 모양을 (1, size, size)로 만들어야 "
    "batch 축으로 broadcast됩니다.",
    "subsequent_inverted": "subsequent_mask가 반대입니다: 미래 위치(대각선 위)가 True입니다. "
    "torch.triu(…, diagonal=1)은 가릴 자리를 표시하므로 `== 0`으로 뒤집어 돌려주세요.",
    "subsequent_upper": "subsequent_mask가 위 삼각형(대각선 포함)을 돌려줍니다. triu와 tril을 바꿔 쓰지 않았는지 확인하세요. "
    "대각선과 그 아래(j ≤ i)가 True여야 합니다.",
    "subsequent_diagonal": "subsequent_mask의 대각선이 어긋났습니다. 대각선(자기 자신)은 볼 수 있어야 하고 그 위만 가려야 합니다. "
    "torch.triu(torch.ones(attn_shape), diagonal=1) == 0 으로 만드세요.",
    "subsequent_all": "subsequent_mask가 모든 자리를 True로 돌려줍니다. 미래 위치(j > i)는 False여야 합니다.",
    "subsequent_none": "subsequent_mask가 모든 자리를 False로 돌려줍니다. 대각선과 그 아래(j ≤ i)는 True여야 합니다.",
}


# ----------------------------------------------------------------------------- bug models
### BEGIN BUG MODELS

def _index_assign(scores, mask):
    scores = scores.clone()
    scores[mask == 0] = -1e9
    return scores.softmax(-1)


# How the student may have masked: (name, bug, function(scores, mask) -> p_attn). "no_if" masks even when mask is None.
MASK_WAYS = [
    ("correct", None, lambda s, m: s.masked_fill(m == 0, -1e9).softmax(-1)),
    ("inverted", "inverted_mask", lambda s, m: s.masked_fill(m != 0, -1e9).softmax(-1)),
    ("inverted_raw", "inverted_mask", lambda s, m: s.masked_fill(m, -1e9).softmax(-1)),
    ("fill_zero", "fill_zero", lambda s, m: s.masked_fill(m == 0, 0.0).softmax(-1)),
    ("fill_positive", "fill_positive", lambda s, m: s.masked_fill(m == 0, 1e9).softmax(-1)),
    ("neg_inf", "neg_inf", lambda s, m: s.masked_fill(m == 0, -math.inf).softmax(-1)),
    ("after_softmax", "after_softmax", lambda s, m: s.softmax(-1).masked_fill(m == 0, 0.0)),
    ("after_softmax_fill", "after_softmax", lambda s, m: s.softmax(-1).masked_fill(m == 0, -1e9)),
    ("ignored", "mask_ignored", lambda s, m: s.softmax(-1)),
    ("transposed", "mask_transposed", lambda s, m: s.masked_fill(m.transpose(-2, -1) == 0, -1e9).softmax(-1)),
    ("head_axis", "head_axis", lambda s, m: s.masked_fill(m.unsqueeze(1) == 0, -1e9).softmax(-1)),
    ("index_assign", "boolean_index", _index_assign),
    ("bitwise_not", "mask_bool_only", lambda s, m: s.masked_fill(~m, -1e9).softmax(-1)),
]
NO_IF_MASK = ("no_if", "mask_none", lambda s, m: s.masked_fill(m == 0, -1e9).softmax(-1))
# softmax over the query axis: masked the right way, normalised down each column
SOFTMAX_AXIS = ("softmax_axis", "softmax_axis", lambda s, m: s.masked_fill(m == 0, -1e9).softmax(-2))
# the scores divided by d_k instead of √d_k, or not at all (bug models with the right mask and dropout only)
SCALES = {"sqrt": None, "d_k": "scale_not_sqrt", "none": "no_scale"}


def _apply(dropout, x):
    return dropout(x) if dropout is not None else x


def _call_none(x):
    """Reproduce `dropout(p_attn)` with dropout=None (the student's error message)."""
    dropout = None
    return dropout(x)


# Where the student may have put dropout: (name, bug). Applied by `_model` below.
DROPOUT_WAYS = [
    ("p_attn", None),
    ("scores", "dropout_scores"),
    ("scores_after_mask", "dropout_scores"),
    ("output", "dropout_output"),
    ("value", "dropout_value"),
    ("not_returned", "dropout_not_returned"),
    ("after_output", "dropout_after_output"),
    ("ignored", "dropout_ignored"),
    ("always_train", "dropout_eval_ignored"),
    ("own", "dropout_own"),
]


def _model(mask_way, dropout_way, scale="sqrt"):
    """A (possibly wrong) attention: scale and mask the scores one way, apply dropout in one place."""
    _, _, masked_softmax = mask_way
    axis = -2 if mask_way[0] == "softmax_axis" else -1

    def model(query, key, value, mask, dropout):
        d_k = query.size(-1)
        scores = torch.matmul(query, key.transpose(-2, -1)) / {"sqrt": math.sqrt(d_k), "d_k": d_k, "none": 1}[scale]
        if dropout_way == "scores":
            scores = _apply(dropout, scores)
        if mask is not None or mask_way[0] == "no_if":
            if dropout_way == "scores_after_mask":
                p_attn = _apply(dropout, scores.masked_fill(mask == 0, -1e9)).softmax(-1)
            else:
                p_attn = masked_softmax(scores, mask)
        else:
            p_attn = _apply(dropout, scores).softmax(axis) if dropout_way == "scores_after_mask" else scores.softmax(axis)
        used = p_attn
        if dropout_way == "no_if":
            p_attn = _call_none(p_attn)
        elif dropout_way == "p_attn":
            p_attn = used = _apply(dropout, p_attn)
        elif dropout_way == "not_returned":
            used = _apply(dropout, p_attn)
        elif dropout_way == "after_output":
            p_attn = _apply(dropout, p_attn)
        elif dropout_way == "always_train" and dropout is not None:
            p_attn = used = torch.nn.functional.dropout(p_attn, dropout.p, training=True)
        elif dropout_way == "own":
            p_attn = used = torch.nn.Dropout(0.1)(p_attn)
        if dropout_way == "value":
            value = _apply(dropout, value)
        output = torch.matmul(used, value)
        if dropout_way == "output":
            output = _apply(dropout, output)
        return output, p_attn

    return model


def _call(model, case, inputs):
    """Run a bug model like the probe ran the student: same inputs, same dropout module, same RNG seed."""
    query, key, value, mask = inputs
    with torch.random.fork_rng(devices=[]):
        dropout = probe.make_dropout(case)
        if probe.CASES[case].dropout is not None:
            torch.manual_seed(probe.CASES[case].seed)
        return model(query.clone(), key.clone(), value.clone(), None if mask is None else mask.clone(), dropout)


def _models(case):
    """(bugs, model) for each way to mask × place for dropout that makes sense for `case`, correct first."""
    spec = probe.CASES[case]
    if spec.function != "attention":
        return []
    masks = [*MASK_WAYS, SOFTMAX_AXIS] if spec.mask else [MASK_WAYS[0], NO_IF_MASK, SOFTMAX_AXIS]
    dropouts = DROPOUT_WAYS if spec.dropout is not None else [("p_attn", None), ("no_if", "dropout_none")]
    return [(tuple(bug for bug in (mask[1], dropout_bug) if bug), _model(mask, dropout_way))
            for mask in masks for dropout_way, dropout_bug in dropouts] + [
        ((bug,), _model(MASK_WAYS[0], "p_attn", scale)) for scale, bug in SCALES.items() if bug]


MODEL_CODE = ModelCode(models=_models, call=_call)
### END BUG MODELS

MODELS = BugModels("ch02", bugs=BUGS,
                   same=lambda call, produced: close(call.p_attn, produced[1], equal_nan=True)
                   and close(call.output, produced[0], equal_nan=True))


# ----------------------------------------------------------------------------- reading a call

RULES = [("unexpected keyword argument", "signature"), ("positional argument", "signature"),
         ("only supports boolean masks", "mask_bool_only"), ("with a bool tensor is not supported", "mask_arith"),
         ("Boolean value of Tensor with more than one value is ambiguous", "mask_truthiness")]


def _triage(evidence, case, error):
    return explain_error(evidence, case, error, BUGS, rules=RULES, models=MODELS)


def read_call(evidence, case):
    """The student's (output, p_attn) on `case` as a `calls.Pair`, or Finding with a diagnosis."""
    return read_pair(evidence, case, _triage)


read_named_call = named(read_call)


def _matches(call, reference):
    return close(call.output, reference.output) and close(call.p_attn, reference.p_attn)


def diagnose(evidence, case, call):
    """Why the student's (output, p_attn) on `case` differs from the reference (Korean), or None."""
    reference = reference_pair(evidence, case)
    if _matches(call, reference):
        return None
    matched = MODELS.matching(evidence, case, call)
    if matched:
        return MODELS.explain(evidence, case, matched)
    spec = probe.CASES[case]
    if not (torch.isfinite(call.p_attn).all() and torch.isfinite(call.output).all()):
        fully_masked = spec.mask is not None and _fully_masked_rows(evidence, case).any()
        return BUGS["neg_inf"] if fully_masked else BUGS["not_finite"]
    if call.p_attn.shape != reference.p_attn.shape or call.output.shape != reference.output.shape:
        if evidence.visible(case):
            return (f"모양이 다릅니다: 출력 {shape_text(call.output.shape)}, p_attn {shape_text(call.p_attn.shape)}. "
                    f"출력 {shape_text(reference.output.shape)}, p_attn {shape_text(reference.p_attn.shape)}이어야 합니다.")
        return "출력이나 p_attn의 모양이 기대와 다릅니다. mask는 점수에 broadcast만 되어야 하고 모양을 바꾸면 안 됩니다."
    if close(call.p_attn, reference.p_attn):
        return "p_attn은 맞지만 출력이 다릅니다. 출력은 (dropout까지 거친) p_attn @ value입니다."
    hint = _dropout_hint(evidence, case)
    if hint:
        return hint
    if spec.mask is not None:
        visible = _visible_positions(evidence, case, call.p_attn.shape)
        if visible is not None and not (call.p_attn[~visible] == 0).all():
            return "가려야 할 자리의 가중치가 0이 아닙니다. softmax 전에 mask == 0인 자리의 점수를 -1e9로 채우세요."
    return "p_attn 값이 기대와 다릅니다. 점수 → mask == 0인 자리를 -1e9로 → softmax → dropout 순서를 확인하세요."


def _dropout_hint(evidence, case):
    """A diagnosis from what the student passed to the dropout module (the probe's forward hook)."""
    trace = evidence.trace(case)
    if probe.CASES[case].dropout is None or "dropout_calls" not in trace:
        return None
    if trace["dropout_calls"] > 1:
        return BUGS["dropout_twice"]
    if trace["dropout_calls"] == 0:
        return BUGS["dropout_ignored"] if probe.CASES[case].train else None
    given = trace["dropout_inputs"][0]
    if given.get("kind") != "tensor" or given.get("data") is None:
        return None
    values = decode(given)
    value = evidence.inputs(case)[2]
    if values.shape == value.shape and torch.equal(values.to(value.dtype), value):
        return BUGS["dropout_value"]
    reference = reference_pair(evidence, case)
    if list(values.shape) == list(reference.output.shape) and values.shape != reference.p_attn.shape:
        return BUGS["dropout_output"]
    if (values < 0).any():
        return BUGS["dropout_scores"]
    return None


def _visible_positions(evidence, case, shape):
    """The case's mask broadcast to `shape` as bool (True = may attend), or None if it does not broadcast."""
    mask = evidence.inputs(case)[3]
    try:
        return (mask != 0).expand(shape)
    except RuntimeError:
        return None


def _fully_masked_rows(evidence, case):
    query, key, _, mask = evidence.inputs(case)
    scores_shape = torch.broadcast_shapes(query.shape[:-1] + (key.shape[-2],), mask.shape)
    return ~(mask != 0).expand(scores_shape).any(-1)


# ----------------------------------------------------------------------------- attention checks

same_as_reference = reference_check(read_call, diagnose)


def no_mask_unchanged(evidence):
    """With mask and dropout left at None, attention behaves exactly as in chapter 01."""
    problem = diagnose(evidence, "nomask", read_named_call(evidence, "nomask"))
    return Verdict.of(problem and evidence.about("nomask", problem + " mask와 dropout이 None이면 1장과 결과가 같아야 합니다."))


@each_case
def masked_exact_zero(evidence, case):
    """Masked positions get exactly 0.0, and every row of p_attn still sums to 1."""
    call = read_call(evidence, case)
    p = call.p_attn
    visible = _visible_positions(evidence, case, p.shape)
    if visible is None or not torch.isfinite(p).all():
        return diagnose(evidence, case, call) or "p_attn의 모양이 점수의 모양과 다릅니다."
    zeros = bool((p[~visible] == 0).all())
    if zeros and bool((p >= 0).all()) and torch.allclose(p.sum(-1), torch.ones(()).to(p), atol=1e-4):
        return None
    problem = diagnose(evidence, case, call)
    if problem or zeros:
        return problem or "가려진 자리는 0이지만 행 합이 1이 아닙니다. 가리기는 softmax 전에 해야 합니다."
    return f"가려진 자리의 가중치가 정확히 0이 아닙니다 (가장 큰 값 {p[~visible].abs().max().item():.3g})."


def fully_masked_row(evidence):
    """A row with every key masked comes out finite (uniform), and the whole result equals the reference."""
    case = "fully_masked"
    call = read_named_call(evidence, case)
    problem = diagnose(evidence, case, call)
    p = call.p_attn
    if problem and p.shape == reference_pair(evidence, case).p_attn.shape and not torch.isfinite(p).all():
        problem = "전부 가려진 행이 NaN입니다. " + problem
    return Verdict.of(problem and evidence.about(case, problem))


def dropout_eval(evidence):
    """A dropout module in eval mode changes nothing: the result equals the result without dropout."""
    call = read_named_call(evidence, "dropout_eval")
    problem = diagnose(evidence, "dropout_eval", call)
    if problem and _matches(call, reference_pair(evidence, "dropout_train")):
        problem = BUGS["dropout_eval_ignored"]
    return Verdict.of(problem and evidence.about("dropout_eval", problem))


def _dropout_train(without_dropout=None):
    """Seeded train-mode dropout: full points for output and p_attn, half for the output alone."""

    def verdict(evidence):
        (case,) = evidence.cases
        call = read_named_call(evidence, case)
        reference = reference_pair(evidence, case)
        if _matches(call, reference):
            return Verdict.ok()
        if without_dropout and _matches(call, reference_pair(evidence, without_dropout)):
            return Verdict.fail(evidence.about(case, BUGS["dropout_ignored"]))
        problem = diagnose(evidence, case, call)
        if close(call.output, reference.output):
            return Verdict(0.5, evidence.about(case, "출력은 맞지만 p_attn이 다릅니다. " + problem))
        return Verdict.fail(evidence.about(case, problem))

    return verdict


# ----------------------------------------------------------------------------- subsequent_mask checks

def read_mask(evidence, case):
    """The student's subsequent_mask(size) description (a tensor), or Finding."""
    return read_tensor(evidence, case, _triage, "subsequent_mask")


def _triangle_bug(got):
    size = got.shape[-1]
    rows = torch.arange(size)[:, None]
    cols = torch.arange(size)[None, :]
    if got.all():
        return BUGS["subsequent_all"]
    if not got.any():
        return BUGS["subsequent_diagonal"] if size == 1 else BUGS["subsequent_none"]
    for offset in range(-size, size + 1):
        if torch.equal(got, cols - rows >= offset):
            return BUGS["subsequent_inverted"] if offset == 1 else BUGS["subsequent_upper"]
    for offset in range(-size, size + 1):
        if torch.equal(got, cols - rows <= offset):
            return BUGS["subsequent_diagonal"] + (
                f" 지금은 triu(…, diagonal={offset + 1}) == 0 (또는 tril(…, diagonal={offset}))과 같은 결과입니다."
            )
    return "subsequent_mask의 값이 기대와 다릅니다. i행 j열이 j ≤ i일 때만 True여야 합니다."


@each_case
def subsequent_dtype(evidence, case):
    """subsequent_mask returns a bool tensor."""
    dtype = read_mask(evidence, case)["dtype"]
    if dtype == "bool":
        return None
    if dtype == "uint8":
        return BUGS["subsequent_uint8"] + " (dtype: uint8)"
    return BUGS["subsequent_float" if dtype.startswith(("float", "bfloat")) else "subsequent_int"] + f" (dtype: {dtype})"


@each_case
def subsequent_shape(evidence, case):
    """subsequent_mask(size) has shape (1, size, size); the shape is shown on visible cases only."""
    shape, size = list(read_mask(evidence, case)["shape"]), probe.CASES[case].size
    if shape == [1, size, size]:
        return None
    if shape == [size, size]:
        return BUGS["subsequent_no_batch"] + (f" (모양: {shape_text(shape)})" if evidence.visible(case) else "")
    return "subsequent_mask의 모양이 (1, size, size)이 아닙니다" + (f": {shape_text(shape)}" if evidence.visible(case) else "") + "."


@each_case
def subsequent_values(evidence, case):
    """subsequent_mask is True on and below the diagonal: why the student's triangle differs, or None."""
    expected = decode(evidence.reference(case)["result"])
    size = expected.shape[-1]
    values = decode(read_mask(evidence, case))
    if values.numel() != size * size:
        return "subsequent_mask의 원소 개수가 size × size가 아니라서 값을 비교할 수 없습니다."
    got = values.reshape(size, size) != 0
    return None if torch.equal(got, expected.reshape(size, size) != 0) else _triangle_bug(got)


SUBSEQUENT = ("subsequent_4", "subsequent_1")

CHECKS = [
    Check(name="no_mask_unchanged", points=10, title="mask=None, dropout=None이면 1장과 같은 결과", cases=("nomask",),
          judge=no_mask_unchanged),
    Check(name="masked_exact_zero", points=10, title="가려진 자리의 가중치는 정확히 0.0, 행 합은 1",
          cases=("causal", "padding"), judge=masked_exact_zero),
    Check(name="causal_mask", points=10, title="causal mask (1, seq, seq)를 건 결과", cases=("causal",),
          judge=same_as_reference),
    Check(name="padding_mask", points=10, title="padding mask (batch, 1, seq)의 broadcast 결과", cases=("padding",),
          judge=same_as_reference),
    Check(name="fully_masked_row", points=5, title="전부 가려진 행도 NaN 없이 균등 분포", cases=("fully_masked",),
          judge=fully_masked_row),
    Check(name="dropout_eval", points=5, title="eval 모드 dropout은 결과를 바꾸지 않음", cases=("dropout_eval",),
          judge=dropout_eval),
    Check(name="dropout_train", points=10, title="train 모드 dropout은 p_attn에 (시드 고정 시 기준과 같음)",
          cases=("dropout_train",), judge=_dropout_train(without_dropout="dropout_eval")),
    Check(name="subsequent_mask_dtype", points=3, title="subsequent_mask의 dtype은 bool", cases=("subsequent_4",),
          judge=subsequent_dtype),
    Check(name="subsequent_mask_shape", points=3, title="subsequent_mask의 모양은 (1, size, size)", cases=SUBSEQUENT,
          judge=subsequent_shape),
    Check(name="subsequent_mask_values", points=9, title="subsequent_mask는 대각선과 그 아래가 True", cases=SUBSEQUENT,
          judge=subsequent_values),
]

### BEGIN HIDDEN TESTS


def subsequent_all_aspects(evidence):
    """dtype, shape and values of a hidden-size subsequent_mask: a third of the points each, once the values are right
    (a right dtype and shape around the wrong triangle, e.g. a constant mask, is no answer)."""
    (case,) = evidence.cases
    read_mask(evidence, case)
    found = [p for aspect in (subsequent_dtype, subsequent_shape, subsequent_values) if (p := aspect.one(evidence, case))]
    score = 0.0 if subsequent_values.one(evidence, case) else 1 - len(found) / 3
    return Verdict(score, "\n".join(evidence.about(case, p) for p in found))


# An error that a visible case of the same function raised too may be quoted in full (errortext.runtime_error).
ATTENTION = ("nomask", "causal", "padding", "fully_masked", "dropout_eval", "dropout_train")

CHECKS += [
    Check(name="cross_lengths", points=6, title="query 길이 ≠ key 길이에 padding mask", cases=("cross_lengths",),
          reads=ATTENTION, judge=same_as_reference, visible=False),
    Check(name="batched_4d", points=5, title="4차원 (batch, heads, seq, d_k) 입력과 mask", cases=("batched_4d",),
          reads=ATTENTION, judge=same_as_reference, visible=False),
    Check(name="int_mask", points=3, title="0/1 정수 mask도 같은 결과", cases=("int_mask",),
          reads=ATTENTION, judge=same_as_reference, visible=False),
    Check(name="empty_sentence", points=3, title="padding뿐인 문장도 NaN 없이", cases=("empty_sentence",),
          reads=ATTENTION, judge=same_as_reference, visible=False),
    Check(name="dropout_hidden", points=5, title="다른 입력의 train 모드 dropout", cases=("dropout_hidden",),
          reads=ATTENTION, judge=_dropout_train(), visible=False),
    Check(name="subsequent_mask_hidden", points=3, title="다른 크기의 subsequent_mask", cases=("subsequent_9",),
          reads=SUBSEQUENT, judge=subsequent_all_aspects, visible=False),
]
### END HIDDEN TESTS

CHAPTER_ID = "02_masking"
# How the feedback page names and explains the picture (Korean).
PICTURE_TEXTS = {
    "title": "어텐션 가중치 그림",
    "rows": "query 토큰",
    "columns": "key 토큰",
    "note": "칸의 숫자는 i번째 query 토큰이 j번째 key 토큰을 참고하는 비율입니다. 행마다 합이 1이어야 합니다.",
}

# The attention picture of the grading report: the student's p_attn under the causal mask (a triangle).
CHAPTER = Chapter(id=CHAPTER_ID, probe=probe, checks=CHECKS, bugs=BUGS,
                  picture=Picture(case="causal", texts=PICTURE_TEXTS),
                  model_code=MODEL_CODE)
