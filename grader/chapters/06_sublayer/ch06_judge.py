"""Chapter 06 checks: `LayerNorm` (unbiased std, eps added to it; a_2, b_2) and `SublayerConnection` (pre-norm).

Judge side. Structures are compared with the solution's (`module_judge`); outputs with the
reference's, for freshly built modules (the initial a_2 = 1, b_2 = 0 show only there) and with
seeded weights. A wrong output names the most likely bug by running "bug models" — a biased std, the
variance, eps elsewhere, statistics over another axis (both, or the mean's or the std's alone) or every axis or
without keepdim, a_2 and b_2 swapped,
post-norm, no residual, the normalised input as residual, the norm unused or after the sublayer, dropout
elsewhere — on the same weights, input and RNG seed as the probe, and matching the student's numbers.
"""
import itertools

import torch

from . import ch06_probe as probe
from . import messages, module_judge, modules
from .bugmodels import BugModels, ModelCode
from .calls import explain_error
from .compare import close, decode
from .contract import Chapter
from .framework import Check, Verdict, noting_stand_in, twin_check
from .module_judge import same_output, seeded

BUGS = {
    "stub": messages.stub("아직 작성하지 않은 부분이 있습니다", "TODO(06)"),
    "not_module": "LayerNorm과 SublayerConnection은 nn.Module을 상속해야 합니다. class 이름(nn.Module):로 정의하고 "
    "__init__에서 super().__init__()을 부르세요.",
    "names": module_judge.NAMES_DIFFER,
    "dropout_module": "SublayerConnection에 p=dropout인 nn.Dropout(self.dropout)이 없거나 비율이 다릅니다.",
    "biased_std": "표준편차를 n으로 나눠(편향 추정, nn.LayerNorm이나 unbiased=False와 같은 방식) 계산했습니다. 원문의 "
    "LayerNorm은 x.std(-1, keepdim=True), 곧 n-1로 나누는 불편 추정을 씁니다.",
    "eps_in_sqrt": "eps를 제곱근 안(분산)에 더했습니다. 원문은 표준편차에 더합니다: (x - 평균) / (표준편차 + eps). "
    "분산이 작은 입력이나 큰 eps에서 결과가 달라집니다.",
    "eps_twice": "eps를 두 번 더했습니다: 분산에 더해 제곱근을 구한 뒤 표준편차에 또 더했습니다. 원문은 표준편차에 한 번만 "
    "더합니다: (x - 평균) / (x.std(-1, keepdim=True) + eps).",
    "eps_misplaced": "eps를 나눗셈 밖에서 더했습니다(괄호 위치). 분모 전체가 (표준편차 + eps)가 되도록 괄호로 묶으세요.",
    "eps_default": "eps의 기본값이 원문과 다릅니다. 원문은 def __init__(self, features, eps=1e-6)입니다. eps를 주지 않고 "
    "만든 LayerNorm(make_model이 그렇게 만듭니다)은 분산이 작은 입력에서 결과가 달라집니다.",
    "eps_missing": "생성자가 받은 eps를 쓰지 않았습니다(eps를 빠뜨렸거나 1e-6 같은 수를 직접 적었습니다). 분산이 0에 "
    "가까운 입력에서 0으로 나누지 않도록, 또 LayerNorm(features, eps=0.1)처럼 준 값이 쓰이도록 표준편차에 self.eps를 "
    "더하세요: (std + self.eps).",
    "wrong_axis": "평균과 표준편차를 마지막 축이 아닌 축에서 계산했습니다. LayerNorm은 토큰마다 특징(마지막 축)을 "
    "정규화합니다: x.mean(-1, keepdim=True), x.std(-1, keepdim=True).",
    "mean_axis": "평균을 마지막 축이 아닌 축에서 계산했습니다(표준편차의 축은 맞습니다). LayerNorm은 토큰마다 특징(마지막 "
    "축, dim=-1)을 정규화하므로 평균도 그 축에서 구해 빼야 합니다: x.mean(-1, keepdim=True).",
    "std_axis": "표준편차를 마지막 축이 아닌 축에서 계산했습니다(평균의 축은 맞습니다). LayerNorm은 토큰마다 특징(마지막 "
    "축, dim=-1)을 정규화하므로 표준편차도 그 축에서 구해야 합니다: x.std(-1, keepdim=True).",
    "ab_swapped": "a_2와 b_2가 바뀌었습니다. a_2는 1로 채운 곱할 값, b_2는 0으로 채운 더할 값입니다: "
    "a_2 * 정규화한 값 + b_2. 새로 만든 LayerNorm은 정규화한 값을 그대로 돌려줘야 합니다.",
    "bias_multiplied": "b_2를 곱했습니다. b_2는 정규화한 값에 더하는 값입니다: a_2 * (x - mean) / (std + eps) + b_2. "
    "새로 만든 LayerNorm(b_2 = 0)이 0만 돌려주면 이 실수입니다.",
    "centering_parens": "x - mean을 괄호로 묶지 않아 평균만 표준편차로 나눴습니다(a_2 * x - mean / (std + eps)). 곱셈과 "
    "나눗셈이 뺄셈보다 먼저 계산되므로 평균을 뺀 값 전체를 괄호로 묶어 나누세요: a_2 * (x - mean) / (std + eps) + b_2.",
    "gain_init": "a_2의 처음 값이 1이 아닙니다. a_2는 정규화한 값에 곱하는 값이라 1로 채워 만들어야 새로 만든 LayerNorm이 "
    "정규화한 값을 그대로 돌려줍니다.",
    "bias_init": "b_2의 처음 값이 0이 아닙니다. b_2는 정규화한 값에 더하는 값이라 0으로 채워 만들어야 새로 만든 LayerNorm이 "
    "정규화한 값을 그대로 돌려줍니다.",
    "post_norm": "post-norm(norm(x + sublayer(x)))으로 계산했습니다. 이 과정은 원문 코드처럼 pre-norm입니다: "
    "x + dropout(sublayer(norm(x))). 정규화는 sublayer에 넣기 전에 합니다.",
    "no_residual": "잔차 연결(x +)이 없습니다. sublayer의 결과에 입력 x를 더해야 합니다: x + dropout(sublayer(norm(x))).",
    "dropout_before_sublayer": "dropout을 sublayer 앞(정규화한 값)에 적용했습니다. dropout은 sublayer의 출력에 "
    "적용합니다: x + dropout(sublayer(norm(x))).",
    "dropout_on_residual": "dropout을 잔차를 더한 뒤(x 포함)에 적용했습니다. 입력 x는 그대로 더해야 합니다: "
    "x + dropout(sublayer(norm(x))).",
    "all_axes": "평균과 표준편차를 텐서 전체(모든 축)에서 계산했습니다(x.mean(), x.std()처럼 dim 없이). LayerNorm은 "
    "토큰마다 따로, 마지막 축에서만 계산합니다: x.mean(-1, keepdim=True), x.std(-1, keepdim=True).",
    "no_keepdim": "평균이나 표준편차를 keepdim=True 없이 계산해서 마지막 축이 사라졌습니다. 그래서 x - 평균의 모양이 "
    "맞지 않습니다. x.mean(-1, keepdim=True), x.std(-1, keepdim=True)처럼 축을 남기세요.",
    "variance_not_std": "표준편차가 아니라 분산(x.var)으로 나눴습니다. 분모는 표준편차 + eps입니다: "
    "(x - 평균) / (x.std(-1, keepdim=True) + eps).",
    "in_place": "LayerNorm이 받은 입력 x를 제자리에서 바꿨습니다(x -= mean 같은 in-place 연산). 출력은 맞아도, 같은 x를 "
    "잔차로 더하는 SublayerConnection이 바뀐 값을 더하게 됩니다. x는 그대로 두고 새 텐서로 계산하세요: x - mean.",
    "not_parameter": "a_2와 b_2가 state_dict에 없습니다. torch.ones(features)를 그대로 속성에 넣으면 학습되는 parameter로 "
    "등록되지 않습니다. nn.Parameter(torch.ones(features)), nn.Parameter(torch.zeros(features))로 감싸세요.",
    "norm_not_registered": "SublayerConnection의 state_dict에 self.norm의 a_2, b_2가 없습니다: LayerNorm이 "
    "SublayerConnection의 속성으로 등록되지 않았습니다. forward 안에서 LayerNorm을 새로 만들면 부를 때마다 새 a_2, b_2가 "
    "생기고 학습되지도 저장되지도 않습니다. __init__에서 self.norm에 LayerNorm(size)를 한 번 만들어 두고 forward에서는 "
    "self.norm(x)를 쓰세요.",
    "dropout_on_input": "dropout을 sublayer의 출력이 아니라 잔차로 더하는 입력 x에 적용했습니다(dropout(x) + "
    "sublayer(norm(x))). 입력 x는 그대로 더하고 dropout은 sublayer의 출력에 적용합니다: x + dropout(sublayer(norm(x))).",
    "norm_eps_dropout": "self.norm을 LayerNorm(size, dropout)처럼 만들어 dropout 비율이 LayerNorm의 eps로 들어갔습니다. "
    "LayerNorm의 두 번째 인자는 eps입니다. 정규화는 LayerNorm(size)(eps는 기본값)로 만들고, dropout 비율은 "
    "nn.Dropout에만 넘기세요.",
    "no_gain": "a_2를 곱하지 않았습니다. 새로 만든 LayerNorm(a_2 = 1)에서는 보이지 않지만, 다른 a_2가 들어 있으면 결과가 "
    "달라집니다: a_2 * (x - mean) / (std + eps) + b_2.",
    "residual_normed": "잔차로 정규화한 값을 더했습니다(norm(x) + sublayer(norm(x))). 잔차 연결은 정규화하기 전의 "
    "입력 x를 더합니다: x + dropout(sublayer(norm(x))).",
    "norm_unused": "sublayer에 정규화하지 않은 x를 넣었습니다(self.norm을 쓰지 않음). pre-norm에서는 sublayer에 "
    "self.norm(x)를 넣습니다: x + dropout(sublayer(norm(x))).",
    "norm_after_sublayer": "정규화를 sublayer 뒤에 적용했습니다(norm(sublayer(x))). pre-norm에서는 sublayer에 넣기 전에 "
    "정규화합니다: x + dropout(sublayer(norm(x))).",
    "dropout_before_norm": "dropout을 정규화 앞(입력 x)에 적용했습니다. dropout은 sublayer의 출력에 적용합니다: "
    "x + dropout(sublayer(norm(x))).",
    "no_centering": "평균을 빼지 않고 나눴습니다(x / (표준편차 + eps)). LayerNorm은 토큰마다 평균을 뺀 뒤 표준편차로 "
    "나눕니다: a_2 * (x - mean) / (std + eps) + b_2.",
    "no_bias": "b_2를 더하지 않았습니다. 새로 만든 LayerNorm(b_2 = 0)에서는 보이지 않지만, 다른 b_2가 들어 있으면 결과가 "
    "달라집니다: a_2 * (x - mean) / (std + eps) + b_2.",
    "double_norm": "잔차를 더한 결과를 다시 정규화했습니다(norm(x + sublayer(norm(x)))). pre-norm에서는 sublayer의 입력만 "
    "정규화하고 잔차를 더한 값은 그대로 돌려줍니다: x + dropout(sublayer(norm(x))).",
    "dropout_missing": "train 모드인데 결과가 dropout 없는 결과와 같습니다. sublayer의 출력에 self.dropout을 적용하세요.",
    "precision_lost": "식은 맞지만 float32 계산에서 자릿수를 잃었습니다: 같은 코드를 float64 입력으로 돌리면 기준과 같은데 "
    "float32에서는 다릅니다. 분산을 E[x²] − (E[x])²(제곱의 평균 − 평균의 제곱)처럼 거의 같은 큰 두 수의 차로 구하면, "
    "평균이 크고 분산이 작은 토큰에서 유효숫자가 사라지고(상쇄 오차) 분산이 음수로 나와 NaN이 되기도 합니다. 평균을 먼저 "
    "뺀 뒤 제곱하세요: x.std(-1, keepdim=True).",
}

# ----------------------------------------------------------------------------- bug models
### BEGIN BUG MODELS

STATISTICS = {  # how the normalisation divides: (label, function of (centred x, x, eps, axis))
    "std_plus_eps": (None, lambda c, x, eps, axis: c / (x.std(axis, keepdim=True) + eps)),
    "biased": ("biased_std", lambda c, x, eps, axis: c / (x.std(axis, keepdim=True, unbiased=False) + eps)),
    "nn_layer_norm": (("biased_std", "eps_in_sqrt"),
                      lambda c, x, eps, axis: c / (x.var(axis, keepdim=True, unbiased=False) + eps).sqrt()),
    "sqrt_eps": ("eps_in_sqrt", lambda c, x, eps, axis: c / (x.var(axis, keepdim=True) + eps).sqrt()),
    # torch's formula with the original's + eps kept as well: (var + eps).sqrt() + eps
    "sqrt_eps_added": ("eps_twice", lambda c, x, eps, axis: c / ((x.var(axis, keepdim=True) + eps).sqrt() + eps)),
    "variance": ("variance_not_std", lambda c, x, eps, axis: c / (x.var(axis, keepdim=True) + eps)),
    "no_eps": ("eps_missing", lambda c, x, eps, axis: c / x.std(axis, keepdim=True)),
}
AXES = {-1: None, -2: "wrong_axis", 1: "wrong_axis", 0: "wrong_axis", "all": "all_axes"}
SUBLAYERS = {"pre_norm": None, "post_norm": "post_norm", "no_residual": "no_residual",
             "residual_normed": "residual_normed", "norm_unused": "norm_unused",
             "norm_after_sublayer": "norm_after_sublayer", "double_norm": "double_norm"}
PLACES = {"after_sublayer": None, "none": "dropout_missing", "before_sublayer": "dropout_before_sublayer",
          "on_residual": "dropout_on_residual", "before_norm": "dropout_before_norm", "on_input": "dropout_on_input"}
INPUT_PLACES = ("on_input",)  # dropout on the x added (dropout(x) + …): modelled for pre-norm only


def layer_norm(x, a, b, eps, statistic="std_plus_eps", axis=-1, swapped=False):
    """LayerNorm computed one way: which std, where eps goes, over which axis (or a pair: the mean's axis, the std's),
    a and b swapped or not."""
    if swapped:
        a, b = b, a
    if isinstance(axis, list):  # [mean's axis, std's axis]: the std's over the last axis is the solution's
        mean_axis, std_axis = (tuple(range(x.dim())) if one == "all" else one for one in axis)
        return a * (x - x.mean(mean_axis, keepdim=True)) / (x.std(std_axis, keepdim=True) + eps) + b
    axis = tuple(range(x.dim())) if axis == "all" else axis
    if statistic == "no_keepdim":  # x - x.mean(-1) broadcasts the wrong way, or raises as the student's code did
        return a * (x - x.mean(axis)) / (x.std(axis) + eps) + b
    centred = x - x.mean(axis, keepdim=True)
    if statistic == "eps_outside":
        return a * centred / x.std(axis, keepdim=True) + eps + b
    if statistic == "no_centering":
        return a * x / (x.std(axis, keepdim=True) + eps) + b
    if statistic == "no_bias":
        return a * centred / (x.std(axis, keepdim=True) + eps)
    if statistic == "no_gain":
        return centred / (x.std(axis, keepdim=True) + eps) + b
    if statistic == "no_parens":  # a_2 * x - mean / (std + eps) + b_2
        return a * x - x.mean(axis, keepdim=True) / (x.std(axis, keepdim=True) + eps) + b
    if statistic == "bias_times":
        return a * centred / (x.std(axis, keepdim=True) + eps) * b
    return a * STATISTICS[statistic][1](centred, x, eps, axis) + b


def norm_weights(spec, prefix=""):
    """(a_2, b_2) of the module in `spec`: the fresh ones (1, 0) or those the probe loaded from the seed."""
    if spec.kind == "fresh":
        return torch.ones(spec.size), torch.zeros(spec.size)
    names = [(prefix + "a_2", [spec.size]), (prefix + "b_2", [spec.size])]
    weights = modules.seeded_weights(names, spec.seed)
    return weights[prefix + "a_2"], weights[prefix + "b_2"]


def sublayer_connection(spec, x, matrix, order, place, statistic="std_plus_eps", axis=-1, eps="default"):
    """SublayerConnection's forward with one order of norm, sublayer and residual, one place for dropout, one
    LayerNorm (`eps="dropout"`: built as LayerNorm(size, dropout), the dropout rate as its eps)."""
    eps = spec.dropout if eps == "dropout" else 1e-6
    dropout = torch.nn.Dropout(spec.dropout).train(spec.train)
    a, b = norm_weights(spec, "norm.")

    def at(where):
        return dropout if place == where else (lambda t: t)

    def norm(t):
        if spec.norm == "stand_in":  # the probe's NormDouble: torch's layer_norm
            return torch.nn.functional.layer_norm(at("before_norm")(t), a.shape, a, b, eps)
        return layer_norm(at("before_norm")(t), a, b, eps, statistic, axis)

    def sub(t):
        return at("after_sublayer")(at("before_sublayer")(t) @ matrix)

    total = at("on_residual")
    if order == "post_norm":
        return norm(total(x + sub(x)))
    if order == "no_residual":
        return total(sub(norm(x)))
    if order == "residual_normed":
        normed = norm(x)
        return total(normed + sub(normed))
    if order == "norm_unused":
        return total(x + sub(x))
    if order == "double_norm":
        return norm(total(x + sub(norm(x))))
    if order == "norm_after_sublayer":
        inner = at("before_sublayer")(x) @ matrix
        return total(x + at("after_sublayer")(norm(inner)))
    residual = at("on_input")(x)  # dropout(x) + sublayer(norm(x)): drawn first, as the student's code does
    return total(residual + sub(norm(x)))


def _label(*bugs):
    """The bug keys a model stands for (None: the solution's way)."""
    return tuple(bug for bug in bugs if bug) or None


NORM_LABELS = {**{name: label for name, (label, _) in STATISTICS.items()}, "eps_outside": "eps_misplaced",
               "no_keepdim": "no_keepdim", "no_centering": "no_centering", "no_bias": "no_bias",
               "no_gain": "no_gain", "bias_times": "bias_multiplied",
               "no_parens": "centering_parens"}


OTHER_DEFAULT_EPS = (1e-5, 1e-4, 1e-3)  # eps defaults other than the original 1e-6 (1e-5: nn.LayerNorm's)


def _norm_labels(statistic, axis):
    """The bug keys of a LayerNorm computed with `statistic` over `axis`."""
    labels = NORM_LABELS[statistic] if isinstance(NORM_LABELS[statistic], tuple) else (NORM_LABELS[statistic],)
    return (*labels, AXES[axis])


def _norm_models():
    """(label, model) for LayerNorm: the statistic, the axis and a/b swapped."""
    return [(_label(*_norm_labels(statistic, axis), "ab_swapped" if swapped else None), ("ln", statistic, axis, swapped))
            for swapped, statistic, axis in itertools.product((False, True), NORM_LABELS, AXES) if _sensible(statistic, axis)]


def _one_axis_models():
    """(label, model) for LayerNorm with only the mean's or only the std's statistic over another axis."""
    others = [axis for axis, label in AXES.items() if label]
    return [*[("mean_axis", ("ln", "std_plus_eps", [axis, -1], False)) for axis in others],
            *[("std_axis", ("ln", "std_plus_eps", [-1, axis], False)) for axis in others]]


def _sensible(statistic, axis):
    """Leave out combinations nobody writes (keepdim forgotten, b_2 multiplied or the parentheses left out, on another
    axis than the last)."""
    return statistic not in ("no_keepdim", "bias_times", "no_parens") or axis == -1


def _models(case):
    """(label, model) pairs for `case`, the solution's own way first; then the right order with another LayerNorm.
    None on a structure case: it compares no output."""
    if probe.CASES[case].kind == "module":
        return []
    if probe.CASES[case].cls == probe.LAYER_NORM:
        defaults = [("eps_default", ("ln", "std_plus_eps", -1, False, eps)) for eps in OTHER_DEFAULT_EPS]
        # eps=… given but a constant written in its place ((std + 1e-6)): the constructor's eps never used
        fixed = [("eps_missing", ("ln", "std_plus_eps", -1, False, eps)) for eps in (1e-6, *OTHER_DEFAULT_EPS)]
        return _norm_models() + _one_axis_models() + (defaults if probe.CASES[case].eps is None else fixed)
    orders = [(_label(SUBLAYERS[o], PLACES[p]), ("sub", o, p)) for o, p in itertools.product(SUBLAYERS, PLACES)
              if p not in INPUT_PLACES or o == "pre_norm"]
    orders.append(("norm_eps_dropout", ("sub", "pre_norm", "after_sublayer", "std_plus_eps", -1, "dropout")))
    if probe.CASES[case].norm == "stand_in":
        return orders
    norms = [(_label(*_norm_labels(s, axis)), ("sub", "pre_norm", "after_sublayer", s, axis))
             for s, axis in itertools.product(NORM_LABELS, AXES) if _label(*_norm_labels(s, axis)) and _sensible(s, axis)]
    return orders + norms


def _call(model, case, inputs):
    """Run one bug model as the probe ran the student's module: same input, weights and RNG seed."""
    spec = probe.CASES[case]
    if model[0] == "ln":
        a, b = norm_weights(spec)
        eps = model[4] if len(model) > 4 else 1e-6 if spec.eps is None else spec.eps
        return layer_norm(inputs[0], a, b, eps, *model[1:4])
    return seeded(lambda: sublayer_connection(spec, *inputs, *model[1:]), spec.seed)


MODEL_CODE = ModelCode(models=_models, call=_call)
### END BUG MODELS

MODELS = BugModels("ch06", same=same_output, bugs=BUGS)

# ----------------------------------------------------------------------------- reading a case


def error_diagnosis(evidence, case, error):
    """A Korean diagnosis of an exception the student's code raised on `case`."""
    if error["type"] == "NotAModule":
        return BUGS["not_module"]
    return explain_error(evidence, case, error, BUGS, models=MODELS)


def precision_lost(evidence, case, output, expected):
    """`precision_lost` when no model explains a wrong LayerNorm output but the same code run in float64 (the probe's
    `float64_result`, low-variance cases only) gives the reference's float64 numbers: the formula is right and float32
    cancellation made it wrong (E[x²] − E[x]²; it even gives NaN on a near-constant token), else None."""
    found = evidence.trace(case).get("float64_result") or {}
    wanted = evidence.reference(case).get("float64_result") or {}
    if found.get("kind") != "tensor" or wanted.get("kind") != "tensor":
        return None
    mine, right = decode(found), decode(wanted)
    return BUGS["precision_lost"] if mine.shape == right.shape and close(mine, right) else None


def initial_values_problem(evidence, case):
    """On a fresh LayerNorm case, the initial a_2 / b_2 as built when they are not the reference's (1 and 0):
    `ab_swapped`, `gain_init` or `bias_init`; else None. Read before the bug models: a fresh output that is all
    zeros (a_2 = 0) is also what a swapped a_2 and b_2 without b_2 would give."""
    found = evidence.trace(case).get("fresh") or {}
    wanted = evidence.reference(case).get("fresh") or {}
    values = {}
    for name in ("a_2", "b_2"):
        if found.get(name, {}).get("kind") != "tensor" or wanted.get(name, {}).get("kind") != "tensor":
            return None
        values[name] = decode(found[name]), decode(wanted[name])
    (a, right_a), (b, right_b) = values["a_2"], values["b_2"]
    if a.shape != right_a.shape or b.shape != right_b.shape:
        return None  # the structure check names the shapes
    if torch.equal(a, right_b) and torch.equal(b, right_a) and not torch.equal(a, right_a):
        return BUGS["ab_swapped"]
    if not torch.equal(a, right_a):
        return BUGS["gain_init"]
    return None if torch.equal(b, right_b) else BUGS["bias_init"]


def output_problem(evidence, case, output):
    """Why the student's output on `case` differs from the reference (Korean), or None."""
    problem = module_judge.output_problem(evidence, case, output, MODELS, values=precision_lost)
    return problem and (initial_values_problem(evidence, case) or problem)


# ----------------------------------------------------------------------------- checks


def unregistered_weights(evidence, case):
    """`not_parameter` when the only names missing from the state_dict are a_2/b_2 and none is extra, else None."""
    found = evidence.trace(case).get("structure")
    if not found:
        return None
    want = {name for name, _ in evidence.reference(case)["structure"]["state_dict"]}
    have = {name for name, _ in found["state_dict"]}
    missing = want - have
    if missing and not have - want and all(name.rsplit(".", 1)[-1] in ("a_2", "b_2") for name in missing):
        if not any("." in name for name in missing):
            return BUGS["not_parameter"]
        # a_2/b_2 of the LayerNorm inside SublayerConnection (norm.a_2): the student's LayerNorm registers them (else
        # the check judges the twin), so SublayerConnection does not hold its norm (built in forward); a norm kept in
        # a plain list is named by the structure check
        return None if found.get("unregistered") else BUGS["norm_not_registered"]
    return None


def changed_input(evidence, case):
    """`in_place` when the student's LayerNorm changed the tensor it was given (its output may still be right)."""
    return BUGS["in_place"] if evidence.trace(case).get("input_changed") else None


def named_first(case, judge_rest):
    """A judge: a_2/b_2 kept as plain tensors, or an input changed in place, named first on `case`, then
    `judge_rest`."""

    def judge(evidence):
        problem = unregistered_weights(evidence, case) or changed_input(evidence, case)
        return Verdict.fail(evidence.about(case, problem)) if problem else judge_rest(evidence)

    return judge


def structure_check(case):
    """The module of `case` has the reference's names, shapes, parameter count and dropout rates."""
    return named_first(case, module_judge.structure_check(case, error_diagnosis, BUGS["dropout_module"]))


def output_check(case):
    """The student's forward output on `case` equals the reference's; otherwise name the bug."""
    return named_first(case, module_judge.output_check(case, error_diagnosis, output_problem))


def outputs_check(*cases):
    """`output_check` on each of `cases`: the share of them that is right, each wrong one named by its case."""
    judges = [output_check(case) for case in cases]

    def judge(evidence):
        verdicts = [one(evidence) for one in judges]
        message = "\n".join(verdict.message for verdict in verdicts if verdict.message)
        return Verdict(sum(verdict.fraction for verdict in verdicts) / len(verdicts), message)

    return judge


STAND_IN = ("SublayerConnection의 검사는 채점기가 만든 LayerNorm 대역으로 대신 채점합니다: 이 실수로는 LayerNorm 검사의 "
            "점수만 잃습니다.")
NORM_CASES = ("ln_module", "ln_fresh", "ln_seeded", "ln_eps", "ln_default_eps")  # LayerNorm's own visible cases


def norm_check(judge):
    """A LayerNorm check's judge that, when it fails, says SublayerConnection is judged with the probe's stand-in."""
    return noting_stand_in(judge, STAND_IN)


def own_judge(case):
    """The judge of one of LayerNorm's own cases: its structure or its output."""
    return structure_check(case) if probe.CASES[case].kind == "module" else output_check(case)


def sublayer_check(name, points, title, case, make, norm_cases=NORM_CASES, visible=True):
    """A SublayerConnection check of `case`, judged on the case's twin built with the probe's NormDouble when the
    student's LayerNorm fails one of `norm_cases`."""
    return twin_check(name, points, title, case, make, norm_cases, own_judge, visible=visible)


CHECKS = [
    Check(name="ln_structure", points=10, title="LayerNorm의 parameter 이름과 모양: a_2, b_2 (features,)", cases=("ln_module",),
          judge=norm_check(structure_check("ln_module"))),
    Check(name="ln_fresh", points=15, title="새로 만든 LayerNorm의 출력 = 기준 (마지막 축, 불편 표준편차, a_2=1, b_2=0)",
          cases=("ln_fresh",), judge=norm_check(output_check("ln_fresh"))),
    Check(name="ln_seeded", points=10, title="a_2, b_2를 넣은 LayerNorm의 출력 = 기준 (a_2 * 정규화 + b_2)", cases=("ln_seeded",),
          judge=norm_check(output_check("ln_seeded"))),
    Check(name="ln_eps", points=10, title="분산이 작은 입력의 출력 = 기준 (eps=0.1과 기본값 1e-6, 표준편차에 더함)",
          cases=("ln_eps", "ln_default_eps"), judge=norm_check(outputs_check("ln_eps", "ln_default_eps"))),
    sublayer_check("sub_structure", 5, "SublayerConnection의 이름과 모양, dropout 비율 (self.norm, self.dropout)", "sub_module", structure_check),
    sublayer_check("sub_eval", 10, "eval 모드 출력 = 기준 (pre-norm 잔차: x + sublayer(norm(x)))", "sub_eval", output_check),
    sublayer_check("sub_train", 10, "train 모드 출력 = 기준 (시드 고정, dropout은 sublayer 뒤)", "sub_train",
                   output_check),
]

### BEGIN HIDDEN TESTS
CHECKS += [
    Check(name="hidden_ln", points=10, title="다른 크기와 축 수의 LayerNorm 출력 = 기준", cases=("hidden_ln",),
          judge=norm_check(output_check("hidden_ln")), visible=False),
    Check(name="hidden_ln_eps", points=10, title="다른 eps와 분산이 작은 입력의 LayerNorm 출력 = 기준", cases=("hidden_ln_eps",),
          judge=norm_check(output_check("hidden_ln_eps")), visible=False),
    sublayer_check("hidden_sub_train", 10, "다른 입력의 train 모드 SublayerConnection 출력 = 기준", "hidden_sub_train",
                   output_check, NORM_CASES + ("hidden_ln", "hidden_ln_eps"), visible=False),
]
### END HIDDEN TESTS

CHAPTER = Chapter(id="06_sublayer", probe=probe, checks=CHECKS, bugs=BUGS, picture=None,
                  model_code=MODEL_CODE)
