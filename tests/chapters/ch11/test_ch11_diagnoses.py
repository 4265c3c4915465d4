"""Chapter 11 diagnoses the fixtures cannot show: an inf at step 0, attributes swapped, a missing attribute."""
import types

import pytest

from grader.checks import verify
from grader.checks.ch11_judge import BUGS
from grader.checks.loading import module_from_source, read_source

from tests.checks.chapters import CHAPTERS

pytestmark = [pytest.mark.checks, pytest.mark.ch11]

CHAPTER = next(chapter for chapter in CHAPTERS if chapter.number == "11")


def solution():
    return module_from_source(read_source(CHAPTER.solution))


def failure(check, namespace):
    """verify()'s Korean verdict for `check` on `namespace` (it must fail)."""
    with pytest.raises(AssertionError) as failed:
        verify(CHAPTER.id, check, namespace)
    return str(failed.value)


def test_inf_at_step_zero_is_the_missing_guard():
    """A rate that is inf at step 0 (and right elsewhere) names the missing step-0 guard, and grading goes on."""
    right = solution().rate
    namespace = types.SimpleNamespace(rate=lambda step, *rest: float("inf") if step == 0 else right(step, *rest))
    message = failure("rate_step_zero", namespace)
    assert BUGS["no_step_guard"] in message and "rate(0) = inf" in message
    verify(CHAPTER.id, "rate_warmup", namespace)  # the other steps still pass


def test_confidence_and_smoothing_attributes_swapped():
    """self.confidence = smoothing and self.smoothing = 1 - smoothing: the attributes check names the swap."""
    module = solution()

    class Swapped(module.LabelSmoothing):
        def __init__(self, size, padding_idx, smoothing=0.0):
            super().__init__(size, padding_idx, smoothing)
            self.confidence, self.smoothing = smoothing, 1.0 - smoothing

    message = failure("ls_attributes", types.SimpleNamespace(LabelSmoothing=Swapped))
    assert BUGS["swapped"] in message


def test_missing_attribute_is_named():
    """A LabelSmoothing without self.size is told which attribute is missing."""
    module = solution()

    class NoSize(module.LabelSmoothing):
        def __init__(self, size, padding_idx, smoothing=0.0):
            super().__init__(size, padding_idx, smoothing)
            del self.size

    message = failure("ls_attributes", types.SimpleNamespace(LabelSmoothing=NoSize))
    assert "`self.size`" in message
