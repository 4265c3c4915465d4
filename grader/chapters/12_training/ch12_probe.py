"""Chapter 12 probe: the student's `data_gen`, `SimpleLossCompute` and `run_epoch`, recorded as plain data.

Sandbox side. A "data" case calls `data_gen` twice under one seed and records every Batch. A "loss" case
calls the student's `SimpleLossCompute` on a seeded `Generator` and `LabelSmoothing` and backpropagates
its second value. A "train"/"eval" case builds a tiny `make_model` with seeded weights (loaded strictly),
a fixed list of Batches drawn here (not by the student's `data_gen`), Adam and LambdaLR(`rate`) (the probe's
`AdamDouble` and `LambdaLRDouble`: torch.optim's arithmetic without its first-use import of torch._dynamo), runs the
student's `run_epoch` a few steps, and records what it returned, the TrainState counters, how often the
optimizer, the scheduler and `zero_grad` ran (and in which order with the loss compute's calls and the backward
passes through its second value: "events"), what the loss compute was called with and a fingerprint of
every parameter (sum and norm); each such case runs again with the probe's `LossDouble` in place of the
student's SimpleLossCompute ("stand_in": run_epoch is judged alone when the loss compute fails its own check).
The model, Batch, LabelSmoothing and rate come from the student's module (earlier chapters, shipped solved). Hidden cases live between the hidden-test markers.
"""
import contextlib
import io
from dataclasses import dataclass

import torch

from . import modules
from .tensors import describe_exception, encode

DATA_FILES = ("ch12_given.json",)  # the units this chapter ships written, as the course wrote them (given.py)

V = 11  # vocabulary of the copy task; 0 is the padding
PAD = 0
START = 1  # the copy task's start symbol, the first column of every batch
LENGTH = 10  # data_gen's sequence length (the task fixes it)


@dataclass(frozen=True)
class Case:
    """One call of the chapter's code."""

    visible: bool
    text: str  # the case in Korean, as diagnoses name it
    kind: str  # "data" | "loss" | "train" | "eval"
    seed: int = 0
    vocab: int = V
    batch_size: int = 4
    nbatches: int = 3
    accum_iter: int = 1
    d_model: int = 16
    d_ff: int = 32
    heads: int = 2
    smoothing: float = 0.0
    mode: str = "train"  # run_epoch's mode on a "train" case: "train" or "train+log" (both train)


CASES = {
    "data": Case(visible=True, text="data_gen(11, 30, 3), torch.manual_seed(1201)로 두 번", kind="data", seed=1201,
                 batch_size=30),
    "loss": Case(visible=True, text="SimpleLossCompute: Generator(16, 11), LabelSmoothing(11, 0, 0.1), "
                 "padding이 섞인 y (2, 5)", kind="loss", seed=1202, smoothing=0.1),
    "train": Case(visible=True, text="run_epoch 학습: 작은 모델, batch 3개, accum_iter=1", kind="train", seed=1203),
    "accum": Case(visible=True, text='run_epoch 학습(mode="train+log"): batch 4개, accum_iter=2', kind="train",
                  seed=1204, nbatches=4, accum_iter=2, mode="train+log"),
    "eval": Case(visible=True, text='run_epoch(mode="eval"): batch 2개', kind="eval", seed=1205, nbatches=2),
    ### BEGIN HIDDEN TESTS
    "hidden_data": Case(visible=False, text="숨겨진 data_gen 입력 (다른 V와 batch 크기)", kind="data", seed=881_201,
                        vocab=7, batch_size=20, nbatches=2),
    "hidden_loss": Case(visible=False, text="숨겨진 SimpleLossCompute 입력", kind="loss", seed=881_202, vocab=9,
                        d_model=8, smoothing=0.2),
    "hidden_train": Case(visible=False, text="숨겨진 run_epoch 학습 (다른 모델 크기, batch 5개, accum_iter=3)",
                         kind="train", seed=881_203, nbatches=5, accum_iter=3, d_model=32, d_ff=64, heads=4,
                         smoothing=0.1),
    ### END HIDDEN TESTS
}


def case_names(visible_only=False):
    """Names of the cases, in a stable order; only the visible ones if asked."""
    return [name for name, case in CASES.items() if case.visible or not visible_only]


def make_inputs(name):
    """The case's raw inputs, the same way every time: a "loss" case (x, y, norm); a train/eval case the list of
    (src, tgt) token tensors its Batches are built from (pad 0 never drawn, first column the start symbol 1)."""
    case = CASES[name]
    generator = torch.Generator().manual_seed(case.seed)
    if case.kind == "loss":
        x = torch.randn(2, 5, case.d_model, generator=generator, dtype=torch.float64).to(torch.float32)
        y = torch.randint(1, case.vocab, (2, 5), generator=generator)
        y[0, 3:] = PAD
        y[1, 4:] = PAD
        # a slice, as Batch.tgt_y is in run_epoch (not contiguous): y.view(-1) fails here as it fails there
        y = torch.cat([torch.full((2, 1), START), y], dim=1)[:, 1:]
        return x, y, int((y != PAD).sum())
    if case.kind == "data":
        return ()
    pairs = []
    for _ in range(case.nbatches):
        data = torch.randint(1, case.vocab, (case.batch_size, LENGTH), generator=generator)
        data[:, 0] = START
        pairs.append((data, data.clone()))
    return pairs


def run_case(namespace, name):
    """Run case `name` against the student's code and describe what happened as plain data."""
    case = CASES[name]
    seen = {}  # a loss case: the number of dimensions of each argument the criterion got first ("criterion_dims")
    try:
        if case.kind == "data":
            return record_data(namespace, case)
        if case.kind == "loss":
            return record_loss(namespace, case, make_inputs(name), seen)
    except BaseException as error:  # a student's SystemExit is a failed call too
        return {"error": describe_exception(error), **seen}
    pairs = make_inputs(name)
    return {**epoch_or_error(namespace, case, pairs), "stand_in": epoch_or_error(namespace, case, pairs, stand_in=True)}


def epoch_or_error(namespace, case, pairs, stand_in=False):
    """record_epoch, or the exception it raised as plain data (with the model's first forward call, when it was
    made: which Batch fields it received; and the last size of the first x handed to the loss compute)."""
    forward, loss_input = [], []
    try:
        return record_epoch(namespace, case, pairs, stand_in, forward, loss_input)
    except BaseException as error:
        return {"error": describe_exception(error), **({"forward": forward[0]} if forward else {}),
                **({"loss_input": loss_input[0]} if loss_input else {})}


# ----------------------------------------------------------------------------- data_gen


def batch_fields(batch):
    """The fields of one Batch as plain data (ntokens as a number)."""
    return {
        "type": type(batch).__name__,
        "src": encode(getattr(batch, "src", None)),
        "tgt": encode(getattr(batch, "tgt", None)),
        "tgt_y": encode(getattr(batch, "tgt_y", None)),
        "src_mask_shape": list(getattr(getattr(batch, "src_mask", None), "shape", [])),
        "tgt_mask_shape": list(getattr(getattr(batch, "tgt_mask", None), "shape", [])),
        "ntokens": float(batch.ntokens) if hasattr(batch, "ntokens") else None,
    }


def draw(namespace, case):
    """The student's data_gen(V, batch_size, nbatches) after torch.manual_seed(case.seed), as a list."""
    torch.manual_seed(case.seed)
    return list(namespace.data_gen(case.vocab, case.batch_size, case.nbatches))


def record_data(namespace, case):
    """Every Batch of two draws under the same seed (the second only as: equal to the first or not)."""
    first = [batch_fields(batch) for batch in draw(namespace, case)]
    again = [batch_fields(batch) for batch in draw(namespace, case)]
    return {"batches": first, "repeatable": first == again}


# ----------------------------------------------------------------------------- SimpleLossCompute


def seeded_generator(namespace, case):
    """The student's module's Generator(d_model, vocab) with weights drawn from the case's seed, loaded strictly."""
    generator = namespace.Generator(case.d_model, case.vocab)
    generator.load_state_dict(modules.seeded_weights(
        [(key, list(value.shape)) for key, value in generator.state_dict().items()], case.seed), strict=True)
    return generator


def returned(value):
    """One value a loss compute returned: plain data, with whether it still holds the autograd graph."""
    described = encode(value)
    described["graph"] = bool(isinstance(value, torch.Tensor) and (value.requires_grad or value.grad_fn is not None))
    return described


def record_loss(namespace, case, inputs, seen=None):
    """Call SimpleLossCompute(generator, criterion)(x, y, norm); backpropagate the second value it returned. The
    number of dimensions of each argument the criterion got first goes into `seen` (kept when the call raises)."""
    x, y, norm = inputs
    generator = seeded_generator(namespace, case)
    criterion = namespace.LabelSmoothing(case.vocab, PAD, case.smoothing)
    if seen is not None and isinstance(criterion, torch.nn.Module):
        def dims(module, args):  # returns None: the arguments pass unchanged
            seen.setdefault("criterion_dims", [getattr(a, "ndim", None) for a in args])

        criterion.register_forward_pre_hook(dims)
    result = namespace.SimpleLossCompute(generator, criterion)(x, y, norm)
    trace = {"result": [returned(item) for item in result] if isinstance(result, (tuple, list)) else
             [returned(result)], "length": len(result) if isinstance(result, (tuple, list)) else 1}
    node = result[1] if isinstance(result, (tuple, list)) and len(result) == 2 else None
    if isinstance(node, torch.Tensor) and node.requires_grad:
        node.backward()
        trace["gradients"] = {key: encode(p.grad) for key, p in generator.named_parameters()}
    return trace


# ----------------------------------------------------------------------------- run_epoch


class Spy:
    """The loss compute run_epoch gets: the student's SimpleLossCompute, plus a record of each call."""

    def __init__(self, inner, batches, events, first_input=None):
        self.first_input = first_input
        self.inner = inner
        self.batches = batches
        self.calls = []
        self.events = events

    def target(self, y):
        """Which field of which batch `y` is: "tgt_y", "tgt" or "other"."""
        for batch in self.batches:
            for field in ("tgt_y", "tgt"):
                mine = getattr(batch, field)
                if isinstance(y, torch.Tensor) and y.shape == mine.shape and torch.equal(y, mine):
                    return field
        return "other"

    def __call__(self, x, y, norm):
        self.events.append("loss")
        if self.first_input is not None and not self.first_input and isinstance(x, torch.Tensor) and x.dim():
            self.first_input.append(int(x.size(-1)))  # the last size of the first x: d_model, or the vocabulary
        result = self.inner(x, y, norm)
        first = result[0] if isinstance(result, (tuple, list)) and result else result
        node = result[1] if isinstance(result, (tuple, list)) and len(result) > 1 else None
        if isinstance(node, torch.Tensor) and node.requires_grad:
            node.register_hook(self.backward_seen)
        self.calls.append({"target": self.target(y), "norm": float(norm), "loss": returned(first)})
        return result

    def backward_seen(self, grad):
        """A tensor hook on the loss node: a backward pass went through it."""
        self.events.append("backward")


class LossDouble:
    """The probe's own loss compute, run_epoch's stand-in partner when the student's SimpleLossCompute fails its own
    check (run_epoch is then judged alone): a differentiable loss of the generator's log probabilities at the target
    tokens (not the chapter's formula) and, as its first value, the number of the call (run_epoch adds them up)."""

    def __init__(self, generator):
        self.generator = generator
        self.count = 0

    def __call__(self, x, y, norm):
        self.count += 1
        node = -self.generator(x).gather(-1, y.unsqueeze(-1)).mean()
        return torch.tensor(float(self.count)), node


class AdamDouble:
    """torch.optim.Adam(params, lr, betas, eps) for one parameter group, step for step the same arithmetic as torch's
    CPU path (no weight decay, amsgrad or maximize). Not torch.optim's class: its first step(), zero_grad() or
    add_param_group() imports torch._dynamo (about 1 s, with sympy and torch.fx), which the self-check would pay on
    every run. A student's run_epoch sees what it uses: step(), zero_grad(set_to_none=...), param_groups."""

    def __init__(self, params, lr, betas, eps):
        self.param_groups = [{"params": list(params), "lr": lr, "betas": betas, "eps": eps}]
        self.state = {}
        self.steps = 0

    def zero_grad(self, set_to_none=True):
        """Drop every gradient (or zero it in place with set_to_none=False), as Optimizer.zero_grad does."""
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    if p.grad.grad_fn is not None:
                        p.grad.detach_()
                    else:
                        p.grad.requires_grad_(False)
                    p.grad.zero_()

    @torch.no_grad()
    def step(self, closure=None):
        """One Adam update of every parameter that has a gradient (torch's _single_tensor_adam)."""
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        self.steps += 1
        for group in self.param_groups:
            lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state.setdefault(p, {"step": torch.tensor(0.0),
                                                  "exp_avg": torch.zeros_like(p, memory_format=torch.preserve_format),
                                                  "exp_avg_sq": torch.zeros_like(p, memory_format=torch.preserve_format)})
                state["step"] += 1
                state["exp_avg"].lerp_(p.grad, 1 - beta1)
                state["exp_avg_sq"].mul_(beta2).addcmul_(p.grad, p.grad, value=1 - beta2)
                step = state["step"].item()
                step_size = lr / (1 - beta1 ** step)
                denom = (state["exp_avg_sq"].sqrt() / (1 - beta2 ** step) ** 0.5).add_(eps)
                p.addcdiv_(state["exp_avg"], denom, value=-step_size)
        return loss


class LambdaLRDouble:
    """torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda) for `AdamDouble`: at construction and at every step()
    the learning rate becomes initial lr × lr_lambda(last_epoch), last_epoch counting the steps from 0."""

    def __init__(self, optimizer, lr_lambda):
        self.optimizer = optimizer
        self.lr_lambda = lr_lambda
        for group in optimizer.param_groups:
            group.setdefault("initial_lr", group["lr"])
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = -1
        self.step()

    def step(self, epoch=None):
        """The next learning rate (or the one of `epoch`)."""
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        for group, base in zip(self.optimizer.param_groups, self.base_lrs):
            group["lr"] = base * self.lr_lambda(self.last_epoch)

    def get_last_lr(self):
        """The learning rates set by the last step, one per group."""
        return [group["lr"] for group in self.optimizer.param_groups]


def counted(function, counter, key, events=None):
    """`function`, counting its calls in `counter[key]` (and listing `key` in `events`, if given)."""

    def call(*args, **kwargs):
        counter[key] += 1
        if events is not None:
            events.append(key)
        return function(*args, **kwargs)

    return call


def fingerprint(model):
    """[sum, norm] of every parameter (float64), by name: enough to tell how training moved each one."""
    return {key: [float(p.detach().double().sum()), float(p.detach().double().norm())]
            for key, p in model.named_parameters()}


def gradients_left(model):
    """The norm of every gradient still stored after the epoch (0 when none)."""
    grads = [p.grad.detach().double().norm() ** 2 for p in model.parameters() if p.grad is not None]
    return float(sum(grads) ** 0.5) if grads else 0.0


FIELDS = ("src", "tgt", "src_mask", "tgt_mask", "tgt_y")  # the Batch fields a forward argument is named by


def field_of(value, batches):
    """Which Batch field `value` is (by identity, in any of `batches`): its name, "other" for another tensor, else
    its type's name."""
    for batch in batches:
        for name in FIELDS:
            if value is getattr(batch, name, None):
                return name
    return "other" if isinstance(value, torch.Tensor) else type(value).__name__


def watch_forward(model, batches, seen):
    """Record in `seen` which Batch fields the model's first forward call received (by position and by keyword):
    `model.forward(...)` and `model(...)` both go through the instance attribute."""
    inner = model.forward

    def forward(*args, **kwargs):
        if not seen:
            seen.append({"args": [field_of(value, batches) for value in args],
                         "kwargs": {key: field_of(value, batches) for key, value in sorted(kwargs.items())}})
        return inner(*args, **kwargs)

    model.forward = forward


def setup(namespace, case, pairs, stand_in=False, forward=None, loss_input=None):
    """(model, batches, loss compute spy, optimizer, scheduler, counts) for a train/eval case; the spy wraps the
    student's SimpleLossCompute, or the probe's `LossDouble` with `stand_in`. The model's first forward call is
    recorded in the list `forward` (`watch_forward`)."""
    torch.manual_seed(case.seed)
    model = namespace.make_model(case.vocab, case.vocab, N=1, d_model=case.d_model, d_ff=case.d_ff, h=case.heads,
                                 dropout=0.0)
    shapes = [(key, list(value.shape)) for key, value in model.state_dict().items()]
    model.load_state_dict(modules.seeded_weights(shapes, case.seed), strict=True)
    model.train(case.kind == "train")
    batches = [namespace.Batch(src, tgt, PAD) for src, tgt in pairs]
    watch_forward(model, batches, [] if forward is None else forward)
    criterion = namespace.LabelSmoothing(case.vocab, PAD, case.smoothing)
    loss = LossDouble(model.generator) if stand_in else namespace.SimpleLossCompute(model.generator, criterion)
    events = []
    spy = Spy(loss, batches, events, loss_input)
    # eps 1e-4, not 1e-9: a key bias's gradient is zero but for rounding, and Adam would blow that noise up to ±lr
    optimizer = AdamDouble(model.parameters(), lr=1.0, betas=(0.9, 0.98), eps=1e-4)
    scheduler = LambdaLRDouble(optimizer, lr_lambda=lambda step: namespace.rate(step, case.d_model, factor=1.0,
                                                                                 warmup=4))
    counts = {"zero_grad": 0, "step": 0, "scheduler": 0}
    optimizer.zero_grad = counted(optimizer.zero_grad, counts, "zero_grad", events)
    model.zero_grad = counted(model.zero_grad, counts, "zero_grad", events)
    optimizer.step = counted(optimizer.step, counts, "step", events)
    scheduler.step = counted(scheduler.step, counts, "scheduler", events)
    return model, batches, spy, optimizer, scheduler, counts


def state_numbers(state):
    """The TrainState counters as numbers (None when missing or not numeric)."""
    numbers = {}
    for key in ("step", "accum_step", "samples", "tokens"):
        try:
            numbers[key] = float(getattr(state, key))
        except (AttributeError, TypeError, ValueError, RuntimeError):
            numbers[key] = None
    return numbers


def record_epoch(namespace, case, pairs, stand_in=False, forward=None, loss_input=None):
    """Run the student's run_epoch once on the case's batches (with the probe's loss compute if `stand_in`); what it
    returned and what it did (the model's first forward call kept in the list `forward` too)."""
    forward = [] if forward is None else forward
    model, batches, spy, optimizer, scheduler, counts = setup(namespace, case, pairs, stand_in, forward, loss_input)
    before = fingerprint(model)
    mode = case.mode if case.kind == "train" else "eval"
    with contextlib.redirect_stdout(io.StringIO()):  # its progress lines (초당 토큰) change from run to run
        result = namespace.run_epoch(iter(batches), model, spy, optimizer, scheduler, mode=mode,
                                     accum_iter=case.accum_iter, train_state=namespace.TrainState())
    pair = isinstance(result, (tuple, list)) and len(result) == 2
    return {
        "loss": returned(result[0] if pair else result),
        "pair": pair,
        "state": state_numbers(result[1]) if pair else None,
        "calls": spy.calls,
        "events": spy.events,
        "optimizer_steps": optimizer.steps,
        "zero_grad": counts["zero_grad"],
        "scheduler_steps": int(scheduler.last_epoch),
        "parameters": fingerprint(model),
        "changed": fingerprint(model) != before,
        "gradients_left": gradients_left(model),
        "forward": forward[0] if forward else None,
    }
