"""Chapter 08 checks: `DecoderLayer` (self-attention, source attention over the memory, feed forward) and `Decoder`.

Judge side. Structures are compared with the solution's (`module_judge`): three sublayers, N layers that
share nothing, a final norm. Outputs are compared with the reference's, on a memory longer or shorter
than the target, a padding `src_mask` and a causal + padding `tgt_mask`. A wrong output or an exception
names the most likely bug by running decoders with the masks swapped, the memory ignored or used as the
query, the feed forward or the final norm left out ("bug models") on the same weights, inputs and RNG
seed as the probe. With a memory of another length those three mistakes raise the same exception; the
case where both lengths are equal tells them apart.
"""
import functools
import itertools
import math
import re

import torch
import torch.nn.functional as F

from . import ch08_probe as probe
from . import messages, module_judge, modules
from .bugmodels import BugModels, ModelCode
from .calls import explain_error
from .compare import decode
from .contract import Chapter, Picture
from .framework import Check, Verdict, noting_stand_in, twin_check
from .module_judge import same_output, seeded

BUGS = {
    "stub": messages.stub("아직 작성하지 않은 부분이 있습니다", "TODO(08)"),
    "not_module": "DecoderLayer와 Decoder는 nn.Module을 상속해야 합니다. class 이름(nn.Module):로 정의하고 "
    "__init__에서 super().__init__()을 부르세요.",
    "names": module_judge.NAMES_DIFFER,
    "dropout_module": "dropout 비율이 기준과 다릅니다. SublayerConnection(size, dropout)에 생성자의 dropout을 넘기세요.",
    "size": "DecoderLayer에 self.size가 없거나 값이 다릅니다. self.size = size로 저장하세요. Decoder가 "
    "LayerNorm(layer.size)를 만들 때 씁니다.",
    "masks_swapped": "두 mask가 바뀌었습니다. self-attention에는 tgt_mask(앞 위치만 보기, (batch, T, T))를, "
    "source attention에는 src_mask(memory의 padding 가리기, (batch, 1, S))를 넘기세요.",
    "memory_ignored": "source attention이 encoder의 memory를 쓰지 않습니다(self.src_attn(x, x, x, …)). "
    "key와 value는 memory입니다: self.src_attn(x, memory, memory, src_mask).",
    "memory_normalised": "source attention의 key와 value에 memory를 LayerNorm으로 정규화해서 넘겼습니다. SublayerConnection의 "
    "정규화는 decoder의 x에만 겁니다. memory는 Encoder의 마지막 LayerNorm을 이미 거쳤으므로, key와 value에는 encoder가 준 "
    "memory를 그대로 넘기세요.",
    "memory_as_query": "source attention에서 memory를 query로 썼습니다. query는 decoder의 x, key와 value가 memory입니다: "
    "self.src_attn(x, memory, memory, src_mask). 출력의 위치 수는 query(target)의 길이를 따라야 합니다.",
    "third_sublayer": "세 번째 sublayer(feed forward)가 없거나 잔차 연결 없이 쓰였습니다. DecoderLayer의 sublayer는 self-attention, source "
    "attention, feed forward 세 개입니다: SublayerConnection 세 개를 만들고, 마지막 것으로 feed forward를 감싼 결과를 "
    "돌려주세요.",
    "final_norm": "Decoder의 마지막 LayerNorm이 없습니다. pre-norm 층을 쌓은 출력은 정규화되어 있지 않으므로 "
    "self.norm = LayerNorm(layer.size)를 만들고, 모든 층을 지난 뒤 return self.norm(x)로 돌려주세요.",
    "shared_layers": "Decoder의 층들이 같은 가중치를 함께 씁니다. [layer] * N이나 copy.copy(얕은 복사)는 같은 층을 "
    "N번 담습니다. self.layers = clones(layer, N)처럼 깊은 복사 N개를 만드세요.",
    "cross_before_self": "source attention을 self-attention보다 먼저 했습니다. DecoderLayer는 먼저 self-attention"
    "(sublayer[0], tgt_mask), 그다음 memory에 대한 source attention(sublayer[1], src_mask), 마지막에 feed forward"
    "(sublayer[2]) 순서입니다.",
    "attn_modules_swapped": "self.self_attn과 self.src_attn을 바꿔 불렀습니다. 계산 순서는 맞지만 self-attention에 "
    "src_attn의 가중치가, source attention에 self_attn의 가중치가 쓰입니다. self.self_attn(x, x, x, tgt_mask), "
    "self.src_attn(x, m, m, src_mask)로 부르세요.",
    "self_attn_for_source": "source attention에도 self.self_attn을 불렀습니다. self.src_attn은 한 번도 쓰이지 않아 "
    "memory에 대한 attention이 self-attention의 가중치로 계산됩니다. 두 번째 sublayer에서는 self.src_attn(x, m, m, "
    "src_mask)를 부르세요.",
    "self_attn_skipped": "DecoderLayer가 self-attention(self.self_attn)을 부르지 않았습니다. DecoderLayer는 세 단계입니다: "
    "tgt_mask를 쓴 self-attention(sublayer[0]), memory에 대한 source attention(sublayer[1]), feed forward(sublayer[2]).",
    "src_attn_skipped": "DecoderLayer가 source attention(self.src_attn)을 부르지 않아 encoder의 memory를 읽지 않습니다. "
    "self-attention(sublayer[0]) 다음에 src_mask를 쓴 source attention(sublayer[1])을 거친 뒤 feed forward(sublayer[2])로 "
    "가세요.",
    "sublayer_reused": "같은 SublayerConnection을 두 번 썼습니다(번호가 겹칩니다). 그러면 한 sublayer의 LayerNorm과 dropout이 "
    "두 곳에 쓰이고 다른 하나는 쓰이지 않습니다. self-attention은 sublayer[0], source attention은 sublayer[1], "
    "feed forward는 sublayer[2]로 감싸세요.",
    "sublayer_indices_swapped": "sublayer의 번호를 바꿔 썼습니다. 순서는 맞지만 self-attention은 sublayer[0], source "
    "attention은 sublayer[1], feed forward는 sublayer[2]로 감싸야 state_dict의 가중치가 제자리에 들어갑니다.",
    "tgt_mask_not_passed": "self-attention에 tgt_mask를 넘기지 않았습니다. 그러면 각 위치가 뒤의(아직 생성하지 않은) "
    "토큰까지 봅니다. self.self_attn(x, x, x, tgt_mask)처럼 넘기세요.",
    "src_mask_not_passed": "source attention에 src_mask를 넘기지 않았습니다. 그러면 memory의 padding 위치에도 가중치가 "
    "갑니다. self.src_attn(x, memory, memory, src_mask)처럼 넘기세요.",
    "lambda_ignores_argument": "SublayerConnection에 넘긴 함수가 자기 인자를 쓰지 않고 바깥의 x를 씁니다. "
    "SublayerConnection은 정규화한 값을 그 함수에 넘기므로, lambda y: self.self_attn(x, x, x, tgt_mask)나 "
    "lambda y: self.src_attn(x, memory, memory, src_mask)처럼 바깥 x를 쓰면 정규화를 건너뜁니다. lambda의 인자를 쓰세요: "
    "lambda x: self.self_attn(x, x, x, tgt_mask).",
    "memory_not_key_value": "source attention의 key와 value가 모두 encoder의 memory여야 합니다. 한쪽에 decoder의 x를 "
    "넣었습니다: self.src_attn(x, memory, memory, src_mask).",
    "memory_replaced": "층을 지나며 memory를 바꿨습니다. 모든 층은 encoder가 준 같은 memory를 씁니다. 층마다 바뀌는 것은 x뿐입니다.",
    "return_in_loop": "Decoder가 첫 층만 지나고 끝났습니다. 층 루프 안에서 return했다면 return self.norm(x)를 for 루프가 "
    "끝난 뒤(들여쓰기 밖)에 두고, self.layers의 일부만 돌았다면(self.layers[:-1]) 모든 층을 지나세요.",
    "layers_reversed": "Decoder가 층을 거꾸로(마지막 층부터) 지났습니다(reversed(self.layers)나 self.layers[::-1]처럼). "
    "x는 self.layers[0]부터 self.layers에 담긴 순서대로 한 층씩 지나야 합니다.",
    "layers_skipped": "Decoder가 self.layers의 층을 모두 지나지 않았습니다(self.layers[1:]이나 self.layers[:-1]처럼 일부만 "
    "돌았습니다). self.layers[0]부터 모든 층을 차례로 지나세요.",
    "decoder_residual": "Decoder에서 층의 출력에 층의 입력을 다시 더했습니다(x = x + layer(x, memory, src_mask, "
    "tgt_mask)). 잔차 연결은 층 안의 SublayerConnection이 이미 더하므로, Decoder는 층의 출력만 다음 층의 입력으로 "
    "넘기세요(입력을 더하지 말고).",
    "norm_every_layer": "마지막 LayerNorm(self.norm)을 층마다 적용했습니다. self.norm은 모든 층을 지난 뒤 한 번만 "
    "적용합니다: return self.norm(x).",
    "layers_not_chained": "층마다 Decoder가 받은 처음 x를 넣었습니다. 그러면 마지막 층의 출력만 남습니다: 각 층의 출력이 "
    "다음 층의 입력입니다. 층의 출력으로 x를 이어서 바꾸세요.",
    "self_attn_src_mask": "self-attention에 tgt_mask 대신 src_mask를 넘겼습니다(source attention과 같은 mask). 그러면 "
    "각 위치가 뒤의(아직 생성하지 않은) 토큰까지 보고, target과 memory의 길이가 다르면 mask의 모양이 맞지 않아 오류가 "
    "납니다. self.self_attn(x, x, x, tgt_mask)처럼 넘기세요.",
    "src_attn_tgt_mask": "source attention에 src_mask 대신 tgt_mask를 넘겼습니다(self-attention과 같은 mask). source "
    "attention의 key는 memory이므로 memory의 padding을 가리는 src_mask((batch, 1, S))를 넘기세요: "
    "self.src_attn(x, memory, memory, src_mask). target과 memory의 길이가 다르면 mask의 모양이 맞지 않아 오류가 납니다.",
    "memory_residual": "source attention 부분층의 잔차에 memory를 더했습니다(x + memory, memory + …, "
    "self.sublayer[1](memory, …)처럼). 잔차 연결은 부분층의 입력 x를 더합니다: SublayerConnection이 "
    "x + dropout(sublayer(norm(x)))를 계산하므로 self.sublayer[1]에는 x를 넘기고, memory는 lambda 안에서 "
    "src_attn의 key와 value로만 쓰세요. target과 memory의 길이가 다르면 더할 수 없어 오류가 납니다.",
    "double_residual": "잔차를 두 번 더했습니다(x + self.sublayer[i](x, …)). SublayerConnection이 이미 x + "
    "dropout(sublayer(norm(x)))로 잔차를 더해 돌려주므로, 그 결과를 그대로 쓰세요: x = self.sublayer[i](x, …).",
    "x_memory_swapped": "Decoder가 층을 부를 때 x와 memory의 자리를 바꿨습니다(layer(memory, x, …)). DecoderLayer의 "
    "forward는 x, memory, src_mask, tgt_mask 순서로 받으니, 층을 부를 때 지금까지의 출력 x를 첫 번째, "
    "encoder의 memory를 두 번째 인자로 넘기세요.",
    "norm_size": "Decoder의 마지막 LayerNorm의 크기가 층의 크기(layer.size)와 다릅니다. 512 같은 숫자를 직접 쓰면 "
    "d_model이 다른 모델에서 맞지 않습니다. LayerNorm의 크기로 층의 크기(layer.size)를 넘기세요.",
    "torch_layernorm": "Decoder의 마지막 정규화에 torch의 nn.LayerNorm을 썼습니다. 그 parameter 이름은 weight, bias라서 이 "
    "과정의 LayerNorm(a_2, b_2, n-1로 나누는 표준편차)과 이름도 계산도 다릅니다. self.norm = LayerNorm(layer.size)를 쓰세요.",
    "loop_tgt_mask_not_passed": "Decoder가 층을 부를 때 tgt_mask를 넘기지 않았습니다(layer(x, memory, src_mask, None)"
    "처럼). 그러면 층의 self-attention이 뒤의(아직 생성하지 않은) 토큰까지 봅니다. Decoder의 for 루프에서 "
    "각 층에 forward가 받은 두 mask를 그대로 넘기세요.",
    "loop_src_mask_not_passed": "Decoder가 층을 부를 때 src_mask를 넘기지 않았습니다(layer(x, memory, None, tgt_mask)"
    "처럼). 그러면 층의 source attention이 memory의 padding 위치에도 가중치를 줍니다. Decoder의 for 루프에서 "
    "각 층에 forward가 받은 두 mask를 그대로 넘기세요.",
    "loop_masks": "Decoder가 층에 두 mask를 제자리에 넘기지 않았습니다(자리를 바꿨거나 한 mask를 두 번 넘겼습니다). "
    "DecoderLayer의 forward는 x, memory, src_mask, tgt_mask 순서로 받으니, 세 번째 인자로 src_mask, 네 번째로 "
    "tgt_mask를 넘기세요.",
    "loop_memory_changed": "Decoder가 층에 encoder의 memory를 그대로 넘기지 않았습니다(self.norm(memory)나 x처럼 다른 "
    "값을 넘겼습니다). memory는 encoder의 출력 그대로 모든 층의 source attention이 "
    "참고하니, 각 층에 두 번째 인자로 그대로 넘기세요.",
    "mask_shape": "attention에 mask의 모양을 바꿔 넘겼습니다(tgt_mask.unsqueeze(1)처럼). DecoderLayer는 forward가 받은 "
    "tgt_mask와 src_mask를 그대로 넘기세요. MultiHeadedAttention이 head 축을 위해 mask.unsqueeze(1)을 스스로 하므로, 밖에서 "
    "축을 더하거나 빼면 점수(batch, h, 길이, 길이)와 모양이 맞지 않습니다.",
    "loop_mask_shape": "Decoder가 층에 넘기는 mask의 모양을 바꿨습니다(unsqueeze(1)처럼). 각 층에는 forward가 받은 두 "
    "mask를 그대로 넘기세요. MultiHeadedAttention이 head 축을 위해 mask.unsqueeze(1)을 스스로 합니다.",
    "layers_list": "층을 nn.ModuleList가 아닌 list에 담았습니다. 그러면 층의 parameter가 등록되지 않습니다. "
    "self.layers = clones(layer, N)을 쓰세요.",
}

SHARED_HINT = BUGS["shared_layers"]
LIST_HINT = BUGS["layers_list"]
PARTS = (  # (pattern of the only names missing, bug): a whole part left out of the module
    (re.compile(r"(^|\.)sublayer\.2\."), "third_sublayer"),
    (re.compile(r"^norm\."), "final_norm"),
)

# ----------------------------------------------------------------------------- bug models
### BEGIN BUG MODELS

LAYER_BUGS = {  # how a DecoderLayer computes: label
    "right": None,
    "masks_swapped": "masks_swapped",
    "memory_ignored": "memory_ignored",
    "memory_as_query": "memory_as_query",
    "no_feed_forward": "third_sublayer",
    "plain_feed_forward": "third_sublayer",
    "self_attn_src_mask": "self_attn_src_mask",
    "src_attn_tgt_mask": "src_attn_tgt_mask",
    "double_residual": "double_residual",
    "double_residual_ff": "double_residual",
    "attn_modules_swapped": "attn_modules_swapped",
    # the source attention's residual adds the memory: as the residual (m + dropout(src_attn(norm(x), m, m)), or
    # self.sublayer[1](m, lambda m: self.src_attn(x, m, m, src_mask))), or on top of x (self.sublayer[1](x, …) + m,
    # self.sublayer[1](x + m, …))
    "memory_residual": "memory_residual",
    "memory_residual_sublayer": "memory_residual",
    "memory_added": "memory_residual",
    "memory_added_input": "memory_residual",
}


DECODER_BUGS = ("return_in_loop", "norm_every_layer", "layers_not_chained", "norm_every_layer_and_final",
                "layers_reversed", "decoder_residual")
DECODER_LABELS = {"norm_every_layer_and_final": "norm_every_layer"}  # model → bug key


@functools.lru_cache(maxsize=1024)
def _weight(seed, name, shape):
    """The weight the probe loaded under `name`, drawn again from the case's seed."""
    return modules.seeded_weights([(name, list(shape))], seed)[name]


def _linear(spec, name, x, out_features, in_features):
    return F.linear(x, _weight(spec.seed, f"{name}.weight", (out_features, in_features)),
                    _weight(spec.seed, f"{name}.bias", (out_features,)))


def _dropout(spec, x):
    return F.dropout(x, spec.dropout, spec.train)


def _norm(spec, prefix, x):
    a, b = (_weight(spec.seed, f"{prefix}{name}", (spec.d_model,)) for name in ("a_2", "b_2"))
    return a * (x - x.mean(-1, keepdim=True)) / (x.std(-1, keepdim=True) + 1e-6) + b


def _attention(spec, prefix, query, key, value, mask):
    """Multi-head attention with the weights under `prefix`, computed the way the shipped class does."""
    d, h = spec.d_model, spec.h
    n, d_k = query.size(0), d // h
    mask = None if mask is None else mask.unsqueeze(1)
    query, key, value = [_linear(spec, f"{prefix}linears.{i}", t, d, d).view(n, -1, h, d_k).transpose(1, 2)
                         for i, t in enumerate((query, key, value))]
    scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == 0, -1e9)
    x = torch.matmul(_dropout(spec, scores.softmax(dim=-1)), value)
    return _linear(spec, f"{prefix}linears.3", x.transpose(1, 2).contiguous().view(n, -1, d), d, d)


def _feed_forward(spec, prefix, x):
    wide = _dropout(spec, _linear(spec, f"{prefix}w_1", x, spec.d_ff, spec.d_model).relu())
    return _linear(spec, f"{prefix}w_2", wide, spec.d_model, spec.d_ff)


def _sublayer(spec, prefix, x, sublayer, twice=False):
    """SublayerConnection; `twice`: the caller adds the residual once more (x + self.sublayer[i](x, …))."""
    return (x if twice else 0) + x + _dropout(spec, sublayer(_norm(spec, f"{prefix}norm.", x)))


def decoder_layer(spec, prefix, x, memory, src_mask, tgt_mask, bug="right"):
    """One DecoderLayer with the weights under `prefix`, the solution's way or with one known mistake."""
    self_mask, source_mask = {"masks_swapped": (src_mask, tgt_mask), "self_attn_src_mask": (src_mask, src_mask),
                              "src_attn_tgt_mask": (tgt_mask, tgt_mask)}.get(bug, (tgt_mask, src_mask))
    twice = bug == "double_residual"
    selfs, sources = ("src_attn.", "self_attn.") if bug == "attn_modules_swapped" else ("self_attn.", "src_attn.")

    def source(y):
        query, key = {"memory_ignored": (y, y), "memory_as_query": (memory, y)}.get(bug, (y, memory))
        return _attention(spec, f"{prefix}{sources}", query, key, key, source_mask)

    x = _sublayer(spec, f"{prefix}sublayer.0.", x, lambda y: _attention(spec, f"{prefix}{selfs}", y, y, y, self_mask),
                  twice)
    x = source_sublayer(spec, prefix, x, memory, source, source_mask, bug, twice)
    if bug == "no_feed_forward":
        return x
    if bug == "plain_feed_forward":
        return _feed_forward(spec, f"{prefix}feed_forward.", x)
    return _sublayer(spec, f"{prefix}sublayer.2.", x, lambda y: _feed_forward(spec, f"{prefix}feed_forward.", y),
                     twice or bug == "double_residual_ff")


def source_sublayer(spec, prefix, x, memory, source, source_mask, bug, twice):
    """The source attention's sublayer (sublayer[1]) around `source`, its residual the solution's or with the memory
    added (`bug`: memory_residual, memory_residual_sublayer, memory_added, memory_added_input)."""
    where = f"{prefix}sublayer.1."
    if bug == "memory_residual":  # m + dropout(src_attn(norm(x), m, m, src_mask))
        return memory + _dropout(spec, source(_norm(spec, f"{where}norm.", x)))
    if bug == "memory_residual_sublayer":  # self.sublayer[1](m, lambda m: self.src_attn(x, m, m, src_mask))
        normed = _norm(spec, f"{where}norm.", memory)
        return memory + _dropout(spec, _attention(spec, f"{prefix}src_attn.", x, normed, normed, source_mask))
    if bug == "memory_added":  # self.sublayer[1](x, …) + m
        return _sublayer(spec, where, x, source) + memory
    if bug == "memory_added_input":  # self.sublayer[1](x + m, …)
        return _sublayer(spec, where, x + memory, source)
    return _sublayer(spec, where, x, source, twice)


def double_layer(spec, prefix, x, memory, src_mask, tgt_mask, bug="right"):
    """The probe's LayerDouble with the weights under `prefix` (the "_alone" cases' layer; `bug` is the Decoder's)."""
    keep = src_mask.transpose(-2, -1).to(x.dtype)
    source = (memory * keep).sum(-2, keepdim=True) / keep.sum(-2, keepdim=True)
    seen = tgt_mask.to(x.dtype)
    past = seen @ x / seen.sum(-1, keepdim=True).clamp(min=1)
    return x + _dropout(spec, torch.tanh(_linear(spec, f"{prefix}mix", past + source, spec.d_model, spec.d_model)))


def decoder(spec, inputs, bug="right", final_norm=True):
    """A DecoderLayer case, or a Decoder of N such layers with (or without) its final norm; the layers are the probe's
    LayerDouble on an "_alone" case."""
    if spec.cls == probe.LAYER:
        return decoder_layer(spec, "", *inputs, bug)
    layer = double_layer if spec.layer == "stand_in" else decoder_layer
    x, rest = inputs[0], inputs[1:]
    if bug == "decoder_masks_swapped":  # layer(x, memory, tgt_mask, src_mask): what masks_swapped is to the stand-in
        rest = (rest[0], rest[2], rest[1])
    order = range(1 if bug == "return_in_loop" else spec.N)
    for index in reversed(order) if bug == "layers_reversed" else order:
        given = inputs[0] if bug == "layers_not_chained" else x  # every layer on the decoder's own input
        if bug == "x_memory_swapped":  # layer(memory, x, …): the memory as every layer's x, the running x as memory
            x = layer(spec, f"layers.{index}.", rest[0], x, *rest[1:], "right")
            continue
        x = layer(spec, f"layers.{index}.", given, *rest, bug if bug in LAYER_BUGS else "right")
        x = given + x if bug == "decoder_residual" else x
        x = _norm(spec, "norm.", x) if bug in ("norm_every_layer", "norm_every_layer_and_final") else x
    return _norm(spec, "norm.", x) if final_norm and bug != "norm_every_layer" else x


def _label(*bugs):
    """The bug keys a model stands for (None: the solution's way)."""
    found = tuple(bug for bug in bugs if bug)
    return (found[0] if len(found) == 1 else found) or None


def _models(case):
    """(label, model) pairs for `case`, the solution's own way first."""
    spec = probe.CASES[case]
    if spec.cls == probe.LAYER:
        return [(label, (bug, True)) for bug, label in LAYER_BUGS.items()]
    layer_bugs = {"right": None, "decoder_masks_swapped": "loop_masks"} if spec.layer == "stand_in" else \
        {bug: in_loop(case, label) for bug, label in LAYER_BUGS.items()}
    # Before the layer's own mistakes: a Decoder case is judged on the student's layers only when they pass their own
    # checks, and layer(memory, x, …) raises the error a source attention given tgt_mask raises.
    return [("x_memory_swapped", ("x_memory_swapped", True))] + [(_label(label, None if norm else "final_norm"), (bug, norm))
            for norm, (bug, label) in itertools.product((True, False), layer_bugs.items())] + \
        [(DECODER_LABELS.get(bug, bug), (bug, True)) for bug in DECODER_BUGS]


def _call(model, case, inputs):
    """Run one bug model as the probe ran the student's module: same inputs, weights and RNG seed."""
    spec = probe.CASES[case]
    return seeded(lambda: decoder(spec, inputs, *model), spec.seed)


MODEL_CODE = ModelCode(models=_models, call=_call)
### END BUG MODELS


def _student(evidence, case):
    """The student's output on `case` (for the tie-break), or None."""
    result = evidence.trace(case).get("result", {})
    return decode(result) if result.get("kind") == "tensor" else None


MODELS = BugModels("ch08", same=same_output, bugs=BUGS, student=_student, tie_break="same_length")

# A layer mistake seen in a Decoder run of the student's own layers, which passed their own checks: what the Decoder's
# loop handed the layers (layer(x, memory, src_mask, None), self.norm(memory), …) caused it, so it is named there.
LOOP_BUGS = {"tgt_mask_not_passed": "loop_tgt_mask_not_passed", "src_mask_not_passed": "loop_src_mask_not_passed",
             "masks_swapped": "loop_masks", "self_attn_src_mask": "loop_masks", "src_attn_tgt_mask": "loop_masks",
             "memory_ignored": "loop_memory_changed", "memory_not_key_value": "loop_memory_changed",
             "memory_normalised": "loop_memory_changed", "mask_shape": "loop_mask_shape"}


def in_loop(case, bug):
    """`bug` as named on `case`: a layer mistake on a Decoder case built from the student's own DecoderLayer is the
    loop's (that run is judged only when the layer passes its own checks)."""
    spec = probe.CASES[case]
    return LOOP_BUGS.get(bug, bug) if spec.cls == probe.DECODER and spec.layer == "student" else bug

# ----------------------------------------------------------------------------- reading a case

TIE_BREAK = ("same_length",)  # every forward check reads it: it tells apart mistakes that raise the same error
RULES = [("object has no attribute 'size'", "size")]


def _layer_calls(calls, prefix):
    """{part name inside the layer: call} of the calls made inside the layer under `prefix` (first call of each)."""
    found = {}
    for call in calls:
        if call["module"].startswith(prefix):
            found.setdefault(call["module"][len(prefix):], call)
    return found


def _stack_bug(found, expected, finished):
    """Which layers the Decoder's forward went through and with which memory, against the reference's: a key or None.
    Only a `finished` forward shows which layers it skipped (one that raised stopped inside a layer)."""
    layers = sorted({call["module"].split(".")[1] for call in expected if call["module"].startswith("layers.")})
    ran = {call["module"].split(".")[1] for call in found if call["module"].startswith("layers.")}
    if finished and len(layers) > 1 and ran == {layers[0]}:
        return "return_in_loop"
    if finished and ran and ran < set(layers):
        return "layers_skipped"
    first = list(dict.fromkeys(call["module"].split(".")[1] for call in found if call["module"].startswith("layers.")))
    if len(layers) > 1 and first == layers[::-1]:  # every layer ran, the last one first
        return "layers_reversed"
    for layer in layers[1:]:
        source = _layer_calls(found, f"layers.{layer}.").get("src_attn", {})
        if source.get("key") not in (None, "input:memory") and source.get("value") not in (None, "input:memory") \
                and _layer_calls(found, "layers.0.").get("src_attn", {}).get("key") == "input:memory":
            return "memory_replaced"
    return None


def _mask_bug(mine, want):
    """What the two attentions received as masks, against the reference's: a key or None."""
    masks = {part: mine.get(part, {}).get("mask") for part in ("self_attn", "src_attn")}
    if masks["self_attn"] == "input:src_mask" and masks["src_attn"] == "input:tgt_mask":
        return "masks_swapped"
    if masks["self_attn"] == "input:src_mask" == masks["src_attn"]:  # nothing swapped: src_mask given twice
        return "self_attn_src_mask"
    if masks["self_attn"] == "input:tgt_mask" == masks["src_attn"]:  # nothing swapped: tgt_mask given twice
        return "src_attn_tgt_mask"
    if masks["self_attn"] == "input:src_mask" and "src_attn" not in mine:
        return None  # stopped before the source attention: swapped or given twice, the bug models' tie-break tells
    if "self_attn" in mine and masks["self_attn"] is None:
        return "tgt_mask_not_passed"
    if "src_attn" in mine and masks["src_attn"] is None:
        return "src_mask_not_passed"
    ran = [part for part in masks if part in mine and part in want]  # a forward that raised may stop before a part
    if any(isinstance(masks[part], dict) and "shape" in masks[part] and masks[part] != want[part]["mask"]
           for part in ran):
        return "mask_shape"  # neither input mask: one of them with an axis added or removed
    return "masks_swapped" if any(masks[part] != want[part]["mask"] for part in ran) else None


def _source_bug(call):
    """What the source attention took as query, key and value: a key or None."""
    if call.get("query") == "input:memory":
        return "memory_as_query"
    sides = (call.get("key"), call.get("value"))
    if "input:memory" not in sides and all(side and side.endswith("norm") for side in sides):
        return "memory_normalised"  # a LayerNorm's output: the sublayer's norm put on the memory too
    if "input:memory" not in sides:
        return "memory_ignored"
    return "memory_not_key_value" if sides != ("input:memory", "input:memory") else None


def _layer_bug(found, expected, prefix):
    """What the parts of the layer under `prefix` received, in which order, against the reference's: a key or None."""
    mine, want = _layer_calls(found, prefix), _layer_calls(expected, prefix)
    order = [call["module"][len(prefix):] for call in found if call["module"][len(prefix):] in want]
    if order[:2] == ["src_attn", "self_attn"]:  # the memory's attention first, or the two modules' names swapped
        swapped = mine["self_attn"].get("key") == "input:memory" and mine["src_attn"].get("key") != "input:memory"
        return "attn_modules_swapped" if swapped else "cross_before_self"
    parts = [call["module"][len(prefix):] for call in found if call["module"].startswith(prefix)]
    if "src_attn" in want and "src_attn" not in parts and parts.count("self_attn") == 2:
        return "self_attn_for_source"
    if "self_attn" in want and "self_attn" not in parts and "src_attn" in parts:  # it ran on past the step it skipped
        return "self_attn_skipped"
    if "src_attn" in want and "src_attn" not in parts and "self_attn" in parts and "feed_forward" in parts:
        return "src_attn_skipped"
    bug = _mask_bug(mine, want) or (_source_bug(mine["src_attn"]) if "src_attn" in mine else None)
    if bug:
        return bug
    norms = {part: call.get("query", call.get("x")) for part, call in mine.items()}
    wanted = {part: call.get("query", call.get("x")) for part, call in want.items()}
    if any(origin in ("other", "input:x") for origin in norms.values()):
        return "lambda_ignores_argument"
    if len(set(norms.values())) < len(norms) and len(set(wanted.values())) == len(wanted) and len(norms) == len(wanted):
        return "sublayer_reused"  # e.g. self.sublayer[1] around the feed forward too
    return "sublayer_indices_swapped" if norms != wanted and set(norms.values()) == set(wanted.values()) else None


def calls_problem(evidence, case):
    """Korean: the mistake the recorded calls show (which layers ran, which masks, query, key and value each attention
    received, in which order), against the reference's calls, or None."""
    found, expected = evidence.trace(case).get("calls"), evidence.reference(case).get("calls")
    if not found or not expected or found == expected:
        return None
    prefix = "layers.0." if probe.CASES[case].cls == probe.DECODER else ""
    bug = _stack_bug(found, expected, "result" in evidence.trace(case)) or \
        in_loop(case, _layer_bug(found, expected, prefix))
    return BUGS[bug] if bug else None


def error_diagnosis(evidence, case, error):
    """A Korean diagnosis of an exception the student's code raised on `case`: what the recorded calls show first."""
    if error["type"] == "NotAModule":
        return BUGS["not_module"]
    confirmed = confirmed_model(evidence, case, error)
    if confirmed:
        return confirmed
    shown = calls_problem(evidence, case) if probe.CASES[case].kind == "forward" else None
    if shown and error["type"] != "NotImplementedError":
        return shown
    models = MODELS if probe.CASES[case].kind == "forward" else None
    return explain_error(evidence, case, error, BUGS, rules=RULES, models=models)


def confirmed_model(evidence, case, error):
    """Korean: the bug of a model that raises the student's exception on `case` and also reproduces the student's
    output on the tie-break case (memory and target of one length, where these mistakes run), or None. Both at once
    outweigh what the calls show: a call record cannot tell a normalised memory from a normalised x
    (self.sublayer[1](memory, lambda m: self.src_attn(x, m, m, src_mask)) looks like the memory ignored)."""
    if probe.CASES[case].kind != "forward" or case in TIE_BREAK or not all(map(evidence.may_read, TIE_BREAK)):
        return None
    found = MODELS.matching(evidence, case, error=error)
    shown = {label for other in TIE_BREAK for label in MODELS.shown(evidence, other)}
    confirmed = [label for label in found if label in shown]
    return MODELS.explain(evidence, case, confirmed) if confirmed else None


def output_problem(evidence, case, output):
    """Why the student's output on `case` differs from the reference (Korean), or None: layers that never ran (what the
    recorded calls show directly), else a bug model that reproduces it, else what the recorded calls show, else the
    shape or values."""
    problem = module_judge.output_problem(evidence, case, output, MODELS)
    skipped = problem and layers_not_run(evidence, case)
    if skipped:
        return skipped
    if MODELS.matching(evidence, case, student=output):
        return problem
    return problem and (calls_problem(evidence, case) or problem)


def layers_not_run(evidence, case):
    """Korean: the Decoder's finished forward left layers out (`return_in_loop`, `layers_skipped`), or None. Only the
    calls tell self.layers[1:] from layers not chained: with N=2 both give layer 1's output on the input."""
    found, expected = evidence.trace(case).get("calls"), evidence.reference(case).get("calls")
    if not found or not expected or "result" not in evidence.trace(case):
        return None
    bug = _stack_bug(found, expected, True)
    return BUGS[bug] if bug in ("return_in_loop", "layers_skipped") else None


def part_missing(evidence, case):
    """Korean: the student's module lacks a whole part (the third sublayer, the final norm), or has torch's
    nn.LayerNorm or a norm of another size (LayerNorm(512)) as its final norm, or None."""
    found = evidence.trace(case).get("structure")
    if not found:
        return None
    have = [name for name, _ in found["state_dict"]]
    want = [name for name, _ in evidence.reference(case)["structure"]["state_dict"]]
    missing = set(want) - set(have)
    if "norm.a_2" in missing and "norm.weight" in have:  # torch's nn.LayerNorm as the final norm
        return BUGS["torch_layernorm"]
    shapes = [dict(structure["state_dict"]).get("norm.a_2") for structure in (evidence.reference(case)["structure"], found)]
    if None not in shapes and shapes[0] != shapes[1]:  # the final norm's size hard-coded
        return BUGS["norm_size"]
    if not missing or set(have) - set(want):
        return None
    return next((BUGS[bug] for pattern, bug in PARTS if all(pattern.search(name) for name in missing)), None)


def whole(case, judge):
    """`judge`, after making sure the module of `case` has all its parts (naming the part that is missing)."""

    def checked(evidence):
        problem = part_missing(evidence, case)
        return Verdict.fail(evidence.about(case, problem)) if problem else judge(evidence)

    return checked


# ----------------------------------------------------------------------------- checks


def structure_check(case):
    """The module of `case` has the reference's names, shapes, parameter count and dropout rates, and its `size`."""
    structure = module_judge.structure_check(case, error_diagnosis, BUGS["dropout_module"], SHARED_HINT, LIST_HINT)

    def judge(evidence):
        verdict = structure(evidence)
        if verdict.fraction < 1 or probe.CASES[case].cls != probe.LAYER:
            return verdict
        size = evidence.trace(case)["attributes"]["size"]
        return Verdict.of(None if size == evidence.reference(case)["attributes"]["size"]
                          else evidence.about(case, BUGS["size"]))

    return whole(case, judge)


def output_check(case):
    """The student's forward output on `case` equals the reference's; otherwise name the bug."""
    return whole(case, module_judge.output_check(case, error_diagnosis, output_problem, SHARED_HINT, LIST_HINT))


STAND_IN = ("Decoder의 검사는 채점기가 만든 DecoderLayer 대역으로 대신 채점합니다: 이 실수로는 DecoderLayer 검사의 "
            "점수만 잃습니다.")
LAYER_CASES = ("layer_module", "layer_eval", "same_length")  # DecoderLayer's own visible cases


def own_judge(case):
    """The judge of one of DecoderLayer's own cases: its structure or its output."""
    return structure_check(case) if probe.CASES[case].kind == "module" else output_check(case)


def layer_check(judge):
    """A DecoderLayer check's judge that, when it fails, says Decoder is judged with the probe's stand-in."""
    return noting_stand_in(judge, STAND_IN)


def decoder_check(name, points, title, case, make, layer_cases=LAYER_CASES, visible=True):
    """A Decoder check of `case`, judged on the case's twin built with the probe's LayerDouble when the student's
    DecoderLayer fails one of `layer_cases`."""
    return twin_check(name, points, title, case, make, layer_cases, own_judge, reads=TIE_BREAK, visible=visible)


CHECKS = [
    Check(name="layer_structure", points=10, title="DecoderLayer의 이름과 모양: self_attn, src_attn, feed_forward, sublayer 세 개, self.size",
          cases=("layer_module",), judge=layer_check(structure_check("layer_module"))),
    Check(name="layer_forward", points=15, title="DecoderLayer 출력 = 기준 (memory 길이 ≠ target 길이, 두 mask)",
          cases=("layer_eval",), reads=TIE_BREAK, judge=layer_check(output_check("layer_eval"))),
    Check(name="same_length", points=10, title="memory 길이 = target 길이인 DecoderLayer 출력 = 기준 (mask나 query가 바뀌면 값이 달라짐)",
          cases=("same_length",), judge=layer_check(output_check("same_length"))),
    decoder_check("decoder_structure", 10, "Decoder의 이름과 모양: 깊은 복사 N개 층(nn.ModuleList)과 마지막 norm",
                  "decoder_module", structure_check),
    decoder_check("decoder_forward", 15, "Decoder(N=2) 출력 = 기준 (층마다 같은 memory와 mask, 마지막 norm)",
                  "decoder_eval", output_check),
    decoder_check("decoder_train", 10, "train 모드 Decoder 출력 = 기준 (시드 고정)", "decoder_train", output_check),
]

### BEGIN HIDDEN TESTS
CHECKS += [
    Check(name="hidden_layer", points=10, title="다른 크기와 길이의 DecoderLayer 출력 = 기준", cases=("hidden_layer",),
          reads=TIE_BREAK, judge=output_check("hidden_layer"), visible=False),
    decoder_check("hidden_decoder", 10, "N=3, memory가 target보다 짧은 Decoder 출력 = 기준", "hidden_decoder",
                  output_check, (*LAYER_CASES, "hidden_layer"), visible=False),
    decoder_check("hidden_train", 10, "다른 입력의 train 모드 Decoder 출력 = 기준", "hidden_train", output_check,
                  (*LAYER_CASES, "hidden_layer"), visible=False),
]
### END HIDDEN TESTS

# How the feedback page names and explains the picture (Korean).
PICTURE_TEXTS = {
    "title": "디코더 첫 층의 source attention 가중치 그림",
    "what": "Decoder의 첫 층(layers[0])의 src_attn이 forward에서 self.attn에 저장한 가중치 중 첫 번째 예시(batch 0)의 "
    "head 0",
    "missing": "코드가 오류로 끝났거나 첫 층의 src_attn.attn에 (batch, h, target 길이, memory 길이) 가중치가 없습니다",
    "rows": "target 위치(query)",
    "columns": "memory 위치(key)",
    "note": "칸의 숫자는 head 0에서 i번째 target 위치가 encoder memory의 j번째 위치를 참고하는 비율입니다. 행마다 합이 "
    "1이고, src_mask가 가린 padding 위치의 열은 0이어야 합니다.",
}

# The feedback picture: layer 0's source attention (target positions × memory positions), batch 0, head 0.
CHAPTER = Chapter(id="08_decoder", probe=probe, checks=CHECKS, bugs=BUGS,
                  picture=Picture(case="decoder_eval", path=("attributes", probe.SOURCE_ATTENTION), index=(0, 0),
                                  label="layers[0].src_attn.attn", texts=PICTURE_TEXTS),
                  model_code=MODEL_CODE)
