"""Chapter 12 checks: `data_gen`, `SimpleLossCompute`, `TrainState` counters and `run_epoch` (a few training steps).

Judge side. The probe records numbers, not code: the Batches data_gen made, what SimpleLossCompute returned
(and the generator's gradients), and for a tiny run of run_epoch the returned loss, the TrainState counters,
how often the optimizer, the scheduler and zero_grad ran, the target and norm the loss compute got, and a
fingerprint (sum, norm) of every parameter. Diagnoses are inferred from those numbers against the
reference's (a training loop is too heavy to rerun as bug models): a loss `norm` times too large was not
divided by norm; zero_grad never called with parameters off the reference is accumulated gradients; and so on.
"""
import math

import torch

from . import ch12_probe as probe
from . import messages
from .calls import explain_error
from .compare import close, decode, shape_text
from .contract import Budget, Chapter
from .framework import Check, Finding, each_case, noting_stand_in

BUGS = {
    "stub": messages.stub("아직 작성하지 않은 부분이 있습니다", "TODO(12)"),
    "data_count": "data_gen이 nbatches개의 Batch를 만들지 않습니다. nbatches번 반복하며 batch마다 yield하세요.",
    "data_not_batch": "data_gen은 Batch 객체를 yield해야 합니다(padding 기호는 0).",
    "data_shape": "Batch의 모양이 기준과 다릅니다. 데이터는 (batch_size, 10) 모양의 정수 텐서이고, Batch가 tgt를 "
    "tgt(마지막 토큰 제외)와 tgt_y(첫 토큰 제외)로 나눕니다.",
    "data_not_copy": "복사 과제인데 src와 tgt가 다른 데이터입니다. 같은 data에서 src와 tgt를 만드세요(clone).",
    "data_pad_arg": "Batch의 padding 번호가 0이 아닙니다(ntokens가 0이 아닌 토큰 수와 다릅니다). 이 과제의 padding은 0이므로 "
    "Batch(src, tgt, 0)으로 만드세요 (기본값은 2).",
    "data_no_start": "첫 열이 시작 기호 1이 아닙니다. 데이터를 뽑은 뒤 첫 열을 1로 바꿔 모든 문장이 1로 시작하게 하세요.",
    "data_pad": "데이터에 0이 들어 있습니다. 0은 padding이라 손실과 토큰 수에서 빠집니다. torch.randint(1, V, ...)처럼 1 "
    "이상에서 뽑으세요.",
    "data_range": "데이터에 V 이상이거나 음수인 토큰이 있습니다. 토큰 번호는 1 이상 V 미만입니다: torch.randint(1, V, ...).",
    "data_seed": "torch.manual_seed를 같은 값으로 두 번 부르고 만든 데이터가 서로 다릅니다. torch의 난수(torch.randint)로 "
    "뽑아야 시드로 재현됩니다 (random 모듈이나 새 Generator를 쓰지 마세요).",
    "data_values": "data_gen이 만든 토큰이 1 이상 V 미만에서 고르게 뽑은 값으로 보이지 않습니다: 어떤 토큰이 너무 적거나 "
    "많이 나옵니다(한 번도 나오지 않는 토큰이 있을 수도 있습니다). batch마다 (batch_size, 10) 모양의 토큰을 "
    "torch.randint(1, V, ...)로 뽑고 첫 열만 1로 바꾸세요.",
    "data_repeated": "data_gen이 같은 데이터를 되풀이합니다: batch끼리 같거나 한 batch의 문장이 모두 같습니다. batch마다 "
    "torch.randint로 새로 뽑고, data_gen 안에서 torch.manual_seed를 다시 부르지 마세요.",
    "loss_not_pair": "SimpleLossCompute는 (합계 손실, norm으로 나눈 손실) 두 값을 튜플로 돌려줘야 합니다. 합계 손실은 값만(계산 그래프 없이), 나눈 손실은 "
    "backward할 수 있게 돌려주세요.",
    "loss_other_count": "손실을 norm이 아닌 다른 수로 나눴습니다. SimpleLossCompute는 run_epoch가 넘긴 norm(padding이 아닌 "
    "토큰 수)으로 나눕니다: self.criterion(...) / norm. y.numel()이나 len(y)는 padding까지 셉니다.",
    "loss_not_divided": "손실을 norm으로 나누지 않았습니다. criterion의 합계를 토큰 수(norm)로 나눠야 batch 크기와 상관없이 "
    "토큰당 손실이 되고, 기울기의 크기도 일정해집니다: self.criterion(...) / norm.",
    "loss_multiplied": "손실에 norm을 곱했습니다. criterion의 합계를 토큰 수(norm)로 나눠야 토큰당 손실이 됩니다: "
    "곱하기(*)가 아니라 나누기(/)입니다.",
    "loss_graph": "SimpleLossCompute의 첫 값(기록용 합계 손실)이 계산 그래프를 붙든 채입니다. 이 값을 run_epoch가 계속 "
    "더하면 모든 batch의 그래프가 메모리에 남습니다. sloss.data * norm처럼 그래프를 떼어 낸 값을 돌려주세요.",
    "loss_node_detached": "SimpleLossCompute의 둘째 값에 계산 그래프가 없어 backward를 부를 수 없습니다. 둘째 값은 "
    "criterion의 결과를 norm으로 나눈 텐서 그대로(sloss) 돌려주세요.",
    "loss_divided_twice": "SimpleLossCompute의 둘째 값을 norm으로 두 번 나눴습니다. sloss는 이미 self.criterion(...) / "
    "norm이므로 그대로 돌려주세요(sloss / norm이 아니라 sloss).",
    "loss_first": "SimpleLossCompute의 첫 값이 기준과 다릅니다. 첫 값은 norm으로 나누기 전의 합계입니다: sloss.data * norm.",
    "loss_view": "SimpleLossCompute에서 .view(-1)를 메모리가 연속이 아닌 텐서에 썼습니다. batch.tgt_y는 tgt[:, 1:]처럼 잘라 낸 "
    "텐서라 view로 펼 수 없습니다. 원문처럼 .contiguous().view(-1)이나 .reshape(-1)을 쓰세요.",
    "loss_no_generator": "criterion(LabelSmoothing)이 받은 x의 마지막 축이 어휘 크기가 아닙니다(LabelSmoothing의 assert에서 "
    "AssertionError). 모델 출력은 d_model 크기이므로 먼저 x를 self.generator에 통과시켜 어휘에 대한 log 확률을 구하세요.",
    "loss_value": "SimpleLossCompute의 손실 값이 기준과 다릅니다. generator로 log 확률을 구해 (토큰 수, vocab)과 (토큰 수,)로 "
    "편 뒤 criterion에 넣으세요.",
    "loss_gradient": "SimpleLossCompute의 손실 값은 맞지만 backward의 기울기가 generator의 parameter에 기준대로 "
    "전해지지 않습니다. generator의 출력에서 손실까지 계산 그래프를 끊지 마세요(.detach(), .data, torch.no_grad() 없이).",
    "forward_masks_swapped": "model.forward에 src_mask와 tgt_mask를 바꿔 넘겼습니다. EncoderDecoder.forward는 "
    "(src, tgt, src_mask, tgt_mask) 순서로 받으니, batch에서 같은 이름의 값을 그 순서대로 넘기세요.",
    "forward_inputs_swapped": "model.forward에 src와 tgt를 바꿔 넘겼습니다. EncoderDecoder.forward는 "
    "(src, tgt, src_mask, tgt_mask) 순서로 받으니, batch에서 같은 이름의 값을 그 순서대로 넘기세요.",
    "forward_args": "model.forward에 batch의 값을 제자리에 넘기지 않았습니다. EncoderDecoder.forward는 "
    "(src, tgt, src_mask, tgt_mask) 순서로 받으니, batch에서 같은 이름의 값을 그 순서대로 넘기세요.",
    "not_pair": "run_epoch는 (토큰당 평균 손실, train_state) 두 값을 돌려줘야 합니다.",
    "loss_calls": "run_epoch가 batch마다 loss_compute를 한 번씩 부르지 않았습니다. 모델 출력, batch.tgt_y, batch.ntokens로 batch마다 한 번 "
    "부르세요.",
    "target_tgt": "손실을 batch.tgt에 대해 계산했습니다. tgt는 decoder의 입력(마지막 토큰 제외)이고, 맞혀야 할 답은 한 칸 "
    "민 batch.tgt_y입니다: loss_compute(out, batch.tgt_y, batch.ntokens).",
    "norm_arg": "loss_compute에 넘긴 norm이 batch.ntokens가 아닙니다: loss_compute(out, batch.tgt_y, batch.ntokens).",
    "no_zero_grad": "optimizer.step() 뒤에 기울기를 지우지 않아(zero_grad 없음) 기울기가 batch마다 쌓입니다. 다음 step은 "
    "지난 batch들의 기울기까지 더해 움직입니다. optimizer.step() 다음에 optimizer.zero_grad(set_to_none=True)를 부르세요.",
    "no_scheduler": "scheduler.step()을 부르지 않았습니다. 학습률이 처음 값(warmup의 첫 단계)에 머뭅니다. train mode에서 "
    "batch마다 scheduler.step()을 부르세요.",
    "train_log_ignored": 'mode="train+log"에서 학습하지 않았습니다(backward, optimizer.step, scheduler.step 없음). '
    '"train+log"도 학습 mode입니다: "train"과 "train+log" 둘 다에서 학습하세요.',
    "scheduler_in_accum": "scheduler.step()을 optimizer.step()과 함께 i % accum_iter == 0인 batch에서만 불렀습니다. 원문은 "
    "학습률의 단계를 batch마다 셉니다: scheduler.step()은 if 블록 밖에서 train mode의 batch마다 부르세요.",
    "scheduler_count": "scheduler.step()을 부른 횟수가 기준과 다릅니다. train mode에서 batch마다 한 번 부르세요.",
    "accum_ignored": "accum_iter를 무시했습니다: batch마다 optimizer.step()을 불렀습니다. 기울기를 accum_iter개 batch 동안 "
    "모았다가 i % accum_iter == 0인 batch에서만 step하고 accum_step을 늘리세요.",
    "optimizer_count": "optimizer.step()을 부른 횟수가 기준과 다릅니다. train mode에서 i % accum_iter == 0인 batch마다 "
    "한 번 부르세요.",
    "eval_steps": 'mode="eval"인데 학습을 했습니다(backward, optimizer.step, scheduler.step 또는 train_state 변경). 평가에서는 '
    '손실만 모으고 parameter를 바꾸지 않아야 합니다. mode가 "train"이나 "train+log"일 때만 학습하세요.',
    "state_swapped": "train_state.samples와 train_state.tokens가 바뀌었습니다. samples에는 batch의 문장 수"
    "(batch.src.shape[0]), tokens에는 토큰 수(batch.ntokens)를 더하세요.",
    "tokens_not_accumulated": "train_state.tokens에 batch.ntokens를 더하지 않았습니다. 학습한 토큰 수(batch.ntokens)를 batch마다 모으세요.",
    "samples_counted": "train_state.samples가 기준과 다릅니다(step, accum_step, tokens는 맞습니다). samples에는 batch마다 "
    "문장 수, 곧 batch 크기를 더합니다: 첫 축의 크기(batch.src.shape[0]). 문장 길이(shape[1])나 토큰 수가 아닙니다.",
    "state_counters": "TrainState의 횟수가 기준과 다릅니다. train mode의 batch마다 step은 1, samples는 batch의 문장 수, tokens는 batch의 토큰 "
    "수만큼 늘고, accum_step은 optimizer.step()마다 1 늘어납니다.",
    "epoch_graph": "run_epoch가 돌려준 손실이 계산 그래프를 붙든 채입니다. 그래프를 떼어 낸 값(loss_compute의 첫 값)을 "
    "모으세요.",
    "epoch_no_tokens": "run_epoch가 돌려준 평균 손실이 inf나 nan입니다: 모은 토큰 수 total_tokens가 0인 채로 나눴습니다. "
    "batch의 토큰 수(batch.ntokens)는 mode와 상관없이(평가에서도) batch마다 total_tokens에 더하세요.",
    "epoch_loss": "run_epoch가 돌려준 평균 손실이 기준과 다릅니다. 모든 batch의 합계 손실을 모든 batch의 토큰 수 합으로 "
    "나누세요: total_loss / total_tokens.",
    "step_before_backward": "optimizer.step()을 loss_node.backward()보다 먼저 불렀습니다. 그러면 step은 이번 batch의 "
    "기울기 없이 움직입니다. batch마다 backward로 기울기를 구한 다음 optimizer.step()을 부르세요.",
    "zero_grad_before_step": "optimizer.zero_grad()를 optimizer.step()보다 먼저 불렀습니다. 그러면 backward로 구한 기울기를 "
    "지운 뒤 step하므로 parameter가 움직이지 않습니다. optimizer.step() 다음에 zero_grad를 부르세요.",
    "zero_grad_unstepped": "optimizer.step()을 부르지 않는 batch에서도 zero_grad를 불러, accum_iter개 batch 동안 쌓아야 할 "
    "기울기를 지웁니다. zero_grad는 i % accum_iter == 0일 때 optimizer.step() 바로 다음에만 부르세요.",
    "criterion_args_swapped": "criterion에 넘긴 두 인자의 순서가 바뀌었습니다: 정답 토큰(1차원)을 먼저, log 확률(2차원)을 "
    "나중에 넘겼습니다. criterion(LabelSmoothing)은 (log 확률 (토큰 수, 어휘 크기), 정답 토큰 (토큰 수,)) 순서로 받습니다.",
    "generator_in_epoch": "run_epoch가 model.generator를 적용한 결과(어휘 크기의 log 확률)를 loss_compute에 넘겼습니다. "
    "loss_compute(SimpleLossCompute)가 스스로 generator를 적용하므로, 두 번 적용되어 모양이 맞지 않습니다. run_epoch는 "
    "model.forward의 출력(d_model 차원)을 그대로 loss_compute에 넘기세요.",
    "backward_on_record": "backward를 계산 그래프가 없는 값에 불렀습니다: loss_compute가 돌려주는 첫 값은 기록용으로 "
    "그래프를 떼어 낸 합계 손실(.data)입니다. backward는 그래프가 달린 둘째 값(loss_node)에 부르세요.",
    "parameters": "학습한 뒤 parameter가 기준과 다릅니다. batch마다 forward → loss_compute → backward, i % accum_iter == 0이면 "
    "optimizer.step()과 zero_grad, 그리고 scheduler.step() 순서를 확인하세요.",
}

COUNTERS = ("step", "accum_step", "samples", "tokens")

# ----------------------------------------------------------------------------- reading a case


# SimpleLossCompute's exceptions: .view on the sliced tgt_y; LabelSmoothing's size assert on x without the generator
LOSS_RULES = [("view size is not compatible", "loss_view")]
# run_epoch's: backward on the loss compute's detached first value (the probe's stand-in returns the pair right)
EPOCH_RULES = [("does not require grad and does not have a grad_fn", "backward_on_record")]


FORWARD_PARAMETERS = ("src", "tgt", "src_mask", "tgt_mask")  # EncoderDecoder.forward's, in order


def forward_problem(evidence, case):
    """Korean: the model's first forward call got other Batch fields than the reference's (masks or src and tgt
    swapped, or another mix: shown on a visible case), or None (also when no forward call was recorded)."""
    found = evidence.trace(case).get("forward")
    expected = evidence.reference(case).get("forward")
    if not found or not expected or found == expected:
        return None

    def given(call):
        return {**dict(zip(FORWARD_PARAMETERS, call["args"])), **call["kwargs"]}

    mine, want = given(found), given(expected)
    if mine == want:
        return None
    swaps = {"forward_masks_swapped": ("src_mask", "tgt_mask"), "forward_inputs_swapped": ("src", "tgt")}
    for bug, (a, b) in swaps.items():
        if {**mine, a: mine.get(b), b: mine.get(a)} == want:
            return BUGS[bug]
    if not evidence.visible(case):
        return BUGS["forward_args"]
    shown = ", ".join(f"{name}=batch.{mine[name]}" if mine.get(name) in probe.FIELDS else f"{name}={mine.get(name)}"
                      for name in FORWARD_PARAMETERS if name in mine)
    return f"{BUGS['forward_args']} (넘긴 것: {shown})"


def swapped_criterion(trace):
    """Korean: the criterion handed (target, log probabilities), seen by the probe's hook before it raised, or None."""
    return BUGS["criterion_args_swapped"] if trace.get("criterion_dims") == [1, 2] else None


def generator_applied_twice(evidence, case):
    """Korean: run_epoch handed the loss compute the generator's output (the vocabulary's size, not d_model's), which
    the loss compute's generator then refuses, or None."""
    spec, last = probe.CASES[case], evidence.trace(case).get("loss_input")
    return BUGS["generator_in_epoch"] if last is not None and last == spec.vocab != spec.d_model else None


def read(evidence, case):
    """The student's trace of `case`, or Finding with the diagnosis of the exception it raised (what the model's
    forward received first: an exception inside the model usually comes from its arguments)."""
    if probe.CASES[case].kind != "loss":
        trace = evidence.trace(case)
        if "error" in trace and trace["error"]["type"] != "NotImplementedError":
            problem = forward_problem(evidence, case) or generator_applied_twice(evidence, case)
            if problem:
                raise Finding(problem)
        if "error" in trace:
            raise Finding(explain_error(evidence, case, trace["error"], BUGS, rules=EPOCH_RULES))
        return trace
    trace = evidence.trace(case)
    if "error" not in trace:
        return trace
    error = trace["error"]
    swapped = swapped_criterion(trace)
    if swapped and error["type"] != "NotImplementedError":
        raise Finding(swapped)
    problem = explain_error(evidence, case, error, BUGS, rules=LOSS_RULES)
    if error["type"] == "AssertionError" and not error["message"]:
        problem = f"{BUGS['loss_no_generator']} ({problem})"
    raise Finding(problem)


def number(described):
    """A returned scalar (a number or a one-element tensor) as a float, else None."""
    if described.get("kind") == "number":
        return described["value"]
    if described.get("kind") == "tensor" and described.get("data") is not None and len(described["data"]) == 1:
        return float(decode(described).reshape(-1)[0])
    return None


def near(found, expected, rtol=1e-4, atol=1e-5):
    """Whether two floats agree within the grading tolerance (a reference number is never compared exactly)."""
    return found is not None and math.isfinite(found) and abs(found - expected) <= atol + rtol * abs(expected)


# ----------------------------------------------------------------------------- data_gen


def read_batches(evidence, case):
    """The student's Batches on a data case (the fields as tensors), or Finding when they are not Batches."""
    batches = read(evidence, case)["batches"]
    if len(batches) != len(evidence.reference(case)["batches"]):
        raise Finding(BUGS["data_count"] + (f" ({len(batches)}개를 만들었습니다.)" if evidence.visible(case) else ""))
    if any(b["src"]["kind"] != "tensor" or b["tgt_y"]["kind"] != "tensor" or b["ntokens"] is None for b in batches):
        raise Finding(BUGS["data_not_batch"])
    return batches


def batches_problem(evidence, case):
    """data_gen's Batches: how many, their shapes, a copy task, padding 0 (Korean problem or None)."""
    batches = read_batches(evidence, case)
    for found, expected in zip(batches, evidence.reference(case)["batches"]):
        shapes = [(found[k]["shape"], expected[k]["shape"], k) for k in ("src", "tgt", "tgt_y")]
        shapes += [(found[k], expected[k], k[:-6]) for k in ("src_mask_shape", "tgt_mask_shape")]
        for have, want, key in shapes:
            if list(have) != list(want):
                detail = f" {key}: {shape_text(want)}이어야 하는데 {shape_text(have)}입니다." if evidence.visible(case) else ""
                return BUGS["data_shape"] + detail
        src, tgt, tgt_y = (decode(found[k]) for k in ("src", "tgt", "tgt_y"))
        if not torch.equal(src, torch.cat([tgt, tgt_y[:, -1:]], dim=1)):
            return BUGS["data_not_copy"]
        if found["ntokens"] != float((tgt_y != probe.PAD).sum()):
            return BUGS["data_pad_arg"]
    return None


def tokens_problem(evidence, case):
    """data_gen's tokens: the start symbol first, 1 ≤ token < V (no padding), repeatable under a seed, and the very
    values the solution draws under that seed."""
    batches = read_batches(evidence, case)
    vocab = probe.CASES[case].vocab
    src = torch.cat([decode(b["src"]) for b in batches])
    if src.numel() and not bool((src[:, 0] == 1).all()):
        return BUGS["data_no_start"]
    if src.numel() and int(src.min()) == probe.PAD:
        return BUGS["data_pad"]
    if src.numel() and (int(src.min()) < 0 or int(src.max()) >= vocab):
        return BUGS["data_range"]
    if not evidence.trace(case)["repeatable"]:
        return BUGS["data_seed"]
    expected = torch.cat([decode(b["src"]) for b in evidence.reference(case)["batches"]])
    if src.shape == expected.shape and torch.equal(src, expected):
        return None
    # Drawn another way than the solution (torch.randint of (batch_size, 9) and a column of ones put in front, …):
    # right when the draws look like the task's (constant or repeated data never does).
    tokens = [decode(batch["src"]).to(torch.long)[:, 1:] for batch in batches]
    if repeated(tokens):
        return BUGS["data_repeated"]
    return None if src.shape == expected.shape and drawn_uniformly(tokens, vocab) else BUGS["data_values"]


def repeated(tokens):
    """Whether one batch's tokens (after the start column) repeat another's, or one batch is one row repeated."""
    return (any(torch.equal(tokens[i], tokens[j]) for i in range(len(tokens)) for j in range(i))
            or any(t.size(0) > 1 and bool((t == t[:1]).all()) for t in tokens))


def drawn_uniformly(tokens, vocab):
    """Whether the tokens after the start column come up about equally often over 1..V-1: each within half of its
    expected count (the cases draw 60 or more of each, so a fair draw is more than four standard deviations inside;
    `torch.randint(2, V, …)` never draws a 1)."""
    flat = torch.cat([t.reshape(-1) for t in tokens])
    expected = flat.numel() / (vocab - 1)
    counts = torch.bincount(flat, minlength=vocab)[1:vocab].to(torch.float64)
    return expected >= 20 and bool(((counts >= 0.5 * expected) & (counts <= 1.5 * expected)).all())


def data_problem(evidence, case):
    """Both data judges on one (hidden) case."""
    return batches_problem(evidence, case) or tokens_problem(evidence, case)


# ----------------------------------------------------------------------------- SimpleLossCompute


def loss_problem(evidence, case):
    """SimpleLossCompute's pair: a detached sum and the graph-holding loss divided by norm; the generator's gradients."""
    trace = read(evidence, case)
    expected = evidence.reference(case)
    if trace["length"] != 2 or any(item["kind"] not in ("tensor", "number") for item in trace["result"]):
        return BUGS["loss_not_pair"]
    (total, node), (want_total, want_node) = trace["result"], expected["result"]
    if total["graph"]:
        return BUGS["loss_graph"]
    if not node["graph"]:
        return BUGS["loss_node_detached"]
    norm = probe.make_inputs(case)[2]
    found, wanted = number(node), number(want_node)
    if near(found, wanted * norm):
        return BUGS["loss_not_divided"]
    if near(found, wanted * norm * norm):  # criterion(...) * norm: multiplied where it should divide
        return BUGS["loss_multiplied"]
    if not near(found, wanted):
        if near(found, wanted / norm):  # sloss / norm, sloss already divided; the first value is named too if wrong
            first_right = near(number(total), number(want_total))
            return BUGS["loss_divided_twice"] + ("" if first_right else " " + BUGS["loss_first"])
        divisor = wanted * norm / found if found else 0.0
        if divisor >= 1 and near(divisor, round(divisor)) and not near(divisor, norm):  # the sum over another count
            shown = f" (나눈 수: {round(divisor)}, norm: {norm:g})" if evidence.visible(case) else ""
            return BUGS["loss_other_count"] + shown
        return BUGS["loss_value"]
    if not near(number(total), number(want_total)):
        return BUGS["loss_first"]
    for key, grad in expected["gradients"].items():
        given = trace.get("gradients", {}).get(key, {"kind": "none"})
        if given.get("kind") != "tensor" or not close(decode(given), decode(grad)):
            return BUGS["loss_gradient"]
    return None


# ----------------------------------------------------------------------------- run_epoch


def calls_problem(found, expected, returned=True):
    """What run_epoch handed the loss compute, and (if `returned`) whether the first values it got back hold a graph."""
    if len(found["calls"]) != len(expected["calls"]):
        return BUGS["loss_calls"]
    if any(call["target"] == "tgt" for call in found["calls"]):
        return BUGS["target_tgt"]
    if not all(near(mine["norm"], theirs["norm"]) for mine, theirs in zip(found["calls"], expected["calls"])):
        return BUGS["norm_arg"]
    if returned and any(call["loss"].get("graph") for call in found["calls"]):
        return BUGS["loss_graph"]
    first, wanted = number(found["calls"][0]["loss"]), number(expected["calls"][0]["loss"])
    norm = expected["calls"][0]["norm"]
    if not near(first, wanted) and (near(first, wanted * norm) or near(first, wanted * norm * norm)):
        return BUGS["loss_not_divided"]
    return None


def steps_problem(found, expected, spec):
    """How often the optimizer and the scheduler stepped (Korean problem or None)."""
    if spec.kind == "eval":
        trained = (found["optimizer_steps"] or found["scheduler_steps"] or found["changed"]
                   or found["gradients_left"] > 0 or any(found["state"][k] for k in COUNTERS))
        return BUGS["eval_steps"] if trained else None
    untrained = not (found["optimizer_steps"] or found["scheduler_steps"] or found["changed"])
    if spec.mode != "train" and untrained:
        return BUGS["train_log_ignored"]
    if found["scheduler_steps"] != expected["scheduler_steps"]:
        if found["scheduler_steps"] == 0:
            return BUGS["no_scheduler"]
        in_accum = spec.accum_iter > 1 and found["scheduler_steps"] == found["optimizer_steps"] == expected["optimizer_steps"]
        return BUGS["scheduler_in_accum"] if in_accum else BUGS["scheduler_count"]
    if found["optimizer_steps"] != expected["optimizer_steps"]:
        ignored = spec.accum_iter > 1 and found["optimizer_steps"] == spec.nbatches
        return BUGS["accum_ignored"] if ignored else BUGS["optimizer_count"]
    return None


def fingerprints(trace, names):
    """The parameters' [sum, norm] in the reference's order as one tensor (None if a name is missing)."""
    found = trace["parameters"]
    if any(name not in found for name in names):
        return None
    return torch.tensor([value for name in names for value in found[name]], dtype=torch.float64)


def parameters_problem(found, expected):
    """The parameters after the run against the reference's (Korean problem or None)."""
    names = list(expected["parameters"])
    mine = fingerprints(found, names)
    if mine is not None and close(mine, fingerprints(expected, names)):
        return None
    return BUGS["no_zero_grad"] if found["zero_grad"] == 0 else order_problem(found) or BUGS["parameters"]


def order_problem(found):
    """Korean: gradients cleared in a batch that does not step (accumulation lost), the optimizer stepped before the
    batch's backward, or its gradients cleared between the backward and the step, read from the order of the recorded
    events of each batch; or None."""
    batches, current = [], None
    for event in found.get("events") or []:
        if event == "loss":
            current = []
            batches.append(current)
        elif current is not None:
            current.append(event)
    if any("zero_grad" in events and "step" not in events for events in batches):
        return BUGS["zero_grad_unstepped"]
    for events in batches:
        if "step" not in events:
            continue
        step = events.index("step")
        if "backward" in events and events.index("backward") > step:
            return BUGS["step_before_backward"]
        if "backward" in events[:step] and "zero_grad" in events[events.index("backward"):step]:
            return BUGS["zero_grad_before_step"]
    return None


def returned_problem(found, expected):
    """The average loss run_epoch returned (Korean problem or None)."""
    if found["loss"].get("graph"):
        return BUGS["epoch_graph"]
    average = number(found["loss"])
    if average is not None and not math.isfinite(average):
        return BUGS["epoch_no_tokens"]
    return None if near(number(found["loss"]), number(expected["loss"])) else BUGS["epoch_loss"]


def epoch_problem(evidence, case, returned=True):
    """One run of run_epoch: the calls, the steps, the parameters and (if `returned`) the loss it returned."""
    found, expected = read(evidence, case), evidence.reference(case)
    if not found["pair"] or found["state"] is None:
        return BUGS["not_pair"]
    spec = probe.CASES[case]
    return (forward_problem(evidence, case) or calls_problem(found, expected, returned)
            or steps_problem(found, expected, spec)
            or parameters_problem(found, expected) or (returned and returned_problem(found, expected)) or None)


def state_problem(evidence, case):
    """The TrainState counters after the run (Korean problem or None)."""
    found, expected = read(evidence, case), evidence.reference(case)
    if not found["pair"] or found["state"] is None:
        return BUGS["not_pair"]
    wrong = [key for key in COUNTERS if not near(found["state"][key], expected["state"][key])]
    if not wrong:
        return None
    spec = probe.CASES[case]
    if spec.mode != "train" and not any(found["state"][key] for key in COUNTERS):
        return BUGS["train_log_ignored"]
    state, want = found["state"], expected["state"]
    if {"samples", "tokens"} <= set(wrong) and near(state["samples"], want["tokens"]) and near(state["tokens"], want["samples"]):
        return BUGS["state_swapped"]
    if "tokens" in wrong:
        return BUGS["tokens_not_accumulated"]
    if wrong == ["samples"]:
        return BUGS["samples_counted"]
    if "accum_step" in wrong and spec.accum_iter > 1 and found["state"]["accum_step"] == spec.nbatches:
        return BUGS["accum_ignored"]
    if not evidence.visible(case):
        return BUGS["state_counters"]
    detail = ", ".join(f"{key} = {shown(found['state'][key])} (기준 {shown(expected['state'][key])})" for key in wrong)
    return f"{BUGS['state_counters']} {detail}."


def shown(value):
    """A counter as the student reads it ("없음" when it is missing or not a number)."""
    return "없음" if value is None else f"{value:g}"


def training_problem(evidence, case):
    """A hidden training run: the run itself, then its TrainState."""
    return epoch_problem(evidence, case) or state_problem(evidence, case)


# ----------------------------------------------------------------------------- one mistake, one unit's points

STAND_IN = ("run_epoch의 검사는 채점기가 만든 대역 loss compute로 대신 채점합니다: 이 실수로는 SimpleLossCompute 검사의 "
            "점수만 잃습니다.")
LOSS = ("loss",)  # read by every run_epoch check: a failing SimpleLossCompute → judged with the probe's stand-in


def loss_check(judge):
    """A SimpleLossCompute check's judge that, when it fails, says run_epoch is judged with the probe's stand-in."""
    return noting_stand_in(judge, STAND_IN)


def with_stand_in(judge):
    """`judge` on the runs with the probe's `LossDouble` (against the reference's runs with it) when the student's
    SimpleLossCompute fails its own check: run_epoch, TrainState and accum_iter are judged as if it were right."""

    def judged(evidence):
        try:
            faulty = loss_problem(evidence, "loss") is not None
        except Finding:
            faulty = True
        if faulty:
            cases = [case for case in evidence.cases if "stand_in" in evidence.trace(case)]
            evidence = evidence.with_traces({case: evidence.trace(case)["stand_in"] for case in cases},
                                            {case: evidence.reference(case)["stand_in"] for case in cases})
        return judge(evidence)

    return judged


def epoch_check(name, points, title, cases, judge_one, visible=True):
    """A run_epoch check of `cases`, judged with the stand-in loss compute when SimpleLossCompute fails."""
    return Check(name=name, points=points, title=title, cases=cases, reads=LOSS,
                 judge=with_stand_in(each_case(judge_one)), visible=visible)


# ----------------------------------------------------------------------------- checks

CHECKS = [
    Check(name="data_batches", points=10, title="data_gen의 Batch: nbatches개, (batch_size, 10), 복사 과제, padding 0",
          cases=("data",), judge=each_case(batches_problem)),
    Check(name="data_tokens", points=10, title="data_gen의 토큰: 첫 열은 시작 기호 1, 1..V-1 (0 없음), 시드로 재현, 고르게 뽑음",
          cases=("data",), judge=each_case(tokens_problem)),
    Check(name="loss_compute", points=10, title="SimpleLossCompute의 두 반환값과 generator 기울기 = 기준 (sloss.data * norm, sloss)",
          cases=("loss",), judge=loss_check(each_case(loss_problem))),
    epoch_check("train_epoch", 15, "run_epoch 학습 뒤 parameter, step 횟수, 평균 손실 = 기준 (tgt_y, backward, zero_grad, scheduler)", ("train",),
                epoch_problem),
    epoch_check("train_state", 10, "학습 뒤 TrainState의 step, accum_step, samples, tokens = 기준", ("train", "accum"), state_problem),
    epoch_check("accumulation", 10, "accum_iter=2 학습의 optimizer.step 횟수와 parameter = 기준 (i % accum_iter == 0일 때만)", ("accum",),
                lambda evidence, case: epoch_problem(evidence, case, returned=False)),
    epoch_check("eval_mode", 5, 'mode="eval"의 평균 손실 = 기준, parameter와 step은 그대로', ("eval",), epoch_problem),
]

### BEGIN HIDDEN TESTS
CHECKS += [
    Check(name="hidden_data", points=10, title="다른 V와 batch 크기의 data_gen: Batch와 토큰 = 기준", cases=("hidden_data",),
          judge=each_case(data_problem), visible=False),
    Check(name="hidden_loss", points=5, title="다른 크기의 SimpleLossCompute 반환값 = 기준", cases=("hidden_loss",),
          judge=loss_check(each_case(loss_problem)), visible=False),
    epoch_check("hidden_train", 15, "다른 모델과 accum_iter의 학습 결과와 TrainState = 기준", ("hidden_train",), training_problem, visible=False),
]
### END HIDDEN TESTS

CHAPTER = Chapter(id="12_training", probe=probe, checks=CHECKS, bugs=BUGS, picture=None,
                  budget=Budget(cpu_seconds=20, wall_seconds=30, threads=1))
