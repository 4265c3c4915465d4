"""Chapter 11 checks: the learning-rate schedule `rate` and `LabelSmoothing` (true_dist, KL loss summed).

Judge side. `rate` is judged step by step against the reference (relative tolerance): step 0 against the
student's own step 1 (a division by zero, inf or nan there is the missing guard), the warmup steps, the
steps after it and another configuration. `LabelSmoothing` is judged on its attributes, the `true_dist`
it stored and the loss it returned. A wrong result names the most likely bug by running "bug models" —
max for min, other exponents, no factor; another denominator, confidence and smoothing swapped, padding
column or rows kept, another reduction — on the same inputs and matching the student's numbers.
"""
import itertools
import math

import torch

from . import ch11_probe as probe
from . import messages, module_judge
from .bugmodels import BugModels, ModelCode
from .calls import explain_error
from .compare import close, decode
from .contract import Chapter, Picture
from .errortext import runtime_error
from .framework import Check, Finding, each_case
from .korean import attach
from .loading import place

BUGS = {
    "stub": messages.stub("아직 작성하지 않은 부분이 있습니다", "TODO(11)"),
    "not_module": "LabelSmoothing은 nn.Module을 상속해야 합니다. class LabelSmoothing(nn.Module):로 정의하고 "
    "__init__에서 super().__init__()을 부르세요.",
    "no_step_guard": "step 0에서 rate를 계산하지 못합니다(0으로 나누기, inf 또는 nan). 0의 음수 거듭제곱 0 ** (-0.5)는 "
    "정의되지 않습니다. 원문처럼 계산하기 전에 step 0을 1로 바꾸세요. LambdaLR은 학습을 시작할 때 "
    "step 0으로 rate를 부릅니다.",
    "step_zero_value": "step 0의 rate가 step 1의 rate와 다릅니다. step 0은 1로 바꿔 계산합니다: rate(0) == rate(1).",
    "max_for_min": "min 대신 max를 썼습니다. 학습률은 두 식 가운데 작은 쪽입니다: warmup 동안은 "
    "step * warmup^(-1.5)(점점 커짐)이, 그 뒤로는 step^(-0.5)(점점 줄어듦)이 작습니다. max를 쓰면 첫 step의 학습률이 "
    "가장 크고 warmup이 사라집니다.",
    "warmup_exponent": "warmup의 지수가 틀렸습니다. warmup 동안의 식은 step * warmup^(-1.5)입니다. 그래야 "
    "step = warmup에서 두 식 step^(-0.5)와 step * warmup^(-1.5)가 같아져 학습률이 끊기지 않고 이어집니다.",
    "model_size_exponent": "model_size의 지수가 틀렸습니다. 전체에 model_size^(-0.5)를 곱합니다: d_model이 클수록 "
    "학습률이 작습니다.",
    "step_exponent": "warmup 뒤의 식에서 step의 지수가 틀렸습니다. warmup 뒤에는 step^(-0.5), 곧 1/√step에 비례해 "
    "줄어듭니다.",
    "precedence": "지수를 괄호 없이 `** -1 / 2`나 `** -3 / 2`처럼 썼습니다. 파이썬에서 `a ** -3 / 2`는 (a ** -3) / 2로 "
    "계산됩니다(거듭제곱이 나눗셈보다 먼저). step ** (-0.5), warmup ** (-1.5)처럼 지수를 괄호로 묶거나 소수로 쓰세요.",
    "warmup_paren": "(step * warmup) ** (-1.5)처럼 step까지 거듭제곱했습니다. warmup 동안의 식은 step × warmup^(-1.5)입니다: "
    "step은 그대로 곱하고 warmup만 거듭제곱하세요.",
    "factor_missing": "factor를 곱하지 않았습니다. 학습률 전체에 factor를 곱합니다.",
    "model_size_missing": "model_size^(-0.5)를 곱하지 않았습니다. 학습률 전체에 model_size^(-0.5)를 곱합니다: d_model이 "
    "클수록 학습률이 작습니다.",
    "step_shifted": "step 0만 1로 바꾸지 않고 모든 step에 1을 더했습니다(step + 1). 그러면 모든 step의 rate가 한 칸씩 "
    "밀립니다. step이 0일 때만 1로 바꾸고 나머지 step은 그대로 쓰세요: rate(0) == rate(1).",
    "pad_rows_inverted": "target이 padding이 아닌 행을 0으로 만들었습니다(target != padding_idx). 0으로 채울 행은 "
    "target이 padding인 행입니다: target == padding_idx.",
    "denominator": "smoothing을 나누는 수가 틀렸습니다. 정답 칸과 padding 칸을 뺀 size - 2개 칸에 smoothing을 똑같이 "
    "나눕니다: smoothing / (size - 2). 그래야 padding이 아닌 행의 합이 1입니다.",
    "swapped": "confidence와 smoothing이 바뀌었습니다. 정답 칸(target)에는 confidence = 1 - smoothing을, 나머지 칸에는 "
    "smoothing / (size - 2)를 넣습니다.",
    "pad_column": "padding 열(padding_idx)을 0으로 만들지 않았습니다. padding 토큰은 정답 후보가 아니므로 모든 행에서 "
    "true_dist[:, padding_idx] = 0입니다.",
    "pad_rows": "target이 padding인 행을 0으로 만들지 않았습니다. padding 위치가 loss에 들어가지 않도록 그 행 전체를 "
    "0으로 채웁니다(index_fill_ 또는 masked_fill).",
    "confidence_value": "정답 칸의 값이 confidence = 1 - smoothing이 아닙니다(smoothing을 그대로 넣은 것 같습니다). "
    "__init__에서 1에서 smoothing을 뺀 값을 confidence로 저장하고 scatter_로 정답 칸에 넣으세요.",
    "scatter_after_padding": "padding 열과 padding 행을 0으로 만든 다음에 scatter_로 정답 칸에 confidence를 넣었습니다. "
    "그러면 target이 padding인 행에도 padding 칸에 confidence가 다시 들어가(padding 열의 0도 덮어써서) 그 행이 loss에 "
    "들어갑니다. 순서대로 하세요: fill_ → scatter_ → padding 열을 0 → padding 행을 0.",
    "fill_after_scatter": "정답 칸에 confidence를 넣은(scatter_) 다음에 fill_로 모든 칸을 덮어썼습니다. fill_(smoothing / "
    "(size - 2))을 먼저 하고, 그다음 scatter_로 정답 칸에 confidence를 넣으세요.",
    "fill_missing": "정답이 아닌 칸을 smoothing / (size - 2)로 채우지 않았습니다(fill_ 없음): 그 칸에 처음 만든 텐서의 값(x를 "
    "복사했다면 x의 로그 확률, zeros라면 0)이 그대로 남습니다. true_dist를 만든 뒤 먼저 "
    "fill_(self.smoothing / (self.size - 2))로 모든 칸을 채우고, 그다음 scatter_로 정답 칸에 confidence를 넣으세요.",
    "pad_row_for_column": "padding 열 대신 padding_idx번 행을 0으로 만들었습니다(true_dist[padding_idx, :] = 0). padding "
    "토큰은 어느 행에서도 정답 후보가 아니므로 모든 행의 padding_idx번 열을 0으로 만드세요: true_dist[:, padding_idx] = 0.",
    "scatter_dim": "scatter_의 첫 인자(dim)가 1이 아닙니다. 각 행의 target 열에 confidence를 넣으려면 "
    "true_dist.scatter_(1, target.unsqueeze(1), confidence)입니다.",
    "scatter_index_shape": "scatter_에 넘긴 index의 모양이 틀렸습니다. scatter_(1, index, confidence)는 i번 행의 "
    "index[i][0]번 열에 값을 넣으므로, 행마다 정답 열 하나를 고르려면 index가 (토큰 수, 1) 모양이어야 합니다: "
    "target.unsqueeze(1). unsqueeze(0)의 (1, 토큰 수)는 0번 행에만 값을 넣고, unsqueeze 없이 1차원 target을 넘기면 "
    "오류가 납니다.",
    "pad_rows_index": "index_fill_에 넘긴 행 번호가 1차원이 아닙니다. index_fill_(0, index, 0.0)의 index는 1차원(또는 "
    "스칼라)이어야 합니다. torch.nonzero(target == padding_idx)는 (padding 행 수, 1) 모양이므로 .squeeze()로 1차원으로 "
    "만들어 넘기세요(unsqueeze로 축을 더하면 안 됩니다).",
    "pad_rows_dim": "target이 padding인 행을 지운다면서 같은 번호의 열을 지웠습니다(index_fill_(1, …)). 행을 지우려면 "
    "index_fill_(0, …)입니다.",
    "criterion_probs": "KLDivLoss의 첫 인자는 로그 확률입니다. x는 이미 log_softmax의 결과(로그 확률)이므로 x.exp()나 "
    "softmax를 하지 말고 그대로 넘기세요: self.criterion(x, true_dist.clone().detach()).",
    "true_dist_missing": "forward가 만든 목표 분포를 self.true_dist에 저장하지 않았습니다. 장의 데모와 채점은 "
    "forward 뒤의 self.true_dist를 읽습니다.",
    "reduction": 'KLDivLoss의 reduction이 "sum"이 아니거나(mean, batchmean, none) loss를 토큰 수(행 수)로 나눴습니다. '
    '원문은 nn.KLDivLoss(reduction="sum")로 모든 칸의 loss를 더한 합계를 그대로 돌려줍니다. 토큰 수로 나누는 것은 학습 '
    "루프가 합니다.",
    "confidence_added": "정답 칸에 confidence를 더했습니다(scatter_add_나 +=): 정답 칸의 값이 smoothing 몫 + confidence가 "
    "됩니다. 정답 칸에는 confidence 하나만 들어가도록 scatter_로 덮어쓰세요.",
    "log_target": "KLDivLoss에 log_target=True를 줬습니다: 그러면 목표 분포 true_dist를 로그 확률로 읽습니다. true_dist는 "
    "확률(합이 1)이므로 log_target은 기본값(False) 그대로 두세요.",
    "criterion_swapped": "self.criterion에 넘긴 두 인자의 순서가 바뀌었습니다. KLDivLoss는 모델의 로그 확률 x를 먼저, "
    "목표 분포 true_dist를 다음에 받습니다: self.criterion(x, true_dist.clone().detach()).",
    "x_overwritten": "true_dist를 채우면서 x까지 바꿨습니다: x.data나 x.detach()는 복사가 아니라 같은 메모리입니다. 그래서 "
    "loss가 x 대신 목표 분포 자신을 비교합니다. x.data.clone()으로 복사한 뒤 채우세요.",
    "criterion": 'self.criterion이 nn.KLDivLoss가 아닙니다. 합계로 줄이는(reduction이 sum인) nn.KLDivLoss로 만드세요.',
}

RATE_DIFFERS = "rate 값이 기준과 다릅니다."
TRUE_DIST_DIFFERS = "true_dist 값이 기준과 다릅니다."
LOSS_DIFFERS = "loss 값이 기준과 다릅니다."
RTOL = 1e-4  # relative: learning rates are ~1e-7 to 1e-3

# ----------------------------------------------------------------------------- bug models
### BEGIN BUG MODELS

MODEL_EXPONENTS = {-0.5: None, 0.5: "model_size_exponent", -1.0: "model_size_exponent",
                   -1.5: "model_size_exponent", 0.0: "model_size_missing"}
STEP_EXPONENTS = {-0.5: None, 0.5: "step_exponent", -1.0: "step_exponent", -1.5: "step_exponent"}
WARMUP_EXPONENTS = {-1.5: None, -0.5: "warmup_exponent", 1.5: "warmup_exponent", -1.0: "warmup_exponent",
                    -2.0: "warmup_exponent", -2.5: "warmup_exponent"}
COMBINE = {"min": None, "max": "max_for_min"}
FACTOR = {True: None, False: "factor_missing"}
DENOMINATORS = {2: None, 1: "denominator", 0: "denominator"}  # smoothing / (size - k)
REDUCTIONS = {"sum": None, "mean": "reduction", "batchmean": "reduction"}
# how the loss is taken: criterion(x, true_dist), the arguments the other way round, or x filled in place as true_dist
# (true_dist = x.data without clone: x then holds the target distribution itself)
LOSS_WAYS = {"ok": None, "swapped": "criterion_swapped", "overwritten": "x_overwritten"}


def rate_model(step, model_size, factor, warmup, model_exp=-0.5, step_exp=-0.5, warmup_exp=-1.5, combine="min",
               with_factor=True):
    """The schedule computed one way (the default is the solution's)."""
    step = 1 if step == 0 else step
    pick = min if combine == "min" else max
    return (factor if with_factor else 1.0) * model_size ** model_exp * pick(step ** step_exp, step * warmup ** warmup_exp)


def rate_expression(step, model_size, factor, warmup, way):
    """The schedule with one term written another way: an exponent without parentheses (`** -3 / 2`), or
    (step * warmup) ** (-1.5)."""
    step = step + 1 if way == "step_shifted" else 1 if step == 0 else step
    size_term = model_size ** -1 / 2 if way == "model_precedence" else model_size ** -0.5
    decay = step ** -1 / 2 if way == "step_precedence" else step ** -0.5
    if way == "warmup_precedence":
        growth = step * warmup ** -3 / 2
    else:
        growth = (step * warmup) ** -1.5 if way == "warmup_paren" else step * warmup ** -1.5
    return factor * size_term * min(decay, growth)


RATE_EXPRESSIONS = {"model_precedence": "precedence", "step_precedence": "precedence",
                    "warmup_precedence": "precedence", "warmup_paren": "warmup_paren", "step_shifted": "step_shifted"}


def smoothing_step(spec, x, target, way):
    """The original forward with one step done another way: smoothing as the confidence, no fill_ (true_dist left as
    x's copy or zeros), fill_ after scatter_, the padding_idx row zeroed for the column, scatter_
    along dim 0 or with an index of another shape ((1, n): target.unsqueeze(0); (n,): target), the padding rows'
    numbers zeroed as columns or given to index_fill_ as a 2-D index (nonzero() unsqueezed, or never squeezed), the
    confidence added to the smoothing share (scatter_add_), or the loss taken on probabilities (x.exp()), with
    log_target=True or by nn.CrossEntropyLoss (sum or mean) on the same true_dist."""
    confidence, smoothing = 1.0 - spec.smoothing, spec.smoothing
    if way == "confidence_smoothing":
        confidence = smoothing
    dist = torch.full(x.shape, smoothing / (spec.size - 2), dtype=x.dtype)
    if way in ("no_fill", "no_fill_zeros"):  # x.data.clone() or zeros_like(x), never filled with the smoothing share
        dist = x.clone() if way == "no_fill" else torch.zeros_like(x)
    index = {"scatter_row": target.unsqueeze(0), "scatter_flat": target}.get(way, target.unsqueeze(1))
    if way == "scatter_added":  # scatter_add_ (or += at the target): the smoothing share stays under the confidence
        dist.scatter_add_(1, index, torch.full(index.shape, confidence, dtype=x.dtype))
    else:
        dist.scatter_(0 if way == "scatter_dim0" else 1, index, confidence)
    if way == "fill_after_scatter":
        dist.fill_(smoothing / (spec.size - 2))
    if way == "pad_row_for_column":  # true_dist[padding_idx, :] = 0: a row zeroed (an IndexError past the last row)
        dist[spec.padding_idx, :] = 0
    else:
        dist[:, spec.padding_idx] = 0
    rows = target != spec.padding_idx if way == "rows_inverted" else target == spec.padding_idx
    if way == "scatter_after_padding":  # the padding column and rows zeroed first, then the confidence scattered
        dist = torch.full(x.shape, smoothing / (spec.size - 2), dtype=x.dtype)
        dist[:, spec.padding_idx] = 0
        dist[rows] = 0
        dist.scatter_(1, index, confidence)
        return {"true_dist": dist, "loss": torch.nn.functional.kl_div(x, dist, reduction="sum")}
    if way == "rows_index_column":  # nonzero() never squeezed: (rows, 1)
        index = rows.nonzero()
    elif way == "rows_index_unsqueezed":  # nonzero().squeeze().unsqueeze(1): 2-D, or an IndexError for one row
        index = rows.nonzero().squeeze().unsqueeze(1)
    else:
        index = rows.nonzero().squeeze(-1)
    dist.index_fill_(1 if way == "rows_as_columns" else 0, index, 0.0)
    if way in ("cross_entropy", "cross_entropy_mean"):  # nn.CrossEntropyLoss(...)(x, true_dist): soft targets
        loss = torch.nn.functional.cross_entropy(x, dist, reduction="sum" if way == "cross_entropy" else "mean")
    else:
        loss = torch.nn.functional.kl_div(x.exp() if way == "loss_on_probs" else x, dist, reduction="sum",
                                          log_target=way == "log_target")
    return {"true_dist": dist, "loss": loss}


SMOOTHING_STEPS = {"confidence_smoothing": "confidence_value", "fill_after_scatter": "fill_after_scatter", "scatter_dim0": "scatter_dim",
                   "rows_as_columns": "pad_rows_dim", "loss_on_probs": "criterion_probs",
                   "rows_inverted": "pad_rows_inverted", "scatter_row": "scatter_index_shape",
                   "scatter_flat": "scatter_index_shape", "rows_index_column": "pad_rows_index",
                   "rows_index_unsqueezed": "pad_rows_index", "scatter_added": "confidence_added",
                   "log_target": "log_target", "scatter_after_padding": "scatter_after_padding",
                   "no_fill": "fill_missing", "no_fill_zeros": "fill_missing", "pad_row_for_column": "pad_row_for_column",
                   "cross_entropy": "criterion", "cross_entropy_mean": "criterion"}


def true_dist_model(spec, x, target, k=2, swapped=False, pad_column=True, pad_rows=True):
    """true_dist built one way: smoothing / (size - k), confidence and smoothing swapped, padding zeroed or not."""
    confidence, smoothing = 1.0 - spec.smoothing, spec.smoothing
    if swapped:
        confidence, smoothing = smoothing, confidence
    dist = torch.full(x.shape, smoothing / (spec.size - k), dtype=x.dtype)
    dist.scatter_(1, target.unsqueeze(1), confidence)
    if pad_column:
        dist[:, spec.padding_idx] = 0
    if pad_rows:
        dist = dist.masked_fill((target == spec.padding_idx).unsqueeze(1), 0.0)
    return dist


def _label(*bugs):
    """The bug keys a model stands for (None: the solution's way)."""
    return tuple(dict.fromkeys(bug for bug in bugs if bug)) or None


def _by_bug_count(pairs):
    """(label, model) pairs without the solution's way, fewest bugs first (a stable order)."""
    return sorted(((label, model) for label, model in pairs if label), key=lambda pair: len(pair[0]))


def _rate_models():
    return _by_bug_count(
        (_label(MODEL_EXPONENTS[m], STEP_EXPONENTS[s], WARMUP_EXPONENTS[w], COMBINE[c], FACTOR[f]),
         ("rate", m, s, w, c, f))
        for m, s, w, c, f in itertools.product(MODEL_EXPONENTS, STEP_EXPONENTS, WARMUP_EXPONENTS, COMBINE, FACTOR))


def _smoothing_models():
    return _by_bug_count(
        (_label(DENOMINATORS[k], "swapped" if swapped else None, None if column else "pad_column",
                None if rows else "pad_rows", REDUCTIONS[reduction], LOSS_WAYS[way]),
         ("smoothing", k, swapped, column, rows, reduction, way))
        for k, swapped, column, rows, reduction, way in itertools.product(DENOMINATORS, (False, True), (True, False),
                                                                          (True, False), REDUCTIONS, LOSS_WAYS))


def _models(case):
    """(label, model) pairs for `case`: schedules for a rate case, label smoothings for a forward case (the grid of
    knobs, then single mistakes of their own)."""
    if probe.CASES[case].kind == "rate":
        return _rate_models() + [((bug,), ("rate_expression", way)) for way, bug in RATE_EXPRESSIONS.items()]
    return _smoothing_models() + [((bug,), ("smoothing_step", way)) for way, bug in SMOOTHING_STEPS.items()]


def _call(model, case, inputs):
    """A rate model's values at the case's steps, or a smoothing model's {"true_dist", "loss"} on the case's inputs."""
    spec = probe.CASES[case]
    if model[0] == "rate_expression":
        return torch.tensor([rate_expression(step, spec.model_size, spec.factor, spec.warmup, model[1])
                             for step in spec.steps], dtype=torch.float64)
    if model[0] == "smoothing_step":
        return smoothing_step(spec, *inputs, model[1])
    if model[0] == "rate":
        _, m, s, w, c, f = model
        return torch.tensor([rate_model(step, spec.model_size, spec.factor, spec.warmup, m, s, w, c, f)
                             for step in spec.steps], dtype=torch.float64)
    _, k, swapped, column, rows, reduction, way = model
    x, target = inputs
    dist = true_dist_model(spec, x, target, k, swapped, column, rows)
    first, second = {"ok": (x, dist), "swapped": (dist, x), "overwritten": (dist, dist)}[way]
    return {"true_dist": dist, "loss": torch.nn.functional.kl_div(first, second, reduction=reduction)}


MODEL_CODE = ModelCode(models=_models, call=_call)
### END BUG MODELS


def _same(student, produced):
    """Does a model reproduce the student's ("rate", values), ("true_dist", tensor), ("loss", tensor) or ("forward",
    {"true_dist"?, "loss"?}) (each of a forward's results the student has)?"""
    kind, value = student
    if kind == "forward":
        return isinstance(produced, dict) and all(_same((part, found), produced) for part, found in value.items())
    if kind == "rate":
        produced = produced.tolist()
        return len(value) == len(produced) and all(math.isclose(a, b, rel_tol=RTOL) for a, b in zip(value, produced))
    if kind == "loss" and value.numel() == 1 and bool(value.isnan().all()):  # the arguments swapped: log of x < 0
        return produced[kind].numel() == 1 and bool(produced[kind].isnan().all())
    return module_judge.same_output(value, produced[kind])


# Bug models that coincide on one forward input (scatter_ along dim 0 only touches column 0, the padding column of
# ls_demo, as if the confidence were overwritten) are told apart on the other, which the forward checks read.
FORWARD = ("ls_demo", "ls_batch")
def _student_forward(evidence, case):
    """("forward", {"true_dist", "loss"}) of the student's forward on `case` (the parts it has), or None."""
    trace = evidence.trace(case)
    found = {}
    stored = trace.get("attributes", {}).get("true_dist", {})
    if stored.get("kind") == "tensor" and stored.get("data") is not None:
        found["true_dist"] = decode(stored)
    result = trace.get("result", {})
    if result.get("kind") == "tensor" and result.get("data") is not None:
        found["loss"] = decode(result)
    return ("forward", found) if found else None


MODELS = BugModels("ch11", same=_same, bugs=BUGS, student=_student_forward, tie_break=FORWARD)

# ----------------------------------------------------------------------------- rate


def rate_values(evidence, case):
    """The student's values at the case's steps (floats, "inf"/"nan", {"error"} or {"kind"}), or raise Finding."""
    trace = evidence.trace(case)
    if "error" in trace:
        raise Finding(explain_error(evidence, case, trace["error"], BUGS))
    return trace["values"]


def value_problem(evidence, case, step, value):
    """Korean: one step's value is an exception, not a number or not finite; None for a finite number."""
    shown = f"step {step}에서 " if evidence.visible(case) else ""
    if isinstance(value, dict) and "error" in value:
        return shown + runtime_error(evidence, case, value["error"])
    if isinstance(value, dict):
        return f"rate는 숫자(float)를 돌려줘야 하는데 {value.get('type', value.get('kind'))} 값을 돌려줍니다."
    if isinstance(value, str):
        return shown + messages.NOT_FINITE
    return None


def rate_problem(evidence, case):
    """Why the student's rate at the case's steps differs from the reference (Korean), or None."""
    steps, values = probe.CASES[case].steps, rate_values(evidence, case)
    for step, value in zip(steps, values):
        problem = value_problem(evidence, case, step, value)
        if problem:
            return problem
    expected = evidence.reference(case)["values"]
    wrong = [(step, v, e) for step, v, e in zip(steps, values, expected) if not math.isclose(v, e, rel_tol=RTOL)]
    if not wrong:
        return None
    found = MODELS.matching(evidence, case, student=("rate", values))
    if found:
        return MODELS.explain(evidence, case, found)
    if not evidence.visible(case):
        return RATE_DIFFERS
    step, value, want = wrong[0]
    return f"{RATE_DIFFERS} step {step}에서 {value:.6e}입니다. {want:.6e}이어야 합니다."


def step_zero_problem(evidence, case):
    """rate(0) must be finite and equal the student's own rate(1) (Korean problem, or None)."""
    zero, one = rate_values(evidence, case)
    problem = value_problem(evidence, case, 1, one)
    if problem:
        return problem
    if isinstance(zero, dict) and "error" in zero:
        error = zero["error"]
        where = place(error.get("where"))
        return f"{BUGS['no_step_guard']} (rate(0)에서 {error['type']}: {error['message']}{', ' + where if where else ''})"
    if isinstance(zero, str):
        return f"{BUGS['no_step_guard']} (rate(0) = {zero})"
    problem = value_problem(evidence, case, 0, zero)
    if problem:
        return problem
    if math.isclose(zero, one, rel_tol=RTOL):
        return None
    if _shifted(zero, one, evidence.reference(case)["values"]):
        return BUGS["step_shifted"]
    return f"{BUGS['step_zero_value']} rate(0) = {zero:.6e}, rate(1) = {one:.6e}."


def _shifted(zero, one, expected):
    """Whether rate(0) is the right rate(1) while rate(1) is not: every step moved by one (step + 1), not step 0 alone."""
    right_one = expected[1]
    return (isinstance(right_one, float) and math.isclose(zero, right_one, rel_tol=RTOL)
            and not math.isclose(one, right_one, rel_tol=RTOL))


# ----------------------------------------------------------------------------- LabelSmoothing


def smoothing_error(evidence, case, error):
    """A Korean diagnosis of an exception building or running the student's LabelSmoothing."""
    if error["type"] == "NotAModule":
        return BUGS["not_module"]
    forward = probe.CASES[case].kind == "forward"  # a bug model may raise the same exception (scatter_ along dim 0)
    return explain_error(evidence, case, error, BUGS, models=MODELS if forward else None)


def number(description):
    """The number an encoded attribute holds (a Python number or a one-element tensor), else None."""
    if description.get("kind") == "number":
        return description["value"]
    if description.get("kind") == "tensor" and description.get("data") and len(description["data"]) == 1:
        return float(description["data"][0])
    return None


def attributes_problem(evidence, case):
    """The attributes of a fresh LabelSmoothing and its criterion against the reference's (Korean), or None."""
    trace = evidence.trace(case)
    if "error" in trace:
        return smoothing_error(evidence, case, trace["error"])
    found, expected = trace["attributes"], evidence.reference(case)["attributes"]
    missing = [name for name in probe.ATTRIBUTES if found[name].get("kind") == "missing"]
    criterion, wanted = trace["criterion"], evidence.reference(case)["criterion"]
    if missing or criterion["type"] is None:
        names = [f"self.{name}" for name in missing] + ([] if criterion["type"] else ["self.criterion"])
        return f"속성이 없습니다: {module_judge.names_text(names)}. 속성 이름은 채점 기준의 일부입니다."
    if criterion["type"] != wanted["type"]:
        return f"{BUGS['criterion']} (찾은 것: {criterion['type']})"
    if criterion["reduction"] != wanted["reduction"]:
        return f"{BUGS['reduction']} (찾은 값: {criterion['reduction']!r})"
    have = {name: number(found[name]) for name in probe.ATTRIBUTES}
    want = {name: number(expected[name]) for name in probe.ATTRIBUTES}
    if _close(have["confidence"], want["smoothing"]) and _close(have["smoothing"], want["confidence"]):
        return BUGS["swapped"]
    for name in probe.ATTRIBUTES:
        if not _close(have[name], want[name]):
            return f"{attach(f'self.{name}', '이')} {_shown(have[name], found[name])}입니다. {attach(f'{want[name]:g}', '이어야')} 합니다."
    return None


def _close(a, b):
    """Whether an attribute's number `a` (None: not a number) equals the reference's `b`."""
    return a is not None and math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9)


def _shown(value, description):
    """An attribute as the message shows it: its number, else its type."""
    return f"{value:g}" if value is not None else description.get("type", description.get("kind"))


def read_true_dist(evidence, case):
    """The true_dist the student's forward stored on `case`, as a float64 tensor, or raise Finding."""
    trace = evidence.trace(case)
    if "error" in trace:
        raise Finding(smoothing_error(evidence, case, trace["error"]))
    found = trace.get("attributes", {}).get("true_dist", {"kind": "missing"})
    if found.get("kind") != "tensor":
        raise Finding(BUGS["true_dist_missing"])
    return decode(found)


LOSS_FROM_TRUE_DIST = "loss가 다른 것은 목표 분포 true_dist가 틀렸기 때문입니다: "


def differs(evidence, case, kind, student, expected, fallback):
    """Why the student's `kind` ("true_dist" or "loss") on `case` differs from `expected` (Korean), or None.

    A wrong loss is explained with the true_dist the same forward stored: a model must reproduce both (a nan loss,
    which many models give, then names the step that made true_dist wrong), and with a wrong true_dist no model
    of the loss alone is the cause."""
    if close(student, expected):
        return None
    if kind == "loss":
        forward = _student_forward(evidence, case)
        if forward and "true_dist" in forward[1]:
            found = MODELS.matching(evidence, case, student=forward)
            if found:
                return MODELS.explain(evidence, case, found)
            dist_problem = differs(evidence, case, "true_dist", forward[1]["true_dist"],
                                   decode(evidence.reference(case)["attributes"]["true_dist"]), TRUE_DIST_DIFFERS)
            if dist_problem:
                return LOSS_FROM_TRUE_DIST + dist_problem
    found = MODELS.matching(evidence, case, student=(kind, student))
    if found:
        return MODELS.explain(evidence, case, found)
    if student.shape != expected.shape:
        if kind == "loss":
            return "loss는 스칼라 텐서 하나(모양 ())여야 합니다."
        return module_judge.shape_problem(student.shape, expected.shape, evidence.visible(case))
    if not evidence.visible(case):
        return fallback
    if kind == "loss":
        return f"{fallback} {student.item():.4f}입니다. {expected.item():.4f}이어야 합니다."
    row, column = [int(i) for i in (~torch.isclose(student, expected, rtol=1e-4, atol=1e-5)).nonzero()[0]]
    return (f"{fallback} {row}번 행, {column}번 열이 {student[row, column]:.4f}입니다. "
            f"{expected[row, column]:.4f}이어야 합니다.")


@each_case
def true_dist_judge(evidence, case):
    """The true_dist the student's forward stored equals the reference's; otherwise name the bug."""
    expected = decode(evidence.reference(case)["attributes"]["true_dist"])
    return differs(evidence, case, "true_dist", read_true_dist(evidence, case), expected, TRUE_DIST_DIFFERS)


@each_case
def loss_judge(evidence, case):
    """The loss the student's forward returned equals the reference's; otherwise name the bug."""
    loss = module_judge.read_result(evidence, case, smoothing_error)
    return differs(evidence, case, "loss", loss, decode(evidence.reference(case)["result"]), LOSS_DIFFERS)


# ----------------------------------------------------------------------------- checks

CHECKS = [
    Check(name="rate_step_zero", points=10, title="step 0은 1로: rate(0) == rate(1) (0으로 나누지 않음)",
          cases=("rate_zero",), judge=each_case(step_zero_problem)),
    Check(name="rate_warmup", points=15, title="warmup 동안: step * warmup^(-1.5)에 비례해 커짐",
          cases=("rate_warmup",), judge=each_case(rate_problem)),
    Check(name="rate_decay", points=10, title="warmup 뒤: step^(-0.5)에 비례해 줄어듦", cases=("rate_decay",),
          judge=each_case(rate_problem)),
    Check(name="rate_config", points=5, title="다른 model_size, factor, warmup", cases=("rate_config",),
          judge=each_case(rate_problem)),
    Check(name="ls_attributes", points=5, title='criterion = KLDivLoss(reduction="sum"), confidence = 1 - smoothing',
          cases=("ls_module",), judge=each_case(attributes_problem)),
    Check(name="ls_true_dist", points=15, title="self.true_dist: smoothing / (size - 2), 정답 칸 confidence, "
          "padding 열과 행은 0", cases=FORWARD, judge=true_dist_judge),
    Check(name="ls_loss", points=10, title="loss: KLDivLoss(x, true_dist)의 합", cases=FORWARD,
          judge=loss_judge),
]

### BEGIN HIDDEN TESTS
CHECKS += [
    Check(name="hidden_rate", points=10, title="다른 model_size, factor, warmup과 step", cases=("hidden_rate",),
          judge=each_case(rate_problem), visible=False),
    Check(name="hidden_ls_true_dist", points=10, title="다른 어휘 크기, padding 번호, smoothing의 true_dist",
          cases=("hidden_ls", "hidden_ls_no_pad"), reads=FORWARD, judge=true_dist_judge, visible=False),
    Check(name="hidden_ls_loss", points=10, title="다른 어휘 크기, padding 번호, smoothing의 loss",
          cases=("hidden_ls", "hidden_ls_no_pad"), reads=FORWARD, judge=loss_judge, visible=False),
]
### END HIDDEN TESTS

# How the feedback page names and explains the picture (Korean).
PICTURE_TEXTS = {
    "title": "라벨 스무딩의 목표 분포 true_dist 그림",
    "what": "forward가 self.true_dist에 저장한 목표 분포",
    "missing": "코드가 오류로 끝났거나 forward가 self.true_dist에 (토큰 수, 어휘 크기) 목표 분포를 저장하지 않았습니다",
    "rows": "토큰 (target)",
    "columns": "어휘의 단어",
    "note": "칸의 숫자는 그 토큰의 목표 확률입니다. 정답 칸은 confidence, 나머지 칸은 smoothing / (size - 2), "
    "padding 열과 target이 padding인 행은 0입니다. padding이 아닌 행은 합이 1이어야 합니다.",
}

CHAPTER = Chapter(id="11_smoothing", probe=probe, checks=CHECKS, bugs=BUGS,
                  picture=Picture(case="ls_demo", path=("attributes", "true_dist"), label="true_dist",
                                  texts=PICTURE_TEXTS),
                  model_code=MODEL_CODE)
