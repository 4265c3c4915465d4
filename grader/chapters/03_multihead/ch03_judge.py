"""Chapter 03 checks: `clones` and `MultiHeadedAttention`.

Judge side. Each check reads the probe's traces and the references generated from the solution.
A module's structure is compared with the solution's (`module_judge`); a forward's output with the
reference's. A failed forward names the most likely bug by running known wrong multi-head
attentions ("bug models") with the same seeded weights, inputs and RNG seed as the probe, and
matching the student's numbers or exception.
"""
import functools
import itertools
import math

import torch
import torch.nn.functional as F

from . import ch03_probe as probe
from . import messages, module_judge, modules
from .bugmodels import DERIVED_KEY, BugModels, ModelCode
from .calls import explain_error
from .compare import close, decode
from .contract import Chapter, Picture
from .framework import Check, Finding, Verdict
from .module_judge import same_output, seeded

BUGS = {
    "stub": messages.stub("아직 작성하지 않은 부분이 있습니다", "TODO(03)"),
    "not_module": "MultiHeadedAttention이 nn.Module을 상속하지 않습니다. class MultiHeadedAttention(nn.Module):로 "
    "정의하고 __init__에서 super().__init__()을 부르세요.",
    "clones_shared": "clones의 복사본들이 같은 가중치를 함께 씁니다. [module] * N이나 copy.copy(얕은 복사)는 같은 parameter를 "
    "N번 담습니다. copy.deepcopy(module)로 N개를 따로 만들어 nn.ModuleList로 묶으세요.",
    "clones_list": "clones가 nn.ModuleList가 아닌 list를 돌려줍니다. 그냥 list에 담긴 층은 모듈에 등록되지 않아 "
    "parameters()와 state_dict()에 나오지 않고 학습되지 않습니다. nn.ModuleList([...])로 감싸 돌려주세요.",
    "clones_container": "clones는 nn.ModuleList를 돌려줘야 합니다.",
    "clones_length": "clones(module, N)은 정확히 N개의 복사본을 돌려줘야 합니다.",
    "clones_fresh": "복사본의 처음 값이 원본 module과 다릅니다. 새 층을 만들지 말고 넘겨받은 module을 copy.deepcopy로 복사하세요.",
    "names": module_judge.NAMES_DIFFER,
    "dropout_rate": "self.dropout이 생성자의 dropout 인자(기본값 0.1)를 p로 쓰는 nn.Dropout이어야 합니다.",
    "no_split_transpose": "head를 나눌 때 view(batch, -1, h, d_k) 다음 transpose(1, 2)를 빠뜨렸습니다. 그러면 attention이 "
    "토큰 축이 아니라 head 축을 따라 섞습니다. (batch, h, 길이, d_k)가 되도록 transpose(1, 2)를 하세요.",
    "split_transpose_axes": "head를 나눌 때 transpose의 축이 다릅니다. view(batch, -1, h, d_k)의 모양은 (batch, 길이, h, d_k)이므로 "
    "transpose(1, 2)로 길이 축(1)과 head 축(2)을 바꿔 (batch, h, 길이, d_k)를 만드세요. 다른 축을 바꾸면 attention이 "
    "토큰이 아닌 축을 따라 섞습니다.",
    "dropout_on_output": "dropout을 attention 가중치가 아니라 출력에 걸었습니다. self.dropout은 attention(…, dropout=self.dropout)으로 "
    "넘겨 softmax 다음의 가중치에 걸어야 합니다.",
    "no_merge_transpose": "head를 이어 붙이기 전에 transpose(1, 2)로 (batch, 길이, h, d_k)로 되돌리지 않았습니다. "
    "x.transpose(1, 2).contiguous().view(batch, -1, h * d_k) 순서로 쓰세요.",
    "no_contiguous": "transpose한 텐서에 바로 view를 불러 RuntimeError가 났습니다. transpose는 메모리 배치를 바꾸지 않고 "
    "보는 순서만 바꾸므로 view 전에 .contiguous()로 메모리를 다시 정렬해야 합니다: "
    "x.transpose(1, 2).contiguous().view(batch, -1, h * d_k).",
    "no_unsqueeze": "mask의 1번 자리에 head 축을 끼우지 않았습니다(빠뜨렸거나 다른 자리에 끼웠습니다). (batch, 1, key 길이) mask를 (batch, h, query 길이, key 길이) 점수에 "
    "그대로 쓰면 batch 축이 head 축에 맞춰져 문장마다의 padding이 엉뚱한 head에 걸립니다(batch ≠ h면 오류). "
    "forward 맨 앞에서 mask = mask.unsqueeze(1)을 하세요.",
    "attn_unpacked_swapped": "attention이 돌려주는 두 값을 거꾸로 받았습니다. attention은 (출력, p_attn) 순서로 돌려주므로 "
    "첫 값이 head별 출력, 둘째 값이 self.attn에 저장할 가중치입니다. 거꾸로 받으면 가중치(길이 × 길이)를 출력처럼 "
    "이어 붙이게 되어 모양이 맞지 않습니다.",
    "dropout_rate_passed": "attention의 dropout 인자에 비율(숫자)을 넘겼습니다. 이 인자는 가중치에 적용할 함수, 곧 "
    "__init__에서 만든 nn.Dropout 모듈(self.dropout)입니다. 숫자를 넘기면 attention 안에서 dropout(p_attn)을 부를 때 "
    "TypeError가 납니다.",
    "no_output_projection": "head를 이어 붙인 뒤 마지막 투영 self.linears[-1]을 하지 않았습니다. 이어 붙인 결과를 마지막 선형층(출력 투영)에 통과시켜 돌려주세요.",
    "dk_is_d_model": "d_k를 d_model로 두었습니다. head 하나의 차원은 d_k = d_model // h입니다.",
    "mask_inverted": "attention에 뒤집은 mask를 넘겼습니다(mask == 0 또는 ~mask). attention은 mask가 0(False)인 자리를 가리므로 "
    "mask는 볼 수 있는 자리가 1(True)입니다. MultiHeadedAttention에서는 head 축만 더해(mask.unsqueeze(1)) 그대로 넘기세요.",
    "dropout_not_passed": "train 모드인데 결과가 dropout 없는 결과와 같습니다. attention(…, mask=mask, dropout=self.dropout)처럼 "
    "self.dropout을 attention에 넘기세요.",
    "attn_not_stored": "forward가 어텐션 가중치를 self.attn에 저장하지 않았습니다. x, self.attn = attention(…)처럼 저장하세요. "
    "마지막 장에서 이 값으로 어텐션 그림을 그립니다.",
    "key_as_value": "value 자리에 key를 투영해 썼습니다(key ≠ value인 cross-attention에서만 드러납니다). "
    "linears[0], [1], [2]를 각각 query, key, value에 적용하세요.",
    "query_as_key": "key 자리에 query를 투영해 썼습니다(query ≠ key인 cross-attention에서만 드러납니다). "
    "linears[0], [1], [2]를 각각 query, key, value에 적용하세요: zip(self.linears, (query, key, value)).",
    "query_for_all": "key와 value 자리에도 query를 투영해 썼습니다(self-attention처럼 (query, query, query); query ≠ key인 "
    "cross-attention에서만 드러납니다). linears[0], [1], [2]를 각각 query, key, value에 적용하세요: "
    "zip(self.linears, (query, key, value)).",
    "mask_not_passed": "mask를 attention에 넘기지 않았습니다. 그러면 padding이나 미래 위치도 가중치를 받습니다. "
    "attention(query, key, value, mask=mask, dropout=self.dropout)처럼 mask를 넘기세요.",
    "output_first_linear": "마지막 출력 투영에 self.linears[0](query용 층)을 다시 썼습니다. 출력 투영은 네 번째 층 "
    "self.linears[-1]입니다.",
    "view_heads_first": "head를 나눌 때 view(batch, h, -1, d_k)로 바로 head 축을 앞에 두었습니다. 그러면 한 토큰의 "
    "d_model 값이 여러 토큰에 흩어집니다. view(batch, -1, h, d_k)로 토큰마다 나눈 뒤 transpose(1, 2)를 하세요.",
    "head_size": "self.d_k가 head 하나의 차원이 아닙니다. head 하나의 차원은 d_k = d_model // h이고, "
    "head를 나눌 때(view)와 이어 붙일 때 이 값을 씁니다.",
    "head_size_fixed": "self.d_k가 (4, 32)로 만들 때는 맞지만 다른 h와 d_model에서는 head 하나의 차원이 아닙니다. "
    "숫자로 고정하지 말고 인자로 받은 d_model과 h로 계산하세요 (d_model // h).",
    "dk_float": "d_k를 d_model / h(실수 나눗셈)로 구해 view에 실수가 들어갔습니다. 정수 나눗셈 d_model // h를 쓰세요.",
    "scale_d_model": "점수를 √d_model로 나눴습니다. 점수는 head 하나의 차원으로 나눕니다: / math.sqrt(self.d_k) "
    "(d_k = d_model // h). 1장의 attention 함수를 부르면 query.size(-1) = d_k로 나눕니다.",
    "projection_shared": "query, key, value를 같은 선형층 하나(self.linears[0])로 투영했습니다. 네 층은 따로 학습되는 "
    "다른 가중치입니다: linears[0], [1], [2]를 각각 query, key, value에, linears[-1]을 출력에 쓰세요: "
    "zip(self.linears, (query, key, value)).",
    "projection_shifted": "query, key, value를 self.linears[1:](linears[1], [2], [3])로 투영했습니다. 그러면 value와 출력 "
    "투영이 같은 층 linears[3]을 씁니다. query, key, value에는 linears[0], [1], [2]를, 출력에는 linears[-1]을 쓰세요: "
    "zip(self.linears, (query, key, value)).",
    "projections_swapped": "query, key, value, 출력 투영에 네 선형층을 다른 순서로 썼습니다(query와 key의 층을 바꿨거나, "
    "출력 투영 층 linears[3]을 입력 투영에 썼습니다). 네 층의 역할은 정해져 있습니다: linears[0], [1], [2]를 각각 query, "
    "key, value에, linears[3](= linears[-1])을 출력에 쓰세요: zip(self.linears, (query, key, value)).",
    "projection_reused": "네 선형층 가운데 하나를 두 번 쓰고 하나는 쓰지 않았습니다(출력 투영 층 linears[3]을 입력 투영에도 "
    "썼거나, 한 입력 투영 층을 다른 입력에도 썼습니다). linears[0], [1], [2]를 각각 query, key, value에, "
    "linears[3](= linears[-1])을 출력에 한 번씩 쓰세요: zip(self.linears, (query, key, value)).",
    "inputs_swapped": "query, key, value 입력을 다른 자리에 넣었습니다(key와 value를 바꿨거나 query와 key를 바꿨습니다). "
    "query = key = value인 self-attention에서는 드러나지 않고, 셋이 다른 cross-attention에서 값이 달라집니다. "
    "linears[0], [1], [2]를 각각 query, key, value에 적용하세요: zip(self.linears, (query, key, value)).",
    "softmax_axis": "softmax를 마지막 축(dim=-1, key 축)이 아닌 축(dim=-2 등)에서 구했습니다. query(행)마다 key들에 대한 "
    "가중치의 합이 1이어야 합니다: scores.softmax(dim=-1). 1장의 attention 함수를 그대로 부르면 됩니다.",
    "gradients": "출력은 맞지만 parameter의 기울기가 기준과 다릅니다. 계산 중간에 detach()나 torch.no_grad()를 쓰지 않았는지 "
    "확인하세요.",
}

SHARED_HINT = BUGS["clones_shared"]
LIST_HINT = BUGS["clones_list"]

# ----------------------------------------------------------------------------- bug models
### BEGIN BUG MODELS

MODELS_LIST = ("correct", "no_split_transpose", "split_axes_13", "split_axes_23", "no_merge_transpose", "no_contiguous",
               "no_unsqueeze", "no_output_projection", "dk_is_d_model", "dropout_not_passed", "dropout_on_output",
               "key_as_value", "query_as_key", "mask_not_passed", "output_first_linear", "view_heads_first",
               "dk_float", "dropout_on_context", "unsqueeze_last", "scale_d_model", "projection_shared",
               "projection_shifted", "softmax_axis", "attn_unpacked_swapped", "dropout_rate_passed", "mask_inverted")
PROJECTIONS = {"projection_shared": (0, 0, 0), "projection_shifted": (1, 2, 3)}  # linears used for query, key, value


def _assignments():
    """{("linears", q, k, v, out): bug key}: the linears used for query, key, value and the output, other than the
    solution's (0, 1, 2, 3) and the models named above: every other order of the four (projections_swapped), and one
    role given another role's linear (projection_reused; the output through linears[0] is output_first_linear)."""
    named = {(0, 1, 2, 3), (0, 1, 2, 0), (*PROJECTIONS["projection_shared"], 3), (*PROJECTIONS["projection_shifted"], 3)}
    found = {order: "projections_swapped" for order in itertools.permutations(range(4))}
    for role, index in itertools.product(range(4), range(4)):
        order = tuple(index if i == role else i for i in range(4))
        found.setdefault(order, "projection_reused")
    return {("linears", *order): bug for order, bug in sorted(found.items()) if order not in named}


ASSIGNMENTS = _assignments()
# ("inputs", i, j, k): the linears 0, 1, 2 applied to (query, key, value)[i], [j], [k]: every other order of the
# three inputs (one input used twice is query_as_key or key_as_value)
INPUT_ORDERS = {("inputs", *order): "inputs_swapped" for order in itertools.permutations(range(3))
                if order != (0, 1, 2)}
INPUT_ORDERS[("inputs", 0, 0, 0)] = "query_for_all"  # zip(self.linears, (query, query, query)): self-attention's habit
LABELS = {"split_axes_13": "split_transpose_axes", "split_axes_23": "split_transpose_axes",  # model → bug key
          "dropout_on_context": "dropout_on_output", "unsqueeze_last": "no_unsqueeze"}
SPLIT_AXES = {"split_axes_13": (1, 3), "split_axes_23": (2, 3)}


def _attention(query, key, value, mask, dropout, scale=None, axis=-1):
    scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(scale or query.size(-1))
    if mask is not None:
        scores = scores.masked_fill(mask == 0, -1e9)
    p_attn = scores.softmax(dim=axis)
    if dropout is not None:
        p_attn = dropout(p_attn)
    return torch.matmul(p_attn, value), p_attn


def multi_head(case, inputs, weights, bug="correct"):
    """Multi-head attention as the solution computes it, or with one known mistake: (output, p_attn)."""
    query, key, value, mask = inputs
    h = case.h
    d_k = {"dk_is_d_model": case.d_model, "dk_float": case.d_model / h}.get(bug, case.d_model // h)
    n = query.size(0)
    if mask is not None and bug != "no_unsqueeze":
        mask = mask[..., None] if bug == "unsqueeze_last" else mask[:, None]
    if bug == "mask_not_passed":
        mask = None
    if bug == "mask_inverted" and mask is not None:
        mask = mask == 0
    sources = (query, key, key if bug == "key_as_value" else value)
    if bug == "query_as_key":
        sources = (query, query, value)
    if bug in INPUT_ORDERS:
        sources = tuple((query, key, value)[i] for i in bug[1:])
    assigned = bug[1:] if bug in ASSIGNMENTS else (*PROJECTIONS.get(bug, (0, 1, 2)), 3)
    heads = []
    for index, x in zip(assigned[:3], sources):
        projected = F.linear(x, weights[f"linears.{index}.weight"], weights[f"linears.{index}.bias"])
        if bug == "view_heads_first":
            heads.append(projected.view(n, h, -1, d_k))
            continue
        y = projected.view(n, -1, h, d_k)
        heads.append(y if bug == "no_split_transpose" else y.transpose(*SPLIT_AXES.get(bug, (1, 2))))
    rate = 0.1 if case.dropout is None else case.dropout
    dropout = None if bug in ("dropout_not_passed", "dropout_on_output", "dropout_on_context") \
        else rate if bug == "dropout_rate_passed" else torch.nn.Dropout(rate).train(case.train)
    x, p_attn = _attention(*heads, mask, dropout, case.d_model if bug == "scale_d_model" else None,
                           -2 if bug == "softmax_axis" else -1)
    if bug == "attn_unpacked_swapped":  # self.attn, x = attention(…): the weights taken for the output
        x, p_attn = p_attn, x
    if bug == "dropout_on_context":  # on the heads' output, before they are joined
        x = torch.nn.Dropout(rate).train(case.train)(x)
    if bug == "no_merge_transpose":
        x = x.contiguous().view(n, -1, h * d_k)
    elif bug == "no_contiguous":
        x = x.transpose(1, 2).view(n, -1, h * d_k)
    else:
        x = x.transpose(1, 2).contiguous().view(n, -1, h * d_k)
    if bug != "no_output_projection":
        last = 0 if bug == "output_first_linear" else assigned[3]
        x = F.linear(x, weights[f"linears.{last}.weight"], weights[f"linears.{last}.bias"])
    if bug == "dropout_on_output":
        x = torch.nn.Dropout(rate).train(case.train)(x)
    return x, p_attn


@functools.lru_cache(maxsize=64)
def model_weights(spec):
    """The weights the probe loads into a module named like the solution, drawn again from the case's seed."""
    d = spec.d_model
    names = [(f"linears.{i}.{kind}", [d, d] if kind == "weight" else [d]) for i in range(4) for kind in ("weight", "bias")]
    return modules.seeded_weights(names, spec.seed)


def _call(bug, case, inputs):
    """Run one bug model as the probe ran the student's module (same inputs, weights and RNG seed): its output."""
    spec = probe.CASES[case]
    return seeded(lambda: multi_head(spec, inputs, model_weights(spec), bug)[0], spec.seed)


def _models(case):
    """(label, model) for each mistake, the solution's way first; forward cases only (others compare no output)."""
    if probe.CASES[case].kind != "forward":
        return []
    return [(None if bug == "correct" else LABELS.get(bug, bug), bug) for bug in MODELS_LIST] + \
        [(label, order) for order, label in {**ASSIGNMENTS, **INPUT_ORDERS}.items()]


def _dropout_parts(case, inputs):
    """For a train-mode forward case, what its output is made of: the solution's eval-mode attention weights `attn`
    (batch, h, query, key) and `value_out` (batch, h, key, d_model), each key's value projected and passed through its
    head's slice of the output projection, with its `bias`: for whatever weights reach the values, the output is
    einsum("bhij,bhjd->bid", weights, value_out) + bias."""
    spec = probe.CASES[case]
    if spec.kind != "forward" or not spec.train:
        return None
    query, key, value, mask = inputs
    weights = model_weights(spec)
    h, d_k = spec.h, spec.d_model // spec.h
    heads = [F.linear(x, weights[f"linears.{i}.weight"], weights[f"linears.{i}.bias"])
             .view(query.size(0), -1, h, d_k).transpose(1, 2) for i, x in enumerate((query, key, value))]
    _, p_attn = _attention(*heads, None if mask is None else mask[:, None], None)
    value_out = torch.einsum("bhjk,dhk->bhjd", heads[2], weights["linears.3.weight"].view(spec.d_model, h, d_k))
    return {"attn": p_attn, "value_out": value_out, "bias": weights["linears.3.bias"]}


MODEL_CODE = ModelCode(models=_models, call=_call, derived=_dropout_parts)
### END BUG MODELS

def _student_output(evidence, case):
    """The student's forward output on `case` (for the tie-break), or None."""
    result = evidence.trace(case).get("result") or {}
    return decode(result) if result.get("kind") == "tensor" else None


# Two mistakes may give the same result on a case: raise the same error (a mask that no longer broadcasts; (query,
# query, value) and (query, query, query) where key and query lengths differ) or coincide in self-attention. The
# self-attention and cross cases, which every forward check reads, tell them apart.
TIE_CASES = ("self_attn", "cross")
MODELS = BugModels("ch03", same=same_output, bugs=BUGS, student=_student_output, tie_break=TIE_CASES)


def matching_bug(evidence, case, output=None, error=None):
    """The first bug whose model reproduces the student's output (or exception), else None."""
    return MODELS.likely(evidence, case, MODELS.matching(evidence, case, student=output, error=error))


def _visible(case):
    return probe.CASES[case].visible


def _about(case, message):
    return f"{probe.CASES[case].text}: {message}"


def error_diagnosis(evidence, case, error):
    """A Korean diagnosis of an exception the student's code raised on `case`."""
    if error["type"] == "NotAModule":
        return BUGS["not_module"]
    if probe.CASES[case].kind == "forward":
        return explain_error(evidence, case, error, BUGS, rules=RULES, models=MODELS, fallback=head_size_problem)
    return explain_error(evidence, case, error, BUGS, rules=RULES)


RULES = [("view size is not compatible", "no_contiguous")]


def head_size_problem(evidence, case, error=None):
    """`head_size` when the student's `self.d_k` is not d_model // h, as built for `case` (else for the visible
    build `MultiHeadedAttention(4, 32)`); None when it is right or was not recorded. A fallback after the bug
    models: a `self.d_k` that forward never reads is not the cause."""
    for name in (case, "module"):
        if not evidence.may_read(name):
            continue
        trace = evidence.trace(name)
        found = (trace.get("built") or trace.get("attributes") or {}).get("d_k") or {}
        if found.get("kind") != "number":
            continue
        spec = probe.CASES[name]
        wanted = spec.d_model // spec.h
        if found["value"] == wanted:
            return None
        if not spec.visible:
            right_at_module = head_size_problem(evidence, "module") is None if evidence.may_read("module") else False
            return BUGS["head_size_fixed" if right_at_module else "head_size"]
        where = "" if name == case else f"{spec.text}: "
        return BUGS["head_size"] + f" ({where}self.d_k = {found['value']:g}, 기대 {wanted})"
    return None


def read_output(evidence, case):
    """The student's forward output on `case`, or raise Finding with a diagnosis."""
    return module_judge.read_output(evidence, case, error_diagnosis, _visible(case), SHARED_HINT, LIST_HINT)


def dropout_rate_problem(evidence, case):
    """`dropout_rate` when the module built on `case` has other dropout rates than the reference's (nn.Dropout(0.1)
    whatever dropout= says: right in eval mode, another rate in train mode), else None."""
    found = evidence.trace(case).get("structure")
    expected = evidence.reference(case).get("structure")
    return found and expected and module_judge.dropout_problem(expected, found, BUGS["dropout_rate"])


def dropout_drawn_otherwise(evidence, case, output):
    """Whether a train-mode output the reference's random draws do not reproduce is still right, its dropout drawn in
    another order (the heads or the examples one at a time, a mask of one's own): `self.attn` holds the eval-mode
    weights with each entry dropped (0) or scaled by 1 / (1 - p), about p of them dropped (within four standard
    deviations), and the output is those weights through the value and output projections (the case's `derived`
    parts, from the build)."""
    parts = evidence.reference(case).get(DERIVED_KEY)
    stored = evidence.trace(case).get("attributes", {}).get("attn", {})
    if not parts or stored.get("kind") != "tensor" or stored.get("data") is None:
        return False
    attn, weights = decode(stored).double(), decode(parts["attn"]).double()
    if attn.shape != weights.shape:
        return False
    rate = 0.1 if probe.CASES[case].dropout is None else probe.CASES[case].dropout
    kept = attn != 0
    if not torch.allclose(attn[kept], weights[kept] / (1 - rate), rtol=1e-4, atol=1e-6):
        return False
    live = weights > 1e-6  # entries a mask leaves at ~0 read the same dropped or kept
    count, dropped = int(live.sum()), int((live & ~kept).sum())
    if not count or abs(dropped / count - rate) > 4 * math.sqrt(rate * (1 - rate) / count) + 1 / count:
        return False
    rebuilt = torch.einsum("bhij,bhjd->bid", attn, decode(parts["value_out"]).double()) + decode(parts["bias"]).double()
    return rebuilt.shape == output.shape and close(output.double(), rebuilt)


def output_problem(evidence, case, output):
    """Why the student's output on `case` differs from the reference (Korean), or None."""
    expected = decode(evidence.reference(case)["result"])
    if close(output, expected):
        return None
    if probe.CASES[case].train and dropout_drawn_otherwise(evidence, case, output):
        return None
    bug = matching_bug(evidence, case, output=output)
    if bug:
        return BUGS[bug]
    rate = dropout_rate_problem(evidence, case)
    if rate:
        return rate
    head_size = head_size_problem(evidence, case)
    if head_size:
        return head_size
    if output.shape != expected.shape:
        if _visible(case):
            return f"출력 모양이 {tuple(output.shape)}입니다. 입력 query와 같은 {tuple(expected.shape)}이어야 합니다."
        return "출력 모양이 입력 query의 모양 (batch, query 길이, d_model)과 다릅니다."
    return "출력 값이 기준과 다릅니다. 투영 → head 나누기 → attention → head 잇기 → 출력 투영 순서를 확인하세요."


# ----------------------------------------------------------------------------- checks

def clones_deep_copies(evidence):
    """clones(module, N) returns an nn.ModuleList of N copies equal at first, sharing nothing (deep copies; the module
    passed in may be one of them)."""
    case = "clones"
    trace = evidence.trace(case)
    if "error" in trace:
        return Verdict.fail(_about(case, error_diagnosis(evidence, case, trace["error"])))
    if not trace.get("is_module"):
        found = trace.get("type", "?")
        return Verdict.fail(_about(case, BUGS["clones_list"] if found in ("list", "tuple")
                                   else BUGS["clones_container"] + f" (돌려준 값: {found})"))
    if trace["length"] != 4:
        return Verdict.fail(_about(case, BUGS["clones_length"] + f" (N=4인데 {trace['length']}개)"))
    copies = trace["copies"]
    if trace["shared_between_copies"] or any(c["shares_with_original"] and not c["is_original"] for c in copies):
        return Verdict.fail(_about(case, BUGS["clones_shared"]))
    # One of the copies may be the module passed in ([module] + N - 1 deep copies): the course never uses that module
    # again (each clones gets a module built for it), so nothing is shared and the class works the same.
    if not all(c["same_values"] for c in copies):
        return Verdict.fail(_about(case, BUGS["clones_fresh"]))
    if trace["type"] != "ModuleList":
        return Verdict(0.5, _about(case, BUGS["clones_container"] + f" (돌려준 값: {trace['type']})"))
    return Verdict.ok()


STAND_IN = ("MultiHeadedAttention의 검사는 채점기가 만든 깊은 복사 clones로 대신 채점합니다: 이 실수로는 clones 검사의 "
            "점수만 잃습니다.")


def clones_check(evidence):
    """clones_deep_copies, saying when it fails that the MultiHeadedAttention checks run with the probe's clones."""
    verdict = clones_deep_copies(evidence)
    if verdict.fraction >= 1 or evidence.trace("clones").get("error", {}).get("type") == "NotImplementedError":
        return verdict
    return Verdict(verdict.fraction, f"{verdict.message} {STAND_IN}")


def with_stand_in(judge):
    """`judge` on the runs with the probe's deep-copying clones when the student's clones fails its own check
    (one mistake costs its own unit's points: the class is judged as if clones were right)."""

    def judged(evidence):
        if clones_deep_copies(evidence).fraction < 1:
            read = [case for case in probe.CASES if case != "clones" and evidence.may_read(case)]
            replaced = {case: evidence.trace(case)["stand_in"] for case in read if "stand_in" in evidence.trace(case)}
            evidence = evidence.with_traces(replaced)
        return judge(evidence)

    judged.__doc__ = judge.__doc__
    return judged


def output_check(case):
    """The student's forward output on `case` equals the reference's; otherwise name the bug."""
    return module_judge.output_check(case, error_diagnosis, output_problem, SHARED_HINT, LIST_HINT)


def stores_attn(evidence):
    """After a forward, `self.attn` holds the attention weights (batch, h, query length, key length)."""
    case = "self_attn"
    try:
        read_output(evidence, case)
    except Finding as finding:
        return Verdict.fail(_about(case, finding.message))
    stored = evidence.trace(case)["attributes"]["attn"]
    expected = evidence.reference(case)["attributes"]["attn"]
    if stored.get("kind") != "tensor":
        return Verdict.fail(_about(case, BUGS["attn_not_stored"]))
    attn = decode(stored)
    if close(attn, decode(expected)):
        return Verdict.ok()
    output = decode(evidence.trace(case)["result"])
    # A right output shows no bug: a model that coincides with the solution on this case would be named wrongly.
    bug = None if close(output, decode(evidence.reference(case)["result"])) else matching_bug(evidence, case, output)
    if bug:
        return Verdict.fail(_about(case, BUGS[bug]))
    if not close(output, decode(evidence.reference(case)["result"])):
        # The output is wrong too: the weights were computed wrong, not stored wrong; say what the output check says.
        return Verdict.fail(_about(case, output_problem(evidence, case, output)))
    if list(attn.shape) != expected["shape"]:
        return Verdict.fail(_about(case, f"self.attn의 모양이 {tuple(attn.shape)}입니다. (batch, h, query 길이, key 길이) = "
                                         f"{tuple(expected['shape'])}이어야 합니다."))
    return Verdict.fail(_about(case, "self.attn의 값이 기준과 다릅니다. attention이 돌려준 가중치를 그대로 저장하세요."))


CLONES = ("clones",)  # read by every class check: a failing clones → judged with the probe's stand-in


def mha_check(name, points, title, case, judge, visible=True):
    """A MultiHeadedAttention check of `case`, judged with the stand-in clones when the student's clones fails."""
    # a forward check also reads the tie-break cases (TIE_CASES) and the visible build (`self.d_k`)
    forward = probe.CASES[case].kind == "forward"
    reads = CLONES + (tuple(other for other in TIE_CASES if other != case) if forward else ()) + \
        (("module",) if forward else ())
    return Check(name=name, points=points, title=title, cases=(case,), reads=reads, judge=with_stand_in(judge),
                 visible=visible)


CHECKS = [
    Check(name="clones_deep_copies", points=10, title="clones는 깊은 복사 N개를 nn.ModuleList로", cases=CLONES,
          judge=clones_check),
    mha_check("module_structure", 10, "linears.0–3의 이름과 모양, 4(d²+d)개 parameter", "module",
              module_judge.structure_check("module", error_diagnosis, BUGS["dropout_rate"], SHARED_HINT, LIST_HINT)),
    mha_check("self_attention", 15, "self-attention (2, 6, 32) 출력 = 기준", "self_attn", output_check("self_attn")),
    mha_check("stores_attn", 5, "self.attn에 저장한 (batch, h, 길이, 길이) 가중치 = 기준", "self_attn", stores_attn),
    mha_check("cross_attention", 10, "cross-attention 출력 (query 길이 ≠ key 길이, key ≠ value) = 기준", "cross",
              output_check("cross")),
    mha_check("padding_mask", 10, "문장마다 다른 padding mask의 출력 = 기준 (head 축에 broadcast)", "padding",
              output_check("padding")),
    mha_check("dropout_train", 10, "train 모드 dropout 출력 = 기준 (시드 고정, attention 안의 dropout)", "dropout_train",
              output_check("dropout_train")),
]

### BEGIN HIDDEN TESTS
CHECKS += [
    mha_check("hidden_causal", 8, "다른 크기와 causal mask의 출력 = 기준", "hidden_causal", output_check("hidden_causal"),
              visible=False),
    mha_check("hidden_cross_mask", 8, "cross-attention과 padding mask (batch = head 수)의 출력 = 기준",
              "hidden_cross_mask", output_check("hidden_cross_mask"), visible=False),
    mha_check("hidden_dropout", 7, "다른 입력의 train 모드 dropout 출력 = 기준", "hidden_dropout",
              output_check("hidden_dropout"), visible=False),
    mha_check("hidden_gradients", 7, "parameter 기울기 = 기준", "hidden_gradients",
              module_judge.gradients_check("hidden_gradients", error_diagnosis, output_problem, BUGS["gradients"],
                                           SHARED_HINT, LIST_HINT), visible=False),
]
### END HIDDEN TESTS

# How the feedback page names and explains the picture (Korean).
PICTURE_TEXTS = {
    "title": "self.attn의 head 0 어텐션 가중치 그림",
    "what": "forward가 self.attn에 저장한 가중치 중 첫 번째 예시(batch 0)의 head 0",
    "missing": "코드가 오류로 끝났거나 forward가 self.attn에 (batch, h, query 길이, key 길이) 가중치를 저장하지 않았습니다",
    "rows": "query 토큰",
    "columns": "key 토큰",
    "note": "칸의 숫자는 head 0에서 i번째 query 토큰이 j번째 key 토큰을 참고하는 비율입니다. 행마다 합이 1이어야 합니다.",
}

# The feedback picture: the weights the student's forward kept in self.attn on the demo's shapes, batch 0, head 0.
CHAPTER = Chapter(id="03_multihead", probe=probe, checks=CHECKS, bugs=BUGS,
                  picture=Picture(case="self_attn", path=("attributes", "attn"), index=(0, 0), label="self.attn",
                                  texts=PICTURE_TEXTS),
                  model_code=MODEL_CODE)
