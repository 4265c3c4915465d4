"""Chapter 01 checks: scaled dot-product attention. Content only: bug texts, bug models, checks.

A failed check names the most likely bug: first by matching the student's numbers against known
wrong implementations (bug models), then by inference (the scale factor is recovered from log p_attn
against q·kᵀ). Reading the returned pair, error triage and running the models are the framework's.
"""
import math

import torch

from . import ch01_probe as probe
from . import messages
from .bugmodels import BugModels, ModelCode
from .calls import PAIR, changed_inputs, explain_error, named, read_pair, reference_check
from .compare import close, decode, shape_text
from .contract import Chapter, Picture
from .framework import Check, Finding, Verdict, each_case
from .softmax import fitted_scale, scores_spread

# Korean explanations of the bug classes this chapter recognises.
BUGS = {
    "stub": messages.stub("attention()을 아직 작성하지 않았습니다"),
    "missing": messages.missing("attention"),
    "no_scale": "점수를 √d_k로 나누지 않은 것 같습니다. scores = query @ keyᵀ / math.sqrt(d_k) 로 나눠야 softmax가 포화되지 않습니다.",
    "divide_by_dk": "점수를 √d_k가 아니라 d_k로 나눈 것 같습니다. math.sqrt(d_k)로 나누세요.",
    "half_dk": "점수를 d_k/2로 나눈 것 같습니다. `d_k ** 1 / 2`는 (d_k ** 1) / 2로 계산됩니다. `d_k ** 0.5`나 math.sqrt(d_k)를 쓰세요.",
    "floor_divide": "점수를 //(몫 나눗셈)으로 나눈 것 같습니다. //는 소수점 아래를 버려 점수가 정수 값이 되고 기울기도 흐르지 "
    "않습니다. /로 나누세요: scores = query @ keyᵀ / math.sqrt(d_k).",
    "times_sqrt": "점수에 √d_k를 곱한 것 같습니다. 곱하지 말고 나눠야 합니다.",
    "wrong_dk": "d_k를 잘못된 텐서나 축에서 가져온 것 같습니다. d_k는 query의 마지막 축의 크기(query.size(-1))입니다. "
    "len(query)와 query.size(0)은 batch 크기입니다.",
    "extra_divide": "점수를 √d_k로 나눈 뒤 입력의 다른 축 크기(key 개수 등)로 한 번 더 나눈 것 같습니다. "
    "점수는 query @ keyᵀ / √d_k 로만 나눕니다. 행을 확률로 만드는 것은 softmax가 합니다.",
    "fixed_dk": "d_k를 숫자로 정해 두지 말고 query의 마지막 축 크기에서 구하세요. 입력마다 d_k가 다릅니다.",
    "no_keepdim": "softmax를 직접 만들면서 행의 합(또는 최댓값)을 keepdim=True 없이 구한 것 같습니다. e.sum(dim=-1)은 "
    "마지막 축이 사라진 (…, query 길이) 모양이라 브로드캐스팅되어 각 행이 자기 행이 아닌 다른 행의 값으로 계산됩니다. "
    "e.sum(dim=-1, keepdim=True)처럼 keepdim=True를 쓰거나 scores.softmax(dim=-1)을 쓰세요.",
    "softmax_dim": "softmax를 잘못된 축에 적용한 것 같습니다. key 축인 마지막 축(dim=-1)으로 해야 각 행의 합이 1이 됩니다. "
    "dim을 생략하지 말고 softmax(dim=-1)처럼 적으세요.",
    "transpose_01": "key.transpose(0, 1)은 batch 축을 바꿉니다. 마지막 두 축만 바꾸는 key.transpose(-2, -1)을 쓰세요.",
    "transpose_12": "key.transpose(1, 2)는 3차원에서만 우연히 맞고, 4차원 (batch, heads, seq, d_k)에서는 heads와 seq를 바꿉니다. key.transpose(-2, -1)을 쓰세요.",
    "dot_T": "key.T는 모든 축의 순서를 뒤집어 batch 축까지 섞습니다. key.transpose(-2, -1)(또는 key.mT)을 쓰세요.",
    "bmm": "torch.bmm은 3차원 텐서만 받습니다. 4차원 (batch, heads, seq, d_k) 입력에서도 되도록 torch.matmul(또는 @)을 쓰세요.",
    "only_3d": "3차원 입력에서는 되지만 4차원 (batch, heads, seq, d_k) 입력에서 오류가 납니다. 축을 앞에서부터 세는 연산"
    "(transpose(1, 2), torch.bmm, 'bij,bjk' 식 einsum 등) 대신 마지막 두 축만 다루는 torch.matmul과 transpose(-2, -1)을 쓰세요.",
    "no_transpose": "key를 전치하지 않은 것 같습니다. 점수는 query @ key.transpose(-2, -1)입니다.",
    "transposed_mix": "p_attn은 맞지만 출력을 p_attn의 전치(p_attn.transpose(-2, -1))로 value를 섞어 만든 것 같습니다. "
    "출력은 전치 없이 p_attn @ value입니다 (행 = query 토큰, 열 = key 토큰).",
    "swap_qk": "query와 key의 자리가 바뀐 것 같습니다. 점수는 query @ keyᵀ (행 = query 토큰, 열 = key 토큰)입니다.",
    "value_as_key": "점수를 key가 아니라 value로 계산한 것 같습니다. query @ keyᵀ로 점수를 만드세요.",
    "wrong_value": "출력을 value가 아닌 텐서(query 또는 key)로 섞은 것 같습니다. 출력은 p_attn @ value입니다.",
    "log_softmax": "softmax 대신 log_softmax를 쓴 것 같습니다. 가중치는 0 이상이고 행마다 합이 1이어야 합니다.",
    "sigmoid": "softmax 대신 sigmoid를 쓴 것 같습니다. sigmoid는 행마다 합이 1이 되지 않습니다.",
    "scale_after_softmax": "softmax를 먼저 하고 그 가중치를 √d_k로 나눈 것 같습니다. 그러면 행마다 합이 1이 아니라 "
    "1/√d_k가 됩니다. 점수(query @ keyᵀ)를 먼저 √d_k로 나눈 다음 softmax를 적용하세요.",
    "precision": "float64 입력인데 결과가 float32 정밀도로만 맞습니다: 계산 중간에 float32 값이 섞였습니다(예: "
    "torch.tensor(d_k)나 .float()는 float32입니다). math.sqrt(d_k)처럼 파이썬 수를 쓰거나 입력과 같은 dtype으로 계산하세요.",
    "scores": "가중치(softmax 결과) 대신 점수를 돌려준 것 같습니다. 점수에 마지막 축으로 softmax를 적용한 가중치를 돌려주세요.",
    "overflow": "값이 큰 입력에서 결과가 inf/NaN입니다. 직접 만든 softmax(exp(s) / exp(s).sum())는 exp가 넘칩니다. "
    "행마다 최댓값을 빼고 exp를 하거나 torch.softmax를 쓰세요.",
    "not_finite": messages.NOT_FINITE,
    "only_output": messages.only_one(PAIR, "출력"),
    "only_weights": messages.only_one(PAIR, "p_attn"),
    "swapped_return": messages.swapped(PAIR),
    "numpy": messages.NUMPY,
    "dtype": "입력과 다른 dtype을 돌려줍니다. .float()나 새 torch.tensor(...)로 dtype을 바꾸지 말고 입력 텐서로 계산하세요.",
    "in_place": messages.IN_PLACE,
    "unused_input": "기울기가 흐르지 않는 입력이 있습니다. 그 입력이 계산에 쓰이지 않은 것 같습니다.",
    "value_transposed": "value를 전치해서(value.transpose(-2, -1), value.T) 가중치와 곱했습니다. 전치는 점수를 만들 때 key에만 "
    "합니다. 출력은 가중치와 value를 그대로 곱하세요: torch.matmul(p_attn, value).",
    "weights_detached": "value의 기울기는 맞는데 query와 key의 기울기가 다릅니다: 출력을 계산할 때 쓴 가중치가 그래프에서 "
    "떨어져 있습니다(p_attn.detach(), p_attn.data, 새로 만든 텐서 등). 출력은 softmax가 돌려준 p_attn 그대로 value와 곱하세요.",
    "no_grad": "계산 그래프가 끊겼습니다(torch.no_grad, .detach(), .numpy() 왕복, torch.tensor(...)로 새로 만들기 등). "
    "query, key, value까지 기울기가 흘러야 학습이 됩니다.",
}


# ----------------------------------------------------------------------------- bug models
### BEGIN BUG MODELS

def _scores(q, k, scale):
    return torch.matmul(q, k.transpose(-2, -1)) / scale


def _softmax_model(weights_of):
    """A wrong implementation differing only in how the weights are formed from (q, k)."""

    def model(q, k, v):
        p = weights_of(q, k, v)
        return torch.matmul(p, v), p

    return model


def _mix_model(other_of):
    """A wrong implementation with correct weights that mixes another tensor than value."""

    def model(q, k, v):
        p = _scores(q, k, _sqrt(q)).softmax(-1)
        return torch.matmul(p, other_of(q, k, v)), p

    return model


def _no_keepdim(max_keepdim, sum_keepdim):
    """A hand-made softmax whose row maxima (None: none subtracted) or row sums are taken without keepdim=True:
    they broadcast along the wrong axis (or raise where the weights are not square)."""

    def weights(q, k, v):
        s = _scores(q, k, _sqrt(q))
        if max_keepdim is not None:
            s = s - s.max(dim=-1, keepdim=max_keepdim).values
        e = torch.exp(s)
        return e / e.sum(dim=-1, keepdim=sum_keepdim)

    return weights


def _transposed_mix(q, k, v):
    """Right weights, the output mixed by their transpose (raises unless the weights are square)."""
    p = _scores(q, k, _sqrt(q)).softmax(-1)
    return torch.matmul(p.transpose(-2, -1), v), p


def _bmm_model(q, k, v):
    """torch.bmm instead of torch.matmul: fine in 3-D, an error in 4-D."""
    p = (torch.bmm(q, k.transpose(-2, -1)) / _sqrt(q)).softmax(-1)
    return torch.bmm(p, v), p


def _sqrt(q):
    return math.sqrt(q.size(-1))


# (bug, model) pairs, most specific first; several models may share one explanation.
BUG_MODELS = [
    ("no_scale", _softmax_model(lambda q, k, v: _scores(q, k, 1.0).softmax(-1))),
    ("divide_by_dk", _softmax_model(lambda q, k, v: _scores(q, k, q.size(-1)).softmax(-1))),
    ("half_dk", _softmax_model(lambda q, k, v: _scores(q, k, q.size(-1) / 2).softmax(-1))),
    ("half_dk", _softmax_model(lambda q, k, v: _scores(q, k, q.size(-1) * 2).softmax(-1))),
    # d_k read from another axis or tensor: query/key length, d_v, the axis after batch.
    ("wrong_dk", _softmax_model(lambda q, k, v: _scores(q, k, math.sqrt(q.size(-2))).softmax(-1))),
    ("wrong_dk", _softmax_model(lambda q, k, v: _scores(q, k, math.sqrt(k.size(-2))).softmax(-1))),
    ("wrong_dk", _softmax_model(lambda q, k, v: _scores(q, k, math.sqrt(v.size(-1))).softmax(-1))),
    ("wrong_dk", _softmax_model(lambda q, k, v: _scores(q, k, math.sqrt(q.size(1))).softmax(-1))),
    ("wrong_dk", _softmax_model(lambda q, k, v: _scores(q, k, math.sqrt(q.size(0))).softmax(-1))),  # len(query)
    # √d_k and then the key or query length again (a mean instead of a sum, or a second normalisation)
    ("extra_divide", _softmax_model(lambda q, k, v: _scores(q, k, _sqrt(q) * k.size(-2)).softmax(-1))),
    ("extra_divide", _softmax_model(lambda q, k, v: _scores(q, k, _sqrt(q) * q.size(-2)).softmax(-1))),
    ("times_sqrt", _softmax_model(lambda q, k, v: _scores(q, k, 1 / _sqrt(q)).softmax(-1))),
    ("floor_divide", _softmax_model(lambda q, k, v: (torch.matmul(q, k.transpose(-2, -1)) // _sqrt(q)).softmax(-1))),
    # the first is the same as softmax(dim=-2) on symmetric scores (the seed)
    ("no_keepdim", _softmax_model(_no_keepdim(max_keepdim=None, sum_keepdim=False))),
    ("no_keepdim", _softmax_model(_no_keepdim(max_keepdim=True, sum_keepdim=False))),
    ("no_keepdim", _softmax_model(_no_keepdim(max_keepdim=False, sum_keepdim=True))),
    ("no_keepdim", _softmax_model(_no_keepdim(max_keepdim=False, sum_keepdim=False))),
    ("softmax_dim", _softmax_model(lambda q, k, v: _scores(q, k, _sqrt(q)).softmax(-2))),
    ("softmax_dim", _softmax_model(lambda q, k, v: _scores(q, k, _sqrt(q)).softmax(1))),
    ("softmax_dim", _softmax_model(lambda q, k, v: _scores(q, k, _sqrt(q)).softmax(0))),
    ("dot_T", _softmax_model(lambda q, k, v: (torch.matmul(q, k.permute(*reversed(range(k.dim())))) / _sqrt(q)).softmax(-1))),
    ("transpose_01", _softmax_model(lambda q, k, v: (torch.matmul(q, k.transpose(0, 1)) / _sqrt(q)).softmax(-1))),
    ("transpose_12", _softmax_model(lambda q, k, v: (torch.matmul(q, k.transpose(1, 2)) / _sqrt(q)).softmax(-1))),
    ("no_transpose", _softmax_model(lambda q, k, v: (torch.matmul(q, k) / _sqrt(q)).softmax(-1))),
    ("transposed_mix", _transposed_mix),  # raises the swap_qk model's error where the weights are not square
    ("swap_qk", _softmax_model(lambda q, k, v: _scores(k, q, _sqrt(q)).softmax(-1))),
    ("value_as_key", _softmax_model(lambda q, k, v: _scores(q, v, _sqrt(q)).softmax(-1))),
    ("log_softmax", _softmax_model(lambda q, k, v: _scores(q, k, _sqrt(q)).log_softmax(-1))),
    ("sigmoid", _softmax_model(lambda q, k, v: _scores(q, k, _sqrt(q)).sigmoid())),
    ("sigmoid", _softmax_model(lambda q, k, v: _scores(q, k, 1.0).sigmoid())),
    ("scale_after_softmax", _softmax_model(lambda q, k, v: _scores(q, k, 1.0).softmax(-1) / _sqrt(q))),
    ("scores", _softmax_model(lambda q, k, v: _scores(q, k, _sqrt(q)))),
    ("scores", _softmax_model(lambda q, k, v: _scores(q, k, 1.0))),
    ("wrong_value", _mix_model(lambda q, k, v: q)),
    ("wrong_value", _mix_model(lambda q, k, v: k)),
    ("value_transposed", _mix_model(lambda q, k, v: v.transpose(-2, -1))),  # raises unless value is square
    ("bmm", _bmm_model),
    # two mistakes at once in the weights: the scale (none, or d_k) and the softmax axis (rows of the key axis summed)
    (("no_scale", "softmax_dim"), _softmax_model(lambda q, k, v: _scores(q, k, 1.0).softmax(-2))),
    (("divide_by_dk", "softmax_dim"), _softmax_model(lambda q, k, v: _scores(q, k, q.size(-1)).softmax(-2))),
    (("no_scale", "log_softmax"), _softmax_model(lambda q, k, v: _scores(q, k, 1.0).log_softmax(-1))),
]


def _call(model, case, inputs):
    """A model's p_attn (what the judge compares; its output is p_attn @ value, or it raised)."""
    return model(*(t.to(torch.float64) for t in inputs))[1]


MODEL_CODE = ModelCode(models=lambda case: BUG_MODELS, call=_call)
### END BUG MODELS


def _student_weights(evidence, case):
    """The student's p_attn on `case` (to break ties between bug models on the seed case), or None."""
    try:
        return decode(evidence.trace(case)["result"]["items"][1])
    except (Finding, KeyError, IndexError, TypeError):
        return None


# Several bug models can coincide on one input (with a single query, dividing by √(query length) is dividing
# by 1; on the symmetric seed, softmax(dim=-2) is a softmax without keepdim): the one the student's results on the
# most visible inputs show too wins (every check reads them all).
TIE_CASES = ("seed", "scaling_4", "scaling_64", "scaling_512", "saturation_512")
MODELS = BugModels("ch01", bugs=BUGS, student=_student_weights, same=close,
                   tie_break=TIE_CASES)


# ----------------------------------------------------------------------------- reading a call

def _triage(evidence, case, error):
    return explain_error(evidence, case, error, BUGS, rules=[("in-place", "in_place")], models=MODELS,
                         fallback=_only_3d)


def _only_3d(evidence, case, error):
    if evidence.inputs(case)[0].dim() == 4 and "error" not in evidence.trace("seed"):
        return BUGS["only_3d"]
    return None


def read_call(evidence, case):
    """The student's (output, p_attn) on `case` as a `calls.Pair`, or Finding with a diagnosis."""
    return read_pair(evidence, case, _triage, in_place=BUGS["in_place"])


read_call_about = named(read_call)


# ----------------------------------------------------------------------------- diagnosing p_attn

def diagnose_weights(evidence, case, call):
    """Why the student's p_attn differs from the reference (Korean), or None when it matches."""
    reference = decode(evidence.reference(case)["result"]["items"][1])
    p = call.p_attn
    if close(p, reference, call.p_dtype):
        return None
    if call.p_dtype == "float64" and close(p, reference):
        return BUGS["precision"]
    bugs = MODELS.matching(evidence, case, p)
    if p.shape != reference.shape:
        return MODELS.explain(evidence, case, bugs) if bugs else (
            f"p_attn의 모양이 {shape_text(p.shape)}입니다. (batch…, query 길이, key 길이) 모양이어야 합니다.")
    if not torch.isfinite(p).all():
        return BUGS["overflow"] if probe.CASES[case].magnitude > 10 else BUGS["not_finite"]
    constant = _constant_scale(evidence)
    if constant:
        return constant
    if bugs:
        bug = MODELS.likely(evidence, case, bugs)
        return _text(bug) + (_scale_note(evidence.inputs(case), p) if bug == "wrong_dk" else "")
    return _diagnose_scale(evidence.inputs(case), p) or (
        "p_attn 값이 기대와 다릅니다. 점수 → √d_k로 나누기 → 마지막 축 softmax 순서를 확인하세요.")


def _text(label):
    """The Korean text of a bug model's label: one bug's, or those of two mistakes made together."""
    return " ".join(BUGS[key] for key in (label if isinstance(label, tuple) else (label,)))


def _diagnose_scale(inputs, p):
    """Name the scale factor the student used, when p is a softmax of q·kᵀ scaled by a constant."""
    query, key, value = inputs
    if (p < 0).any() or not torch.allclose(p.sum(-1), torch.ones(()).to(p), atol=1e-4):
        return None
    scale, correlation = fitted_scale(query, key, p)
    if scale is None or correlation < 0.999:
        return None
    d_k = query.shape[-1]

    def near(a, b):
        return abs(a - b) <= 0.02 * b

    if near(scale, math.sqrt(d_k)):
        return None
    if near(scale, 1.0):
        return BUGS["no_scale"]
    if near(scale, d_k):
        return BUGS["divide_by_dk"]
    if near(scale, d_k / 2) or near(scale, 2 * d_k):
        return BUGS["half_dk"]
    if near(scale, 1 / math.sqrt(d_k)):
        return BUGS["times_sqrt"]
    sizes = {n for t in inputs for n in t.shape if n != d_k}
    if any(near(scale, math.sqrt(n)) for n in sizes):
        return BUGS["wrong_dk"] + _scale_note(inputs, p)
    extra = sorted(n for n in sizes if n > 1 and near(scale, math.sqrt(d_k) * n))
    if extra:  # √d_k, then an axis's size again (not a constant: it changes with the input)
        return BUGS["extra_divide"] + f" (점수를 √d_k = {math.sqrt(d_k):.3g}가 아니라 약 {scale:.3g} = √d_k × {extra[0]}로 나눴습니다.)"
    square = round(scale * scale)
    if _model_width(square) and abs(scale - math.sqrt(square)) <= 0.005 * scale:
        # A constant: a hard-coded d_k (e.g. math.sqrt(512)) that fits one width only.
        return f"점수를 √d_k = {math.sqrt(d_k):.3g}가 아니라 약 {scale:.3g}(≈ √{square})로 나눈 것 같습니다. " + BUGS["fixed_dk"]
    return f"점수를 √d_k = {math.sqrt(d_k):.3g}가 아니라 약 {scale:.3g}로 나눈 것 같습니다."


def _constant_scale(evidence):
    """`fixed_dk` with the constant, when the student's scores are divided by one and the same number (not 1, not
    √d_k) on the visible inputs of at least two widths d_k the check reads; else None. On one input a constant can
    coincide with another mistake (√64 = 8 = 2·d_k at d_k = 4); across widths only a constant stays the same."""
    fitted = {}
    for case in TIE_CASES:
        p = _student_weights(evidence, case) if evidence.may_read(case) and evidence.visible(case) else None
        if p is None or not torch.isfinite(p).all():
            continue
        query, key, _ = evidence.inputs(case)
        scale, correlation = fitted_scale(query, key, p)
        if scale is None or correlation < 0.999:
            return None  # not a softmax of scaled scores everywhere: another mistake
        fitted.setdefault(query.shape[-1], []).append(scale)
    scales = [scale for found in fitted.values() for scale in found]
    if len(fitted) < 2 or max(scales) > 1.005 * min(scales):
        return None
    scale = sum(scales) / len(scales)
    if abs(scale - 1) <= 0.02:
        return None  # no scale at all: `no_scale`
    square = round(scale * scale)
    shown = f"{scale:.3g}(≈ √{square})" if abs(scale - math.sqrt(square)) <= 0.005 * scale else f"{scale:.3g}"
    return f"점수를 d_k와 상관없이 늘 약 {shown}로 나눴습니다. " + BUGS["fixed_dk"]


def _model_width(n):
    """Whether `n` looks like a width someone would write as d_k (a power of two from 4, or a multiple of 8)."""
    return n >= 4 and (n & (n - 1) == 0 or n % 8 == 0)


def _scale_note(inputs, p):
    """' (점수를 √d_k = 2가 아니라 약 1.73로 나눴습니다.)', or '' when no single scale fits p."""
    query, key, _ = inputs
    scale, correlation = fitted_scale(query, key, p)
    if scale is None or correlation < 0.999:
        return ""
    return f" (점수를 √d_k = {math.sqrt(query.shape[-1]):.3g}가 아니라 약 {scale:.3g}로 나눴습니다.)"


def diagnose_output(evidence, case, call):
    """Why the student's output differs from the reference (Korean), or None when it matches."""
    reference = decode(evidence.reference(case)["result"]["items"][0])
    if close(call.output, reference, call.output_dtype):
        return None
    weights = diagnose_weights(evidence, case, call)
    if weights:
        return weights
    if call.output_dtype == "float64" and close(call.output, reference):
        return BUGS["precision"]
    query, key, value = (t.to(torch.float64) for t in evidence.inputs(case))
    p_attn = call.p_attn.to(torch.float64)
    if p_attn.shape[-1] == p_attn.shape[-2] == value.shape[-2] and close(call.output, torch.matmul(p_attn.transpose(-2, -1), value)):
        return BUGS["transposed_mix"]
    for other in (query, key):
        if other.shape[-2] == call.p_attn.shape[-1]:
            if close(call.output, torch.matmul(call.p_attn, other)):
                return BUGS["wrong_value"]
    right = decode(evidence.reference(case)["result"]["items"][1])
    mixed_by = [bug for bug, p_attn in MODELS.results(evidence, case)  # models that are right here explain nothing
                if not isinstance(p_attn, Exception) and not close(p_attn, right)
                and close(call.output, torch.matmul(p_attn, value))]
    if mixed_by:
        return "출력은 돌려준 p_attn이 아닌 다른 가중치로 value를 섞은 것 같습니다 (출력 쪽: " + _text(mixed_by[0]) + ")"
    if call.output.shape != reference.shape:
        return f"출력의 모양이 {shape_text(call.output.shape)}입니다. (batch…, query 길이, d_v) 모양이어야 합니다."
    return "출력이 기대와 다릅니다. 출력은 p_attn @ value (가중치로 value를 섞은 것)입니다."


# ----------------------------------------------------------------------------- the checks

def _same_dtype(case, call):
    expected = probe.CASES[case].dtype
    if call.output_dtype != expected or call.p_dtype != expected:
        raise Finding(BUGS["dtype"] + f" (입력 {expected} → 출력 {call.output_dtype}, p_attn {call.p_dtype})")


def return_contract(evidence):
    """(output, p_attn) tuple in that order, with the right shapes and the input's dtype."""
    call = read_call(evidence, "seed")
    output, p_attn = (item["shape"] for item in evidence.reference("seed")["result"]["items"])
    if list(call.output.shape) != output or list(call.p_attn.shape) != p_attn:
        weights = diagnose_weights(evidence, "seed", call)
        raise Finding(
            f"모양이 다릅니다: 출력 {shape_text(call.output.shape)}, p_attn {shape_text(call.p_attn.shape)}. "
            f"시드 입력에서는 출력 {shape_text(output)}, p_attn {shape_text(p_attn)}이어야 합니다."
            + (f" {weights}" if weights else ""))
    _same_dtype("seed", call)
    return Verdict.ok()


def seed_weights(evidence):
    """p_attn on the seed input equals the reference."""
    return Verdict.of(diagnose_weights(evidence, "seed", read_call(evidence, "seed")))


def seed_output(evidence):
    """The output on the seed input equals the reference."""
    return Verdict.of(diagnose_output(evidence, "seed", read_call(evidence, "seed")))


@each_case
def rows_sum_to_one(evidence, case):
    """Every p_attn entry is ≥ 0 and every row sums to 1."""
    call = read_call(evidence, case)
    p = call.p_attn
    sums_ok = torch.allclose(p.sum(-1), torch.ones(()).to(p), atol=1e-4)
    if torch.isfinite(p).all() and (p >= 0).all() and sums_ok:
        return None
    return diagnose_weights(evidence, case, call) or "p_attn의 행 합이 1이 아니거나 음수가 있습니다."


@each_case
def weighted_mix(evidence, case):
    """The output is p_attn @ value with the student's own p_attn (the seed's "token 0" observation)."""
    call = read_call(evidence, case)
    value = evidence.inputs(case)[2].to(torch.float64)
    if call.p_attn.shape[-1] != value.shape[-2]:
        return diagnose_weights(evidence, case, call) or "p_attn의 열 수가 value의 길이와 다릅니다."
    if close(call.output, torch.matmul(call.p_attn, value), call.output_dtype):
        return None
    weights = diagnose_weights(evidence, case, call)
    if weights and diagnose_output(evidence, case, call) is None:
        return ("출력은 맞지만 돌려준 p_attn @ value와 다릅니다: 출력을 만든 가중치와 다른 p_attn을 돌려줍니다. "
                f"같은 p_attn으로 출력을 계산하고 그 p_attn을 돌려주세요. (p_attn: {weights})")
    return diagnose_output(evidence, case, call) or weights or "출력이 p_attn @ value와 다릅니다."


@each_case
def scaling_statistics(evidence, case):
    """After scaling, the scores' spread is ≈ 1 at d_k = 4, 64 and 512 (judged on the student's p_attn)."""
    call = read_call(evidence, case)
    expected = scores_spread(evidence.inputs(case), decode(evidence.reference(case)["result"]["items"][1]))
    spread = scores_spread(evidence.inputs(case), call.p_attn) if torch.isfinite(call.p_attn).all() else None
    if spread is not None and abs(spread - expected) <= 0.05 * expected:
        return None
    d_k = probe.CASES[case].query[-1]
    observed = f"점수 표준편차가 약 {spread:.2f}입니다(기대 ≈ {expected:.2f}). " if spread is not None else ""
    return observed + (diagnose_weights(evidence, case, call) or f"d_k={d_k}에서 점수의 크기가 맞지 않습니다.")


def no_saturation(evidence):
    """At d_k = 512 the softmax over 10 keys stays spread out (not saturated) and equals the reference."""
    call = read_call(evidence, "saturation_512")
    problem = diagnose_weights(evidence, "saturation_512", call)
    if problem is None or not (torch.isfinite(call.p_attn).all() and call.p_attn.numel()):
        return Verdict.of(problem)
    p, largest = call.p_attn, call.p_attn.max().item()
    expected = decode(evidence.reference("saturation_512")["result"]["items"][1]).max().item()
    numbers = f"가장 큰 가중치가 {largest:.3f}입니다(기대 {expected:.3f}). "
    if (p < 0).any() or not torch.allclose(p.sum(-1), torch.ones(()).to(p), atol=1e-4):
        shape = "가중치가 확률 분포가 아닙니다(음수가 있거나 행 합이 1이 아님): " + numbers
    elif largest > expected + 0.05:
        shape = "가중치가 한 칸에 몰렸습니다(포화): " + numbers
    elif largest < expected - 0.05:
        shape = "포화되지는 않았지만 가중치가 기대보다 고르게 퍼졌습니다: " + numbers
    else:
        shape = f"가장 큰 가중치는 {largest:.3f}로 기대({expected:.3f})와 비슷하지만 가중치 값이 다릅니다. "
    return Verdict.fail(shape + problem)


SEED = ("seed",)
PROPERTY_CASES = ("seed", "scaling_4", "scaling_64", "scaling_512", "saturation_512")

CHECKS = [
    Check(name="return_contract", points=10, title="반환 형식: (출력, p_attn) 튜플, 모양, dtype", cases=SEED,
          reads=TIE_CASES, judge=return_contract),
    Check(name="seed_weights", points=15, title="시드 입력의 가중치 p_attn", cases=SEED, reads=TIE_CASES,
          judge=seed_weights),
    Check(name="seed_output", points=10, title="시드 입력의 출력", cases=SEED, reads=TIE_CASES,
          judge=seed_output),
    Check(name="rows_sum_to_one", points=10, title="p_attn ≥ 0, 행마다 합 1", cases=PROPERTY_CASES,
          judge=rows_sum_to_one),
    Check(name="weighted_mix", points=10, title="출력 = p_attn @ value (가중 평균)", cases=PROPERTY_CASES,
          judge=weighted_mix),
    Check(name="scaling_statistics", points=10, title="√d_k로 나눈 점수의 표준편차 ≈ 1 (d_k=4, 64, 512)",
          cases=("scaling_4", "scaling_64", "scaling_512"), reads=TIE_CASES, judge=scaling_statistics),
    Check(name="no_saturation", points=5, title="d_k=512에서 softmax가 포화되지 않음", cases=("saturation_512",),
          reads=TIE_CASES, judge=no_saturation),
]

### BEGIN HIDDEN TESTS


def matches_reference(evidence):
    """Half the points for p_attn, half for the output, on one hidden case."""
    (case,) = evidence.cases
    call = read_call_about(evidence, case)
    _same_dtype(case, call)
    weights = diagnose_weights(evidence, case, call)
    output = diagnose_output(evidence, case, call)
    if weights is None and output is None:
        return Verdict.ok()
    if weights is None:
        return Verdict(0.5, evidence.about(case, f"p_attn은 맞지만 출력이 다릅니다. {output}"))
    return Verdict.fail(evidence.about(case, weights))


def float64_preserved(evidence):
    """float64 in → float64 out, with float64 accuracy."""
    call = read_call_about(evidence, "float64")
    _same_dtype("float64", call)
    problem = diagnose_output(evidence, "float64", call)
    return Verdict.of(problem and evidence.about("float64", problem))


def inputs_untouched(evidence):
    """query, key and value are the same after the call (no in-place modification), and the call's output is right
    (returning an input untouched is no answer)."""
    trace = evidence.trace("untouched")
    if "error" in trace:
        read_call_about(evidence, "untouched")
    changed = changed_inputs(evidence, "untouched", trace["inputs_after"], ("query", "key", "value"))
    if changed:
        return Verdict.of(BUGS["in_place"] + f" (바뀐 입력: {', '.join(changed)})")
    call = read_call_about(evidence, "untouched")  # leaving the inputs alone counts only with the right answer
    problem = diagnose_output(evidence, "untouched", call)
    return Verdict.of(problem and evidence.about("untouched", problem))


def gradients_flow(evidence):
    """Gradients flow back to query, key and value and equal the reference's."""
    call = read_call_about(evidence, "gradients")
    if not all(d.get("has_grad_fn") for d in call.descriptions):
        return Verdict.fail(BUGS["no_grad"])
    trace = evidence.trace("gradients")["gradients"]
    if "error" in trace:
        return Verdict.fail(BUGS["no_grad"] + f" (backward 오류: {trace['error']['type']})")
    expected = evidence.reference("gradients")["gradients"]["grads"]
    missing = [name for name, g in zip(("query", "key", "value"), trace["grads"]) if g.get("kind") != "tensor"]
    if missing:
        problem = diagnose_output(evidence, "gradients", call)
        if problem:
            return Verdict.fail(f"{BUGS['unused_input']} (기울기가 없는 입력: {', '.join(missing)}) {problem}")
        return Verdict.fail(BUGS["no_grad"] + f" (기울기가 없는 입력: {', '.join(missing)})")
    if all(close(decode(g), decode(e)) for g, e in zip(trace["grads"], expected)):
        return Verdict.ok()
    problem = diagnose_output(evidence, "gradients", call) or diagnose_weights(evidence, "gradients", call)
    differ = [name for name, g, e in zip(("query", "key", "value"), trace["grads"], expected)
              if not close(decode(g), decode(e))]
    if not problem and differ == ["query", "key"]:  # value's gradient right: the weights the output used were cut off
        problem = BUGS["weights_detached"]
    return Verdict.fail(f"기울기가 기대와 다릅니다 (다른 입력: {', '.join(differ)}). "
                        + (problem or "계산 과정에서 그래프가 바뀌었는지 확인하세요."))


def diagnose_call(evidence, case, call):
    """Why the student's p_attn, else output, differs from the reference, or None."""
    return diagnose_weights(evidence, case, call) or diagnose_output(evidence, case, call)


# Hidden checks read every visible case: the seed breaks ties between bug models, and an error that a visible case
# raised too may be quoted in full (errortext.runtime_error).
PUBLIC = PROPERTY_CASES

CHECKS += [
    Check(name="batched_3d", points=6, title="여러 batch의 3차원 입력", cases=("batched_3d",), reads=PUBLIC,
          judge=matches_reference, visible=False),
    Check(name="batched_4d", points=6, title="4차원 입력 (batch, heads, seq, d_k)", cases=("batched_4d",), reads=PUBLIC,
          judge=matches_reference, visible=False),
    Check(name="cross_lengths", points=6, title="query 길이 ≠ key 길이, d_v ≠ d_k", cases=("cross_lengths",),
          reads=PUBLIC, judge=matches_reference, visible=False),
    Check(name="float64_preserved", points=3, title="float64 입력 → float64 출력", cases=("float64",), reads=PUBLIC,
          judge=float64_preserved, visible=False),
    Check(name="inputs_untouched", points=3, title="입력을 제자리에서 바꾸지 않음", cases=("untouched",), reads=PUBLIC,
          judge=inputs_untouched, visible=False),
    Check(name="gradients_flow", points=3, title="query, key, value로 기울기가 흐름", cases=("gradients",), reads=PUBLIC,
          judge=gradients_flow, visible=False),
    Check(name="large_inputs_finite", points=3, title="큰 값 입력에서도 유한한 결과", cases=("large",), reads=PUBLIC,
          judge=reference_check(read_call, diagnose_call), visible=False),
]
### END HIDDEN TESTS

CHAPTER_ID = "01_attention"
# How the feedback page names and explains the picture (Korean).
PICTURE_TEXTS = {
    "title": "어텐션 가중치 그림",
    "rows": "query 토큰",
    "columns": "key 토큰",
    "note": "칸의 숫자는 i번째 query 토큰이 j번째 key 토큰을 참고하는 비율입니다. 행마다 합이 1이어야 합니다.",
}

CHAPTER = Chapter(id=CHAPTER_ID, probe=probe, checks=CHECKS, bugs=BUGS, picture=Picture(texts=PICTURE_TEXTS),
                  model_code=MODEL_CODE)
