"""Chapter 09 checks: `Generator` (proj, log_softmax), `EncoderDecoder` (encode, decode, forward), `make_model`.

Judge side. Structures are compared with the solution's (`module_judge`): names and shapes, the number
of layers, attention modules shared between two places, dropout rates. Xavier initialisation is judged
on a freshly built model: every matrix's spread (computed here from the sample of its weights the probe sends)
is compared with the reference's. Outputs are compared
with the reference's after loading seeded weights; a wrong one names the most likely bug by running
"bug models" — the whole model computed again on the same seeded weights, inputs and RNG seed, one
known mistake at a time — and matching the student's numbers or exception.
"""
import functools
import math
import re
import types
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from . import ch09_probe as probe
from . import messages, module_judge, modules
from .bugmodels import BugModels, ModelCode
from .calls import explain_error
from .compare import close, decode
from .contract import Chapter, Picture
from .framework import Check, Finding, Verdict, each_case
from .module_judge import names_text, same_output, seeded

BUGS = {
    "train_draws": "dropout 비율은 기준과 같습니다. eval 모드의 forward 검사가 통과했다면, dropout이 기준과 다른 횟수나 순서로 "
    "난수를 뽑은 것입니다: forward에서 encode와 decode를 한 번씩만, encode를 먼저 부르는지, 한 층을 두 번 부르지 않는지 "
    "확인하세요.",
    "stub": messages.stub("아직 작성하지 않은 부분이 있습니다", "TODO(09)"),
    "not_module": "EncoderDecoder와 Generator는 nn.Module을 상속해야 하고, make_model은 만든 모델(nn.Module)을 "
    "돌려줘야 합니다.",
    "names": module_judge.NAMES_DIFFER,
    "softmax_not_log": "Generator가 softmax(확률)를 돌려줍니다. 원문의 Generator는 로그 확률을 돌려줍니다: "
    "proj의 점수에 마지막 축의 log_softmax를 적용하세요. 손실 함수(KLDivLoss)가 로그 확률을 받습니다.",
    "no_log_softmax": "Generator가 proj의 점수(logit)를 정규화하지 않고 그대로 돌려줍니다. 마지막 축의 log_softmax로 "
    "로그 확률로 바꾸세요. exp를 씌우면 행마다 합이 1이어야 합니다.",
    "softmax_dim": "log_softmax를 마지막 축이 아닌 축에서 계산했습니다. 어휘 축(dim=-1)을 따라 정규화해야 "
    "토큰마다 확률의 합이 1이 됩니다.",
    "encode_no_mask": "encode가 src_mask를 encoder에 넘기지 않습니다. 그러면 encoder가 padding 토큰에도 어텐션해서 "
    "padding이 있는 문장의 memory가 달라집니다. encoder(…, src_mask)로 넘기세요.",
    "encode_tgt_embed": "encode가 src를 tgt_embed로 임베딩합니다. src는 src_embed로 바꿔야 합니다.",
    "decode_src_embed": "decode가 tgt를 src_embed로 임베딩합니다. tgt는 tgt_embed로 바꿔야 합니다(어휘도 가중치도 "
    "다릅니다).",
    "masks_swapped": "src_mask와 tgt_mask가 자리를 바꿔 쓰였습니다. encoder의 self-attention과 decoder의 "
    "source-attention에는 src_mask, decoder의 self-attention에는 tgt_mask를 씁니다. decode(memory, src_mask, tgt, "
    "tgt_mask)와 decoder(x, memory, src_mask, tgt_mask)의 인자 순서를 확인하세요.",
    "h_ignored": "make_model이 인자 h를 쓰지 않습니다: 모델의 MultiHeadedAttention이 h와 다른 수의 head로 나뉩니다. "
    "parameter의 이름과 모양은 head 수와 상관없어 같지만 출력이 달라집니다. MultiHeadedAttention(h, d_model)로 만드세요.",
    "encode_no_embed": "encode가 src를 src_embed로 임베딩하지 않고 토큰 번호 그대로 encoder에 넘겼습니다. encoder는 "
    "(batch, 길이, d_model) 벡터를 받습니다: self.encoder(self.src_embed(src), src_mask).",
    "decode_no_embed": "decode가 tgt를 tgt_embed로 임베딩하지 않고 토큰 번호 그대로 decoder에 넘겼습니다. decoder는 "
    "(batch, 길이, d_model) 벡터를 받습니다: self.decoder(self.tgt_embed(tgt), memory, src_mask, tgt_mask).",
    "encode_target": "forward가 source(src)가 아니라 target(tgt)을 encode했습니다(self.encode(tgt, …)). encoder는 "
    "source 문장을 읽어 memory를 만들고, decoder가 그 memory를 보며 target을 처리합니다. encode에는 src와 src_mask를 "
    "넘기고, decode에는 그 memory와 tgt를 넘기세요.",
    "forward_generator": "forward가 generator까지 적용해 로그 확률을 돌려줍니다. 원문의 forward는 decoder의 출력 "
    "(batch, tgt 길이, d_model)을 돌려주고, generator는 손실을 계산할 때 따로 부릅니다.",
    "shared_attention": "decoder 층의 self-attention과 source-attention이 MultiHeadedAttention 하나를 함께 씁니다 "
    "(가중치가 같은 텐서입니다). 두 자리에 copy.deepcopy로 만든 서로 다른 복사본을 넘기세요.",
    "n_ignored": "make_model이 인자 N을 쓰지 않습니다: encoder나 decoder의 층 수가 N과 다릅니다. Encoder와 "
    "Decoder에 N을 넘기세요.",
    "dropout_ignored": "make_model이 인자 dropout을 쓰지 않습니다: dropout 비율이 기준과 다릅니다. "
    "PositionwiseFeedForward, PositionalEncoding, EncoderLayer, DecoderLayer에 dropout을 넘기세요.",
    "decode_no_tgt_mask": "decode가 tgt_mask를 decoder에 넘기지 않습니다. 그러면 decoder의 self-attention이 뒤의(미래) "
    "토큰을 미리 봅니다. decoder(…, memory, src_mask, tgt_mask)로 넘기세요.",
    "decode_src_mask_as_tgt": "decode가 decoder에 tgt_mask 대신 src_mask를 넘깁니다 (src_mask를 두 번). 그러면 decoder의 "
    "self-attention에 causal mask가 없어 뒤의(미래) 토큰을 미리 보고, src와 tgt 길이가 다르면 mask의 모양이 맞지 않아 "
    "오류가 납니다. decoder(…, memory, src_mask, tgt_mask)로 넘기세요.",
    "vocab_swapped": "make_model이 src_vocab과 tgt_vocab을 바꿔 썼습니다. source 쪽(src_embed의 Embeddings)은 src_vocab, "
    "target 쪽(tgt_embed의 Embeddings와 Generator)은 tgt_vocab 크기로 만드세요. 두 어휘 크기가 같은 모델에서는 "
    "드러나지 않습니다.",
    "attention_args_swapped": "make_model이 MultiHeadedAttention에 h와 d_model을 바꿔 넘겼습니다. MultiHeadedAttention의 "
    "인자 순서는 (h, d_model)입니다: head 수가 먼저, 모델 차원이 나중입니다(d_model이 h로 나누어떨어져야 해서 바뀐 "
    "순서로는 만들 수 없습니다).",
    "decoder_inputs_swapped": "decode가 decoder에 target과 memory를 바꿔 넘깁니다: 첫 인자에 memory를, 둘째 인자에 "
    "임베딩한 tgt를 넣었습니다. decoder의 인자 순서는 (x, memory, src_mask, tgt_mask)이고, x가 tgt_embed로 바꾼 target, "
    "memory가 encode의 결과입니다. 그렇지 않으면 decoder가 source 길이로 출력을 내고 두 mask도 맞지 않습니다.",
    "decode_no_src_mask": "decode가 src_mask를 decoder에 넘기지 않습니다. 그러면 source-attention이 src의 padding 토큰에도 "
    "어텐션합니다. decoder(…, memory, src_mask, tgt_mask)로 넘기세요.",
    "generator_no_proj": "Generator가 proj(d_model → 어휘 크기)를 거치지 않고 log_softmax를 적용합니다. 그러면 출력의 마지막 축이 "
    "어휘 크기가 아니라 d_model입니다: log_softmax(self.proj(x), dim=-1).",
    "ff_no_dropout": "PositionwiseFeedForward에 dropout을 넘기지 않아 feed-forward의 dropout만 기본값 0.1입니다. "
    "PositionwiseFeedForward(d_model, d_ff, dropout)로 만드세요.",
    "pe_no_dropout": "위치 인코딩 뒤의 dropout 비율만 make_model의 dropout과 다릅니다(값을 넘기지 않았거나 바꿔 넘겼습니다). "
    "PositionalEncoding에 인자 dropout을 그대로 넘기세요.",
    "xavier_all": "dim이 1인 parameter(bias, LayerNorm의 a_2, b_2)에도 xavier_uniform_을 불러 오류가 났습니다. Xavier 초기화는 "
    "행렬(차원이 2 이상인 parameter)에만 씁니다.",
    "no_xavier": "Xavier(Glorot) 초기화가 되지 않은 가중치가 있습니다. 모델을 만든 뒤 dim > 1인 parameter마다 "
    "nn.init.xavier_uniform_를 적용하세요. 그러면 행렬마다 처음 표준편차가 √(2/(fan_in + fan_out))이 됩니다.",
    "alone_differs": "EncoderDecoder에도 실수가 있습니다: make_model이 틀려서 채점기가 만든 대역 encoder, decoder, 임베딩을 "
    "끼운 EncoderDecoder로 채점했는데, 그 출력도 기준과 다릅니다. encode, decode, forward가 부품과 mask를 원문대로 "
    "쓰는지 확인하세요.",
    "xavier_not_uniform": "표준편차는 Xavier와 같지만 균등분포가 아닙니다(xavier_normal_ 등): ±√(6/(fan_in + fan_out)) "
    "밖의 값이 있습니다. 원문처럼 nn.init.xavier_uniform_로 그 범위 안에서 고르게 뽑으세요.",
}
SPREAD_TOLERANCE = 0.2  # a fresh matrix's std may differ from the reference's by 20% (sampling noise is a few %)
# xavier_uniform_ draws within ±√(6/(fan_in + fan_out)); a value 1 % past it (the samples keep 6 digits) with a
# largest |value| over 2 standard deviations (a uniform's is √3 ≈ 1.73) is another distribution with the same spread,
# e.g. xavier_normal_ (its 256 samples all stay inside with probability ~1e-10)
BOUND_TOLERANCE = 1.01
TAIL = 2.0

# nn.init.xavier_uniform_ on a 1-D parameter: torch's own words for it
XAVIER_RULES = (("fewer than 2 dimensions", "xavier_all"),)

ACCEPTED = "attention_dropout"  # MultiHeadedAttention(h, d_model, dropout): not the original, but not wrong
ALONE = "alone"  # marks the label of a bug model of the "alone" run: (bug, ALONE)

# ----------------------------------------------------------------------------- bug models
### BEGIN BUG MODELS
# Every function here computes the chapter's model (right or wrong) on the probe's seeded weights.


@dataclass(frozen=True)
class Way:
    """One way of computing the model: the solution's (all defaults) or with known mistakes."""

    normalise: str = "log_softmax"  # Generator: "log_softmax" | "softmax" | "none"
    axis: int = -1  # Generator: the axis it normalises over
    encode_embed: str = "src_embed"
    encode_mask: str = "src"  # "src" | "none" | "tgt"
    decode_embed: str = "tgt_embed"
    swap_decoder_masks: bool = False
    generator_in_forward: bool = False
    shared_attention: bool = False  # self_attn of each decoder layer computed with src_attn's weights
    dropout_ignored: bool = False  # every dropout at the default 0.1
    ff_dropout_default: bool = False  # only the feed-forward's dropout at the default 0.1
    pe_dropout_default: bool = False  # only the positional encoding's dropout at 0.1 (PositionalEncoding(d_model, 0.1))
    decode_masks: str = "both"  # the masks decode passes to the decoder: "both" | "no_src" | "no_tgt" | "src_twice"
    generator_proj: bool = True  # Generator: log_softmax over proj(x), or over x itself
    attention_dropout: bool = False  # the attention's own dropout at `dropout` too (accepted)
    decoder_inputs_swapped: bool = False  # decode calls decoder(memory, embedded tgt, …): x and memory swapped


@functools.lru_cache(maxsize=4096)  # every case's weights (a few MB): drawn once per grading process
def _weight(seed, name, shape):
    """The tensor the probe loaded under `name`, drawn again from the case's seed."""
    return modules.seeded_weights([(name, list(shape))], seed)[name]


@functools.lru_cache(maxsize=16)
def _positions(d_model, max_len=5000):
    """The sinusoidal table (1, max_len, d_model) as chapter 05's PositionalEncoding computes it (the probe keeps the
    model's buffers as built: only parameters are drawn from the seed)."""
    pe = torch.zeros(max_len, d_model)
    position = torch.arange(0, max_len).unsqueeze(1)
    div_term = torch.exp(torch.arange(0, d_model, 2) * -(math.log(10000.0) / d_model))
    pe[:, 0::2] = torch.sin(position * div_term)
    pe[:, 1::2] = torch.cos(position * div_term)
    return pe.unsqueeze(0)


class Net:
    """The model of one case computed one `Way`, on the seeded weights the probe loaded."""

    def __init__(self, spec, way):
        self.spec, self.way, self.d = spec, way, spec.d_model
        rate = 0.1 if spec.dropout is None or way.dropout_ignored else spec.dropout
        train = spec.kind == "train"
        self.drop = torch.nn.Dropout(rate).train(train)
        self.ff_drop = torch.nn.Dropout(0.1).train(train) if way.ff_dropout_default else self.drop
        self.pe_drop = torch.nn.Dropout(0.1).train(train) if way.pe_dropout_default else self.drop
        self.attn_drop = torch.nn.Dropout(rate if way.attention_dropout else 0.1).train(train)

    def w(self, name, *shape):
        return _weight(self.spec.seed, name, shape)

    def linear(self, name, x, out, into):
        return F.linear(x, self.w(f"{name}.weight", out, into), self.w(f"{name}.bias", out))

    def norm(self, name, x):
        mean, std = x.mean(-1, keepdim=True), x.std(-1, keepdim=True)
        return self.w(f"{name}.a_2", self.d) * (x - mean) / (std + 1e-6) + self.w(f"{name}.b_2", self.d)

    def attention(self, name, query, key, value, mask):
        h, d, n = self.spec.h, self.d, query.size(0)
        d_k = d // h
        if mask is not None:
            mask = mask.unsqueeze(1)
        query, key, value = [self.linear(f"{name}.linears.{i}", x, d, d).view(n, -1, h, d_k).transpose(1, 2)
                             for i, x in enumerate((query, key, value))]
        scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(d_k)
        if mask is not None:
            scores = scores.masked_fill(mask == 0, -1e9)
        x = torch.matmul(self.attn_drop(scores.softmax(dim=-1)), value)
        return self.linear(f"{name}.linears.3", x.transpose(1, 2).contiguous().view(n, -1, d), d, d)

    def feed_forward(self, name, x):
        hidden = self.linear(f"{name}.w_1", x, self.spec.d_ff, self.d).relu()
        return self.linear(f"{name}.w_2", self.ff_drop(hidden), self.d, self.spec.d_ff)

    def sublayer(self, name, x, function):
        return x + self.drop(function(self.norm(f"{name}.norm", x)))

    def embed(self, name, tokens):
        vocab = self.spec.src_vocab if name == "src_embed" else self.spec.tgt_vocab
        x = F.embedding(tokens, self.w(f"{name}.0.lut.weight", vocab, self.d)) * math.sqrt(self.d)
        return self.pe_drop(x + _positions(self.d)[:, : x.size(1)])

    def encode(self, src, src_mask):
        src_mask = None if self.way.encode_mask == "none" else src_mask
        x = self.embed(self.way.encode_embed, src)
        for i in range(self.spec.N):
            name = f"encoder.layers.{i}"
            x = self.sublayer(f"{name}.sublayer.0", x, lambda y: self.attention(f"{name}.self_attn", y, y, y, src_mask))
            x = self.sublayer(f"{name}.sublayer.1", x, lambda y: self.feed_forward(f"{name}.feed_forward", y))
        return self.norm("encoder.norm", x)

    def decode(self, memory, src_mask, tgt, tgt_mask):
        if self.way.swap_decoder_masks:
            src_mask, tgt_mask = tgt_mask, src_mask
        src_mask = None if self.way.decode_masks == "no_src" else src_mask
        tgt_mask = {"no_tgt": None, "src_twice": src_mask}.get(self.way.decode_masks, tgt_mask)
        x = self.embed(self.way.decode_embed, tgt)
        if self.way.decoder_inputs_swapped:
            x, memory = memory, x
        for i in range(self.spec.N):
            name = f"decoder.layers.{i}"
            own = f"{name}.src_attn" if self.way.shared_attention else f"{name}.self_attn"
            x = self.sublayer(f"{name}.sublayer.0", x, lambda y: self.attention(own, y, y, y, tgt_mask))
            x = self.sublayer(f"{name}.sublayer.1", x,
                              lambda y: self.attention(f"{name}.src_attn", y, memory, memory, src_mask))
            x = self.sublayer(f"{name}.sublayer.2", x, lambda y: self.feed_forward(f"{name}.feed_forward", y))
        return self.norm("decoder.norm", x)

    def forward(self, src, tgt, src_mask, tgt_mask):
        out = self.decode(self.encode(src, tgt_mask if self.way.encode_mask == "tgt" else src_mask), src_mask, tgt,
                          tgt_mask)
        return self.generate("generator.proj", out) if self.way.generator_in_forward else out

    def generate(self, name, x):
        scores = self.linear(name, x, self.spec.tgt_vocab, self.d) if self.way.generator_proj else x
        if self.way.normalise == "none":
            return scores
        return getattr(scores, self.way.normalise)(dim=self.way.axis)


GENERATOR_WAYS = [("softmax_not_log", Way(normalise="softmax")), ("no_log_softmax", Way(normalise="none")),
                  *[("softmax_dim", Way(axis=axis)) for axis in (0, 1, 2)], ("generator_no_proj", Way(generator_proj=False))]
ENCODE_WAYS = [("encode_no_mask", Way(encode_mask="none")), ("encode_tgt_embed", Way(encode_embed="tgt_embed"))]
DECODE_WAYS = [("decode_src_embed", Way(decode_embed="src_embed")), ("masks_swapped", Way(swap_decoder_masks=True)),
               ("shared_attention", Way(shared_attention=True)), ("decode_no_tgt_mask", Way(decode_masks="no_tgt")),
               ("decode_no_src_mask", Way(decode_masks="no_src")),
               ("decode_src_mask_as_tgt", Way(decode_masks="src_twice")),
               ("decoder_inputs_swapped", Way(decoder_inputs_swapped=True))]
FORWARD_WAYS = [("forward_generator", Way(generator_in_forward=True)), ("masks_swapped", Way(encode_mask="tgt")),
                *ENCODE_WAYS, *DECODE_WAYS]
TRAIN_WAYS = [("dropout_ignored", Way(dropout_ignored=True)), ("ff_no_dropout", Way(ff_dropout_default=True)),
              ("pe_no_dropout", Way(pe_dropout_default=True)),
              *FORWARD_WAYS]
WAYS = {"generator": GENERATOR_WAYS, "encode": ENCODE_WAYS, "decode": DECODE_WAYS, "forward": FORWARD_WAYS,
        "train": [(ACCEPTED, Way(attention_dropout=True)), *TRAIN_WAYS], "model": []}


@dataclass(frozen=True)
class Alone:
    """One way of computing a case's "alone" run: an EncoderDecoder written `way` (its own mistakes only) around the
    probe's stand-in parts, as `ch09_probe.alone_run` ran the student's."""

    way: Way


def _encoder_decoder(way):
    """An EncoderDecoder class whose encode, decode and forward make `way`'s mistakes (make_model's are not its own)."""

    class EncoderDecoder(torch.nn.Module):
        def __init__(self, encoder, decoder, src_embed, tgt_embed, generator):
            super().__init__()
            self.encoder, self.decoder = encoder, decoder
            self.src_embed, self.tgt_embed, self.generator = src_embed, tgt_embed, generator

        def encode(self, src, src_mask):
            embed = self.tgt_embed if way.encode_embed == "tgt_embed" else self.src_embed
            return self.encoder(embed(src), None if way.encode_mask == "none" else src_mask)

        def decode(self, memory, src_mask, tgt, tgt_mask):
            if way.swap_decoder_masks:
                src_mask, tgt_mask = tgt_mask, src_mask
            src_mask = None if way.decode_masks == "no_src" else src_mask
            tgt_mask = {"no_tgt": None, "src_twice": src_mask}.get(way.decode_masks, tgt_mask)
            embed = self.src_embed if way.decode_embed == "src_embed" else self.tgt_embed
            if way.decoder_inputs_swapped:
                return self.decoder(memory, embed(tgt), src_mask, tgt_mask)
            return self.decoder(embed(tgt), memory, src_mask, tgt_mask)

        def forward(self, src, tgt, src_mask, tgt_mask):
            out = self.decode(self.encode(src, tgt_mask if way.encode_mask == "tgt" else src_mask), src_mask, tgt,
                              tgt_mask)
            return self.generator(out) if way.generator_in_forward else out

    return EncoderDecoder


def _alone_call(alone, spec, inputs):
    """The case's method of `alone.way`'s EncoderDecoder around the probe's stand-in parts, in eval mode."""

    def run():
        model = probe.alone_model(types.SimpleNamespace(EncoderDecoder=_encoder_decoder(alone.way)), spec)
        probe.load_parameters(model, spec.seed)
        return getattr(model.eval(), probe.METHODS[spec.kind])(*inputs)

    return seeded(run, spec.seed)


# The EncoderDecoder's own mistakes (not make_model's), each also computed around the probe's stand-in parts: a
# make_model mistake and an EncoderDecoder mistake together are both named.
ALONE_WAYS = {kind: [((bug, ALONE), Alone(way)) for bug, way in WAYS[kind] if bug != "shared_attention"]
              for kind in probe.ALONE_KINDS}


def _models(case):
    """(label, way) pairs for `case`, most specific first."""
    kind = probe.CASES[case].kind
    return [*WAYS[kind], *ALONE_WAYS.get(kind, [])]


def _call(way, case, inputs):
    """Compute the case's call one way, as the probe ran the student's model: same weights, inputs, RNG seed."""
    spec = probe.CASES[case]
    if isinstance(way, Alone):
        return _alone_call(way, spec, inputs)
    net = Net(spec, way)
    if spec.kind == "generator":
        return net.generate("proj", *inputs)
    method = getattr(net, probe.METHODS[spec.kind])
    return seeded(lambda: method(*inputs), spec.seed)


MODEL_CODE = ModelCode(models=_models, call=_call)
### END BUG MODELS



def _student(evidence, case):
    """The student's output on `case` (for the tie-break), or None."""
    result = evidence.trace(case).get("result", {})
    return decode(result) if result.get("kind") == "tensor" else None


class RunModels(BugModels):
    """The bug models of the student's own model: every label but those of the "alone" run."""

    alone = False  # (a class attribute: a BugModels holds no other state)

    def results(self, evidence, case):
        return [(label, result) for label, result in super().results(evidence, case)
                if (isinstance(label, tuple) and ALONE in label) == self.alone]


class AloneModels(RunModels):
    """The bug models of a case's "alone" run (the student's EncoderDecoder around the probe's stand-in parts), whose
    labels are (bug, ALONE): they break ties and read the student's result on that run."""

    alone = True

    def _shown(self, evidence, case):
        trace = evidence.trace(case).get("alone", {})
        if "error" in trace:
            return self.matching(evidence, case, error=trace["error"])
        result = trace.get("result", {})
        return self.matching(evidence, case, decode(result)) if result.get("kind") == "tensor" else []

    def explain(self, evidence, case, labels):
        return super().explain(evidence, case, labels).strip()


MODEL_BUGS = {**BUGS, ACCEPTED: "", ALONE: ""}
MODELS = RunModels(name="ch09", same=same_output, bugs=MODEL_BUGS, student=_student, tie_break="decode")
ALONE_MODELS = AloneModels(name="ch09", same=same_output, bugs=MODEL_BUGS, tie_break="decode")
TIE_BREAK = ("decode",)  # src length = tgt length: tells apart mask mistakes that raise one error on the other cases

# ----------------------------------------------------------------------------- reading a case


def error_diagnosis(evidence, case, error):
    """A Korean diagnosis of an exception the student's code raised on `case`: what the model's parts received
    first (an exception inside the model usually comes from its arguments)."""
    if error["type"] == "NotAModule":
        return BUGS["not_module"]
    shown = (parts_problem(evidence, case) or attention_arguments_problem(evidence, case)
             if error["type"] != "NotImplementedError" else None)
    return shown or explain_error(evidence, case, error, BUGS, rules=XAVIER_RULES, models=MODELS)


def attention_arguments_problem(evidence, case):
    """Korean: make_model handed MultiHeadedAttention d_model as h and h as d_model (its build then fails), or None."""
    given, spec = evidence.trace(case).get("attention_args") or {}, probe.CASES[case]
    if spec.h != spec.d_model and given == {"h": spec.d_model, "d_model": spec.h}:
        return BUGS["attention_args_swapped"]
    return None


def parts_problem(evidence, case):
    """Korean: what the model's parts received on a forward call against the reference's (`ch09_probe.watch_parts`):
    the source embedding given the target (encode(tgt, …)), or None."""
    found = evidence.trace(case).get("parts") or {}
    expected = evidence.reference(case).get("parts") or {}
    if (expected.get("src_embed") and found.get("src_embed") != expected.get("src_embed")
            and (found.get("src_embed") or [None])[0] == "tgt"):  # (decode's own src_embed(tgt) is decode_src_embed)
        return BUGS["encode_target"]
    for half, tokens in (("encoder", "src"), ("decoder", "tgt")):  # the token ids handed on without their embedding
        if (found.get(half) or [None])[0] == tokens and (expected.get(half) or [None])[0] != tokens:
            return BUGS["encode_no_embed" if half == "encoder" else "decode_no_embed"]
    return None


def heads_problem(evidence, case):
    """Korean: the model's attention modules split into another number of heads than h (make_model ignoring h), or
    None; names and shapes are the same whatever the head count."""
    found = (evidence.trace(case).get("structure") or {}).get("heads")
    expected = (evidence.reference(case).get("structure") or {}).get("heads")
    if not found or not expected or found == expected:
        return None
    detail = f" (head 수 {', '.join(map(str, found))}, h={probe.CASES[case].h})" if evidence.visible(case) else ""
    return BUGS["h_ignored"] + detail


def layer_counts(found):
    """{"encoder": layers, "decoder": layers} counted from state_dict names."""
    counts = {}
    for half in ("encoder", "decoder"):
        counts[half] = len({m.group(1) for name, _ in found["state_dict"]
                            if (m := re.match(rf"{half}\.layers\.(\d+)\.", name))})
    return counts


def layers_problem(evidence, case, expected, found):
    """Korean: another number of encoder or decoder layers than N (the counts on a visible case), or None."""
    want, have = layer_counts(expected), layer_counts(found)
    if want == have or not have["encoder"] + have["decoder"]:
        return None
    detail = (f" (encoder 층 {have['encoder']}개, decoder 층 {have['decoder']}개, N={probe.CASES[case].N})"
              if evidence.visible(case) else "")
    return BUGS["n_ignored"] + detail


def shared_problem(found):
    """Korean: names that share one parameter, naming the attention shared, or None. A shared buffer (one
    PositionalEncoding for src_embed and tgt_embed) is a parameter-free module used twice: equivalent code."""
    parameters = {name for name, *_ in found.get("parameters") or []}
    groups = [group for group in found.get("shared") or [] if parameters & set(group)]
    for group in groups:
        if any(".self_attn." in name for name in group) and any(".src_attn." in name for name in group):
            return BUGS["shared_attention"] + f" ({' = '.join(f'`{name}`' for name in group[:2])})"
    return module_judge.shared_problem({"shared": groups})


def read_model(evidence, case):
    """The student's trace of a model case whose names and shapes are the reference's, or raise Finding.

    Sharing is not judged here (the structure check does), so an output check can name it from the numbers."""
    trace = evidence.trace(case)
    if "structure" not in trace:
        raise Finding(error_diagnosis(evidence, case, trace.get("error", {"type": "NoTrace", "message": ""})))
    expected, found = evidence.reference(case)["structure"], trace["structure"]
    problem = (module_judge.unregistered_problem(found) or layers_problem(evidence, case, expected, found)
               or vocab_problem(case, expected, found)
               or module_judge.names_problem(expected, found, evidence.visible(case)))
    if problem:
        raise Finding(problem)
    return trace


def vocab_problem(case, expected, found):
    """Korean: every shape that differs from the reference's has the other vocabulary's size where one vocabulary's
    belongs (src_vocab for tgt_vocab or the other way round: Generator(d_model, src_vocab), the target embedding over
    the source vocabulary), naming the parts; or None. Seen only where the two vocabularies differ."""
    spec = probe.CASES[case]
    other = {spec.src_vocab: spec.tgt_vocab, spec.tgt_vocab: spec.src_vocab}
    if spec.src_vocab == spec.tgt_vocab:
        return None
    want, have = ({name: list(shape) for name, shape in side["state_dict"]} for side in (expected, found))
    differing = [name for name in want if name in have and have[name] != want[name]]
    if not differing or set(want) != set(have):
        return None
    if not all(len(want[n]) == len(have[n]) and all(h == w or (w in other and h == other[w])
                                                    for w, h in zip(want[n], have[n])) for n in differing):
        return None
    parts = sorted({name.split(".")[0] for name in differing})
    return f"{BUGS['vocab_swapped']} (어휘 크기가 다른 부품: {', '.join(parts)})"


def read_output(evidence, case):
    """The student's output on a call case as a float64 tensor, or raise Finding with a diagnosis."""
    if probe.CASES[case].kind == "generator":
        return module_judge.read_output(evidence, case, error_diagnosis, evidence.visible(case))
    trace = read_model(evidence, case)
    problem = module_judge.load_problem(trace.get("load"))
    if problem:
        raise Finding(problem)
    return module_judge.read_result(evidence, case, error_diagnosis, trace)


def accepted(evidence, case, output):
    """Whether the output is another accepted way's (the attention's own dropout at `dropout`)."""
    return ACCEPTED in MODELS.matching(evidence, case, student=output)


def output_problem(evidence, case, output):
    """Why the student's output on `case` differs from the reference (Korean), or None. A train-mode output that no bug
    model explains is put down to the model's dropout rates when they are not the reference's (a rate a little off),
    else to dropout drawing its random numbers in another number or order (`train_draws`)."""
    problem = module_judge.output_problem(evidence, case, output, MODELS, like_input=False)
    if problem is not None and accepted(evidence, case, output):
        return None
    if problem is not None:
        problem = parts_problem(evidence, case) or heads_problem(evidence, case) or problem
    if problem == module_judge.VALUES_DIFFER and probe.CASES[case].kind == "train":
        return dropout_problem(evidence, case, evidence.trace(case)["structure"]) or f"{problem} {BUGS['train_draws']}"
    return problem


def dropout_problem(evidence, case, found):
    """Korean: dropout rates other than the reference's (the attention's own may also be `dropout`), or None."""
    spec = probe.CASES[case]
    rate = 0.1 if spec.dropout is None else spec.dropout
    expected = dict(evidence.reference(case)["structure"]["dropout"])
    have = dict(found["dropout"])
    if not have or not set(have) <= set(expected):  # fewer names: a parameter-free module used twice, listed once
        return BUGS["dropout_ignored"]
    wrong = [name for name, p in have.items()
             if not any(math.isclose(p, q, rel_tol=1e-6)
                        for q in [expected[name]] + ([rate] if re.search(r"\.(self|src)_attn\.", name) else []))]
    if wrong and all(".feed_forward." in name for name in wrong):
        return BUGS["ff_no_dropout"]
    if wrong and all(re.match(r"(src|tgt)_embed\.1\.", name) for name in wrong):
        return BUGS["pe_no_dropout"]
    return BUGS["dropout_ignored"] if wrong else None


def structure_problem(evidence, case):
    """The first structural difference of the fresh model on `case` (Korean), or None."""
    found = read_model(evidence, case)["structure"]
    expected = evidence.reference(case)["structure"]
    return (shared_problem(found) or module_judge.parameter_count_problem(expected, found)
            or dropout_problem(evidence, case, found))


def spreads(fresh):
    """{name: std} of each matrix's sampled fresh weights (NaN for fewer than two numbers)."""
    found = {}
    for name, values in fresh.items():
        numbers = values if isinstance(values, list) and all(type(v) in (int, float) for v in values) else []
        found[name] = float(torch.tensor(numbers, dtype=torch.float64).std()) if len(numbers) > 1 else math.nan
    return found


def xavier_bound(shape):
    """√(6/(fan_in + fan_out)) of a parameter of `shape`, as torch.nn.init computes the fans (dim ≥ 2)."""
    receptive = math.prod(shape[2:])
    return math.sqrt(6 / (shape[1] * receptive + shape[0] * receptive))


def bound_problem(evidence, case, fresh):
    """Korean: matrices with the Xavier spread but values past the uniform bound (not xavier_uniform_), or None."""
    shapes = {name: shape for name, shape in evidence.reference(case)["structure"]["state_dict"] if len(shape) >= 2}
    past = []
    for name, values in fresh.items():
        numbers = [v for v in values if type(v) in (int, float)] if isinstance(values, list) else []
        if name not in shapes or len(numbers) < 2:
            continue
        largest, std = max(map(abs, numbers)), float(torch.tensor(numbers, dtype=torch.float64).std())
        if largest > BOUND_TOLERANCE * xavier_bound(shapes[name]) and largest > TAIL * std:
            past.append(name)
    if not past:
        return None
    if not evidence.visible(case):
        return BUGS["xavier_not_uniform"]
    return f"{BUGS['xavier_not_uniform']} 범위 밖의 값이 있는 parameter: {names_text(past)}."


def spread_problem(evidence, case):
    """Korean: matrices whose fresh std is not the reference's (no Xavier initialisation), or None."""
    found = spreads(read_model(evidence, case)["fresh"])
    expected = spreads(evidence.reference(case)["fresh"])
    off = [name for name, std in expected.items()
           if name in found and not abs(found[name] / std - 1) <= SPREAD_TOLERANCE]
    if not off:
        return bound_problem(evidence, case, read_model(evidence, case)["fresh"])
    if not evidence.visible(case):
        return BUGS["no_xavier"]
    first = off[0]
    return (BUGS["no_xavier"] + f" 처음 표준편차가 다른 parameter: {names_text(off)}"
            f" (`{first}`: {found[first]:.3f}, 기준 {expected[first]:.3f}).")


# ----------------------------------------------------------------------------- checks


@each_case
def output_matches(evidence, case):
    """The student's output on the case equals the reference's; otherwise name the bug."""
    return output_problem(evidence, case, read_output(evidence, case))


@each_case
def structure_matches(evidence, case):
    """The fresh model has the reference's names, shapes, layers, parameter count, dropout rates, no sharing."""
    return structure_problem(evidence, case)


@each_case
def xavier_spread(evidence, case):
    """Every matrix of the fresh model has the reference's (Xavier) spread."""
    return spread_problem(evidence, case)


STAND_IN = ("나머지 검사는 채점기가 1차원 parameter를 초기화하지 않고 건너뛰게 해서 같은 make_model로 만든 모델로 채점합니다: "
            "이 실수로는 Xavier 초기화 검사의 점수만 잃습니다.")


GENERATOR_NOTE = ("make_model과 EncoderDecoder의 검사는 채점기가 만든 대역 Generator로 만든 모델로 대신 채점합니다: 이 실수로는 "
                  "Generator 검사의 점수만 잃습니다.")


def generator_faulty(evidence):
    """Whether the student's Generator fails one of its own cases that the check may read."""
    for case in (name for name, spec in probe.CASES.items() if spec.kind == "generator" and evidence.may_read(name)):
        try:
            if output_matches.one(evidence, case) is not None:
                return True
        except Finding:
            return True
    return False


def generator_evidence(evidence):
    """The evidence with each model case's trace replaced by its run with the probe's GeneratorDouble (recorded when
    the student's Generator has other parameter names or shapes than the contract's), when the student's Generator
    fails its own check: make_model and EncoderDecoder are then judged on a model whose weights load by name."""
    twins = {case: evidence.trace(case)["generator_stand_in"] for case in probe.CASES
             if evidence.may_read(case) and "generator_stand_in" in evidence.trace(case)}
    return evidence.with_traces(twins) if twins and generator_faulty(evidence) else evidence


def generator_check(evidence):
    """output_matches on the Generator's case, saying when it fails that the model checks use the stand-in."""
    verdict = output_matches(evidence)
    if verdict.fraction >= 1 or generator_evidence(evidence) is evidence:
        return verdict
    return Verdict(verdict.fraction, f"{verdict.message} {GENERATOR_NOTE}")


def stand_in_evidence(evidence):
    """The evidence with each judged case's trace replaced by its stand-in run (the student's make_model built with
    the probe's lenient init), when make_model failed only in an init function; first with the model built around
    the probe's Generator when the student's fails (`generator_evidence`)."""
    evidence = generator_evidence(evidence)
    read = [case for case in probe.CASES if evidence.may_read(case)]
    replaced = {case: evidence.trace(case)["stand_in"] for case in read if "stand_in" in evidence.trace(case)}
    return evidence.with_traces(replaced) if replaced else evidence


def with_stand_in(judge):
    """`judge` on the stand-in runs: a failing init loop costs the Xavier check, not every check of the model."""

    def judged(evidence):
        return judge(stand_in_evidence(evidence))

    judged.__doc__ = judge.__doc__
    return judged


def xavier_check(evidence):
    """xavier_spread, saying when make_model failed in its init loop that the other checks use the stand-in."""
    evidence = generator_evidence(evidence)
    verdict = xavier_spread(evidence)
    if verdict.fraction >= 1 or not any("stand_in" in evidence.trace(case) for case in evidence.cases):
        return verdict
    return Verdict(verdict.fraction, f"{verdict.message} {STAND_IN}")


def structure_and_xavier(evidence):
    """Half for the structure (on the stand-in run if any), half for the Xavier spread of the fresh model."""
    verdicts = [structure_matches(stand_in_evidence(evidence)), xavier_check(evidence)]
    messages_ = dict.fromkeys(v.message for v in verdicts if v.message)  # one cause may fail both halves
    return Verdict(sum(v.fraction for v in verdicts) / 2, "\n".join(messages_))


ALONE_NOTE = ("make_model이 틀려서 EncoderDecoder의 encode, decode, forward는 채점기가 만든 대역 encoder, decoder, 임베딩을 "
              "끼운 EncoderDecoder로 대신 채점합니다: make_model의 실수로는 make_model 검사의 점수만 잃습니다.")


def model_faulty(evidence, case):
    """Whether make_model itself fails on `case` (it raised, or built a model without the reference's layers, names or
    shapes), not merely unwritten: the EncoderDecoder methods are then judged on the case's "alone" run."""
    trace = evidence.trace(case)
    if "structure" not in trace:
        return trace.get("error", {}).get("type") not in (None, "MissingFunction", "NotImplementedError")
    expected, found = evidence.reference(case)["structure"], trace["structure"]
    return bool(module_judge.unregistered_problem(found) or layers_problem(evidence, case, expected, found)
                or module_judge.names_problem(expected, found, evidence.visible(case)))


def alone_problem(evidence, case):
    """Why the student's EncoderDecoder method around the probe's stand-in parts differs from the reference's (Korean,
    the note on the stand-in after it), or None."""
    trace, expected = evidence.trace(case)["alone"], evidence.reference(case)["alone"]
    try:
        output = module_judge.read_result(
            evidence, case, lambda e, c, error: explain_error(e, c, error, BUGS, models=ALONE_MODELS), trace)
    except Finding as finding:
        return f"{finding.message} {ALONE_NOTE}"
    wanted = decode(expected["result"])
    if close(output, wanted):
        return None
    found = ALONE_MODELS.matching(evidence, case, student=output)
    if found:
        return f"{ALONE_MODELS.explain(evidence, case, found)} {ALONE_NOTE}"
    if output.shape != wanted.shape:
        return f"{module_judge.shape_problem(output.shape, wanted.shape, evidence.visible(case), False)} {ALONE_NOTE}"
    return BUGS["alone_differs"]


@each_case
def encoder_decoder_output(evidence, case):
    """An EncoderDecoder method's output: on the student's own model, or, when make_model fails on the case, on the
    student's EncoderDecoder around the probe's stand-in parts."""
    plain = stand_in_evidence(evidence)
    if "alone" in evidence.trace(case) and model_faulty(plain, case):
        return alone_problem(evidence, case)
    return output_matches.one(plain, case)


# The Generator's visible case: read by every model check, whose runs use the probe's GeneratorDouble when it fails.
GENERATOR_READS = ("generator", *TIE_BREAK)
MODEL_CASES = ("model", "encode", "decode", "forward", "train")  # the Generator check says whether they use the double

CHECKS = [
    Check(name="generator", points=10, title="Generator 출력 = 기준 (proj 다음 마지막 축의 log_softmax)", cases=("generator",),
          judge=generator_check, reads=(*TIE_BREAK, *MODEL_CASES)),
    Check(name="model_structure", points=10, title="make_model: 층 N개, 이름과 모양, 따로 복사한 attention, dropout 비율",
          cases=("model",), judge=with_stand_in(structure_matches), reads=GENERATOR_READS),
    Check(name="xavier", points=10, title="dim > 1인 parameter마다 Xavier 초기화 (새로 만든 모델의 표준편차)",
          cases=("model",), judge=xavier_check, reads=GENERATOR_READS),
    Check(name="encode", points=10, title="encode 출력 = 기준 (src_embed → encoder(src_mask))", cases=("encode",),
          judge=encoder_decoder_output, reads=GENERATOR_READS),
    Check(name="decode", points=10, title="decode 출력 = 기준 (tgt_embed → decoder(memory, src_mask, tgt_mask))", cases=("decode",),
          judge=encoder_decoder_output, reads=GENERATOR_READS),
    Check(name="forward", points=10, title="forward 출력 = 기준 (decode(encode(src, src_mask), src_mask, tgt, tgt_mask))",
          cases=("forward",), judge=encoder_decoder_output, reads=GENERATOR_READS),
    Check(name="train", points=10, title="train 모드 forward 출력 = 기준 (시드 고정, 인자 dropout이 층마다 쓰임)",
          cases=("train",), judge=with_stand_in(output_matches), reads=GENERATOR_READS),
]

### BEGIN HIDDEN TESTS
CHECKS += [
    Check(name="hidden_model", points=10, title="다른 크기로 새로 만든 모델의 구조와 초기화", cases=("hidden_model",),
          judge=structure_and_xavier, reads=GENERATOR_READS, visible=False),
    Check(name="hidden_outputs", points=10, title="다른 크기와 어휘의 Generator, decode, forward 출력 = 기준",
          cases=("hidden_generator", "hidden_decode", "hidden_forward"), judge=encoder_decoder_output,
          reads=GENERATOR_READS, visible=False),
    Check(name="hidden_train", points=10, title="다른 dropout의 train 모드 forward 출력 = 기준", cases=("hidden_train",),
          judge=with_stand_in(output_matches), reads=GENERATOR_READS, visible=False),
]
### END HIDDEN TESTS

# How the feedback page names and explains the picture (Korean).
PICTURE_TEXTS = {
    "title": "decoder 0번 층 source-attention의 head 0 가중치 그림",
    "what": "forward 뒤 decoder.layers[0].src_attn.attn 중 두 번째 예시(batch 1)의 head 0",
    "missing": "코드가 오류로 끝났거나 모델의 decoder.layers[0].src_attn에 attn 가중치가 없습니다",
    "rows": "target 토큰",
    "columns": "source 토큰 (memory)",
    "note": "칸의 숫자는 i번째 target 토큰이 j번째 source 토큰을 참고하는 비율입니다. 행마다 합이 1이고, "
    "padding인 source 토큰(src_mask가 0인 열)은 0이어야 합니다.",
}

# The feedback picture: decoder layer 0's source attention after the forward, the second sentence (3 source
# tokens of padding), head 0 — rows are target tokens, columns source tokens.
CHAPTER = Chapter(id="09_model", probe=probe, checks=CHECKS, bugs=BUGS,
                  picture=Picture(case="forward", path=("attributes", "src_attn"), index=(1, 0), label="src_attn",
                                  texts=PICTURE_TEXTS),
                  model_code=MODEL_CODE)
