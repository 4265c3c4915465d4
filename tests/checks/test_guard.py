"""The tamper guard's quick answer (watched dicts' version tags and functions' code pointers, read as raw memory) gives
the same evidence as comparing every watched name: for each kind of tampering, and for an honest run (none)."""
import json
import os
import subprocess
import sys

import pytest
import torch
import torch.nn.functional as F

from grader.checks import ch01_probe, guard
from tests.conftest import ROOT

pytestmark = pytest.mark.checks
QUICK_PYTHON = sys.implementation.name == "cpython" and (3, 11) <= sys.version_info[:2] <= (3, 13)


def _evidence(bound):
    """(the evidence with the quick answer, the evidence name by name)."""
    quick = bound.private(guard).changes(bound)
    fingerprint, bound.fingerprint = bound.fingerprint, None
    try:
        return quick, bound.private(guard).changes(bound)
    finally:
        bound.fingerprint = fingerprint


def _other_softmax(input, dim=None, _stacklevel=3, dtype=None):
    return input


TAMPERINGS = {
    "torch.softmax replaced": lambda patch: patch.setattr(torch, "softmax", _other_softmax),
    "code of torch.nn.functional.softmax replaced":
        lambda patch: patch.setattr(F.softmax, "__code__", _other_softmax.__code__),
    "code of grader.checks.guard._sample replaced": lambda patch: patch.setattr(guard._sample, "__defaults__", (2,)),
    "torch.Tensor.backward replaced": lambda patch: patch.setattr(torch.Tensor, "backward", _other_softmax),
    "grader.checks.ch01_probe.run_case removed": lambda patch: patch.delattr(ch01_probe, "run_case"),
    # a name added to a watched class shadows what it inherits: TensorBase.tolist, for every tensor the probe reads
    "torch.Tensor.tolist added": lambda patch: patch.setattr(torch.Tensor, "tolist", lambda self: [], raising=False),
}


@pytest.mark.skipif(not QUICK_PYTHON, reason="the quick answer reads CPython 3.11-3.13 layouts")
def test_this_python_gets_the_quick_answer_and_an_untouched_run_takes_it():
    _, bound = guard.bind(ch01_probe)
    assert bound.fingerprint is not None
    assert guard._now(bound.fingerprint) == bound.fingerprint.then
    assert _evidence(bound) == ([], [])


@pytest.mark.parametrize("line", sorted(TAMPERINGS))
def test_each_tampering_gives_the_same_evidence_both_ways(line, monkeypatch):
    _, bound = guard.bind(ch01_probe)
    TAMPERINGS[line](monkeypatch)
    quick, slow = _evidence(bound)
    assert quick == slow and line in quick


def test_an_honest_subclass_is_no_evidence():
    """Defining a class of one's own (an nn.Module, a Tensor subclass) writes nothing into the watched classes."""
    _, bound = guard.bind(ch01_probe)

    class Twice(torch.nn.Module):
        def forward(self, x):
            return 2 * x

    class Marked(torch.Tensor):
        pass

    Twice()(torch.ones(2).as_subclass(Marked)).tolist()
    assert _evidence(bound) == ([], [])


LIBRARY_CALLS = """
import json, torch
from grader.checks import ch01_probe, guard
from tests.conftest import ROOT
found = {}
for name, call in [("optimizer", lambda: torch.optim.Adam([torch.nn.Parameter(torch.ones(1))]).step()),
                   ("deterministic", lambda: torch.use_deterministic_algorithms(True)),
                   ("default_dtype", lambda: torch.set_default_dtype(torch.float64))]:
    _, bound = guard.bind(ch01_probe)
    seed, storage = torch.manual_seed, torch.Storage
    call()
    rebound = [n for n, then in (("manual_seed", seed), ("Storage", storage)) if getattr(torch, n) is not then]
    found[name] = (rebound, bound.private(guard).changes(bound))
print(json.dumps(found))
"""


def test_calling_the_librarys_own_api_is_no_evidence():
    """torch rebinds names of its own when its API is called (an optimizer's first step wraps `torch.manual_seed`,
    `set_default_dtype` moves `torch.Storage`): a student who calls them has replaced nothing. In a fresh process,
    where the rebinding happens under the guard's eyes."""
    done = subprocess.run([sys.executable, "-c", LIBRARY_CALLS], capture_output=True, text=True, timeout=120,
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["optimizer"] == [["manual_seed"], []]
    assert found["default_dtype"] == [["Storage"], []]
    assert found["deterministic"][1] == []


def test_a_write_of_the_same_value_is_no_evidence(monkeypatch):
    """A watched dict written with what it held changes its version tag: the quick answer falls back and finds nothing."""
    _, bound = guard.bind(ch01_probe)
    monkeypatch.setattr(torch, "softmax", torch.softmax)
    assert _evidence(bound) == ([], [])
