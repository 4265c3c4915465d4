"""Chapter 01 probe: call the student's `attention` on each case and record what came back.

Sandbox side. Each case builds its inputs deterministically; `run_case` returns plain data.
Hidden cases and their seeds live between the hidden-test markers and never reach students.
"""
from dataclasses import dataclass

import torch

from .tensors import describe_exception, encode, portable_randn

FUNCTION = "attention"


@dataclass(frozen=True)
class Case:
    """One call of `attention`: how to build (query, key, value), and what else to record."""

    visible: bool
    text: str  # the case in Korean, as diagnoses name it
    seed: int
    query: tuple
    key: tuple = None
    value: tuple = None
    dtype: str = "float32"
    magnitude: float = 1.0
    self_attention: bool = False
    gradients: bool = False
    record_inputs: bool = False
    as_in_demo: bool = False  # drawn like the demo (float32 torch.randn); under 16 values, so the same on every CPU


CASES = {
    # The seed chapter's demo input: torch.manual_seed(0); x = torch.randn(1, 3, 4); attention(x, x, x).
    "seed": Case(visible=True, text="시드 입력(torch.manual_seed(0), x: (1, 3, 4), attention(x, x, x))",
                 seed=0, query=(1, 3, 4), self_attention=True, record_inputs=True, as_in_demo=True),
    # Spread of the scores at three widths, judged on the student's own p_attn.
    # Batch 3 (the other inputs have batch 1): d_k read from the batch axis (len(query)) differs from no scale here.
    "scaling_4": Case(visible=True, text="d_k=4 점수 분포 입력 (batch 3)",
                      seed=1004, query=(3, 24, 4), key=(3, 24, 4), value=(3, 24, 3)),
    "scaling_64": Case(visible=True, text="d_k=64 점수 분포 입력",
                       seed=1064, query=(1, 24, 64), key=(1, 24, 64), value=(1, 24, 3)),
    "scaling_512": Case(visible=True, text="d_k=512 점수 분포 입력",
                        seed=1512, query=(1, 24, 512), key=(1, 24, 512), value=(1, 24, 3)),
    # One query against 10 keys at d_k = 512, as in the demo's saturation example.
    "saturation_512": Case(visible=True, text="d_k=512, key 10개 입력",
                           seed=2512, query=(1, 1, 512), key=(1, 10, 512), value=(1, 10, 4)),
    ### BEGIN HIDDEN TESTS
    "batched_3d": Case(visible=False, text="숨겨진 3차원 batch 입력 (batch, seq, d_k)",
                       seed=733_101, query=(3, 5, 8), key=(3, 5, 8), value=(3, 5, 8)),
    "batched_4d": Case(visible=False, text="숨겨진 4차원 입력 (batch, heads, seq, d_k)",
                       seed=733_202, query=(2, 4, 5, 8), key=(2, 4, 5, 8), value=(2, 4, 5, 8)),
    "cross_lengths": Case(visible=False, text="숨겨진 입력 (query 길이 ≠ key 길이, d_v ≠ d_k)",
                          seed=733_303, query=(2, 3, 6), key=(2, 7, 6), value=(2, 7, 5)),
    "float64": Case(visible=False, text="숨겨진 float64 입력",
                    seed=733_404, query=(2, 4, 6), key=(2, 5, 6), value=(2, 5, 3), dtype="float64"),
    "untouched": Case(visible=False, text="숨겨진 입력 (입력 보존 확인)",
                      seed=733_505, query=(2, 4, 8), key=(2, 4, 8), value=(2, 4, 8), record_inputs=True),
    "gradients": Case(visible=False, text="숨겨진 입력 (기울기 확인)",
                      seed=733_606, query=(2, 3, 4), key=(2, 5, 4), value=(2, 5, 4), gradients=True),
    "large": Case(visible=False, text="숨겨진 큰 값 입력 (|점수| ≫ 100)",
                  seed=733_707, query=(2, 4, 8), key=(2, 6, 8), value=(2, 6, 8), magnitude=300.0),
    ### END HIDDEN TESTS
}


def case_names(visible_only=False):
    """Names of the cases, in a stable order; only the visible ones if asked."""
    return [name for name, case in CASES.items() if case.visible or not visible_only]


def make_inputs(name):
    """Build the (query, key, value) tensors of a case, the same way every time."""
    case = CASES[name]
    generator = torch.Generator().manual_seed(case.seed)
    dtype = getattr(torch, case.dtype)

    def draw(shape):
        if case.as_in_demo:
            return torch.randn(*shape, generator=generator)
        return (portable_randn(shape, generator, torch.float64) * case.magnitude).to(dtype)

    if case.self_attention:
        x = draw(case.query)
        return x, x, x
    return draw(case.query), draw(case.key), draw(case.value)


def run_case(namespace, name):
    """Call the student's `attention` on case `name` and describe the result as plain data."""
    case = CASES[name]
    function = getattr(namespace, FUNCTION, None)
    if not callable(function):
        return {"error": {"type": "MissingFunction", "message": FUNCTION}}
    query, key, value = make_inputs(name)
    if case.gradients:
        query, key, value = (t.clone().requires_grad_(True) for t in (query, key, value))
    try:
        result = function(query, key, value)
    except BaseException as error:  # a student's SystemExit is a failed call too
        return {"error": describe_exception(error)}
    trace = {"result": encode(result)}
    if case.record_inputs:
        trace["inputs_after"] = [encode(t) for t in (query, key, value)]
    if case.gradients:
        trace["gradients"] = _gradients(result, (query, key, value))
    return trace


def _gradients(result, inputs):
    """Backpropagate a fixed weighting of both outputs; describe each input's gradient."""
    try:
        output, p_attn = result
        weights = torch.Generator().manual_seed(99)
        loss = (output * portable_randn(output.shape, weights)).sum()
        loss = loss + (p_attn * portable_randn(p_attn.shape, weights)).sum()
        loss.backward()
    except BaseException as error:
        return {"error": describe_exception(error)}
    return {"grads": [encode(t.grad) for t in inputs]}
