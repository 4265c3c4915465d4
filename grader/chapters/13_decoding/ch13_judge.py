"""Chapter 13 checks: `greedy_decode` on the trained copy model and on random models where every mistake shows.

Judge side. The tokens greedy_decode returned are compared with the reference's: the copy model must copy its
source, and a small random two-layer model (enlarged weights) must be decoded exactly as the solution decodes it,
where reading the first position, dropping the causal mask or the source's padding mask, taking argmin or skipping
the generator changes the tokens. The length (max_len tokens, the start symbol included) is its own check, so a
loop that runs once too often loses those points only. A wrong result names the bug: from the returned tensor
itself (float, never extended, another first token, another length), from "bug models" — greedy decoding done
one wrong way on the same model, stored by the build — and from what the probe's hooks saw the code hand the
encoder, the decoder and the generator: tokens that change under another seed were sampled, tokens other than the
generator's best at their step were picked otherwise (its values taken for indices, the second best, …).
"""
import functools
from dataclasses import dataclass

import torch

from . import ch13_probe as probe
from . import messages
from .bugmodels import BugModels, ModelCode
from .calls import explain_error
from .compare import decode
from .contract import Chapter
from .framework import Check, Finding, each_case

BUGS = {
    "stub": messages.stub("아직 작성하지 않은 부분이 있습니다", "TODO(13)"),
    "memory_not_encoded": "model.decode에 넘긴 memory가 model.encode(src, src_mask)가 돌려준 값이 아닙니다(source를 "
    "임베딩만 했거나 다른 텐서를 넘겼습니다). decoder의 source-attention은 encoder가 만든 memory를 읽습니다: 처음에 "
    "encode로 memory를 한 번 만들고, 매 step 그 memory를 decode의 첫 인자로 넘기세요.",
    "not_tensor": "greedy_decode는 지금까지 고른 토큰을 담은 정수 텐서 ys ((1, max_len) 모양)를 돌려줘야 합니다: return ys",
    "float_ys": "ys가 정수가 아니라 실수(float) 텐서입니다. torch.zeros(1, 1)은 float이라서, 토큰 번호로 쓰려면 src와 같은 정수 "
    "자료형으로 바꿔야 합니다: .type_as(src.data). 실수 토큰은 임베딩(nn.Embedding)에 넣을 수 없습니다.",
    "not_extended": "ys가 늘어나지 않습니다: 시작 기호 하나만 돌려줍니다. torch.cat은 새 텐서를 돌려줄 뿐 ys를 바꾸지 "
    "않으므로, 고른 토큰을 이어 붙인 결과를 다시 ys에 담아야 합니다.",
    "too_long": "ys가 max_len보다 한 토큰 깁니다. ys는 시작 기호로 시작하므로 토큰을 max_len - 1번만 이어 붙입니다: "
    "for i in range(max_len - 1).",
    "too_short": "ys가 max_len보다 한 토큰 짧습니다. 시작 기호 뒤에 토큰을 max_len - 1번 이어 붙여 모두 max_len개가 "
    "되어야 합니다: for i in range(max_len - 1).",
    "length": "ys의 길이가 max_len이 아닙니다. 시작 기호 하나에서 시작해 토큰을 max_len - 1번 이어 붙이세요.",
    "start_dropped": "돌려준 ys에 시작 기호가 없습니다: 고른 토큰은 맞지만 맨 앞의 start_symbol을 떼고 돌려줬습니다. "
    "greedy_decode는 시작 기호로 시작하는 ys 전체 (1, max_len)를 돌려줍니다: 시작 기호를 잘라 내지 말고, 그 뒤에 토큰을 "
    "max_len - 1번 이어 붙이세요.",
    "prepended": "고른 토큰을 ys의 앞에 붙였습니다: 돌려준 ys가 start_symbol로 끝납니다. torch.cat은 목록의 순서대로 "
    "잇습니다: 지금까지의 ys를 앞에, 새 토큰을 뒤에 두세요 (torch.cat([ys, 새 토큰], dim=1)).",
    "start_ignored": "ys의 첫 토큰이 start_symbol이 아닙니다. ys는 인자로 받은 시작 기호 하나로 시작합니다: "
    "torch.zeros(1, 1).fill_(start_symbol). 0이나 1을 직접 쓰지 마세요.",
    "first_position": "decoder 출력의 첫 위치(out[:, 0])로 다음 토큰을 골랐습니다. 다음 토큰은 지금까지의 토큰을 모두 본 "
    "마지막 위치의 출력으로 고릅니다: model.generator(out[:, -1]).",
    "no_causal_mask": "decode할 때 causal mask를 넘기지 않았습니다. 학습할 때처럼 각 위치가 자기보다 뒤의 토큰을 보지 "
    "못하게 tgt_mask로 subsequent_mask(ys.size(1))를 넘기세요. mask가 없으면 층이 둘 이상인 모델에서 앞 위치의 출력이 "
    "학습 때와 달라집니다.",
    "causal_mask_wrong": "decode에 넘긴 tgt_mask가 causal mask와 다릅니다. 각 위치는 자기 자신과 앞 위치를 보고 뒤 위치만 "
    "가려야 합니다: subsequent_mask(ys.size(1))를 그대로 넘기세요.",
    "tgt_is_source_mask": "model.decode의 tgt_mask(네 번째 인자) 자리에 source mask(src_mask)를 넘겼습니다. src_mask는 "
    "source의 padding을 가리는 (1, 1, source 길이) mask라서 target의 self-attention 점수 (target 길이 × target 길이)와 "
    "모양이 맞지 않습니다. 세 번째 자리의 src_mask는 그대로 두고, tgt_mask에는 지금까지의 ys 길이로 만든 causal mask "
    "subsequent_mask(ys.size(1))를 넘기세요.",
    "masks_swapped": "model.decode에 넘긴 두 mask의 자리가 바뀌었습니다: src_mask 자리에 causal mask를, tgt_mask 자리에 "
    "source mask를 넣었습니다. decode의 인자 순서는 (memory, src_mask, ys, tgt_mask)입니다: source를 가리는 src_mask가 "
    "두 번째, subsequent_mask(ys.size(1))가 네 번째입니다.",
    "source_mask": "source의 padding을 가리지 않았습니다. model.encode와 model.decode 모두에 인자로 받은 src_mask를 "
    "그대로 넘기세요(None이나 모두 1인 mask를 쓰면 padding 토큰까지 참고합니다).",
    "argmin": "log 확률이 가장 작은 토큰을 골랐습니다(min/argmin). greedy decoding은 매 step 가장 큰 log 확률의 토큰을 "
    "고릅니다: torch.max(prob, dim=1) 또는 prob.argmax(dim=-1).",
    "batch_axis": "가장 큰 log 확률을 batch 축(dim=0)에서 골랐습니다. prob는 (batch, 어휘 크기)이므로 batch가 1이면 "
    "매번 0번 토큰이 나옵니다. 어휘 축에서 고르세요: torch.max(prob, dim=1) 또는 prob.argmax(dim=-1).",
    "generator_skipped": "model.generator를 부르지 않고 decoder의 출력(d_model 차원) 가운데 가장 큰 칸을 골랐습니다. decoder "
    "출력을 model.generator에 넣어 어휘 크기의 log 확률로 바꾼 뒤 가장 큰 토큰을 고르세요.",
    "not_decoded": "돌려준 토큰은 맞지만 모델로 decoding하지 않았습니다(model.decode를 토큰 수만큼 부르지 않았습니다). "
    "source를 그대로 돌려주지 말고, 매 step decode한 마지막 위치의 출력을 model.generator에 넣어 다음 토큰을 고르세요.",
    "decode_target": "model.decode에 지금까지 만든 ys가 아닌 텐서를 target으로 넣었습니다: decoder가 받은 target의 길이가 "
    "step마다 1, 2, 3, …으로 늘지 않습니다. 매 step 지금까지의 ys 전체를 넣으세요: "
    "model.decode(memory, src_mask, ys, subsequent_mask(ys.size(1))).",
    "last_token_only": "model.decode에 ys 전체가 아니라 마지막 토큰 하나만 넣었습니다(decoder가 받은 target의 길이가 매 step "
    "1입니다). 다음 토큰은 지금까지의 토큰을 모두 decode한 마지막 위치의 출력으로 고릅니다: "
    "model.decode(memory, src_mask, ys, subsequent_mask(ys.size(1))).",
    "ys_batch_axis": "ys가 batch 축(dim=0)으로 늘어납니다: 고른 토큰을 ys의 아래(새 문장)에 붙였습니다. ys는 언제나 "
    "(1, 지금까지의 길이) 모양이므로 길이 축에 이어 붙이세요: torch.cat([ys, …], dim=1).",
    "sampled": "다음 토큰을 확률에 따라 뽑았습니다(torch.multinomial, torch.distributions.Categorical(...).sample() 같은 "
    "sampling): 같은 입력으로 다시 실행하면 다른 토큰이 나옵니다. greedy decoding은 뽑지 않고 매 step log 확률이 가장 큰 "
    "토큰을 고릅니다: torch.max(prob, dim=1) 또는 prob.argmax(dim=-1).",
    "sampled_log_probs": "torch.multinomial로 다음 토큰을 뽑으려 했는데, generator의 출력은 확률이 아니라 log 확률(0 이하의 "
    "값)이라 multinomial이 받지 않습니다. 그보다 greedy decoding은 확률에 따라 뽑지(sampling) 않고 매 step log 확률이 "
    "가장 큰 토큰을 고릅니다: torch.max(prob, dim=1) 또는 prob.argmax(dim=-1).",
    "values_not_indices": "가장 큰 log 확률의 값(values)을 토큰 번호로 썼습니다: torch.max(prob, dim=1)은 (가장 큰 값, 그 "
    "위치) 두 개를 돌려주는데, 다음 토큰은 둘째인 위치(indices)입니다. torch.max(prob, dim=1)의 둘째 값이나 "
    "prob.argmax(dim=-1)로 고르세요.",
    "max_pair": "torch.max(prob, dim=1)은 텐서 하나가 아니라 (가장 큰 값, 그 위치) 두 개를 묶어 돌려줍니다. 다음 토큰은 "
    "둘째인 위치(indices)입니다: torch.max(prob, dim=1)의 둘째 값을 받거나 prob.argmax(dim=-1)을 쓰세요.",
    "not_best": "이어 붙인 토큰이 그 step generator 출력에서 log 확률이 가장 큰 토큰이 아닙니다. greedy decoding은 매 step "
    "두 번째로 큰 토큰도, 확률에 따라 뽑은 토큰도 아닌 가장 큰 log 확률의 토큰 하나를 고릅니다: torch.max(prob, dim=1) "
    "또는 prob.argmax(dim=-1).",
    "tokens": "고른 토큰이 기준과 다릅니다. 매 step 지금까지의 ys 전체를 causal mask와 함께 decode하고, 마지막 위치의 "
    "출력을 generator에 넣어 가장 큰 log 확률의 토큰을 이어 붙이세요.",
}

MAX_PAIR = "'torch.return_types."  # torch.max/topk's (values, indices) pair used as one tensor
SAMPLED_LOG_PROBS = "probability tensor contains either"  # torch.multinomial handed log-probabilities (negative)
FLOAT_TOKENS = "'indices'"  # nn.Embedding's message for float token ids ("Expected tensor for argument #1 'indices' …")

# ----------------------------------------------------------------------------- bug models
### BEGIN BUG MODELS
# Greedy decoding done one wrong way, on the case's own model (the course's make_model and the probe's weights).


@dataclass(frozen=True)
class Way:
    """One way of decoding: the solution's (all defaults) or with one known mistake."""

    position: int = -1  # the decoder output the next token is read from
    causal: bool = True  # a subsequent_mask as tgt_mask (else None)
    encode_mask: bool = True  # encode(src, src_mask) (else None)
    decode_mask: bool = True  # decode(memory, src_mask, ...) (else None)
    pick: str = "argmax"
    axis: int = -1  # the axis of (batch, vocabulary) scores the token is picked along
    generator: bool = True


WAYS = [("first_position", Way(position=0)), ("no_causal_mask", Way(causal=False)),
        ("source_mask", Way(encode_mask=False)), ("source_mask", Way(encode_mask=False, decode_mask=False)),
        ("argmin", Way(pick="argmin")), ("batch_axis", Way(axis=0)), ("generator_skipped", Way(generator=False))]


@functools.lru_cache(maxsize=1)
def _course():
    """The course's module as the chapter's solution has it (make_model, subsequent_mask); the build runs this."""
    from grader import paths

    from .loading import module_from_source

    return module_from_source((paths.SOLUTIONS / CHAPTER.id / "transformer.py").read_text(encoding="utf-8"))


def _decode_one_way(way, model, src, src_mask, max_len, start_symbol):
    """Greedy decoding the `way` says: max_len tokens, the start symbol first."""
    course = _course()
    memory = model.encode(src, src_mask if way.encode_mask else None)
    tokens = [start_symbol]
    while len(tokens) < max_len:
        ys = torch.tensor([tokens], dtype=src.dtype)
        mask = course.subsequent_mask(len(tokens)) if way.causal else None
        out = model.decode(memory, src_mask if way.decode_mask else None, ys, mask)[:, way.position]
        scores = model.generator(out) if way.generator else out
        tokens.append(int(getattr(scores, way.pick)(dim=way.axis).reshape(-1)[0]))  # along 0: next_word.data[0]
    return torch.tensor([tokens], dtype=src.dtype)


def _models(case):
    """(label, way) pairs: every known mistake on every case."""
    return WAYS


def _call(way, case, inputs):
    """The tokens greedy decoding one way gives on the case's model and inputs (or the exception it raised)."""
    spec = probe.CASES[case]
    model = probe.model_for(_course(), spec).requires_grad_(False)
    return _decode_one_way(way, model, *inputs, spec.max_len, spec.start)


MODEL_CODE = ModelCode(models=_models, call=_call)
### END BUG MODELS


def same_prefix(student, produced):
    """Whether a model's tokens reproduce the student's (1, L) tokens on their common length (at least 2)."""
    if not isinstance(produced, torch.Tensor) or student.dim() != 2 or produced.dim() != 2:
        return False
    n = min(student.size(1), produced.size(1))
    return n >= 2 and torch.equal(student[:, :n], produced[:, :n].to(student.dtype))


MODELS = BugModels("ch13", same=same_prefix, bugs=BUGS)

# ----------------------------------------------------------------------------- reading a case


def target_problem(decoder, visible):
    """A bug in the target the decoder was handed (Korean) or None: ys grown along the batch axis, or another tensor
    than the ys so far (its lengths, step by step, are not 1, 2, 3, …)."""
    batches = [call.get("batch") for call in decoder]
    lengths = [call.get("length") for call in decoder]
    if any(batch is not None and batch > 1 for batch in batches):
        return BUGS["ys_batch_axis"]
    if not lengths or None in lengths or lengths == list(range(1, len(lengths) + 1)):
        return None
    if len(lengths) > 1 and set(lengths) == {1}:
        return BUGS["last_token_only"]
    return BUGS["decode_target"] + (f" (decoder가 받은 target의 길이: {lengths})" if visible else "")


def masks_mixed(decoder):
    """The source mask handed where the causal target mask belongs (Korean), or None: seen by the hooks whether or not
    the decoder raised (the (1, 1, source length) mask does not fit the target's self-attention scores)."""
    if not any(call.get("tgt_mask") == "source" for call in decoder):
        return None
    return BUGS["masks_swapped"] if any(call.get("src_mask") == "causal" for call in decoder) else BUGS["tgt_is_source_mask"]


def hooks_problem(calls, error=False, visible=False):
    """A bug the hooks saw (Korean) or None: the generator never called after a decoder call that returned, a target
    other than the ys so far, the source mask given as the target mask, a source mask other than the given one (or a memory the encoder did not return), a target mask other than the causal one."""
    if any(call.get("done", True) for call in calls["decoder"]) and not calls["generator"]:
        return BUGS["generator_skipped"]
    target = target_problem(calls["decoder"], visible)
    mixed = target or masks_mixed(calls["decoder"])
    if mixed or error:
        return mixed
    if any(call.get("memory") == "other" for call in calls["decoder"]):
        return BUGS["memory_not_encoded"]
    if any(call["src_mask"] != "given" for call in calls["encoder"] + calls["decoder"]):
        return BUGS["source_mask"]
    masks = {call["tgt_mask"] for call in calls["decoder"]} - {"causal"}
    if masks:
        return BUGS["no_causal_mask"] if masks == {"none"} else BUGS["causal_mask_wrong"]
    return None


def picks(calls, found=None):
    """[(appended token, the generator's best token, its log-probability)], step by step: the tokens appended after the
    start symbol (from the returned `found`, else from the last target the embedding got) against what the generator
    said at each step; [] when the hooks cannot pair them (not one generator call per decoder call)."""
    calls = calls or {}
    generator, decoder = calls.get("generator") or [], calls.get("decoder") or []
    if not generator or len(generator) != len(decoder) or any("best" not in call for call in generator):
        return []
    if found is not None:
        appended = [int(token) for token in found[0, 1:]]
    else:
        targets = [call.get("tokens") for call in calls.get("target") or []]
        appended = (targets[-1] or [None])[1:] if targets else []
    return [(token, call["best"], call["top"]) for token, call in zip(appended, generator) if token is not None]


def values_picked(steps):
    """Whether each appended token is the best log-probability itself made a token (torch.max's values: fill_ on an
    integer tensor truncates toward zero), shown where one is -1 or less (all 0 would be the batch axis too)."""
    values = [int(top) for _, _, top in steps]
    return bool(steps) and [token for token, _, _ in steps] == values and any(values)


def values_elsewhere(evidence, case):
    """Whether, on another case the check reads (the random models', whose best log-probabilities are not all above
    -1), the student's tokens are torch.max's values: on the trained copy model every such value truncates to token 0,
    which the batch axis (dim=0 of a batch of one) gives too. There the values usually stop the run (a negative token
    given to the embedding): then the tokens are the last ones the embedding got, as `triage` reads them."""
    for other, spec in probe.CASES.items():
        if other == case or spec.model == "copy" or not evidence.may_read(other):
            continue
        trace = evidence.trace(other)
        if "error" in trace:
            steps = picks(trace.get("calls"))
        else:
            try:
                steps = picks(trace.get("calls"), read_tokens(evidence, other))
            except Finding:
                continue
        if values_picked(steps):
            return True
    return False


def not_best(calls, found):
    """Whether some appended token is not the generator's best at its step (read after the bug models: argmin and
    the batch axis are named by theirs)."""
    return any(token != best for token, best, _ in picks(calls, found))


def triage(evidence, case, error):
    """A Korean diagnosis of an exception the student's code raised on `case`."""
    calls = evidence.trace(case).get("calls")
    if not calls or error["type"] == "NotImplementedError":
        seen = None
    else:
        seen = (hooks_problem(calls, error=True, visible=evidence.visible(case))
                or (BUGS["values_not_indices"] if values_picked(picks(calls)) else None))
    return seen or explain_error(evidence, case, error, BUGS, rules=((FLOAT_TOKENS, "float_ys"),
                                                                       (SAMPLED_LOG_PROBS, "sampled_log_probs"),
                                                                       (MAX_PAIR, "max_pair")),
                                 models=MODELS)


def read_tokens(evidence, case):
    """The student's tokens on `case` as a (1, L) long tensor, or raise Finding (an exception, not a tensor, float)."""
    trace = evidence.trace(case)
    if "error" in trace:
        raise Finding(triage(evidence, case, trace["error"]))
    result = trace["result"]
    if result["kind"] != "tensor" or result.get("data") is None:
        raise Finding(BUGS["not_tensor"])
    if result["dtype"].startswith(("float", "bfloat", "complex")):
        raise Finding(BUGS["float_ys"])
    tokens = decode(result).to(torch.long)
    if tokens.dim() != 2 or tokens.size(0) != 1:
        detail = f" (찾은 모양: {tuple(tokens.shape)})" if evidence.visible(case) else ""
        raise Finding(BUGS["not_tensor"] + detail)
    return tokens


def start_dropped(found, expected):
    """Whether the student's tokens are the reference's without its first (the start symbol cut off, ys[:, 1:]): equal
    to the reference's shifted by one on their common length, and not to the reference itself."""
    n = min(found.size(1), expected.size(1) - 1)
    return (n >= 1 and not torch.equal(found[:, :n], expected[:, :n])
            and torch.equal(found[:, :n], expected[:, 1:n + 1]))


def expected_tokens(evidence, case):
    return decode(evidence.reference(case)["result"]).to(torch.long)


def tokens_problem(evidence, case):
    """The tokens on their common length with the reference's (the length is judged on its own)."""
    found, expected = read_tokens(evidence, case), expected_tokens(evidence, case)
    if found.size(1) == 1 and expected.size(1) > 2:  # (max_len 2: one token short, the length check says so)
        return BUGS["not_extended"]
    if start_dropped(found, expected):
        return BUGS["start_dropped"]
    if int(found[0, 0]) != probe.CASES[case].start:
        prepended = found.size(1) > 1 and int(found[0, -1]) == probe.CASES[case].start
        return BUGS["prepended" if prepended else "start_ignored"]
    n = min(found.size(1), expected.size(1))
    if torch.equal(found[:, :n], expected[:, :n]):
        return decoding_problem(evidence, case, n)
    trace = evidence.trace(case)
    problem = hooks_problem(trace["calls"], visible=evidence.visible(case))  # seen, not inferred
    if problem:
        return problem
    if trace.get("varies"):
        return BUGS["sampled"]
    steps = picks(trace["calls"], found)
    if values_picked(steps):
        return BUGS["values_not_indices"]
    if steps and all(token == int(top) == 0 for token, _, top in steps) and values_elsewhere(evidence, case):
        return BUGS["values_not_indices"]
    labels = MODELS.matching(evidence, case, student=found)
    if labels:
        return MODELS.explain(evidence, case, labels)
    if not_best(trace["calls"], found):
        return BUGS["not_best"]
    if not evidence.visible(case):
        return BUGS["tokens"]
    return f"{BUGS['tokens']} 돌려준 토큰 {found[0].tolist()}, 기준 {expected[0].tolist()}."


def decoding_problem(evidence, case, n):
    """On the copy model the source itself is the right answer: there the `n` tokens compared count only if the model
    made them (a decoder call for each token after the start symbol; the length is judged on its own). The decoder's
    calls count, not the generator's: the argmax of `model.generator.proj(…)` (the logits, whose order log_softmax
    keeps) picks the very same tokens without calling the generator module."""
    if probe.CASES[case].model != "copy":
        return None
    calls = evidence.trace(case).get("calls") or {}
    made = max(len(calls.get("decoder") or []), len(calls.get("generator") or []))
    return None if made >= min(n - 1, probe.MAX_CALLS) else BUGS["not_decoded"]


def length_problem(evidence, case):
    """ys holds max_len tokens, the start symbol included."""
    found, max_len = read_tokens(evidence, case), probe.CASES[case].max_len
    length = found.size(1)
    if length == max_len:
        return None
    if length == max_len - 1 and start_dropped(found, expected_tokens(evidence, case)):
        return BUGS["start_dropped"]
    known = {max_len + 1: "too_long", max_len - 1: "too_short", 1: "not_extended"}
    if length in known:
        return BUGS[known[length]]
    return BUGS["length"] + (f" (max_len={max_len}인데 {length}개입니다.)" if evidence.visible(case) else "")


# ----------------------------------------------------------------------------- checks

VISIBLE = ("digits", "copy_random", "causal", "padded")
RANDOM_MODEL_CASES = ("causal", "padded")
CHECKS = [
    # (The copy model's checks read the random models' cases too: torch.max's values look like the batch axis there.)
    Check(name="copy_digits", points=10, title="학습한 복사 모델이 [1, 2, …, 10]에서 낸 토큰 = 기준 (그대로 복사)", cases=("digits",),
          reads=RANDOM_MODEL_CASES, judge=each_case(tokens_problem)),
    Check(name="copy_random", points=10, title="학습한 복사 모델이 무작위 source에서 낸 토큰 = 기준", cases=("copy_random",),
          reads=RANDOM_MODEL_CASES, judge=each_case(tokens_problem)),
    Check(name="last_position", points=15, title="2층 무작위 모델의 greedy 토큰 = 기준 (매 step causal mask로 decode, 마지막 위치, "
          "generator, 가장 큰 log 확률)", cases=("causal",), judge=each_case(tokens_problem)),
    Check(name="source_mask", points=15, title="padding이 있는 source의 greedy 토큰 = 기준 (encode와 decode에 src_mask)", cases=("padded",),
          judge=each_case(tokens_problem)),
    Check(name="length", points=10, title="ys의 모양 = (1, max_len): 시작 기호 + 토큰 max_len - 1개", cases=VISIBLE,
          judge=each_case(length_problem)),
]

### BEGIN HIDDEN TESTS
HIDDEN = ("hidden_copy", "hidden_causal", "hidden_padded", "hidden_short")
CHECKS += [
    Check(name="hidden_copy", points=10, title="학습한 복사 모델이 다른 source에서 낸 토큰 = 기준", cases=("hidden_copy",),
          reads=("hidden_causal", "hidden_padded"), judge=each_case(tokens_problem), visible=False),
    Check(name="hidden_random", points=20, title="다른 크기, 층 수, padding, 시작 기호의 무작위 모델이 낸 토큰 = 기준",
          cases=("hidden_causal", "hidden_padded"), judge=each_case(tokens_problem), visible=False),
    Check(name="hidden_length", points=10, title="다른 max_len에서 ys의 길이 = max_len", cases=HIDDEN,
          judge=each_case(length_problem), visible=False),
]
### END HIDDEN TESTS

CHAPTER = Chapter(id="13_decoding", probe=probe, checks=CHECKS, bugs=BUGS, picture=None, model_code=MODEL_CODE)
