"""Chapter 10 checks: `Batch` (src_mask; tgt and tgt_y shifted by one; tgt_mask = padding & causal; ntokens; pad=2)
and `Batch.make_std_mask` called on the class. Content only.

Every attribute is compared with the reference's (values, shape, dtype). A wrong one names the most likely bug by
running bug models — the whole `Batch` computed with one thing changed — and taking, among the models that reproduce
the student's attribute, the one that reproduces most of the student's other attributes too (tgt_y equal to tgt also
changes ntokens; counting on tgt changes ntokens alone). The default pad is judged on its own: the probe records a
default-pad call next to the same call with pad=2.
"""
import torch

from . import ch10_probe as probe
from . import messages
from .bugmodels import BugModels, ModelCode
from .calls import explain_error
from .compare import decode, shape_text
from .contract import Chapter, Picture
from .framework import Check, Finding, each_case
from .korean import attach

BUGS = {
    "stub": messages.stub("아직 작성하지 않은 부분이 있습니다", "TODO(10)"),
    "signature": "Batch의 인자는 원문 그대로 Batch(src, tgt=None, pad=2)여야 합니다. 인자 이름과 기본값을 바꾸지 마세요.",
    "src_mask_flat": "src_mask에 query 축이 없습니다: (src != pad)는 (batch, src 길이)입니다. .unsqueeze(-2)로 "
    "(batch, 1, src 길이)를 만들어야 어텐션 점수 (batch, query 길이, key 길이)에 broadcast됩니다.",
    "src_mask_rows": "src_mask에 축을 엉뚱한 자리에 끼웠습니다(.unsqueeze(-1) → (batch, src 길이, 1)). 그러면 pad인 key 열이 "
    "아니라 pad인 query 행이 가려집니다. .unsqueeze(-2)로 (batch, 1, src 길이)를 만드세요.",
    "mask_inverted": "mask가 반대입니다: pad인 자리가 True입니다. mask는 볼 수 있는 자리가 True이므로 (토큰 != pad)로 만드세요.",
    "pad_ignored": "넘겨받은 pad 대신 코드에 적은 숫자와 비교했습니다. pad 인자를 쓰세요: (src != pad), (tgt != pad).",
    "default_pad": "pad의 기본값이 2가 아닙니다. 원문의 어휘에서 2는 <blank>(빈 칸) 토큰입니다: "
    "def __init__(self, src, tgt=None, pad=2):",
    "src_mask_front": "src_mask의 축을 맨 앞에 끼웠습니다(.unsqueeze(0) → (1, batch, src 길이)). batch 축은 그대로 두고 "
    ".unsqueeze(-2)로 (batch, 1, src 길이)를 만드세요.",
    "tgt_y_from_trimmed": "self.tgt_y를 이미 마지막 토큰을 잘라 낸 self.tgt에서 잘랐습니다(self.tgt[:, 1:]). 그러면 마지막 "
    "토큰이 정답에서 빠집니다. 정답은 넘겨받은 tgt에서 잘라야 합니다: tgt[:, 1:].",
    "tgt_untrimmed": "self.tgt에서 마지막 토큰을 빼지 않았습니다. 디코더 입력은 tgt[:, :-1]입니다: 마지막 토큰 뒤에는 "
    "맞힐 다음 토큰이 없습니다.",
    "tgt_y_untrimmed": "self.tgt_y에서 첫 토큰을 빼지 않았습니다. 정답은 한 칸 뒤의 tgt[:, 1:]입니다: i번째 입력을 보고 "
    "i+1번째 토큰을 맞힙니다.",
    "no_shift": "self.tgt_y가 self.tgt와 같습니다(한 칸 밀지 않았습니다). 그러면 모델은 입력을 그대로 베끼기만 하면 됩니다. "
    "디코더 입력은 마지막 토큰을 뺀 tgt, 정답은 첫 토큰을 뺀 tgt로 한 칸 어긋나게 나누세요.",
    "shift_swapped": "self.tgt와 self.tgt_y가 바뀌었습니다. 디코더 입력은 시작 토큰부터인 tgt[:, :-1], 정답은 "
    "tgt[:, 1:]입니다.",
    "tgt_rows_sliced": "tgt를 첫 축(batch 축)에서 잘랐습니다(tgt[:-1], tgt[1:]): 토큰이 아니라 문장을 하나씩 빼서, 디코더 "
    "입력과 정답이 서로 다른 문장이 되었습니다. 두 번째 축(토큰 축)을 자르세요: 디코더 입력은 마지막 토큰을 뺀 "
    "tgt[:, :-1], 정답은 첫 토큰을 뺀 tgt[:, 1:]입니다.",
    "tgt_shifted_too": "self.tgt가 self.tgt_y와 같습니다: 디코더 입력도 첫 토큰을 빼고 잘랐습니다(tgt[:, 1:]). 디코더 "
    "입력은 시작 토큰으로 시작하고 마지막 토큰만 뺀 tgt[:, :-1], 정답은 첫 토큰을 뺀 tgt[:, 1:]로 한 칸 어긋나야 합니다.",
    "src_mask_only_with_tgt": "tgt 없이 만든 Batch에 self.src_mask가 없습니다: src_mask를 tgt가 있을 때만 실행되는 if 블록 안에서 "
    "만들었나요? self.src와 self.src_mask는 tgt가 없어도(예측할 때) 만들어야 하므로 if 블록 앞에 두세요.",
    "tgt_mask_no_padding": "tgt_mask에 padding 부분이 없습니다(subsequent_mask만 썼습니다). pad인 열도 가려야 합니다: "
    "(tgt != pad).unsqueeze(-2) & subsequent_mask(tgt.size(-1)).",
    "tgt_mask_no_causal": "tgt_mask에 미래를 가리는 부분이 없습니다(padding mask만 썼습니다). 그러면 디코더가 맞혀야 할 "
    "뒤쪽 토큰을 봅니다. subsequent_mask(tgt.size(-1))와 &로 합쳐 (batch, 길이, 길이)를 만드세요.",
    "tgt_mask_rows": "tgt_mask의 padding 부분이 열이 아니라 행을 가립니다(.unsqueeze(-1)). pad인 key 열을 가리도록 "
    "(tgt != pad).unsqueeze(-2)를 쓰세요.",
    "tgt_mask_or": "padding mask와 subsequent_mask를 |(또는)로 합쳤습니다. 두 mask가 모두 허락한 자리만 볼 수 있으므로 "
    "&로 합치세요.",
    "tgt_mask_on_tgt_y": "tgt_mask를 self.tgt_y로 만들었습니다. mask는 디코더 입력의 pad를 가리므로 "
    "make_std_mask(self.tgt, pad)입니다.",
    "tgt_mask_on_full": "tgt_mask를 자르기 전의 tgt로 만들었습니다. 마지막 토큰을 잘라 낸 디코더 입력 self.tgt로 만드세요.",
    "ntokens_pads": "ntokens가 pad까지 셉니다(numel() 등). 손실을 나눌 토큰 수이므로 self.tgt_y에서 pad가 아닌 토큰만 "
    "세세요: (self.tgt_y != pad).sum().",
    "ntokens_values": "ntokens가 토큰 수가 아니라 토큰 번호의 합입니다. (self.tgt_y != pad)로 bool을 만든 다음 .sum()하세요.",
    "ntokens_on_tgt": "ntokens를 self.tgt(디코더 입력)에서 셌습니다. 손실은 정답 self.tgt_y로 계산하므로 self.tgt_y에서 "
    "pad가 아닌 토큰을 세세요.",
    "ntokens_inverted": "ntokens가 pad인 토큰을 셉니다(== pad). 손실을 나눌 토큰 수이므로 pad가 아닌 토큰을 세세요: "
    "(self.tgt_y != pad).sum().",
    "ntokens_per_row": "ntokens가 문장마다 따로 센 텐서입니다(.sum(dim=1) 등). batch 전체에서 pad가 아닌 토큰 수 하나로 "
    "세세요: (self.tgt_y != pad).sum().",
    "ntokens_rows": "ntokens가 토큰 수가 아니라 문장 수(batch 크기: len(self.tgt_y)나 .size(0))입니다. 손실을 나눌 토큰 수이므로 "
    "self.tgt_y에서 pad가 아닌 토큰을 모두 세세요: (self.tgt_y != pad).sum().",
    "ntokens_length": "ntokens가 토큰 수가 아니라 문장 길이(self.tgt_y.size(1))입니다. 손실을 나눌 토큰 수이므로 batch 전체에서 "
    "pad가 아닌 토큰을 모두 세세요: (self.tgt_y != pad).sum().",
    "ntokens_mean": "ntokens가 개수가 아니라 비율입니다(.mean()). pad가 아닌 토큰의 개수를 .sum()으로 세세요.",
    "ntokens_on_full": "ntokens를 자르기 전의 tgt에서 셌습니다. self.tgt_y에서 pad가 아닌 토큰을 세세요.",
    "ntokens_on_src": "ntokens를 self.src(인코더 입력)에서 셌습니다. 손실을 나눌 토큰 수는 정답 self.tgt_y에서 pad가 아닌 "
    "토큰 수입니다: (self.tgt_y != pad).sum().",
    "tgt_mask_future": "미래를 가리는 부분이 거꾸로입니다: 각 위치가 앞(과거)이 아니라 뒤(미래) 토큰을 봅니다(torch.triu로 "
    "위 삼각형을 남겼거나 subsequent_mask를 전치했습니다). subsequent_mask(size)처럼 대각선과 그 아래만 True여야 합니다.",
    "mask_dtype": "mask가 bool 텐서가 아닙니다. (토큰 != pad) 비교의 결과(bool)를 그대로 쓰고 subsequent_mask와 &로 "
    "합치세요(.float()나 .type_as(tgt)는 bool이 아닌 dtype으로 바꿉니다).",
    "tgt_none_raises": "tgt 없이 Batch(src)를 만들면 오류가 납니다. tgt에 관한 속성은 tgt가 주어졌을 때(None이 아닐 때)만 만드세요(번역할 때는 tgt가 없습니다).",
    "no_staticmethod": "make_std_mask 위의 @staticmethod가 빠졌습니다. 그래서 self.make_std_mask(self.tgt, pad)가 "
    "self까지 인자 세 개를 넘깁니다. @staticmethod를 붙이세요.",
    "tgt_mask_length": "subsequent_mask에 tgt의 길이와 다른 크기를 넘겼습니다(tgt.size(-1) - 1처럼). 미래를 가리는 mask "
    "(1, 길이, 길이)를 padding mask (batch, 1, 길이)와 &로 합치려면 길이가 tgt의 길이여야 합니다: "
    "subsequent_mask(tgt.size(-1)).",
    "tgt_mask_batch_axis": "subsequent_mask에 batch 크기(tgt.size(0))를 넘겼습니다. 미래를 가리는 mask의 크기는 문장 "
    "길이입니다: subsequent_mask(tgt.size(-1)).",
    "instance_method": "Batch.make_std_mask(tgt, pad)를 인스턴스 없이 부를 수 없습니다(self 인자가 있습니다). "
    "@staticmethod를 붙이고 self 없이 def make_std_mask(tgt, pad):로 정의하세요.",
}

MASKS = ("src_mask", "tgt_mask", "mask")
TOKENS = ("src", "tgt", "tgt_y")
STD_MASK = "mask"  # a make_std_mask case's result, read like an attribute


def _value(described):
    """An encoded attribute (a tensor or a number) as a float64 tensor, or None."""
    if not isinstance(described, dict):
        return None
    if described.get("kind") == "number":
        return torch.tensor(described["value"], dtype=torch.float64)
    if described.get("kind") != "tensor" or described.get("data") is None:
        return None
    return decode(described)


def same_value(described, produced):
    """Whether an encoded attribute has the values and shape of a model's (ntokens: any one-element form)."""
    value = _value(described)
    if value is None or produced is None:
        return False
    produced = torch.as_tensor(produced).to(torch.float64)
    if produced.dim() == 0 and value.numel() == 1:
        value = value.reshape(())
    # exact for token ids, masks and counts; a float (a model's result is stored to 6 digits) to that precision
    return value.shape == produced.shape and bool(torch.allclose(value.to(torch.float64), produced, rtol=1e-5, atol=0))


# ----------------------------------------------------------------------------- bug models
### BEGIN BUG MODELS

DEFAULT_PAD = 2
PADS = (0, 1, 2, 3)  # pad values a student may have written into the code
SHIFTS = {  # (self.tgt, self.tgt_y) as slices of tgt
    "ok": (slice(None, -1), slice(1, None)),
    "tgt_untrimmed": (slice(None), slice(1, None)),
    "tgt_y_untrimmed": (slice(None, -1), slice(None)),
    "no_shift": (slice(None, -1), slice(None, -1)),
    "shift_swapped": (slice(1, None), slice(None, -1)),
    "tgt_y_from_trimmed": (slice(None, -1), slice(1, -1)),  # self.tgt_y = self.tgt[:, 1:]
    "tgt_shifted_too": (slice(1, None), slice(1, None)),  # self.tgt = tgt[:, 1:] as well
}
ROW_SHIFTS = {"tgt_rows_sliced": (slice(None, -1), slice(1, None))}  # tgt[:-1], tgt[1:]: the batch axis cut
KNOBS = [  # (bug, knob, way): the whole Batch computed with one thing done another way
    ("src_mask_flat", "src_mask", "flat"),
    ("src_mask_rows", "src_mask", "rows"),
    ("mask_inverted", "src_mask", "inverted"),
    ("src_mask_front", "src_mask", "front"),
    *[(shift, "shift", shift) for shift in [*SHIFTS, *ROW_SHIFTS] if shift != "ok"],
    ("tgt_mask_no_padding", "tgt_mask", "no_padding"),
    ("tgt_mask_no_causal", "tgt_mask", "no_causal"),
    ("tgt_mask_rows", "tgt_mask", "rows"),
    ("tgt_mask_or", "tgt_mask", "or"),
    ("tgt_mask_batch_axis", "tgt_mask", "batch_axis"),
    ("tgt_mask_length", "tgt_mask", "length_short"),  # subsequent_mask(tgt.size(-1) - 1): a broadcast error
    ("tgt_mask_length", "tgt_mask", "length_long"),
    ("tgt_mask_future", "tgt_mask", "future"),  # triu(ones): the diagonal and the future
    ("tgt_mask_future", "tgt_mask", "future_strict"),  # triu(ones, diagonal=1) without == 0: the future alone
    ("tgt_mask_no_padding", "tgt_mask", "no_padding_batch"),  # after "or": the same mask when the length is 1
    ("mask_inverted", "tgt_mask", "inverted"),
    ("tgt_mask_on_tgt_y", "mask_from", "tgt_y"),
    ("tgt_mask_on_full", "mask_from", "full"),
    ("ntokens_pads", "ntokens", "pads"),
    ("ntokens_values", "ntokens", "values"),
    ("ntokens_on_tgt", "ntokens", "tgt"),
    ("ntokens_on_full", "ntokens", "full"),
    ("ntokens_on_src", "ntokens", "src"),
    ("ntokens_inverted", "ntokens", "inverted"),
    ("ntokens_per_row", "ntokens", "per_row"),
    ("ntokens_mean", "ntokens", "mean"),
    ("ntokens_rows", "ntokens", "rows"),
    ("ntokens_length", "ntokens", "length"),
]
STD_MASK_KNOBS = ("tgt_mask",)


def _padding(tokens, pad, way="ok"):
    """(tokens != pad) with a query axis: the usual (batch, 1, len), or without it, on rows, inverted."""
    keep = tokens == pad if way == "inverted" else tokens != pad
    if way == "flat":
        return keep
    if way == "front":
        return keep.unsqueeze(0)
    return keep.unsqueeze(-1) if way == "rows" else keep.unsqueeze(-2)


def _std_mask(tgt, pad, way="ok"):
    """make_std_mask computed one way: padding & causal, or one part missing, on rows, with |, inverted."""
    size = tgt.size(0 if way == "batch_axis" else -1) + {"length_short": -1, "length_long": 1}.get(way, 0)
    causal = torch.ones(1, size, size, dtype=torch.bool).tril()
    if way in ("future", "future_strict"):
        causal = torch.ones(1, size, size, dtype=torch.bool).triu(1 if way == "future_strict" else 0)
    padding = _padding(tgt, pad, "rows" if way == "rows" else "inverted" if way == "inverted" else "ok")
    if way == "no_padding":
        return causal
    if way == "no_padding_batch":
        return torch.ones_like(padding) & causal
    if way == "no_causal":
        return padding
    return padding | causal if way == "or" else padding & causal


def _ntokens(tgt_y, tgt, full, pad, way="ok", src=None):
    """ntokens counted one way: non-pad tokens of tgt_y, or every token, token ids summed, another tensor."""
    if way == "pads":
        return torch.tensor(tgt_y.numel())
    if way == "values":
        return tgt_y.sum()
    if way == "inverted":
        return (tgt_y == pad).sum()
    if way == "per_row":
        return (tgt_y != pad).sum(-1)
    if way == "mean":
        return (tgt_y != pad).float().mean()
    if way in ("rows", "length"):  # len(tgt_y), tgt_y.size(1): sentences or positions, not tokens
        return torch.tensor(tgt_y.size(0 if way == "rows" else 1))
    counted = {"ok": tgt_y, "tgt": tgt, "full": full, "src": src}[way]
    return (counted != pad).sum()


def batch(src, tgt, pad, src_mask="ok", shift="ok", tgt_mask="ok", mask_from="tgt", ntokens="ok", std_pad=None):
    """A Batch's attributes computed with the given ways (all "ok": the original's); `std_pad`: the pad make_std_mask
    compares with, when the code wrote a number there."""
    out = {"src": src, "src_mask": _padding(src, pad, src_mask)}
    if tgt is None:
        return out
    if shift in ROW_SHIFTS:
        first, second = ROW_SHIFTS[shift]
        out["tgt"], out["tgt_y"] = tgt[first], tgt[second]
    else:
        first, second = SHIFTS[shift]
        out["tgt"], out["tgt_y"] = tgt[:, first], tgt[:, second]
    source = {"tgt": out["tgt"], "tgt_y": out["tgt_y"], "full": tgt}[mask_from]
    out["tgt_mask"] = _std_mask(source, pad if std_pad is None else std_pad, tgt_mask)
    out["ntokens"] = _ntokens(out["tgt_y"], out["tgt"], tgt, pad, ntokens, src)
    return out


def _models(case):
    """(bug, ways) for `case`: the original first, one way changed, then the pad written into the code."""
    spec = probe.CASES[case]
    knobs = [(bug, knob, way) for bug, knob, way in KNOBS
             if (knob in STD_MASK_KNOBS if spec.kind == "std_mask" else spec.tgt or knob == "src_mask")]
    models = [(None, {})] + [(bug, {knob: way}) for bug, knob, way in knobs]
    if spec.pad is not probe.DEFAULT:
        models += [("pad_ignored", {"pad": pad}) for pad in PADS if pad != spec.pad]
        if spec.kind == "batch" and spec.tgt:  # a number written into make_std_mask alone
            models += [("pad_ignored", {"std_pad": pad}) for pad in PADS if pad != spec.pad]
    return models


def _call(model, case, inputs):
    """The attributes one bug model gives on the case's inputs ({"mask": …} for a make_std_mask case)."""
    spec = probe.CASES[case]
    ways = dict(model)
    pad = ways.pop("pad", DEFAULT_PAD if spec.pad is probe.DEFAULT else spec.pad)
    if spec.kind == "std_mask":
        return {STD_MASK: _std_mask(inputs[0], pad, ways.get("tgt_mask", "ok"))}
    return batch(inputs[0], inputs[1] if len(inputs) > 1 else None, pad, **ways)


MODEL_CODE = ModelCode(models=_models, call=_call)
### END BUG MODELS

def same_batch(student, produced):
    """Whether every attribute a model computed has the student's values (read from the encoded attributes)."""
    return all(same_value(student.get(name), value) for name, value in produced.items())


MODELS = BugModels("ch10", same=same_batch, bugs=BUGS)

# ----------------------------------------------------------------------------- reading a case

RULES = [("unexpected keyword argument", "signature"), ("required positional argument: 'tgt'", "signature"),
         ("make_std_mask() takes", "no_staticmethod"), ("make_std_mask() missing", "instance_method")]
NO_TGT_RULES = [("NoneType", "tgt_none_raises")]


def _triage(evidence, case, error):
    """A Korean diagnosis of an exception the student's code raised on `case` (without tgt: say that first)."""
    if error["type"] == "NotImplementedError" and "not implemented for" in error["message"]:
        return BUGS["mask_dtype"]  # torch's `&` of float masks, not the unfinished exercise
    spec = probe.CASES[case]
    rules = RULES + (NO_TGT_RULES if spec.kind == "batch" and not spec.tgt else [])
    problem = explain_error(evidence, case, error, BUGS, rules=rules, models=MODELS)
    if spec.kind == "batch" and not spec.tgt and BUGS["tgt_none_raises"] not in problem and BUGS["stub"] != problem:
        problem = f"{BUGS['tgt_none_raises']} {problem}"
    return problem


def _attributes(trace):
    """The recorded attributes of a trace (or reference), a make_std_mask result under "mask"."""
    return {STD_MASK: trace["result"]} if "result" in trace else trace["attributes"]


STAND_IN_NOTE = ("Batch의 다른 속성(src_mask, tgt, tgt_y, ntokens)은 채점기가 만든 대역 make_std_mask로 대신 채점합니다: "
                 "이 실수로는 make_std_mask와 tgt_mask 검사의 점수만 잃습니다.")


def batch_trace(evidence, case, stand_in=False):
    """The trace of `case`; with `stand_in`, the probe's run with its own make_std_mask when the student's raised."""
    trace = evidence.trace(case)
    return trace["stand_in"] if stand_in and "error" in trace and "stand_in" in trace else trace


def read_batch(evidence, case, stand_in=False):
    """The student's attributes on `case` ({"mask": …} for make_std_mask), or Finding with a diagnosis; with
    `stand_in`, those of the run with the probe's make_std_mask when the student's raised inside Batch."""
    trace = batch_trace(evidence, case, stand_in)
    if "error" in trace:
        problem = _triage(evidence, case, trace["error"])
        raise Finding(f"{problem} {STAND_IN_NOTE}" if "stand_in" in trace else problem)
    return _attributes(trace)


def _label(name):
    return "make_std_mask의 결과" if name == STD_MASK else f"self.{name}"


# The visible batches with tgt: two bugs whose models give the student's attribute on one (counting the whole tgt and
# counting pads too give the same ntokens when every row but one is full) are told apart on the other.
TIE_CASES = ("pad0", "pad2")


def _reproduced(evidence, case, student, name):
    """The bugs whose models reproduce the student's `name` on `case`."""
    return {bug for bug, produced in MODELS.results(evidence, case)
            if bug is not None and not isinstance(produced, Exception)
            and same_value(student.get(name), produced.get(name))}


def _shown_elsewhere(evidence, case, name):
    """{bug: on how many other tie cases a model of the bug reproduces the student's `name`}."""
    counts = {}
    for other in TIE_CASES:
        trace = batch_trace(evidence, other, stand_in=True) if other != case and evidence.may_read(other) else {}
        if "attributes" in trace:
            for bug in _reproduced(evidence, other, trace["attributes"], name):
                counts[bug] = counts.get(bug, 0) + 1
    return counts


def _ranked(evidence, case, student, name):
    """Bugs whose models reproduce the student's `name`, those reproducing most of the other attributes first, then
    those reproducing it on the most other visible batches."""
    scored = []
    for order, (bug, produced) in enumerate(MODELS.results(evidence, case)):
        if bug is None or isinstance(produced, Exception) or not same_value(student.get(name), produced.get(name)):
            continue
        agree = sum(same_value(student.get(other), value) for other, value in produced.items())
        scored.append((-agree, order, bug))
    if len({agree for agree, *_ in scored}) < len(scored):  # a tie on the case itself
        elsewhere = _shown_elsewhere(evidence, case, name)
        scored = [(agree, -elsewhere.get(bug, 0), order, bug) for agree, order, bug in scored]
    return [bug for *_, bug in sorted(scored)]


def _dtype_problem(name, got, expected):
    """Why an attribute with the right values has the wrong dtype (Korean), or None."""
    dtype = got.get("dtype")
    if name in MASKS and dtype != "bool":
        return f"{BUGS['mask_dtype']} ({_label(name)}의 dtype: {dtype})"
    if name in TOKENS and dtype != expected["dtype"]:
        return f"{_label(name)}의 dtype이 {dtype}입니다. 토큰 번호 텐서({expected['dtype']})를 바꾸지 말고 자르기만 하세요."
    return None


def attribute_problem(evidence, case, student, name):
    """Why the student's attribute `name` on `case` differs from the reference (Korean), or None."""
    got = student.get(name, probe.MISSING)
    expected = _attributes(evidence.reference(case))[name]
    if got.get("kind") == "missing":
        spec = probe.CASES[case]
        if spec.kind == "batch" and not spec.tgt and name == "src_mask":
            return BUGS["src_mask_only_with_tgt"]
        return f"{_label(name)} 속성이 없습니다. 속성 이름도 채점 기준의 일부입니다."
    value = _value(got)
    if value is None:
        return f"{attach(_label(name), '은')} torch 텐서여야 하는데 {got.get('type', got.get('kind'))} 값입니다."
    if same_value(got, decode(expected)):
        return _dtype_problem(name, got, expected)
    found = _ranked(evidence, case, student, name)
    if found:
        return MODELS.explain(evidence, case, found[:1])
    if list(value.shape) != list(expected["shape"]) and name != "ntokens":
        if evidence.visible(case):
            return (f"{_label(name)}의 모양이 {shape_text(value.shape)}입니다. "
                    f"{shape_text(expected['shape'])}이어야 합니다.")
        return f"{_label(name)}의 모양이 기대와 다릅니다."
    return f"{_label(name)}의 값이 기대와 다릅니다."


def batch_check(names=None, stand_in=True):
    """A judge: on each of the check's cases, the student's attributes `names` (all the case's) equal the reference's
    (with `stand_in`, judged on the probe's run with its own make_std_mask when the student's raised inside Batch)."""

    @each_case
    def attributes_right(evidence, case):
        student = read_batch(evidence, case, stand_in)
        judged = names or probe.CASES[case].names
        problems = [problem for name in judged if (problem := attribute_problem(evidence, case, student, name))]
        return " ".join(dict.fromkeys(problems)) or None

    return attributes_right


def default_problem(evidence, case):
    """Why leaving pad out does not behave as pad=2 on `case` (Korean), or None (on the stand-in run if any)."""
    trace = batch_trace(evidence, case, stand_in=True)
    student = read_batch(evidence, case, stand_in=True)
    twin = trace.get("with_pad_2", {})
    if "error" in twin:
        return _triage(evidence, case, twin["error"])
    differ = [name for name in student if student[name] != twin.get("attributes", {}).get(name)]
    if not differ:
        return None
    return f"{BUGS['default_pad']} (pad를 넘기지 않으면 {attach(', '.join(_label(n) for n in differ), '이')} pad=2일 때와 다릅니다.)"


@each_case
def default_pad(evidence, case):
    """Batch(src, tgt) gives what Batch(src, tgt, pad=2) gives."""
    return default_problem(evidence, case)


@each_case
def default_and_values(evidence, case):
    """The default pad is 2, and the attributes equal the reference's."""
    return default_problem(evidence, case) or batch_check().one(evidence, case)


CHECKS = [
    Check(name="src_mask", points=10, title="src_mask = (src != pad).unsqueeze(-2): (batch, 1, src 길이) bool",
          cases=("pad0", "pad2"), judge=batch_check(probe.SOURCE)),
    Check(name="tgt_shift", points=15, title="tgt = tgt[:, :-1], tgt_y = tgt[:, 1:] (한 칸 밀기)",
          cases=("pad0", "pad2"), judge=batch_check(("tgt", "tgt_y"))),
    Check(name="tgt_mask", points=15, title="tgt_mask = padding mask & subsequent_mask: (batch, 길이, 길이) bool",
          cases=("pad0", "pad2"), judge=batch_check(("tgt_mask",), stand_in=False)),
    Check(name="ntokens", points=10, title="ntokens = tgt_y에서 pad가 아닌 토큰 수", cases=("pad0", "pad2"),
          judge=batch_check(("ntokens",))),
    Check(name="default_pad", points=10, title="pad의 기본값은 2 (<blank>)", cases=("default_pad",),
          judge=default_pad),
    Check(name="src_only", points=5, title="tgt 없이 Batch(src)도 만들어진다", cases=("src_only",),
          judge=batch_check(probe.SOURCE)),
    Check(name="make_std_mask", points=5, title="Batch.make_std_mask(tgt, pad): 인스턴스 없이 부르는 static method",
          cases=("std_mask",), judge=batch_check((STD_MASK,))),
]

### BEGIN HIDDEN TESTS
HIDDEN = ("hidden_batch", "hidden_short")
CHECKS += [
    Check(name="hidden_src_mask", points=5, title="다른 batch의 src_mask", cases=HIDDEN, reads=TIE_CASES,
          judge=batch_check(probe.SOURCE), visible=False),
    Check(name="hidden_shift", points=5, title="다른 batch의 tgt, tgt_y", cases=HIDDEN, reads=TIE_CASES,
          judge=batch_check(("tgt", "tgt_y")), visible=False),
    Check(name="hidden_tgt_mask", points=5, title="다른 batch의 tgt_mask", cases=HIDDEN, reads=TIE_CASES,
          judge=batch_check(("tgt_mask",), stand_in=False), visible=False),
    Check(name="hidden_ntokens", points=5, title="다른 batch의 ntokens", cases=HIDDEN, reads=TIE_CASES,
          judge=batch_check(("ntokens",)), visible=False),
    Check(name="hidden_src_only", points=5, title="pad를 넘기지 않은 다른 Batch(src)", cases=("hidden_src_only",),
          judge=default_and_values, visible=False),
    Check(name="hidden_std_mask", points=5, title="다른 pad와 padding의 make_std_mask", cases=("hidden_std_mask",),
          judge=batch_check((STD_MASK,)), visible=False),
]
### END HIDDEN TESTS

# How the feedback page names and explains the picture (Korean).
PICTURE_TEXTS = {
    "title": "tgt_mask 그림",
    "what": "Batch가 만든 self.tgt_mask 중 첫 번째 문장(batch 0)",
    "missing": "코드가 오류로 끝났거나 Batch가 self.tgt_mask를 (batch, 길이, 길이) mask로 만들지 않았습니다",
    "rows": "query 위치",
    "columns": "key 위치",
    "note": "칸이 1이면 i번째 토큰이 j번째 토큰을 볼 수 있고, 0이면 가려집니다. 대각선 위(미래)와 pad인 열이 0이어야 합니다.",
}

CHAPTER = Chapter(id="10_batching", probe=probe, checks=CHECKS, bugs=BUGS,
                  picture=Picture(case="pad2", path=("attributes", "tgt_mask"), index=(0,), label="tgt_mask",
                                  texts=PICTURE_TEXTS),
                  model_code=MODEL_CODE)
