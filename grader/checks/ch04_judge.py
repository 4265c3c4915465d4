"""Chapter 04 checks: `PositionwiseFeedForward` (w_1 → ReLU → dropout → w_2).

Judge side. The module's structure is compared with the solution's (`module_judge`); a forward's
output with the reference's. A failed forward names the most likely bug by running feed-forward
networks with another activation or another place for dropout ("bug models") on the same seeded
weights, input and RNG seed as the probe, and matching the student's numbers.
"""
import itertools

import torch
import torch.nn.functional as F

from . import ch04_probe as probe
from . import module_judge, modules
from .compare import close, decode
from .framework import Check, Finding, Verdict
from .module_judge import first_match, parameter_count_problem, run_models

CHAPTER_ID = "04_feedforward"
PICTURE = ("eval", None, None)  # no heatmap for this chapter

CASE_TEXT = {
    "module": "PositionwiseFeedForward(8, 32)의 구조",
    "eval": "eval 모드 입력 (2, 5, 8), d_ff=32",
    "no_batch_axis": "batch 축이 없는 입력 (7, 6), d_ff=10",
    "dropout_train": "train 모드 dropout=0.5 입력 (torch.manual_seed로 고정)",
    ### BEGIN HIDDEN TESTS
    "hidden_sizes": "숨겨진 입력 (다른 d_model, d_ff, 축 수)",
    "hidden_dropout": "숨겨진 train 모드 dropout 입력",
    "hidden_gradients": "숨겨진 기울기 입력",
    ### END HIDDEN TESTS
}

BUGS = {
    "stub": "아직 작성하지 않은 부분이 있습니다(NotImplementedError). transformer.py의 TODO(04)를 채우세요.",
    "missing": "클래스를 찾을 수 없습니다. 이름(PositionwiseFeedForward)과 들여쓰기를 확인하세요.",
    "not_module": "PositionwiseFeedForward가 nn.Module을 상속하지 않습니다. class PositionwiseFeedForward(nn.Module):로 "
    "정의하고 __init__에서 super().__init__()을 부르세요.",
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
    "gradients": "출력은 맞지만 parameter의 기울기가 기준과 다릅니다. 계산 중간에 detach()나 torch.no_grad()를 쓰지 않았는지 "
    "확인하세요.",
}

# ----------------------------------------------------------------------------- bug models

ACTIVATIONS = {
    "relu": (None, F.relu),
    "none": ("relu_missing", lambda t: t),
    "after_w2": ("relu_after_w2", lambda t: t),
    "gelu": ("other_activation", F.gelu),
    "sigmoid": ("other_activation", torch.sigmoid),
    "tanh": ("other_activation", torch.tanh),
    "silu": ("other_activation", F.silu),
    "leaky_relu": ("other_activation", F.leaky_relu),
}
DROPOUTS = {"hidden": None, "after_w2": "dropout_after_w2", "before_w1": "dropout_before_w1", "none": "dropout_missing"}
MODELS = tuple(itertools.product(ACTIVATIONS, DROPOUTS))


def feed_forward(case, x, weights, activation="relu", dropout_place="hidden"):
    """The feed-forward network with one activation and one place for dropout."""
    rate = 0.1 if case.dropout is None else case.dropout
    dropout = torch.nn.Dropout(rate).train(case.train)
    if dropout_place == "before_w1":
        x = dropout(x)
    wide = ACTIVATIONS[activation][1](F.linear(x, weights["w_1.weight"], weights["w_1.bias"]))
    if dropout_place == "hidden":
        wide = dropout(wide)
    out = F.linear(wide, weights["w_2.weight"], weights["w_2.bias"])
    if activation == "after_w2":
        out = F.relu(out)
    return dropout(out) if dropout_place == "after_w2" else out


def model_results(evidence, case):
    """{(activation, dropout place): output} of every bug model on `case` (cached on the evidence)."""
    spec, x = probe.CASES[case], evidence.inputs(case)
    weights = modules.seeded_weights(evidence.reference(case)["structure"]["state_dict"], spec.seed)
    return run_models(evidence, case, MODELS, lambda model: feed_forward(spec, x, weights, *model), spec.seed)


def _explain(model):
    activation, place = model
    bugs = (ACTIVATIONS[activation][0], DROPOUTS[place])
    return " ".join(BUGS[bug] for bug in bugs if bug)


# ----------------------------------------------------------------------------- reading a trace

def _visible(case):
    return probe.CASES[case].visible


def _about(case, message):
    return f"{CASE_TEXT.get(case, case)}: {message}"


def error_diagnosis(evidence, case, error):
    """A Korean diagnosis of an exception the student's code raised on `case`."""
    kind, message = error["type"], error["message"]
    if kind == "NotImplementedError":
        return BUGS["stub"]
    if kind == "MissingFunction":
        return BUGS["missing"]
    if kind == "NotAModule":
        return BUGS["not_module"]
    detail = f"{kind}: {message}" if _visible(case) and message else kind
    return f"실행 중 오류가 났습니다 ({detail})."


def read_output(evidence, case):
    """The student's forward output on `case`, or raise Finding with a diagnosis."""
    return module_judge.read_output(evidence, case, error_diagnosis, _visible(case))


def output_problem(evidence, case, output):
    """Why the student's output on `case` differs from the reference (Korean), or None."""
    expected = decode(evidence.reference(case)["result"])
    if close(output, expected):
        return None
    model = first_match(model_results(evidence, case), output, skip=(("relu", "hidden"),))
    if model:
        return _explain(model)
    if output.shape != expected.shape:
        if _visible(case):
            return f"출력 모양이 {tuple(output.shape)}입니다. 입력과 같은 {tuple(expected.shape)}이어야 합니다."
        return "출력 모양이 입력의 모양과 다릅니다."
    return "출력 값이 기준과 다릅니다. w_1 → ReLU → dropout → w_2 순서를 확인하세요."


# ----------------------------------------------------------------------------- checks

def module_structure(evidence):
    """PositionwiseFeedForward(8, 32): w_1 (32×8) and w_2 (8×32) with biases, nothing shared, dropout 0.1."""
    case = "module"
    try:
        trace = module_judge.read_module(evidence, case, error_diagnosis, True)
    except Finding as finding:
        return Verdict.fail(_about(case, finding.message))
    expected = evidence.reference(case)["structure"]
    problem = parameter_count_problem(expected, trace["structure"])
    if not problem and sorted(p for _, p in trace["structure"]["dropout"]) != sorted(p for _, p in expected["dropout"]):
        problem = BUGS["dropout_rate"]
    return Verdict.fail(_about(case, problem)) if problem else Verdict.ok()


def same_output(case):
    """The student's forward output on `case` equals the reference's; otherwise name the bug."""

    def verdict(evidence):
        try:
            output = read_output(evidence, case)
        except Finding as finding:
            return Verdict.fail(_about(case, finding.message))
        problem = output_problem(evidence, case, output)
        return Verdict.fail(_about(case, problem)) if problem else Verdict.ok()

    return verdict


CHECKS = [
    Check("module_structure", 15, "w_1, w_2의 이름과 모양, dropout 0.1", True, ("module",), module_structure),
    Check("eval_forward", 25, "eval 모드 출력 (2, 5, 8) → (2, 5, 8)", True, ("eval",), same_output("eval")),
    Check("no_batch_axis", 10, "batch 축이 없는 입력도 위치마다", True, ("no_batch_axis",), same_output("no_batch_axis")),
    Check("dropout_train", 20, "train 모드 dropout은 ReLU 뒤, w_2 앞 (시드 고정 시 기준과 같음)", True,
          ("dropout_train",), same_output("dropout_train")),
]

### BEGIN HIDDEN TESTS


def gradients(evidence):
    """Every parameter's gradient equals the reference's after a fixed backward pass."""
    case = "hidden_gradients"
    verdict = same_output(case)(evidence)
    if verdict.fraction < 1:
        return verdict
    found = evidence.trace(case).get("gradients", {})
    expected = evidence.reference(case)["gradients"]
    for name, grad in expected["parameters"].items():
        given = found.get("parameters", {}).get(name, {"kind": "none"})
        if given.get("kind") != "tensor" or not close(decode(given), decode(grad)):
            return Verdict.fail(_about(case, BUGS["gradients"]))
    return Verdict.ok()


CHECKS += [
    Check("hidden_sizes", 10, "다른 d_model, d_ff와 축 수", False, ("hidden_sizes",), same_output("hidden_sizes")),
    Check("hidden_dropout", 10, "다른 입력의 train 모드 dropout", False, ("hidden_dropout",),
          same_output("hidden_dropout")),
    Check("hidden_gradients", 10, "parameter 기울기", False, ("hidden_gradients",), gradients),
]
### END HIDDEN TESTS
