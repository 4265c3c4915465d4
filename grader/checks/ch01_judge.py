"""Chapter 01 checks: scaled dot-product attention, judged on what the student's code returned.

Judge side. Each check reads the probe's traces, the references generated from the solution and
the case inputs (rebuilt from the probe's recipe). A failed check names the most likely bug:
first by matching the student's numbers against known wrong implementations ("bug models"),
then by inference (the scale factor is recovered from log p_attn against q·kᵀ).
"""
import math
from dataclasses import dataclass

import torch

from . import ch01_probe as probe
from .compare import close, decode, shape_text
from .errortext import runtime_error
from .framework import Check, Finding, Verdict, per_case

CHAPTER_ID = "01_attention"

CASE_TEXT = {
    "seed": "시드 입력(torch.manual_seed(0), x: (1, 3, 4), attention(x, x, x))",
    "scaling_4": "d_k=4 점수 분포 입력",
    "scaling_64": "d_k=64 점수 분포 입력",
    "scaling_512": "d_k=512 점수 분포 입력",
    "saturation_512": "d_k=512, key 10개 입력",
    ### BEGIN HIDDEN TESTS
    "batched_3d": "숨겨진 3차원 batch 입력 (batch, seq, d_k)",
    "batched_4d": "숨겨진 4차원 입력 (batch, heads, seq, d_k)",
    "cross_lengths": "숨겨진 입력 (query 길이 ≠ key 길이, d_v ≠ d_k)",
    "float64": "숨겨진 float64 입력",
    "untouched": "숨겨진 입력 (입력 보존 확인)",
    "gradients": "숨겨진 입력 (기울기 확인)",
    "large": "숨겨진 큰 값 입력 (|점수| ≫ 100)",
    ### END HIDDEN TESTS
}

# Korean explanations of the bug classes this chapter recognises.
BUGS = {
    "stub": "attention()을 아직 작성하지 않았습니다(NotImplementedError). transformer.py의 TODO를 채우세요.",
    "missing": "attention 함수를 찾을 수 없습니다. 함수 이름과 들여쓰기를 확인하세요.",
    "no_scale": "점수를 √d_k로 나누지 않은 것 같습니다. scores = query @ keyᵀ / math.sqrt(d_k) 로 나눠야 softmax가 포화되지 않습니다.",
    "divide_by_dk": "점수를 √d_k가 아니라 d_k로 나눈 것 같습니다. math.sqrt(d_k)로 나누세요.",
    "half_dk": "점수를 d_k/2로 나눈 것 같습니다. `d_k ** 1 / 2`는 (d_k ** 1) / 2로 계산됩니다. `d_k ** 0.5`나 math.sqrt(d_k)를 쓰세요.",
    "times_sqrt": "점수에 √d_k를 곱한 것 같습니다. 곱하지 말고 나눠야 합니다.",
    "wrong_dk": "d_k를 잘못된 텐서나 축에서 가져온 것 같습니다. d_k = query.size(-1) (마지막 축)입니다.",
    "fixed_dk": "d_k를 숫자로 정해 두지 말고 d_k = query.size(-1)로 입력에서 구하세요. 입력마다 d_k가 다릅니다.",
    "softmax_dim": "softmax를 잘못된 축에 적용한 것 같습니다. key 축인 마지막 축(dim=-1)으로 해야 각 행의 합이 1이 됩니다. "
    "dim을 생략하지 말고 softmax(dim=-1)처럼 적으세요.",
    "transpose_01": "key.transpose(0, 1)은 batch 축을 바꿉니다. 마지막 두 축만 바꾸는 key.transpose(-2, -1)을 쓰세요.",
    "transpose_12": "key.transpose(1, 2)는 3차원에서만 우연히 맞고, 4차원 (batch, heads, seq, d_k)에서는 heads와 seq를 바꿉니다. key.transpose(-2, -1)을 쓰세요.",
    "dot_T": "key.T는 모든 축의 순서를 뒤집어 batch 축까지 섞습니다. key.transpose(-2, -1)(또는 key.mT)을 쓰세요.",
    "bmm": "torch.bmm은 3차원 텐서만 받습니다. 4차원 (batch, heads, seq, d_k) 입력에서도 되도록 torch.matmul(또는 @)을 쓰세요.",
    "only_3d": "3차원 입력에서는 되지만 4차원 (batch, heads, seq, d_k) 입력에서 오류가 납니다. 축을 앞에서부터 세는 연산"
    "(transpose(1, 2), torch.bmm, 'bij,bjk' 식 einsum 등) 대신 마지막 두 축만 다루는 torch.matmul과 transpose(-2, -1)을 쓰세요.",
    "no_transpose": "key를 전치하지 않은 것 같습니다. 점수는 query @ key.transpose(-2, -1)입니다.",
    "swap_qk": "query와 key의 자리가 바뀐 것 같습니다. 점수는 query @ keyᵀ (행 = query 토큰, 열 = key 토큰)입니다.",
    "value_as_key": "점수를 key가 아니라 value로 계산한 것 같습니다. query @ keyᵀ로 점수를 만드세요.",
    "wrong_value": "출력을 value가 아닌 텐서(query 또는 key)로 섞은 것 같습니다. 출력은 p_attn @ value입니다.",
    "log_softmax": "softmax 대신 log_softmax를 쓴 것 같습니다. 가중치는 0 이상이고 행마다 합이 1이어야 합니다.",
    "sigmoid": "softmax 대신 sigmoid를 쓴 것 같습니다. sigmoid는 행마다 합이 1이 되지 않습니다.",
    "scores": "가중치(softmax 결과) 대신 점수를 돌려준 것 같습니다. p_attn = scores.softmax(dim=-1)을 돌려주세요.",
    "overflow": "값이 큰 입력에서 결과가 inf/NaN입니다. 직접 만든 softmax(exp(s) / exp(s).sum())는 exp가 넘칩니다. "
    "행마다 최댓값을 빼고 exp를 하거나 torch.softmax를 쓰세요.",
    "not_finite": "결과에 NaN이나 inf가 있습니다.",
    "only_output": "(출력, p_attn) 두 개를 튜플로 돌려줘야 하는데 출력 텐서 하나만 돌려줍니다. return output, p_attn",
    "only_weights": "(출력, p_attn) 두 개를 튜플로 돌려줘야 하는데 p_attn 하나만 돌려줍니다. return output, p_attn",
    "swapped_return": "반환 순서가 바뀌었습니다. (출력, p_attn) 순서로 돌려주세요.",
    "numpy": "numpy 배열을 돌려줍니다. torch 텐서로 계산해야 autograd와 dtype이 유지됩니다.",
    "dtype": "입력과 다른 dtype을 돌려줍니다. .float()나 새 torch.tensor(...)로 dtype을 바꾸지 말고 입력 텐서로 계산하세요.",
    "in_place": "입력 텐서를 제자리(in-place)에서 바꿨습니다(`/=`, `.div_()`, `masked_fill_` 등). 새 텐서를 만들어 계산하세요.",
    "unused_input": "기울기가 흐르지 않는 입력이 있습니다. 그 입력이 계산에 쓰이지 않은 것 같습니다.",
    "no_grad": "계산 그래프가 끊겼습니다(torch.no_grad, .detach(), .numpy() 왕복, torch.tensor(...)로 새로 만들기 등). "
    "query, key, value까지 기울기가 흘러야 학습이 됩니다.",
}


@dataclass
class Call:
    """The student's (output, p_attn) on one case, as float64 tensors plus their dtypes."""

    output: torch.Tensor
    p_attn: torch.Tensor
    output_dtype: str
    p_dtype: str
    descriptions: tuple


# ----------------------------------------------------------------------------- bug models

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
    ("times_sqrt", _softmax_model(lambda q, k, v: _scores(q, k, 1 / _sqrt(q)).softmax(-1))),
    ("softmax_dim", _softmax_model(lambda q, k, v: _scores(q, k, _sqrt(q)).softmax(-2))),
    ("softmax_dim", _softmax_model(lambda q, k, v: _scores(q, k, _sqrt(q)).softmax(1))),
    ("softmax_dim", _softmax_model(lambda q, k, v: _scores(q, k, _sqrt(q)).softmax(0))),
    ("dot_T", _softmax_model(lambda q, k, v: (torch.matmul(q, k.permute(*reversed(range(k.dim())))) / _sqrt(q)).softmax(-1))),
    ("transpose_01", _softmax_model(lambda q, k, v: (torch.matmul(q, k.transpose(0, 1)) / _sqrt(q)).softmax(-1))),
    ("transpose_12", _softmax_model(lambda q, k, v: (torch.matmul(q, k.transpose(1, 2)) / _sqrt(q)).softmax(-1))),
    ("no_transpose", _softmax_model(lambda q, k, v: (torch.matmul(q, k) / _sqrt(q)).softmax(-1))),
    ("swap_qk", _softmax_model(lambda q, k, v: _scores(k, q, _sqrt(q)).softmax(-1))),
    ("value_as_key", _softmax_model(lambda q, k, v: _scores(q, v, _sqrt(q)).softmax(-1))),
    ("log_softmax", _softmax_model(lambda q, k, v: _scores(q, k, _sqrt(q)).log_softmax(-1))),
    ("sigmoid", _softmax_model(lambda q, k, v: _scores(q, k, _sqrt(q)).sigmoid())),
    ("sigmoid", _softmax_model(lambda q, k, v: _scores(q, k, 1.0).sigmoid())),
    ("scores", _softmax_model(lambda q, k, v: _scores(q, k, _sqrt(q)))),
    ("scores", _softmax_model(lambda q, k, v: _scores(q, k, 1.0))),
    ("wrong_value", _mix_model(lambda q, k, v: q)),
    ("wrong_value", _mix_model(lambda q, k, v: k)),
    ("bmm", _bmm_model),
]


def _run_model(model, inputs):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return model(*(t.to(torch.float64) for t in inputs))
        except Exception as error:  # noqa: BLE001 - a bug model may fail the way the student's code did
            return error


def model_outputs(inputs):
    """[(bug, (output, p_attn) or the exception)] of every bug model on `inputs`."""
    return [(bug, _run_model(model, inputs)) for bug, model in BUG_MODELS]


def _case_outputs(evidence, case):
    """`model_outputs` of a case's inputs, computed once per submission (several checks ask)."""
    cache = evidence.__dict__.setdefault("_ch01_model_outputs", {})
    if case not in cache:
        cache[case] = model_outputs(evidence.inputs(case))
    return cache[case]


def case_bugs(evidence, case, p_attn=None, error=None):
    """`matching_bugs` on a case's inputs, with the bug models' outputs cached on `evidence`."""
    return matching_bugs(evidence.inputs(case), p_attn, error, outputs=_case_outputs(evidence, case))


def matching_bugs(inputs, p_attn=None, error=None, outputs=None):
    """The bugs whose models reproduce the student's weights (or the student's exception), in order."""
    found = []
    for bug, produced in outputs if outputs is not None else model_outputs(inputs):
        if error is not None:
            if isinstance(produced, Exception) and type(produced).__name__ == error["type"]:
                if str(produced).strip().splitlines()[0][:300] == error["message"]:
                    found.append(bug)
        elif not isinstance(produced, Exception) and close(p_attn, produced[1]):
            found.append(bug)
    return list(dict.fromkeys(found))


# ----------------------------------------------------------------------------- reading a call

def read_call(evidence, case):
    """Decode the student's (output, p_attn) for `case`, or raise Finding with a diagnosis."""
    trace = evidence.trace(case)
    if "error" in trace:
        raise Finding(_error_diagnosis(evidence, case, trace["error"]))
    _check_inputs_kept(evidence, case, trace)
    result = trace["result"]
    reference = evidence.reference(case)["result"]["items"]
    output_shape, p_shape = reference[0]["shape"], reference[1]["shape"]
    if result["kind"] == "tensor":
        if result["shape"] == p_shape and output_shape != p_shape:
            raise Finding(BUGS["only_weights"])
        raise Finding(BUGS["only_output"])
    if result["kind"] == "ndarray":
        raise Finding(BUGS["numpy"])
    if result["kind"] not in ("tuple", "list"):
        raise Finding(f"(출력, p_attn) 튜플을 돌려줘야 하는데 {result.get('type', result['kind'])} 값을 돌려줍니다.")
    items = result["items"]
    if result["length"] != 2:
        raise Finding(f"(출력, p_attn) 두 개를 돌려줘야 하는데 {result['length']}개를 돌려줍니다.")
    if any(item["kind"] == "ndarray" for item in items):
        raise Finding(BUGS["numpy"])
    if any(item["kind"] != "tensor" for item in items):
        raise Finding("(출력, p_attn)은 둘 다 torch 텐서여야 합니다.")
    first, second = items
    if first["shape"] == p_shape and second["shape"] == output_shape and output_shape != p_shape:
        raise Finding(BUGS["swapped_return"])
    call = Call(decode(first), decode(second), first["dtype"], second["dtype"], (first, second))
    if output_shape == p_shape and close(call.output, decode(reference[1])) and close(call.p_attn, decode(reference[0])):
        raise Finding(BUGS["swapped_return"])
    return call


def read_call_about(evidence, case):
    """`read_call`, with the case named in the diagnosis (for checks that look at one hidden case)."""
    try:
        return read_call(evidence, case)
    except Finding as finding:
        raise Finding(f"{CASE_TEXT.get(case, case)}: {finding.message}", finding.fraction) from None


def _error_diagnosis(evidence, case, error):
    kind = error["type"]
    if kind == "NotImplementedError":
        return BUGS["stub"]
    if kind == "MissingFunction":
        return BUGS["missing"]
    if "in-place" in error["message"]:
        return BUGS["in_place"]
    bug = likely_bug(evidence, case, case_bugs(evidence, case, error=error))
    if bug:
        return BUGS[bug]
    if evidence.inputs(case)[0].dim() == 4 and "error" not in evidence.trace("seed"):
        return BUGS["only_3d"]
    return runtime_error(evidence, case, error)


def likely_bug(evidence, case, bugs):
    """The most likely of `bugs` (all reproduce the student's result on `case`), or None.

    Several bug models can coincide on one input (with a single query, dividing by √(query length)
    is dividing by 1). The student's result on the seed input, when it was recorded, breaks the tie.
    """
    if len(bugs) > 1 and case != "seed":
        bugs = [bug for bug in bugs if _seed_shows(evidence, bug)] or bugs
    return bugs[0] if bugs else None


def _seed_shows(evidence, bug):
    """Whether the student's result on the seed input shows `bug` too (to break ties between models)."""
    trace = evidence.trace("seed")
    if "error" in trace:
        return bug in case_bugs(evidence, "seed", error=trace["error"])
    try:
        p_attn = decode(trace["result"]["items"][1])
    except (Finding, KeyError, IndexError, TypeError):
        return False
    return bug in case_bugs(evidence, "seed", p_attn=p_attn)


def _check_inputs_kept(evidence, case, trace):
    """Raise the in-place diagnosis when the call changed its input tensors."""
    after = trace.get("inputs_after")
    if not after:
        return
    for before, described in zip(evidence.inputs(case), after):
        if described.get("kind") != "tensor" or not torch.equal(decode(described), before.to(torch.float64)):
            raise Finding(BUGS["in_place"])


# ----------------------------------------------------------------------------- diagnosing p_attn

def diagnose_weights(evidence, case, call):
    """Why the student's p_attn differs from the reference (Korean), or None when it matches."""
    reference = decode(evidence.reference(case)["result"]["items"][1])
    p = call.p_attn
    if close(p, reference, call.p_dtype):
        return None
    if p.shape != reference.shape:
        bug = likely_bug(evidence, case, case_bugs(evidence, case, p_attn=p))
        return BUGS[bug] if bug else f"p_attn의 모양이 {shape_text(p.shape)}입니다. (batch…, query 길이, key 길이) 모양이어야 합니다."
    if not torch.isfinite(p).all():
        return BUGS["overflow"] if probe.CASES[case].magnitude > 10 else BUGS["not_finite"]
    bug = likely_bug(evidence, case, case_bugs(evidence, case, p_attn=p))
    if bug == "wrong_dk":
        return BUGS[bug] + _scale_note(evidence.inputs(case), p)
    if bug:
        return BUGS[bug]
    inferred = _diagnose_scale(evidence.inputs(case), p)
    if inferred:
        return inferred
    return "p_attn 값이 기대와 다릅니다. 점수 → √d_k로 나누기 → 마지막 축 softmax 순서를 확인하세요."


def fitted_scale(query, key, p_attn):
    """Recover c in p = softmax(q·kᵀ / c) from log p, with the fit's correlation (1.0 = exact)."""
    raw = torch.matmul(query.to(torch.float64), key.to(torch.float64).transpose(-2, -1))
    raw, p = raw.reshape(-1, raw.shape[-1]), p_attn.reshape(-1, p_attn.shape[-1])
    if raw.shape != p.shape:
        return None, 0.0
    usable = p > 1e-200
    counts = usable.sum(-1, keepdim=True)
    rows = (counts >= 2).squeeze(-1)
    if not rows.any():
        return None, 0.0
    usable, counts = usable[rows], counts[rows]
    # Per row, over the usable entries only: centre the raw scores and log p, then fit one slope.
    x = torch.where(usable, raw[rows], torch.zeros(()).to(raw))
    y = torch.where(usable, p[rows].clamp_min(1e-300).log(), torch.zeros(()).to(raw))
    x = torch.where(usable, x - x.sum(-1, keepdim=True) / counts, torch.zeros(()).to(raw))
    y = torch.where(usable, y - y.sum(-1, keepdim=True) / counts, torch.zeros(()).to(raw))
    slope_inverse = (x * y).sum() / (x * x).sum()
    correlation = (x * y).sum() / ((x * x).sum().sqrt() * (y * y).sum().sqrt() + 1e-300)
    if slope_inverse <= 0:
        return None, float(correlation)
    return float(1.0 / slope_inverse), float(correlation)


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
    square = round(scale * scale)
    if square >= 2 and near(scale, math.sqrt(square)):
        # A constant: a hard-coded d_k (e.g. math.sqrt(512)) that fits one width only.
        return f"점수를 √d_k = {math.sqrt(d_k):.3g}가 아니라 약 {scale:.3g}(≈ √{square})로 나눈 것 같습니다. " + BUGS["fixed_dk"]
    return f"점수를 √d_k = {math.sqrt(d_k):.3g}가 아니라 약 {scale:.3g}로 나눈 것 같습니다."


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
    query, key, value = (t.to(torch.float64) for t in evidence.inputs(case))
    for other in (query, key):
        if other.shape[-2] == call.p_attn.shape[-1]:
            if close(call.output, torch.matmul(call.p_attn, other)):
                return BUGS["wrong_value"]
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
    reference = evidence.reference("seed")["result"]["items"]
    if list(call.output.shape) != reference[0]["shape"] or list(call.p_attn.shape) != reference[1]["shape"]:
        raise Finding(
            f"모양이 다릅니다: 출력 {shape_text(call.output.shape)}, p_attn {shape_text(call.p_attn.shape)}. "
            f"시드 입력에서는 출력 {shape_text(reference[0]['shape'])}, p_attn {shape_text(reference[1]['shape'])}이어야 합니다."
            + (f" {diagnose_weights(evidence, 'seed', call)}" if diagnose_weights(evidence, "seed", call) else "")
        )
    _same_dtype("seed", call)
    return Verdict.ok()


def seed_weights(evidence):
    """p_attn on the seed input equals the reference."""
    call = read_call(evidence, "seed")
    problem = diagnose_weights(evidence, "seed", call)
    return Verdict.fail(problem) if problem else Verdict.ok()


def seed_output(evidence):
    """The output on the seed input equals the reference."""
    call = read_call(evidence, "seed")
    problem = diagnose_output(evidence, "seed", call)
    return Verdict.fail(problem) if problem else Verdict.ok()


PROPERTY_CASES = ("seed", "scaling_4", "scaling_64", "scaling_512", "saturation_512")


def _per_case(evidence, cases, judge_one):
    """`per_case` with the case named by its Korean description."""
    return per_case(cases, judge_one, lambda case, problem: f"{CASE_TEXT.get(case, case)}: {problem}")


def rows_sum_to_one(evidence):
    """Every p_attn entry is ≥ 0 and every row sums to 1."""

    def judge_one(case):
        call = read_call(evidence, case)
        p = call.p_attn
        sums_ok = torch.allclose(p.sum(-1), torch.ones(()).to(p), atol=1e-4)
        if torch.isfinite(p).all() and (p >= 0).all() and sums_ok:
            return None
        return diagnose_weights(evidence, case, call) or "p_attn의 행 합이 1이 아니거나 음수가 있습니다."

    return _per_case(evidence, PROPERTY_CASES, judge_one)


def weighted_mix(evidence):
    """The output is p_attn @ value, using the student's own p_attn (the seed's "token 0" observation)."""

    def judge_one(case):
        call = read_call(evidence, case)
        value = evidence.inputs(case)[2].to(torch.float64)
        if call.p_attn.shape[-1] == value.shape[-2]:
            mixed = torch.matmul(call.p_attn, value)
            if close(call.output, mixed, call.output_dtype):
                return None
        return (diagnose_output(evidence, case, call) or diagnose_weights(evidence, case, call)
                or "출력이 p_attn @ value와 다릅니다.")

    return _per_case(evidence, PROPERTY_CASES, judge_one)


def _scores_spread(inputs, p):
    """The spread of the scores the student's softmax saw: std of q·kᵀ / c with c fitted from p."""
    query, key, _ = inputs
    scale, correlation = fitted_scale(query, key, p)
    if scale is None or correlation < 0.99:
        return None
    raw = torch.matmul(query.to(torch.float64), key.to(torch.float64).transpose(-2, -1))
    return float((raw / scale).std())


def scaling_statistics(evidence):
    """After scaling, the scores' spread is ≈ 1 at d_k = 4, 64 and 512 (judged on the student's p_attn)."""

    def judge_one(case):
        call = read_call(evidence, case)
        expected = _scores_spread(evidence.inputs(case), decode(evidence.reference(case)["result"]["items"][1]))
        spread = _scores_spread(evidence.inputs(case), call.p_attn) if torch.isfinite(call.p_attn).all() else None
        if spread is not None and abs(spread - expected) <= 0.05 * expected:
            return None
        d_k = probe.CASES[case].query[-1]
        observed = f"점수 표준편차가 약 {spread:.2f}입니다(기대 ≈ {expected:.2f}). " if spread is not None else ""
        return observed + (diagnose_weights(evidence, case, call) or f"d_k={d_k}에서 점수의 크기가 맞지 않습니다.")

    return _per_case(evidence, ("scaling_4", "scaling_64", "scaling_512"), judge_one)


def no_saturation(evidence):
    """At d_k = 512 the softmax over 10 keys stays spread out (not saturated) and equals the reference."""
    call = read_call(evidence, "saturation_512")
    problem = diagnose_weights(evidence, "saturation_512", call)
    if problem is None:
        return Verdict.ok()
    if torch.isfinite(call.p_attn).all() and call.p_attn.numel():
        problem = f"가장 큰 가중치가 {call.p_attn.max().item():.3f}입니다(한 칸에 몰림 여부 확인). " + problem
    return Verdict.fail(problem)


CHECKS = [
    Check("return_contract", 10, "반환 형식: (출력, p_attn) 튜플, 모양, dtype", True, ("seed",), return_contract),
    Check("seed_weights", 15, "시드 입력의 가중치 p_attn", True, ("seed",), seed_weights),
    Check("seed_output", 10, "시드 입력의 출력", True, ("seed",), seed_output),
    Check("rows_sum_to_one", 10, "p_attn ≥ 0, 행마다 합 1", True, PROPERTY_CASES, rows_sum_to_one),
    Check("weighted_mix", 10, "출력 = p_attn @ value (가중 평균)", True, PROPERTY_CASES, weighted_mix),
    Check("scaling_statistics", 10, "√d_k로 나눈 점수의 표준편차 ≈ 1 (d_k=4, 64, 512)", True,
          ("scaling_4", "scaling_64", "scaling_512"), scaling_statistics),
    Check("no_saturation", 5, "d_k=512에서 softmax가 포화되지 않음", True, ("saturation_512",), no_saturation),
]

### BEGIN HIDDEN TESTS


def _matches_reference(case):
    """Half the points for p_attn, half for the output, on one hidden case."""

    def judge(evidence):
        call = read_call_about(evidence, case)
        _same_dtype(case, call)
        weights = diagnose_weights(evidence, case, call)
        output = diagnose_output(evidence, case, call)
        if weights is None and output is None:
            return Verdict.ok()
        if weights is None:
            return Verdict(0.5, f"{CASE_TEXT[case]}: p_attn은 맞지만 출력이 다릅니다. {output}")
        return Verdict(0.0, f"{CASE_TEXT[case]}: {weights}")

    return judge


def float64_preserved(evidence):
    """float64 in → float64 out, with float64 accuracy."""
    call = read_call_about(evidence, "float64")
    _same_dtype("float64", call)
    problem = diagnose_output(evidence, "float64", call)
    return Verdict.fail(f"{CASE_TEXT['float64']}: {problem}") if problem else Verdict.ok()


def inputs_untouched(evidence):
    """query, key and value are the same after the call (no in-place modification)."""
    trace = evidence.trace("untouched")
    if "error" in trace:
        read_call_about(evidence, "untouched")
    changed = [
        name
        for name, before, after in zip(("query", "key", "value"), evidence.inputs("untouched"), trace["inputs_after"])
        if after.get("kind") != "tensor" or not torch.equal(decode(after), before.to(torch.float64))
    ]
    return Verdict.fail(BUGS["in_place"] + f" (바뀐 입력: {', '.join(changed)})") if changed else Verdict.ok()


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
    return Verdict.fail("기울기가 기대와 다릅니다. " + (problem or "계산 과정에서 그래프가 바뀌었는지 확인하세요."))


def large_inputs_finite(evidence):
    """Inputs of large magnitude still give finite weights equal to the reference's."""
    call = read_call_about(evidence, "large")
    problem = diagnose_weights(evidence, "large", call) or diagnose_output(evidence, "large", call)
    return Verdict.fail(f"{CASE_TEXT['large']}: {problem}") if problem else Verdict.ok()


CHECKS += [
    Check("batched_3d", 6, "여러 batch의 3차원 입력", False, ("batched_3d",), _matches_reference("batched_3d")),
    Check("batched_4d", 6, "4차원 입력 (batch, heads, seq, d_k)", False, ("batched_4d",), _matches_reference("batched_4d")),
    Check("cross_lengths", 6, "query 길이 ≠ key 길이, d_v ≠ d_k", False, ("cross_lengths",),
          _matches_reference("cross_lengths")),
    Check("float64_preserved", 3, "float64 입력 → float64 출력", False, ("float64",), float64_preserved),
    Check("inputs_untouched", 3, "입력을 제자리에서 바꾸지 않음", False, ("untouched",), inputs_untouched),
    Check("gradients_flow", 3, "query, key, value로 기울기가 흐름", False, ("gradients",), gradients_flow),
    Check("large_inputs_finite", 3, "큰 값 입력에서도 유한한 결과", False, ("large",), large_inputs_finite),
]
### END HIDDEN TESTS
