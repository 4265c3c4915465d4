"""Chapter 07 checks: `EncoderLayer` (self-attention then feed-forward, each in its own SublayerConnection) and
`Encoder` (N deep copies of the layer, then a final LayerNorm).

Judge side. Structures are compared with the solution's (`module_judge`); shared weights are named by where
they are shared (between layers: `[layer] * N` or a shallow copy; between the two sublayers: one
SublayerConnection for both). Outputs are compared with the reference's; a wrong one names the most likely
bug by running "bug models" — an encoder computed from the probe's seeded weights with small functional
pieces, with the mask left out, the sublayers swapped, one sublayer used twice, no final norm, … — on the
same weights, input and RNG seed as the probe, and matching the student's numbers.
"""
import functools
import math

import torch
import torch.nn.functional as F

from . import ch07_probe as probe
from . import messages, module_judge, modules
from .bugmodels import BugModels, ModelCode
from .calls import explain_error
from .compare import decode
from .contract import Chapter, Picture
from .framework import Check, Verdict, noting_stand_in, twin_check
from .module_judge import same_output, seeded

BUGS = {
    "stub": messages.stub("아직 작성하지 않은 부분이 있습니다", "TODO(07)"),
    "not_module": "EncoderLayer와 Encoder는 nn.Module을 상속해야 합니다. class 이름(nn.Module):로 정의하고 "
    "__init__에서 super().__init__()을 부르세요.",
    "names": module_judge.NAMES_DIFFER,
    "dropout_rate": "SublayerConnection의 dropout 비율이 EncoderLayer 생성자의 dropout과 다릅니다. SublayerConnection을 "
    "만들 때 생성자의 dropout을 그대로 넘기세요.",
    "layers_shared": "Encoder의 층들이 같은 가중치를 함께 씁니다. [layer] * N이나 copy.copy(얕은 복사)는 같은 층을 N번 "
    "담을 뿐이라 N층이 아니라 한 층을 N번 지나는 셈이 됩니다. clones처럼 copy.deepcopy로 "
    "층마다 따로 복사하세요.",
    "layers_list": "self.layers가 nn.ModuleList가 아닌 그냥 list입니다. 층의 parameter가 등록되지 않습니다. "
    "clones(layer, N)을 쓰세요.",
    "no_final_norm": "Encoder의 마지막 정규화가 없습니다. 6장의 pre-norm에서는 마지막 층의 출력이 정규화되지 않은 채 "
    "나오므로, layer.size 크기의 LayerNorm을 만들어 두고, 모든 층을 지난 뒤의 출력에 적용해 돌려주세요.",
    "mask_not_passed": "self-attention에 mask를 넘기지 않았습니다. 그러면 padding 토큰도 어텐션을 받아, padding의 값이 "
    "다른 토큰의 출력을 바꿉니다. lambda x: self.self_attn(x, x, x, mask)처럼 mask를 넘기세요.",
    "mask_shape": "self-attention에 padding mask의 모양을 바꿔 넘겼습니다(mask.unsqueeze(1)처럼). mask는 forward가 받은 "
    "(batch, 1, 길이) 그대로 넘기세요. MultiHeadedAttention이 head 축을 위해 mask.unsqueeze(1)을 스스로 하므로, 밖에서 축을 "
    "더하거나 빼면 점수(batch, h, 길이, 길이)와 모양이 맞지 않습니다.",
    "loop_mask_shape": "Encoder가 층에 넘기는 mask의 모양을 바꿨습니다(mask.unsqueeze(1)처럼). 각 층에는 forward가 받은 "
    "(batch, 1, 길이) mask를 그대로 넘기세요. MultiHeadedAttention이 head 축을 위해 mask.unsqueeze(1)을 스스로 하므로, "
    "밖에서 축을 더하거나 빼면 점수(batch, h, 길이, 길이)와 모양이 맞지 않습니다.",
    "loop_mask_not_passed": "Encoder가 층을 부를 때 mask를 넘기지 않았습니다(layer(x, None)처럼). 그러면 "
    "층의 self-attention이 padding 토큰에도 가중치를 줍니다. Encoder의 for 루프에서 "
    "각 층을 부를 때 forward가 받은 mask를 두 번째 인자로 그대로 넘기세요.",
    "attention_not_called": "EncoderLayer가 self-attention(self.self_attn)을 부르지 않았습니다. 첫 번째 sublayer는 "
    "self-attention입니다: self.sublayer[0](x, lambda x: self.self_attn(x, x, x, mask)). feed forward는 두 번째 "
    "sublayer에서 한 번만 씁니다.",
    "sublayers_swapped": "어텐션과 피드포워드의 순서가 바뀌었습니다. 인코더 층은 먼저 self-attention(sublayer[0]), "
    "그다음 피드포워드(sublayer[1])입니다.",
    "sublayer_indices_swapped": "sublayer[0]과 sublayer[1]을 바꿔 썼습니다. 순서는 맞지만 self-attention은 "
    "sublayer[0], 피드포워드는 sublayer[1]로 감싸야 state_dict의 가중치가 제자리에 들어갑니다.",
    "sublayer_reused": "SublayerConnection 하나를 어텐션과 피드포워드에 함께 썼습니다. 두 부분층은 LayerNorm과 dropout을 "
    "따로 가집니다: SublayerConnection을 clones로 두 개 만들고, 어텐션에는 "
    "sublayer[0], 피드포워드에는 sublayer[1]을 쓰세요.",
    "layers_not_chained": "층의 출력을 다음 층에 넘기지 않았습니다. 각 층의 출력을 다음 층의 입력으로 삼아 x를 바꿔 가며 층을 차례로 통과시키세요.",
    "size_missing": "EncoderLayer에 self.size가 없습니다. Encoder는 layer.size로 마지막 LayerNorm의 크기를 정하므로 "
    "__init__에서 인자 size를 속성 size로 저장하세요.",
    "sublayer_function": "SublayerConnection의 두 번째 인자는 x 하나를 받는 함수입니다. self-attention은 "
    "lambda x: self.self_attn(x, x, x, mask)로 감싸 넘기고, 피드포워드는 self.feed_forward를 그대로 넘기세요.",
    "lambda_ignores_argument": "SublayerConnection에 넘긴 함수가 자기 인자를 쓰지 않고 바깥의 x를 씁니다. "
    "SublayerConnection은 정규화한 값을 그 함수에 넘기는데, lambda y: self.self_attn(x, x, x, mask)처럼 바깥 x를 쓰면 "
    "정규화를 건너뜁니다. lambda의 인자를 그대로 쓰세요: lambda x: self.self_attn(x, x, x, mask).",
    "return_in_loop": "Encoder가 첫 층만 지나고 끝났습니다. 층 루프 안에서 return했다면 마지막 정규화와 return을 for "
    "루프가 끝난 뒤(들여쓰기 밖)에 두고, self.layers의 일부만 돌았다면(self.layers[:-1], range(len(self.layers) - 1)) "
    "모든 층을 지나세요.",
    "layers_skipped": "Encoder가 self.layers의 층을 모두 지나지 않았습니다(self.layers[1:]이나 self.layers[:-1]처럼 일부만 "
    "돌았습니다). self.layers[0]부터 모든 층을 차례로 지나세요.",
    "layers_reversed": "층을 거꾸로(마지막 층부터) 지났습니다(reversed(self.layers)나 self.layers[::-1]처럼). 입력은 "
    "self.layers[0]부터 self.layers에 담긴 순서대로 한 층씩 지나야 합니다.",
    "first_layer_only": "모든 층 자리에서 self.layers[0]만 불렀습니다. self.layers의 층을 하나씩 차례로 부르세요.",
    "encoder_residual": "Encoder에서 층의 출력에 층의 입력을 다시 더했습니다(x = x + layer(x, mask)). 잔차 연결은 층 "
    "안의 SublayerConnection이 이미 더하므로, Encoder는 층의 출력만 다음 층의 입력으로 넘기세요(입력을 더하지 말고).",
    "norm_first": "마지막 정규화를 층들보다 먼저 적용했습니다. self.norm은 모든 층을 지난 뒤 한 번 적용합니다.",
    "norm_every_layer": "마지막 정규화(self.norm)를 층마다 적용했습니다. 각 층은 안에서 이미 정규화하므로, self.norm은 "
    "모든 층을 지난 뒤 한 번만 적용합니다.",
    "ff_result_unused": "피드포워드 부분층의 결과를 버렸습니다. self.sublayer[1](x, self.feed_forward)를 부르기만 하고 "
    "어텐션 부분층의 결과를 돌려줘서, 층의 출력에 피드포워드가 빠졌습니다. 피드포워드 부분층이 돌려준 값을 층의 "
    "출력으로 돌려주세요.",
    "layer_output_discarded": "층의 출력을 버렸습니다. 루프에서 layer(x, mask)를 부르기만 하고 결과를 x에 다시 넣지 않아, "
    "Encoder의 출력이 입력 x에 self.norm을 건 값뿐입니다. 층이 돌려준 값을 x에 다시 넣어 다음 층의 입력으로 "
    "넘기세요.",
    "attn_result_unused": "self-attention 부분층의 결과를 버렸습니다. 피드포워드 부분층에는 어텐션 부분층의 출력을 "
    "넘겨야 합니다. 어텐션 부분층의 결과로 x를 바꾼 뒤 피드포워드 부분층에 넘기세요.",
    "padding_leak": "EncoderLayer의 self-attention이 padding 토큰(key)에 0이 아닌 가중치를 줍니다. padding mask가 "
    "어텐션까지 그대로 전달되는지 확인하세요.",
    "norm_size": "Encoder의 마지막 LayerNorm의 크기가 층의 크기(layer.size)와 다릅니다. 512 같은 숫자를 직접 쓰면 "
    "d_model이 다른 모델에서 맞지 않습니다. LayerNorm의 크기로 층의 크기(layer.size)를 넘기세요.",
    "torch_layernorm": "마지막 정규화에 torch의 nn.LayerNorm을 썼습니다. 그 parameter 이름은 weight, bias라서 이 과정의 "
    "LayerNorm(a_2, b_2, n-1로 나누는 표준편차)과 이름도 계산도 다릅니다. 6장에서 만든 LayerNorm(layer.size)를 쓰세요.",
    "ff_not_wrapped": "피드포워드를 SublayerConnection 없이 그대로 돌려줬습니다(return self.feed_forward(x)). 그러면 "
    "피드포워드 앞의 정규화와 잔차 연결이 빠집니다. 피드포워드를 두 번째 부분층(self.sublayer[1])에 넘겨 "
    "감싸고, 그 부분층의 결과를 돌려주세요.",
    "double_residual": "잔차를 두 번 더했습니다(x + self.sublayer[i](x, …)). SublayerConnection이 이미 x + "
    "dropout(sublayer(norm(x)))로 잔차를 더해 돌려주므로, 그 결과를 그대로 쓰세요: x = self.sublayer[i](x, …).",
    "attn_missing": "EncoderLayer의 self_attn.attn에 어텐션 가중치가 없습니다. 넘겨받은 MultiHeadedAttention을 "
    "self.self_attn에 저장하고 forward에서 그것을 부르세요.",
}

ATTN_MISSING = BUGS["attn_missing"]
# The function handed to a SublayerConnection called wrongly: not a one-argument function (`lambda: …`,
# `lambda x, mask: …`, the attention itself), or the attention or feed-forward called with the wrong arguments.
RULES = [("has no attribute 'size'", "size_missing"), ("object is not callable", "sublayer_function"),
         ("missing 2 required positional arguments", "sublayer_function"), ("<lambda>() takes", "sublayer_function"),
         ("<lambda>() missing", "sublayer_function"), ("MultiHeadedAttention.forward() missing", "sublayer_function"),
         ("MultiHeadedAttention.forward() takes", "sublayer_function"),
         ("PositionwiseFeedForward.forward() takes", "sublayer_function")]

# ----------------------------------------------------------------------------- bug models
### BEGIN BUG MODELS

LAYER_BUGS = (None, "mask_not_passed", "sublayers_swapped", "sublayer_indices_swapped", "sublayer_reused",
              "lambda_ignores_argument", "attn_result_unused", "ff_not_wrapped", "double_residual",
              "double_residual_attn", "double_residual_ff", "ff_result_unused")
LABELS = {"double_residual_attn": "double_residual", "double_residual_ff": "double_residual",  # model → bug key
          "norm_every_layer_and_final": "norm_every_layer"}
ENCODER_BUGS = ("no_final_norm", "layers_not_chained", "return_in_loop", "first_layer_only", "norm_first",
                "norm_every_layer", "norm_every_layer_and_final", "layers_reversed", "encoder_residual",
                "layer_output_discarded")


def layer_names(spec, prefix=""):
    """(state_dict name, shape) of one EncoderLayer as the solution names it."""
    d, d_ff = spec.d_model, spec.d_ff
    names = [(f"{prefix}self_attn.linears.{i}.{kind}", [d, d] if kind == "weight" else [d])
             for i in range(4) for kind in ("weight", "bias")]
    names += [(f"{prefix}feed_forward.w_1.weight", [d_ff, d]), (f"{prefix}feed_forward.w_1.bias", [d_ff]),
              (f"{prefix}feed_forward.w_2.weight", [d, d_ff]), (f"{prefix}feed_forward.w_2.bias", [d])]
    return names + [(f"{prefix}sublayer.{k}.norm.{p}", [d]) for k in range(2) for p in ("a_2", "b_2")]


def double_names(spec, prefix=""):
    """(state_dict name, shape) of the probe's LayerDouble (the "_alone" cases' layer)."""
    return [(f"{prefix}mix.weight", [spec.d_model, spec.d_model]), (f"{prefix}mix.bias", [spec.d_model])]


@functools.lru_cache(maxsize=32)
def model_weights(spec):
    """The weights the probe loads into a module named like the solution, drawn again from the case's seed."""
    if spec.cls == probe.LAYER:
        return modules.seeded_weights(layer_names(spec), spec.seed)
    names_of = double_names if spec.layer == "stand_in" else layer_names
    names = [name for n in range(spec.n) for name in names_of(spec, f"layers.{n}.")]
    return modules.seeded_weights(names + [("norm.a_2", [spec.d_model]), ("norm.b_2", [spec.d_model])], spec.seed)


def layer_norm(w, prefix, x):
    """6장 LayerNorm: a_2 * (x - mean) / (unbiased std + 1e-6) + b_2."""
    return w[prefix + "a_2"] * (x - x.mean(-1, keepdim=True)) / (x.std(-1, keepdim=True) + 1e-6) + w[prefix + "b_2"]


def self_attention(w, prefix, x, mask, h, dropout):
    """3장 MultiHeadedAttention on query = key = value = x."""
    n, d_k = x.size(0), x.size(-1) // h
    q, k, v = (F.linear(x, w[f"{prefix}linears.{i}.weight"], w[f"{prefix}linears.{i}.bias"])
               .view(n, -1, h, d_k).transpose(1, 2) for i in range(3))
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask.unsqueeze(1) == 0, -1e9)
    heads = dropout(scores.softmax(dim=-1)) @ v
    merged = heads.transpose(1, 2).contiguous().view(n, -1, h * d_k)
    return F.linear(merged, w[f"{prefix}linears.3.weight"], w[f"{prefix}linears.3.bias"])


def feed_forward(w, prefix, x, dropout):
    """4장 PositionwiseFeedForward."""
    inner = F.linear(x, w[prefix + "w_1.weight"], w[prefix + "w_1.bias"]).relu()
    return F.linear(dropout(inner), w[prefix + "w_2.weight"], w[prefix + "w_2.bias"])


def encoder_layer(spec, w, prefix, x, mask, dropout, bug=None):
    """EncoderLayer's forward, or with one known mistake in how the two sublayers are wired."""
    attn_mask = None if bug == "mask_not_passed" else mask
    given = x

    def attn(y):
        y = given if bug == "lambda_ignores_argument" else y
        return self_attention(w, prefix + "self_attn.", y, attn_mask, spec.h, dropout)

    def ff(y):
        return feed_forward(w, prefix + "feed_forward.", y, dropout)

    steps = (ff, attn) if bug == "sublayers_swapped" else (attn, ff)
    places = {"sublayer_indices_swapped": (1, 0), "sublayer_reused": (0, 0)}.get(bug, (0, 1))
    doubled = {"double_residual": (0, 1), "double_residual_attn": (0,), "double_residual_ff": (1,)}.get(bug, ())
    for index, (step, place) in enumerate(zip(steps, places)):
        if bug == "ff_not_wrapped" and index == 1:
            return step(x)
        if bug == "ff_result_unused" and index == 1:  # the feed-forward sublayer ran; its result was dropped
            return x
        norm = f"{prefix}sublayer.{place}.norm."
        start = given if bug == "attn_result_unused" else x
        x = (start if index in doubled else 0) + start + dropout(step(layer_norm(w, norm, start)))
    return x


def double_layer(spec, w, prefix, x, mask, dropout, bug=None):
    """The probe's LayerDouble: each position mixed with the mean of the real tokens (`bug` is the Encoder's)."""
    keep = mask.transpose(-2, -1).to(x.dtype)
    pooled = (x * keep).sum(-2, keepdim=True) / keep.sum(-2, keepdim=True)
    return x + dropout(torch.tanh(F.linear(x + pooled, w[prefix + "mix.weight"], w[prefix + "mix.bias"])))


def encoder(spec, w, x, mask, dropout, bug=None):
    """Encoder's forward, or with one known mistake (a layer bug in every layer, no final norm, layers not chained, a
    residual of its own around each layer);
    with the probe's LayerDouble as the layer on an "_alone" case."""
    layer = double_layer if spec.layer == "stand_in" else encoder_layer
    layer_bug = bug if bug in LAYER_BUGS else None
    out = layer_norm(w, "norm.", x) if bug == "norm_first" else x
    order = range(1 if bug == "return_in_loop" else spec.n)
    for n in reversed(order) if bug == "layers_reversed" else order:
        source = 0 if bug == "first_layer_only" else n
        given = x if bug == "layers_not_chained" else out
        out = layer(spec, w, f"layers.{source}.", given, mask, dropout, layer_bug)
        out = given + out if bug == "encoder_residual" else out
        out = given if bug == "layer_output_discarded" else out  # layer(x, mask) called, its result dropped
        out = layer_norm(w, "norm.", out) if bug in ("norm_every_layer", "norm_every_layer_and_final") else out
    return out if bug in ("no_final_norm", "norm_first", "norm_every_layer") else layer_norm(w, "norm.", out)


def _models(case):
    """(label, model) pairs for `case`, the solution's own way (label None) first."""
    spec = probe.CASES[case]
    bugs = (None,) if spec.layer == "stand_in" else LAYER_BUGS
    bugs += ENCODER_BUGS if spec.cls == probe.ENCODER else ()
    return [(in_loop(case, LABELS.get(bug, bug)), bug) for bug in bugs]


def _call(bug, case, inputs):
    """Run one bug model as the probe ran the student's module: same input, weights and RNG seed."""
    spec = probe.CASES[case]
    dropout = torch.nn.Dropout(spec.dropout).train(spec.train)
    forward = encoder_layer if spec.cls == probe.LAYER else encoder
    prefix = ("",) if spec.cls == probe.LAYER else ()
    x, mask = inputs
    return seeded(lambda: forward(spec, model_weights(spec), *prefix, x, mask, dropout, bug), spec.seed)


MODEL_CODE = ModelCode(models=_models, call=_call)
### END BUG MODELS

MODELS = BugModels("ch07", same=same_output, bugs=BUGS)

# A layer mistake seen in an Encoder run of the student's own layers, which passed their own checks: what the
# Encoder's loop handed the layers caused it, so it is named there.
LOOP_BUGS = {"mask_not_passed": "loop_mask_not_passed", "mask_shape": "loop_mask_shape"}


def in_loop(case, bug):
    """`bug` as named on `case`: a layer mistake on an Encoder case built from the student's own EncoderLayer is the
    loop's (that run is judged only when the layer passes its own checks), e.g. layer(x, None)."""
    spec = probe.CASES[case]
    return LOOP_BUGS.get(bug, bug) if spec.cls == probe.ENCODER and spec.layer == "student" else bug


# ----------------------------------------------------------------------------- reading a case


def _layer_of(name):
    """'layers.1' of 'layers.1.self_attn.linears.0.weight' (None outside the stack)."""
    parts = name.split(".")
    return ".".join(parts[:2]) if parts[0] == "layers" and len(parts) > 1 else None


def _sublayer_owner(name):
    """The module holding `sublayer.K` in `name` ('layers.0.' or ''), or None if the name is not in a sublayer."""
    parts = name.split(".")
    return ".".join(parts[:parts.index("sublayer")]) if "sublayer" in parts else None


def sharing_problem(found, visible=True):
    """Korean: layers sharing weights, or the two sublayers sharing one SublayerConnection, or None (the shared
    names only on a visible case: on a hidden one they would show its number of layers)."""
    for group in found.get("shared") or []:
        if len({_layer_of(name) for name in group}) > 1:
            bug = "layers_shared"
        elif len({_sublayer_owner(name) for name in group}) == 1 and _sublayer_owner(group[0]) is not None:
            bug = "sublayer_reused"
        else:
            continue
        return module_judge.shared_problem({"shared": [group]}, BUGS[bug]) if visible else BUGS[bug]
    return None


def names_problem(expected, found):
    """Korean: the named structural mistakes (one SublayerConnection, no final norm, a final norm of another size),
    or None."""
    have = {name for name, _ in found["state_dict"]}
    want = {name for name, _ in expected["state_dict"]}
    if final_norm_resized(expected, found):
        return BUGS["norm_size"]
    if any(".sublayer.norm." in f".{name}" for name in have):
        return BUGS["sublayer_reused"]
    if "norm.a_2" in want and "norm.a_2" not in have:
        return BUGS["torch_layernorm"] if "norm.weight" in have else BUGS["no_final_norm"]
    return None


def final_norm_resized(expected, found):
    """Has the stack's own final norm (`norm.a_2`) another shape than the reference's (e.g. LayerNorm(512))?"""
    shapes = [dict(structure["state_dict"]).get("norm.a_2") for structure in (expected, found)]
    return None not in shapes and shapes[0] != shapes[1]


def structure_diagnosis(evidence, case):
    """The chapter's named structural mistakes on `case` (Korean), or None; a failed build is left to the triage."""
    trace = evidence.trace(case)
    if "structure" not in trace:
        return None
    found = trace["structure"]
    if found.get("unregistered"):
        return module_judge.unregistered_problem(found, BUGS["layers_list"])
    return sharing_problem(found, evidence.visible(case)) or names_problem(evidence.reference(case)["structure"], found)


ATTENTION = "MultiHeadedAttention"


def _first_layer(calls, case):
    """The calls made inside layer 0 (the whole record for an EncoderLayer case)."""
    prefix = "" if probe.CASES[case].cls == probe.LAYER else "layers.0."
    return [call for call in calls if call["module"].startswith(prefix)]


def _stack_problem(found, expected):
    """Which layers the Encoder's forward went through, against the reference's: a bug key, or None."""
    def attention_calls(calls):
        return [call["module"] for call in calls if call["kind"] == "MultiHeadedAttention"]

    mine, want = attention_calls(found), attention_calls(expected)
    if len(want) > 1 and mine and set(mine) == {want[0]}:
        return "return_in_loop" if len(mine) == 1 else "first_layer_only"
    if mine and set(mine) < set(want):  # some layers never ran (self.layers[1:], [:-1])
        return "layers_skipped"
    return "layers_reversed" if len(want) > 1 and mine == want[::-1] else None


def _origin_problem(found, expected):
    """What the calls inside layer 0 received, against the reference's: a bug key, or None."""
    if [call["kind"] for call in found] != [call["kind"] for call in expected]:
        kinds = [call["kind"] for call in found]
        if kinds and ATTENTION not in kinds and ATTENTION in [call["kind"] for call in expected]:
            return "attention_not_called"
        return "sublayers_swapped" if kinds == [call["kind"] for call in reversed(expected)] else None
    for mine, want in zip(found, expected):
        if want.get("mask") is not None and mine.get("mask") is None:
            return "mask_not_passed"
    norms, wanted = _norms(found), _norms(expected)
    if norms != wanted and all(norm.endswith("norm") for norm in norms):
        return "sublayer_reused" if len(set(norms)) < len(set(wanted)) else "sublayer_indices_swapped"
    for mine, want in zip(found, expected):
        if any(mine.get(argument) != want[argument] for argument in ("query", "key", "value", "x") if argument in want):
            return "lambda_ignores_argument"
    return None


def _norms(calls):
    """Where each call's first argument came from (a LayerNorm's name, an input, "other")."""
    return [call.get("query", call.get("x")) or "" for call in calls]


def calls_problem(evidence, case):
    """Korean: the mistake the recorded calls of the student's parts show (which layers ran, what each attention
    and feed-forward received), against the reference's calls, or None."""
    found, expected = evidence.trace(case).get("calls"), evidence.reference(case).get("calls")
    if not found or not expected or found == expected:
        return None
    finished = "result" in evidence.trace(case)  # a forward that raised stopped inside a layer: no stack evidence
    bug = (finished and _stack_problem(found, expected)) or \
        in_loop(case, _origin_problem(_first_layer(found, case), _first_layer(expected, case)))
    return BUGS[bug] if bug else None


def mask_shape_problem(evidence, case, error=None):
    """Korean: a self-attention call received a mask of another shape than the padding mask the forward was given
    (mask.unsqueeze(1): the attention adds the head axis itself), named where the shape changed (the layer, or the
    Encoder's loop), or None. On a visible case the two shapes are shown."""
    if probe.CASES[case].kind != "forward":
        return None
    given = list(evidence.inputs(case)[1].shape)
    for call in evidence.trace(case).get("calls") or ():
        mask = call.get("mask") if call["kind"] == "MultiHeadedAttention" else None
        if isinstance(mask, dict) and "shape" in mask and mask["shape"] != given:
            text = BUGS[in_loop(case, "mask_shape")]
            if evidence.visible(case):
                text += f" (self-attention이 받은 mask: {tuple(mask['shape'])}, forward가 받은 mask: {tuple(given)})"
            return text
    return None


def error_diagnosis(evidence, case, error):
    """A Korean diagnosis of an exception the student's code raised on `case`."""
    if error["type"] == "NotAModule":
        return BUGS["not_module"]
    models = MODELS if probe.CASES[case].kind == "forward" else None
    return explain_error(evidence, case, error, BUGS, rules=RULES, models=models, fallback=mask_shape_problem)


def dropout_rates(evidence, case, output, expected):
    """`dropout_rate` when the module's dropout rates differ from the reference's (a train-mode output then differs)."""
    found = evidence.trace(case).get("structure")
    return found and module_judge.dropout_problem(evidence.reference(case)["structure"], found, BUGS["dropout_rate"])


def output_problem(evidence, case, output):
    """Why the student's output on `case` differs from the reference (Korean), or None: what the recorded calls show
    first, then the bug models."""
    problem = module_judge.output_problem(evidence, case, output, MODELS, values=dropout_rates)
    if problem in MODEL_FIRST:
        return problem
    return problem and (mask_shape_problem(evidence, case) or calls_problem(evidence, case) or problem)


# Mistakes the recorded calls cannot tell from another (they show what each part received, not whether a
# SublayerConnection ran around it): a feed-forward returned bare looks like a lambda ignoring its argument.
MODEL_FIRST = (BUGS["ff_not_wrapped"],)


# ----------------------------------------------------------------------------- checks


def named_structure_first(case, judge_rest):
    """A judge: the chapter's named structural mistakes on `case` first, then `judge_rest`."""

    def judge(evidence):
        problem = structure_diagnosis(evidence, case)
        return Verdict.fail(evidence.about(case, problem)) if problem else judge_rest(evidence)

    return judge


def structure_check(case):
    """The module of `case` has the reference's names, shapes, parameter count, dropout rates (and `size`)."""
    rest = module_judge.structure_check(case, error_diagnosis, BUGS["dropout_rate"])

    def judge(evidence):
        verdict = rest(evidence)
        size = evidence.trace(case).get("attributes", {}).get("size", {})
        if verdict.fraction < 1 or probe.CASES[case].cls != probe.LAYER:
            return verdict
        if size.get("kind") != "number" or size["value"] != probe.CASES[case].d_model:
            return Verdict.fail(evidence.about(case, BUGS["size_missing"]))
        return verdict

    return named_structure_first(case, judge)


def output_check(case):
    """The student's forward output on `case` equals the reference's; otherwise name the bug."""
    return named_structure_first(case, module_judge.output_check(case, error_diagnosis, output_problem))


PAD_CASE = "layer_eval"  # pad_attention's case: the EncoderLayer alone, padding in two of its three sentences


def padding_weight(attn, case):
    """The largest weight any query gives a padding key in `attn` (batch, heads, length, length)."""
    lengths = probe.CASES[case].lengths
    return max((float(attn[b, ..., length:].abs().max()) for b, length in enumerate(lengths)
                if length < attn.shape[-1]), default=0.0)


def pad_attention(evidence):
    """The EncoderLayer's self-attention weights on its own padded case give every padding key weight 0: judged on the
    layer's own run, so a mistake in the Encoder (a hard-coded final norm that raises after the layers ran, the mask
    not handed to the layers) costs the Encoder's checks only."""
    case = PAD_CASE
    trace = evidence.trace(case)
    if "error" in trace or "result" not in trace:
        error = trace.get("error", {"type": "NoTrace", "message": ""})
        return Verdict.fail(evidence.about(case, error_diagnosis(evidence, case, error)))
    stored = trace["attributes"].get(probe.attn_path(probe.CASES[case]), {})
    expected = decode(evidence.reference(case)["attributes"][probe.attn_path(probe.CASES[case])])
    problem = None
    if stored.get("kind") != "tensor":  # never stored: the attention never called, else not the one given
        never_called = calls_problem(evidence, case) == BUGS["attention_not_called"]
        problem = BUGS["attention_not_called"] if never_called else ATTN_MISSING
    if problem is None and list(decode(stored).shape) != list(expected.shape):
        problem = (f"EncoderLayer의 self-attention 가중치 모양이 {tuple(decode(stored).shape)}입니다. "
                   f"{tuple(expected.shape)}이어야 합니다.")
    if problem is None and padding_weight(decode(stored), case) > 1e-6:
        problem = mask_problem(evidence, case) if _mask_missing(evidence, case) else BUGS["padding_leak"]
    return Verdict.of(problem and evidence.about(case, problem))


def mask_problem(evidence, case):
    """Korean: why layer 0's self-attention got no mask — what its own calls show first (the layer's wiring), then
    the whole stack's calls — or None."""
    found, expected = evidence.trace(case).get("calls") or [], evidence.reference(case).get("calls") or []
    bug = _origin_problem(_first_layer(found, case), _first_layer(expected, case))
    return BUGS[bug] if bug else calls_problem(evidence, case)


def _mask_missing(evidence, case):
    """Did some self-attention call of the student's receive no mask?"""
    return any(call["kind"] == "MultiHeadedAttention" and call.get("mask") is None
               for call in evidence.trace(case).get("calls") or ())


STAND_IN = ("Encoder의 검사는 채점기가 만든 EncoderLayer 대역으로 대신 채점합니다: 이 실수로는 EncoderLayer 검사의 "
            "점수만 잃습니다.")
LAYER_CASES = ("layer_module", "layer_eval")  # EncoderLayer's own visible cases


def own_judge(case):
    """The judge of one of EncoderLayer's own cases: its structure or its output."""
    return structure_check(case) if probe.CASES[case].kind == "module" else output_check(case)


def layer_check(judge):
    """An EncoderLayer check's judge that, when it fails, says Encoder is judged with the probe's stand-in."""
    return noting_stand_in(judge, STAND_IN)


def encoder_check(name, points, title, case, make, layer_cases=LAYER_CASES, visible=True):
    """A Encoder check of `case`, judged on the case's twin built with the probe's LayerDouble when the student's
    EncoderLayer fails one of `layer_cases`."""
    return twin_check(name, points, title, case, make, layer_cases, own_judge, visible=visible)


CHECKS = [
    Check(name="layer_structure", points=10, title="self_attn, feed_forward, sublayer.0–1 (SublayerConnection 두 개), size",
          cases=("layer_module",), judge=layer_check(structure_check("layer_module"))),
    encoder_check("encoder_structure", 10, "layers.0–1은 따로 복사한 층, 마지막 norm", "encoder_module", structure_check),
    Check(name="layer_forward", points=15, title="EncoderLayer: self-attention(mask) → 피드포워드, 각각 잔차 연결",
          cases=("layer_eval",), judge=layer_check(output_check("layer_eval"))),
    encoder_check("encoder_forward", 15, "Encoder: 층을 차례로 지난 뒤 마지막 norm", "encoder_eval", output_check),
    Check(name="pad_attention", points=10, title="EncoderLayer의 self-attention: padding 토큰의 가중치는 0",
          cases=(PAD_CASE,), judge=pad_attention),
    encoder_check("encoder_train", 10, "train 모드 Encoder (시드 고정 시 기준과 같음)", "encoder_train", output_check),
]

### BEGIN HIDDEN TESTS
CHECKS += [
    Check(name="hidden_layer", points=10, title="다른 크기와 padding의 EncoderLayer", cases=("hidden_layer",),
          judge=output_check("hidden_layer"), visible=False),
    encoder_check("hidden_encoder", 10, "다른 크기와 층 수의 Encoder", "hidden_encoder", output_check,
                  (*LAYER_CASES, "hidden_layer"), visible=False),
    encoder_check("hidden_train", 10, "다른 입력의 train 모드 Encoder", "hidden_train", output_check,
                  (*LAYER_CASES, "hidden_layer"), visible=False),
]
### END HIDDEN TESTS

# How the feedback page names and explains the picture (Korean).
PICTURE_TEXTS = {
    "title": "0번 인코더 층의 self-attention 가중치 그림 (head 0)",
    "what": "0번 층의 self_attn이 self.attn에 저장한 가중치 중 첫 번째 문장(batch 0)의 head 0",
    "missing": "코드가 오류로 끝났거나 0번 층의 self_attn이 불리지 않아 self.attn에 가중치가 없습니다",
    "rows": "query 토큰",
    "columns": "key 토큰",
    "note": "칸의 숫자는 head 0에서 i번째 토큰이 j번째 토큰을 참고하는 비율입니다. 행마다 합이 1이고, "
    "padding 토큰의 열(마지막 두 열)은 0이어야 합니다.",
}

# The feedback picture: layer 0's self-attention weights on the padded encoder case, batch 0, head 0.
CHAPTER = Chapter(id="07_encoder", probe=probe, checks=CHECKS, bugs=BUGS,
                  picture=Picture(case="encoder_eval", path=("attributes", "layers.0.self_attn.attn"), index=(0, 0),
                                  label="layers[0].self_attn.attn", texts=PICTURE_TEXTS),
                  model_code=MODEL_CODE)
