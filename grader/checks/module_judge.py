"""Judge-side support for `nn.Module` chapters: explain a module's structure against the reference's.

Reads the plain data `modules.structure` recorded (for the student's module, and for the solution's
in the reference) and says in Korean what differs, the way `load_state_dict(strict=True)` would see
it: names missing, names unexpected, shapes that differ, names that share one tensor, and modules
kept in a plain list (never registered). Expected names come from the reference, never typed here.
"""
import math

import torch

from .compare import close, decode, shape_text
from .framework import Finding, Verdict
from .korean import attach

MAX_LISTED = 8
NAMES_DIFFER = "parameter/buffer 이름이 기준과 다릅니다 (이름도 채점 기준입니다)."
NO_BIAS = ("선형 층에 bias가 없습니다: nn.Linear(…, bias=False)로 만들었나요? 기준의 선형 층은 bias를 더합니다 "
           "(xW + b): nn.Linear(in, out)의 기본값 bias=True 그대로 만드세요.")


def names_text(names):
    """`a`, `b`, … (at most MAX_LISTED, then how many more)."""
    shown = ", ".join(f"`{name}`" for name in names[:MAX_LISTED])
    more = len(names) - MAX_LISTED
    return shown + (f" 외 {more}개" if more > 0 else "") if names else "(없음)"


def shared_problem(found, hint=""):
    """Korean: which names alias one tensor (e.g. `[nn.Linear(...)] * 4`), or None."""
    groups = found.get("shared") or []
    if not groups:
        return None
    listed = "; ".join(" = ".join(f"`{name}`" for name in group[:4]) for group in groups[:3])
    return f"여러 이름이 같은 가중치 텐서를 함께 씁니다: {listed}. " + (hint or "층마다 따로 복사한 가중치가 있어야 합니다.")


def unregistered_problem(found, hint=""):
    """Korean: modules kept in a plain list/tuple/dict (their parameters are never registered), or None."""
    kept = found.get("unregistered") or []
    if not kept:
        return None
    first = kept[0]
    attribute = f"`self.{first['name']}`"
    return (f"{attach(attribute, '이')} nn.ModuleList가 아닌 {first['container']}입니다. 안에 든 "
            f"{', '.join(sorted(set(first['modules'])))} 모듈의 parameter가 등록되지 않아 parameters()와 "
            "state_dict()에 나오지 않습니다(optimizer가 학습하지 못합니다). " + hint).strip()


# Names right, shapes of the right rank not: a size typed in (2048, 512, 4 * d_model) or the constructor's
# arguments used in another order.
SIZES_FROM_ARGUMENTS = ("모양은 생성자가 받은 크기 인자로 정해집니다: 크기를 숫자로 직접 쓰지 않았는지(2048, 512, 4 * d_model), "
                        "인자를 바꿔 쓰지 않았는지(nn.Linear(입력 크기, 출력 크기)의 순서) 확인하세요.")


def names_problem(expected, found, visible=True):
    """Korean: state_dict names missing / unexpected / of another shape, as strict loading reports them, or None; only
    biases missing, their weights there, is named first as a layer built with bias=False."""
    want = {name: shape for name, shape in expected["state_dict"]}
    have = {name: shape for name, shape in found["state_dict"]}
    missing = [name for name in want if name not in have]
    unexpected = [name for name in have if name not in want]
    reshaped = [name for name in want if name in have and list(have[name]) != list(want[name])]
    if not (missing or unexpected or reshaped):
        return None
    parts = []
    layers = [name[:-len(".bias")] for name in missing if name.endswith(".bias")]
    if layers and len(layers) == len(missing) and not unexpected and all(f"{layer}.weight" in have for layer in layers):
        parts.append(f"{NO_BIAS} (bias가 없는 층: {names_text(layers)})")
    if missing or unexpected:
        parts.append(f"{NAMES_DIFFER} 있어야 하는데 없는 이름: {names_text(missing)}. "
                     f"기준에 없는 이름: {names_text(unexpected)}.")
        if visible:
            parts.append(f"기준의 이름: {names_text(list(want))}. 찾은 이름: {names_text(list(have))}.")
    for name in reshaped[:3]:
        detail = f": {shape_text(want[name])}이어야 하는데 {shape_text(have[name])}입니다" if visible else ""
        parts.append(f"`{name}`의 모양이 다릅니다{detail}.")
    if reshaped and not (missing or unexpected) and all(len(have[name]) == len(want[name]) for name in reshaped):
        parts.append(SIZES_FROM_ARGUMENTS)
    return " ".join(parts)


def structure_problem(expected, found, visible=True, shared_hint="", list_hint=""):
    """The first structural difference between the student's module and the reference's (Korean), or None."""
    return (unregistered_problem(found, list_hint) or shared_problem(found, shared_hint)
            or names_problem(expected, found, visible))


def parameter_count_problem(expected, found):
    """Korean: a different number of trainable numbers, or None."""
    if found["parameter_count"] == expected["parameter_count"]:
        return None
    return f"parameter 수가 {found['parameter_count']:,}개입니다. {expected['parameter_count']:,}개여야 합니다."


def load_problem(load):
    """Korean: loading the seeded weights by the module's own names failed, or None."""
    if not load or "error" in load:
        error = (load or {}).get("error", {})
        return f"state_dict를 불러오지 못했습니다 ({error.get('type', '?')}). load_state_dict를 바꾸지 마세요."
    if load.get("missing") or load.get("unexpected"):
        return ("state_dict를 strict하게 불러오지 못했습니다: 없는 이름 " + names_text(load.get("missing", []))
                + ", 남는 이름 " + names_text(load.get("unexpected", [])) + ".")
    return None


# ----------------------------------------------------------------------------- reading a module case

def read_module(evidence, case, diagnose_error, visible=True, shared_hint="", list_hint=""):
    """The student's trace of a module case whose structure matches the reference's, or raise Finding.

    `diagnose_error(evidence, case, error)` explains a failed build (a chapter's Korean texts)."""
    trace = evidence.trace(case)
    if "structure" not in trace:
        raise Finding(diagnose_error(evidence, case, trace.get("error", {"type": "NoTrace", "message": ""})))
    expected = evidence.reference(case)["structure"]
    problem = structure_problem(expected, trace["structure"], visible, shared_hint, list_hint)
    if problem:
        raise Finding(problem)
    return trace


def read_result(evidence, case, diagnose_error, trace=None):
    """The forward's result in the student's trace of `case` as a float64 tensor, or raise Finding."""
    trace = evidence.trace(case) if trace is None else trace
    if "error" in trace or "result" not in trace:
        raise Finding(diagnose_error(evidence, case, trace.get("error", {"type": "NoTrace", "message": ""})))
    result = trace["result"]
    if result["kind"] != "tensor":
        raise Finding(f"forward는 텐서 하나를 돌려줘야 하는데 {result.get('type', result['kind'])} 값을 돌려줍니다.")
    return decode(result)


def read_output(evidence, case, diagnose_error, visible=True, shared_hint="", list_hint="", structure=True):
    """The student's forward output on a module case as a float64 tensor, or raise Finding with a diagnosis.

    A trace without "load" is a forward of the module as built (`modules.record(..., load=False)`);
    `structure=False` reads only its output, not its names and shapes."""
    if not structure:
        return read_result(evidence, case, diagnose_error)
    trace = read_module(evidence, case, diagnose_error, visible, shared_hint, list_hint)
    problem = load_problem(trace["load"]) if "load" in trace else None
    if problem:
        raise Finding(problem)
    return read_result(evidence, case, diagnose_error, trace)


# ----------------------------------------------------------------------------- checks

def dropout_problem(expected, found, text):
    """`text` when the module's dropout rates differ from the reference's, else None (rates are floats in JSON:
    compared with a tolerance, as every reference number is).

    Each of the reference's nn.Dropout modules must be found with its rate: under its own name, else (a part named
    otherwise) as one more module of that rate. A further nn.Dropout of a rate the reference uses (an unused
    `self.dropout = nn.Dropout(dropout)` kept out of habit) changes nothing a forward does and is not a mistake;
    one of another rate is."""
    def same(a, b):
        return math.isclose(a, b, rel_tol=1e-6)

    have, want = dict(found["dropout"]), dict(expected["dropout"])
    if any(not same(have[name], p) for name, p in want.items() if name in have):
        return text
    left = [p for name, p in have.items() if name not in want]
    for p in (p for name, p in want.items() if name not in have):
        match = next((i for i, q in enumerate(left) if same(p, q)), None)
        if match is None:
            return text
        del left[match]
    return text if any(not any(same(p, q) for q in want.values()) for p in left) else None


def structure_check(case, triage, dropout_text, shared_hint="", list_hint=""):
    """A judge: the fresh module on `case` has the reference's names and shapes, parameter count and dropout rates."""

    def judge(evidence):
        try:
            trace = read_module(evidence, case, triage, evidence.visible(case), shared_hint, list_hint)
        except Finding as finding:
            return Verdict.fail(evidence.about(case, finding.message))
        expected, found = evidence.reference(case)["structure"], trace["structure"]
        problem = parameter_count_problem(expected, found) or dropout_problem(expected, found, dropout_text)
        return Verdict.fail(evidence.about(case, problem)) if problem else Verdict.ok()

    return judge


def output_check(case, triage, explain, shared_hint="", list_hint="", structure=True):
    """A judge: the forward output on `case` equals the reference's; otherwise `explain(evidence, case, output)`.

    `structure=False`: the output alone counts, not the module's names and shapes (see `read_output`)."""

    def judge(evidence):
        try:
            output = read_output(evidence, case, triage, evidence.visible(case), shared_hint, list_hint, structure)
        except Finding as finding:
            return Verdict.fail(evidence.about(case, finding.message))
        problem = explain(evidence, case, output)
        return Verdict.fail(evidence.about(case, problem)) if problem else Verdict.ok()

    return judge


def gradients_check(case, triage, explain, gradients_text, shared_hint="", list_hint=""):
    """A judge: the output on `case` is right and every parameter's gradient equals the reference's."""
    output_judge = output_check(case, triage, explain, shared_hint, list_hint)

    def judge(evidence):
        verdict = output_judge(evidence)
        if verdict.fraction < 1:
            return verdict
        found = evidence.trace(case).get("gradients", {})
        for name, grad in evidence.reference(case)["gradients"]["parameters"].items():
            given = found.get("parameters", {}).get(name, {"kind": "none"})
            if given.get("kind") != "tensor" or not close(decode(given), decode(grad)):
                return Verdict.fail(evidence.about(case, gradients_text))
        return Verdict.ok()

    return judge


# ----------------------------------------------------------------------------- bug models

VALUES_DIFFER = "출력 값이 기준과 다릅니다."


def shape_problem(found, expected, visible, like_input=True):
    """Korean: the output has another shape than the reference's (the shapes only on a visible case)."""
    if visible:
        return f"출력 모양이 {tuple(found)}입니다. {'입력과 같은 ' if like_input else ''}{tuple(expected)}이어야 합니다."
    return "출력 모양이 입력의 모양과 다릅니다." if like_input else "출력 모양이 기준과 다릅니다."


def output_problem(evidence, case, output, models, fallback=VALUES_DIFFER, like_input=True, values=None):
    """Why the student's output on `case` differs from the reference's (Korean), or None: the bug a model of
    `models` reproduces, else the shape, else `values(evidence, case, output, expected)`, else `fallback`.

    `like_input`: the output should have the input's shape (the message says so)."""
    expected = decode(evidence.reference(case)["result"])
    if close(output, expected):
        return None
    found = models.matching(evidence, case, student=output)
    if found:
        return models.explain(evidence, case, found)
    if output.shape != expected.shape:
        return shape_problem(output.shape, expected.shape, evidence.visible(case), like_input)
    return (values and values(evidence, case, output, expected)) or fallback

def same_output(student, produced):
    """Does a bug model's result (a tensor, or a tuple whose first item is the output) reproduce the student's?"""
    value = produced[0] if isinstance(produced, tuple) else produced
    value = value.detach().to(torch.float64)
    return value.shape == student.shape and bool(torch.allclose(student, value, rtol=1e-4, atol=1e-5))


def seeded(run, seed):
    """`run()` with torch's global RNG seeded as the probe seeded it (train-mode dropout), restored afterwards."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return run()
