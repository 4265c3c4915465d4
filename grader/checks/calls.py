"""Read what a student's function returned on one case, or say in Korean why it cannot be judged.

Shared by every chapter's judge: decoding a returned pair such as (output, p_attn), error triage
(stub, missing function, a bug model that raises the same exception, any other exception), and the
in-place check on recorded inputs.
"""
from dataclasses import dataclass

import torch

from . import messages
from .compare import close, decode
from .errortext import cuda_problem, described, runtime_error
from .framework import Finding, Verdict

PAIR = ("출력", "p_attn")


@dataclass
class Pair:
    """A returned pair (e.g. output, p_attn) as float64 tensors, with their dtypes and raw descriptions."""

    output: torch.Tensor
    p_attn: torch.Tensor
    output_dtype: str
    p_dtype: str
    descriptions: tuple


def trace_or_finding(evidence, case, bugs):
    """The student's trace of `case`; if their code raised there, Finding with the Korean diagnosis of the error."""
    trace = evidence.trace(case)
    if "error" in trace:
        raise Finding(explain_error(evidence, case, trace["error"], bugs))
    return trace


def explain_error(evidence, case, error, bugs, rules=(), models=None, fallback=None):
    """A Korean diagnosis of the exception `error` the student's code raised on `case`.

    In order: the stub (NotImplementedError) → `bugs["stub"]`; a missing function (named);
    `rules`, pairs (text found in the exception's message, bug key); a bug model of `models` that raises
    the same exception; `fallback(evidence, case, error)`; else `errortext.runtime_error` ("실행 중 오류가 났습니다 …").
    """
    kind, message = error["type"], error["message"]
    if kind == "NotImplementedError":
        return bugs["stub"]
    if kind == "MissingFunction":
        stopped = error.get("stopped")
        return messages.missing(message, described(stopped) if isinstance(stopped, dict) else None,
                                stopped.get("type") if isinstance(stopped, dict) else None)
    if kind == "NameError" and isinstance(error.get("stopped"), dict):
        return messages.stopped_name(runtime_error(evidence, case, error), described(error["stopped"]))
    gpu = cuda_problem(error)
    if gpu:
        return gpu
    for text, bug in rules:
        if text in message:
            return bugs[bug]
    if models is not None:
        found = models.matching(evidence, case, error=error)
        if found:
            return models.explain(evidence, case, found)
    problem = fallback(evidence, case, error) if fallback else None
    return problem or runtime_error(evidence, case, error)


def named(read):
    """`read(evidence, case, ...)` with the case's Korean description before any Finding's diagnosis."""

    def read_named(evidence, case, *args, **kwargs):
        try:
            return read(evidence, case, *args, **kwargs)
        except Finding as finding:
            raise Finding(evidence.about(case, finding.message), finding.fraction) from None

    return read_named


def read_result(evidence, case, triage):
    """The description of what the student's function returned on `case`; a raised exception → Finding(triage)."""
    trace = evidence.trace(case)
    if "error" in trace:
        raise Finding(triage(evidence, case, trace["error"]))
    return trace["result"]


def read_pair(evidence, case, triage, names=PAIR, in_place=None):
    """The student's returned pair on `case` as a `Pair`, or Finding with a diagnosis.

    One tensor, a numpy array, a wrong length or the two values in swapped order are named using the
    reference's shapes. When the probe recorded the inputs after the call (`inputs_after`), a changed
    input raises `in_place`.
    """
    result = read_result(evidence, case, triage)
    trace = evidence.trace(case)
    if trace.get("inputs_after") and not inputs_kept(evidence, case, trace["inputs_after"]):
        raise Finding(in_place or messages.IN_PLACE)
    reference = evidence.reference(case)["result"]["items"]
    output_shape, p_shape = reference[0]["shape"], reference[1]["shape"]
    if result["kind"] == "tensor":
        only = names[1] if result["shape"] == p_shape and output_shape != p_shape else names[0]
        raise Finding(messages.only_one(names, only))
    if result["kind"] == "ndarray":
        raise Finding(messages.NUMPY)
    if result["kind"] not in ("tuple", "list"):
        raise Finding(messages.not_a_tuple(names, result.get("type", result["kind"])))
    items = result["items"]
    if result["length"] != 2:
        raise Finding(messages.wrong_length(names, result["length"]))
    if any(item["kind"] == "ndarray" for item in items):
        raise Finding(messages.NUMPY)
    if any(item["kind"] != "tensor" for item in items):
        raise Finding(messages.not_tensors(names))
    first, second = items
    if first["shape"] == p_shape and second["shape"] == output_shape and output_shape != p_shape:
        raise Finding(messages.swapped(names))
    pair = Pair(decode(first), decode(second), first["dtype"], second["dtype"], (first, second))
    if output_shape == p_shape and close(pair.output, decode(reference[1])) and close(pair.p_attn, decode(reference[0])):
        raise Finding(messages.swapped(names))
    return pair


def reference_pair(evidence, case):
    """The reference's pair on `case`, as a `Pair`."""
    first, second = evidence.reference(case)["result"]["items"]
    return Pair(decode(first), decode(second), first["dtype"], second["dtype"], (first, second))


def changed_inputs(evidence, case, after, names):
    """The names of the case's input tensors that differ after the call from before it."""
    return [
        name for name, before, described in zip(names, evidence.inputs(case), after)
        if described.get("kind") != "tensor" or not torch.equal(decode(described), before.to(torch.float64))
    ]


def inputs_kept(evidence, case, after):
    """Whether every input tensor of `case` is unchanged after the call."""
    return not changed_inputs(evidence, case, after, range(len(after)))


def read_tensor(evidence, case, triage, function):
    """The description of a single returned tensor on `case`, or Finding."""
    result = read_result(evidence, case, triage)
    if result["kind"] != "tensor":
        raise Finding(messages.not_a_tensor(function, result.get("type", result["kind"])))
    return result


def reference_check(read, diagnose):
    """A judge for a check of one case: the student's result (`read`) has no `diagnose` problem, case named."""

    def judge(evidence):
        (case,) = evidence.cases
        result = named(read)(evidence, case)
        problem = diagnose(evidence, case, result)
        return Verdict.of(problem and evidence.about(case, problem))

    judge.__doc__ = f"The student's result on the check's case equals the reference ({diagnose.__name__})."
    return judge
