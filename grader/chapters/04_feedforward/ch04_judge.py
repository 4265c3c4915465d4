"""Chapter 04 checks: `PositionwiseFeedForward` (w_1 → ReLU → dropout → w_2).

Judge side. The module's structure is compared with the solution's (`module_judge`); a forward's
output with the reference's. A failed forward names the most likely bug by running feed-forward
networks with another activation or another place for dropout ("bug models") on the same seeded
weights, input and RNG seed as the probe, and matching the student's numbers.
"""
import functools
import itertools

import torch
import torch.nn.functional as F

from . import ch04_probe as probe
from . import messages, module_judge, modules
from .bugmodels import BugModels, ModelCode
from .calls import explain_error
from .contract import Chapter
from .framework import Check
from .module_judge import same_output, seeded

BUGS = {
    "stub": messages.stub("아직 작성하지 않은 부분이 있습니다", "TODO(04)"),
    "not_module": "PositionwiseFeedForward가 nn.Module을 상속하지 않습니다. class PositionwiseFeedForward(nn.Module):로 "
    "정의하고 __init__에서 super().__init__()을 부르세요.",
    "names": module_judge.NAMES_DIFFER,
    "no_bias": module_judge.NO_BIAS,
    "sizes": module_judge.SIZES_FROM_ARGUMENTS,
    "dropout_rate": "self.dropout이 생성자의 dropout 인자(기본값 0.1)를 p로 쓰는 nn.Dropout이어야 합니다.",
    "relu_missing": "활성화 함수(ReLU)가 없습니다. 그러면 w_2(w_1(x))는 선형 변환 하나와 같아집니다. "
    "w_1 뒤에 .relu()를 넣으세요: w_2(dropout(relu(w_1(x)))).",
    "relu_after_w2": "ReLU를 w_2 뒤에 적용했습니다. 출력이 음수가 될 수 없게 됩니다. ReLU는 넓힌 값(w_1의 출력)에 "
    "적용합니다: w_2(dropout(relu(w_1(x)))).",
    "other_activation": "ReLU가 아닌 활성화 함수를 썼습니다. 원문(Annotated Transformer)의 FFN은 max(0, xW_1 + b_1), "
    "곧 ReLU입니다.",
    "dropout_after_w2": "dropout을 w_2 뒤(출력)에 적용했습니다. dropout은 ReLU 뒤, w_2 앞의 넓힌 값에 적용합니다: "
    "w_2(dropout(relu(w_1(x)))).",
    "dropout_before_w1": "dropout을 w_1 앞(입력)에 적용했습니다. dropout은 ReLU 뒤, w_2 앞의 넓힌 값에 적용합니다: "
    "w_2(dropout(relu(w_1(x)))).",
    "dropout_missing": "train 모드인데 결과가 dropout 없는 결과와 같습니다. self.dropout을 ReLU 뒤, w_2 앞에 적용하세요.",
    "relu_twice": "ReLU를 w_2 뒤에도 한 번 더 적용했습니다. 출력이 음수가 될 수 없게 됩니다. ReLU는 w_1의 출력에만 "
    "적용합니다: w_2(dropout(relu(w_1(x)))).",
    "dropout_twice": "dropout을 두 번(넓힌 값과 출력에) 적용했습니다. dropout은 ReLU 뒤, w_2 앞에 한 번만 적용합니다: "
    "w_2(dropout(relu(w_1(x)))).",
    "dropout_in_eval": "eval 모드인데 dropout이 값을 지웠습니다. F.dropout(x, p)는 training 인자를 주지 않으면 늘 "
    "dropout합니다. 생성자에서 만든 self.dropout(nn.Dropout)을 쓰면 model.eval()에서 꺼집니다.",
    "residual_inside": "feed-forward 안에서 입력 x를 출력에 더했습니다(잔차 연결). 잔차 연결은 6장의 SublayerConnection이 "
    "더합니다. PositionwiseFeedForward는 w_2(dropout(relu(w_1(x))))만 돌려줍니다.",
    "relu_on_input": "ReLU를 w_1 앞(입력 x)에 적용했습니다. ReLU는 넓힌 값(w_1의 출력)에 적용합니다: "
    "w_2(dropout(relu(w_1(x)))).",
    "gradients": "출력은 맞지만 parameter의 기울기가 기준과 다릅니다. 계산 중간에 detach()나 torch.no_grad()를 쓰지 않았는지 "
    "확인하세요.",
}

# ----------------------------------------------------------------------------- bug models
### BEGIN BUG MODELS

ACTIVATIONS = {
    "relu": (None, F.relu),
    "none": ("relu_missing", lambda t: t),
    "after_w2": ("relu_after_w2", lambda t: t),
    "twice": ("relu_twice", F.relu),
    "on_input": ("relu_on_input", lambda t: t),
    "gelu": ("other_activation", F.gelu),
    "sigmoid": ("other_activation", torch.sigmoid),
    "tanh": ("other_activation", torch.tanh),
    "silu": ("other_activation", F.silu),
    "leaky_relu": ("other_activation", F.leaky_relu),
    "softmax": ("other_activation", lambda t: F.softmax(t, dim=-1)),
}
# "in_eval": F.dropout(x, p) without training=, which drops in eval mode too (a model of eval cases only: in train mode
# it is the solution's own dropout).
DROPOUTS = {"hidden": None, "after_w2": "dropout_after_w2", "before_w1": "dropout_before_w1", "none": "dropout_missing",
            "twice": "dropout_twice", "in_eval": "dropout_in_eval"}
# One mistake at a time for the residual: x + FFN(x) with the solution's activation and dropout.
MODEL_LIST = (*((activation, place, False) for activation, place in itertools.product(ACTIVATIONS, DROPOUTS)),
              ("relu", "hidden", True))


def feed_forward(case, x, weights, activation="relu", dropout_place="hidden", residual=False):
    """The feed-forward network with one activation, one place for dropout, with or without a residual inside."""
    rate = 0.1 if case.dropout is None else case.dropout
    dropout = torch.nn.Dropout(rate).train(case.train or dropout_place == "in_eval")
    inputs = x
    if dropout_place == "before_w1":
        x = dropout(x)
    x = F.relu(x) if activation == "on_input" else x
    wide = ACTIVATIONS[activation][1](F.linear(x, weights["w_1.weight"], weights["w_1.bias"]))
    if dropout_place in ("hidden", "twice", "in_eval"):
        wide = dropout(wide)
    out = F.linear(wide, weights["w_2.weight"], weights["w_2.bias"])
    if activation in ("after_w2", "twice"):
        out = F.relu(out)
    if dropout_place in ("after_w2", "twice"):
        out = dropout(out)
    return inputs + out if residual else out


@functools.lru_cache(maxsize=64)
def model_weights(spec):
    """The weights the probe loads into a module named like the solution, drawn again from the case's seed."""
    d, d_ff = spec.d_model, spec.d_ff
    names = [("w_1.weight", [d_ff, d]), ("w_1.bias", [d_ff]), ("w_2.weight", [d, d_ff]), ("w_2.bias", [d])]
    return modules.seeded_weights(names, spec.seed)


def _label(activation, place, residual):
    """The bug keys a model stands for (None: the solution)."""
    keys = (ACTIVATIONS[activation][0], DROPOUTS[place], "residual_inside" if residual else None)
    return tuple(bug for bug in keys if bug) or None


def _call(model, case, inputs):
    """Run one bug model as the probe ran the student's module: same input, weights and RNG seed."""
    spec = probe.CASES[case]
    return seeded(lambda: feed_forward(spec, inputs[0], model_weights(spec), *model), spec.seed)


def _models(case):
    """(label, model) for each activation × place for dropout (dropping in eval: eval cases only), and the residual;
    not on the structure case (it compares no output)."""
    spec = probe.CASES[case]
    if spec.kind == "module":
        return []
    return [(_label(*model), model) for model in MODEL_LIST if not (model[1] == "in_eval" and spec.train)]


MODEL_CODE = ModelCode(models=_models, call=_call)
### END BUG MODELS

MODELS = BugModels("ch04", same=same_output, bugs=BUGS)


def error_diagnosis(evidence, case, error):
    """A Korean diagnosis of an exception the student's code raised on `case`."""
    if error["type"] == "NotAModule":
        return BUGS["not_module"]
    return explain_error(evidence, case, error, BUGS)


def output_problem(evidence, case, output):
    """Why the student's output on `case` differs from the reference (Korean), or None."""
    return module_judge.output_problem(evidence, case, output, MODELS,
                                       "출력 값이 기준과 다릅니다. w_1 → ReLU → dropout → w_2 순서를 확인하세요.",
                                       values=dropout_rates)


def dropout_rates(evidence, case, output, expected):
    """`dropout_rate` when the module built on `case` has other dropout rates than the reference's (nn.Dropout(0.1)
    whatever dropout= says: right in eval mode, another rate in train mode), else None."""
    found = evidence.trace(case).get("structure")
    return found and module_judge.dropout_problem(evidence.reference(case)["structure"], found, BUGS["dropout_rate"])


# ----------------------------------------------------------------------------- checks

def output_check(case):
    """The student's forward output on `case` equals the reference's; otherwise name the bug."""
    return module_judge.output_check(case, error_diagnosis, output_problem)


CHECKS = [
    Check(name="module_structure", points=15, title="w_1, w_2의 이름과 모양, dropout 0.1", cases=("module",),
          judge=module_judge.structure_check("module", error_diagnosis, BUGS["dropout_rate"])),
    Check(name="eval_forward", points=25, title="eval 모드 출력 (2, 5, 8) = 기준", cases=("eval",),
          judge=output_check("eval")),
    Check(name="no_batch_axis", points=10, title="batch 축이 없는 입력 (7, 6)의 출력 = 기준 (위치마다 같은 변환)", cases=("no_batch_axis",),
          judge=output_check("no_batch_axis")),
    Check(name="dropout_train", points=20, title="train 모드 출력 = 기준 (시드 고정, dropout은 ReLU 뒤 w_2 앞)",
          cases=("dropout_train",), judge=output_check("dropout_train")),
]

### BEGIN HIDDEN TESTS
CHECKS += [
    Check(name="hidden_sizes", points=10, title="다른 d_model, d_ff와 축 수의 출력 = 기준", cases=("hidden_sizes",),
          judge=output_check("hidden_sizes"), visible=False),
    Check(name="hidden_dropout", points=10, title="다른 입력의 train 모드 출력 = 기준", cases=("hidden_dropout",),
          judge=output_check("hidden_dropout"), visible=False),
    Check(name="hidden_gradients", points=10, title="parameter 기울기 = 기준", cases=("hidden_gradients",),
          judge=module_judge.gradients_check("hidden_gradients", error_diagnosis, output_problem, BUGS["gradients"]),
          visible=False),
]
### END HIDDEN TESTS

CHAPTER = Chapter(id="04_feedforward", probe=probe, checks=CHECKS, bugs=BUGS, picture=None,
                  model_code=MODEL_CODE)
