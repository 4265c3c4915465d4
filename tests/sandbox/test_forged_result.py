"""Forged results: bytes a submission writes to the result pipe itself never count (issue 26).

Each hostile submission answers wrongly (zeros) and forges the solution's traces on the result pipe in its own way,
beside correct neighbours in one two-worker batch. Were the forged frame taken, the run would pass every case.
"""
import os

import pytest

from grader.sandbox import bounds, protocol
from grader.sandbox.limits import Limits

from . import submissions as s
from .conftest import passed, run_batch

pytestmark = pytest.mark.sandbox

WRONG = "import torch\n\n\ndef attention(query, key, value, mask=None, dropout=None):\n    return torch.zeros(2, 2), None\n"
PROBE = "grader.checks.ch01_probe"
EVIDENCE = {"write_exit": "서명이 맞지 않는", "write_continue": "덧붙은", "dup_close": "서명이 맞지 않는",
            "fork_writes": "서명이 맞지 않는", "swallow": "불완전한"}


@pytest.fixture(scope="module")
def forged(bwrap_pool, solution_source, case_names):
    """{submission id: RunResult} of the forgers, the sealer patcher and correct neighbours."""
    items = [("correct_first", solution_source, case_names)]
    items += [(how, WRONG + s.forger(PROBE, solution_source, how), case_names) for how in s.FORGE_WAYS]
    items += [("patch_sealer", WRONG + s.PATCH_SEALER, case_names), ("correct_last", solution_source, case_names)]
    return run_batch(bwrap_pool, items)


@pytest.mark.parametrize("how", sorted(s.FORGE_WAYS))
def test_a_forged_frame_is_tampering_and_claims_nothing(forged, how):
    """The run is "tampered" with the evidence of what reached the pipe; none of the forged traces is kept."""
    result = forged[how]
    assert result.status == "tampered", (result.status, result.stderr[-500:])
    assert result.result["traces"] == {}
    (line,) = result.result["tampered"]
    assert "서명하지 않은" in line and EVIDENCE[how] in line, line


def test_patching_the_sealer_sends_the_honest_result(forged):
    """Replacing the child's encoder, writer and the signing helpers changes nothing: the run's own (wrong) traces,
    signed, reach the runner."""
    result = forged["patch_sealer"]
    assert result.status == "ok", (result.status, result.stderr[-500:])
    traces = result.result["traces"]
    assert traces and all(trace["result"]["items"][0]["data"] == [0.0] * 4 for trace in traces.values())


def test_neighbours_of_forgers_are_unaffected(forged):
    """The correct submissions before and after the forgers pass every case."""
    assert passed(forged["correct_first"]) and passed(forged["correct_last"])


def _watch(data, key=b"k" * 32):
    watch = bounds.Watch(Limits(), key)
    watch.feed("result", data)
    return watch


def test_the_runner_takes_exactly_one_frame_signed_with_the_jobs_key():
    """Unit: the signed frame decodes; another key, extra bytes, a frame cut short by a process that ended by itself
    are forgeries; a frame cut short by a kill is no result, not a forgery."""
    key, payload = os.urandom(32), b'{"traces":{}}'
    frame = protocol.result_frame(key, payload)
    good = _watch(frame, key)
    assert good.forgery(exited=True) is None and good.decoded_result() == ({"traces": {}}, payload)
    assert "서명이 맞지 않는" in _watch(protocol.result_frame(os.urandom(32), payload), key).forgery(exited=True)
    assert "덧붙은 1바이트" in _watch(frame + b"x", key).forgery(exited=True)
    assert "불완전한" in _watch(frame[:-1], key).forgery(exited=True)
    killed = _watch(frame[:-1], key)
    assert killed.forgery(exited=False) is None and killed.decoded_result() == (None, b"null")


def test_a_result_decoded_ahead_is_dropped_when_bytes_follow():
    """Unit: the runner decodes a complete frame while the child exits; bytes written after it make that work void
    (the result is then a forgery, with nothing decoded), and an invalid payload decoded ahead stays invalid."""
    key, payload = os.urandom(32), b'{"traces":{}}'
    frame = protocol.result_frame(key, payload)
    watch = _watch(frame, key)
    assert watch.frame_complete() and watch.decoded_result() == ({"traces": {}}, payload)
    watch.feed("result", b"x")
    assert not watch.frame_complete()
    assert "덧붙은 1바이트" in watch.forgery(exited=True)
    assert watch.decoded_result() == (None, b"null")
    invalid = _watch(protocol.result_frame(key, b'{"neither":1}'), key)
    assert invalid.decoded_result() == (None, b"null") and invalid.result_invalid
    assert invalid.forgery(exited=True) is None
    assert invalid.decoded_result() == (None, b"null") and invalid.result_invalid
