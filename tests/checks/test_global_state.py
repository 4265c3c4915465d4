"""A module (or notebook) that changes torch's global defaults at its top — `torch.set_default_dtype(torch.float64)`,
`torch.set_grad_enabled(False)` — is checked as the course's code runs (float32, gradients on), with a Korean note,
the same way by the self-check and the notebook's `verify()`; the caller's own defaults are back afterwards."""

import pytest
import torch

from grader.checks import execute, in_process, messages, verify
from grader.checks.loading import module_from_source

from .chapters import CHAPTERS

pytestmark = [pytest.mark.checks, pytest.mark.ch03]

CHAPTER = next(chapter for chapter in CHAPTERS if chapter.id == "03_multihead")
TOPS = {
    "float64": ("import torch\ntorch.set_default_dtype(torch.float64)\n",
                messages.DEFAULT_DTYPE_CHANGED.format(dtype="float64")),
    "no_gradients": ("import torch\ntorch.set_grad_enabled(False)\n", messages.GRADIENTS_OFF),
}


@pytest.fixture
def defaults_kept():
    """The test process's torch defaults, put back whatever the student's module did to them."""
    yield
    torch.set_default_dtype(torch.float32)
    torch.set_grad_enabled(True)


@pytest.mark.parametrize("name", sorted(TOPS))
def test_a_changed_default_costs_nothing_and_is_noted(name, tmp_path, defaults_kept):
    """The solution with the change at its top: every check passes (hidden ones too), and the note says what was reset."""
    top, note = TOPS[name]
    path = tmp_path / "transformer.py"
    path.write_text(top + CHAPTER.solution.read_text(encoding="utf-8"), encoding="utf-8")
    results, notes = in_process.check(CHAPTER.id, path, visible_only=False)
    assert [(r.name, r.message) for r in results if not r.passed] == []
    assert note in notes


@pytest.mark.parametrize("name", sorted(TOPS))
def test_verify_in_a_notebook_resets_the_defaults_too_and_puts_the_kernels_back(name, defaults_kept):
    """A notebook whose cell changed the default: its check cells pass as the self-check's do, and the kernel keeps its
    own setting after the check."""
    top, _ = TOPS[name]
    module = module_from_source(top + CHAPTER.solution.read_text(encoding="utf-8"))
    before = (torch.get_default_dtype(), torch.is_grad_enabled())
    assert before != (torch.float32, True)
    for check in CHAPTER.visible_checks():
        verify(CHAPTER.id, check, dict(vars(module)))
    assert (torch.get_default_dtype(), torch.is_grad_enabled()) == before


def test_the_block_resets_and_restores():
    """Inside `course_defaults` torch runs float32 with gradients on; outside, what the caller had."""
    notes = []
    torch.set_default_dtype(torch.float64)
    try:
        with torch.no_grad(), execute.course_defaults(notes):
            assert torch.get_default_dtype() == torch.float32 and torch.is_grad_enabled()
        assert torch.get_default_dtype() == torch.float64
    finally:
        torch.set_default_dtype(torch.float32)
    assert notes == [messages.DEFAULT_DTYPE_CHANGED.format(dtype="float64"), messages.GRADIENTS_OFF]
