"""Long number lists cross the sandbox's edge packed as bytes (`grader/sandbox/packing.py`): the same values bit for
bit, and a packed value that is not whole 8-byte numbers is an invalid result, never a crash of the batch."""
import copy
import importlib
import json
import math
import os

import pytest

from grader import chapters
from grader.checks import chapter, probe_module_name
from grader.checks.execute import execute
from grader.sandbox import bounds, protocol
from grader.sandbox.limits import Limits
from grader.sandbox.packing import SHORTEST, BadPacking, pack
from tests.conftest import ROOT


def _through_the_edge(outcome):
    """What the pool hands the judge: packed by the child, JSON, checked by the runner, unpacked by the pool."""
    payload = json.dumps(pack(copy.deepcopy(outcome)), separators=(",", ":")).encode()
    key = os.urandom(32)
    watch = bounds.Watch(Limits(), key)
    watch.feed("result", protocol.result_frame(key, payload))
    assert watch.forgery(exited=True) is None
    checked, raw = watch.decoded_result()
    assert checked is not None, "the runner refused an honest packed result"
    line = protocol.encode_line({"result": None})[:-2] + b',"result":' + raw + b"}\n"
    return bounds.decode_answer(line)["result"]


@pytest.mark.parametrize("number", [entry.number for entry in chapters.all_chapters()])
def test_every_solution_result_crosses_unchanged(number):
    """Each chapter's solution outcome (every case) reaches the judge exactly as the probe made it (same JSON text),
    and its long number lists did travel packed."""
    contract = chapter(number)
    probe = importlib.import_module(probe_module_name(number))
    source = (ROOT / "solutions" / chapters.find(number).id / "transformer.py").read_text(encoding="utf-8")
    outcome = execute(source, probe, contract.probe.case_names())
    assert "traces" in outcome
    assert json.dumps(_through_the_edge(outcome)) == json.dumps(outcome)
    packed = json.dumps(pack(copy.deepcopy(outcome)))
    assert "packed_f8" in packed or "packed_i8" in packed or len(json.dumps(outcome)) < 20_000


def test_what_is_packed_and_what_is_not():
    """Lists of SHORTEST or more floats (NaN and infinities included) or ints pack; short, mixed, boolean and
    beyond-int64 lists travel as they are; a value round-trips exactly either way."""
    floats = [math.pi / (i + 1) for i in range(SHORTEST)] + [math.nan, math.inf, -math.inf, -0.0]
    value = {"a": floats, "b": list(range(SHORTEST)), "c": [1.0] * (SHORTEST - 1), "d": [1.0, 2] * SHORTEST,
             "e": [True] * SHORTEST, "f": [2 ** 64] * SHORTEST, "g": [[0.5] * SHORTEST, {"h": [3] * SHORTEST}]}
    packed = json.loads(json.dumps(pack(copy.deepcopy(value))))
    assert set(packed["a"]) == {"packed_f8"} and set(packed["b"]) == {"packed_i8"}
    assert packed["c"] == value["c"] and packed["d"] == value["d"] and packed["e"] == value["e"]
    assert packed["f"] == value["f"] and set(packed["g"][0]) == {"packed_f8"}
    restored = bounds.bounded(packed, restore=True)
    assert restored["a"][:SHORTEST] == floats[:SHORTEST] and math.isnan(restored["a"][SHORTEST])
    assert restored["a"][SHORTEST + 1:] == floats[SHORTEST + 1:] and math.copysign(1, restored["a"][-1]) == -1
    assert restored["b"] == value["b"] and restored["g"] == value["g"]


@pytest.mark.parametrize("packed", [{"packed_f8": "abc"}, {"packed_f8": "AAAA"}, {"packed_f8": 5},
                                    {"packed_i8": "AAAA AAAA AAA="}])
def test_a_broken_packed_value_is_an_invalid_result(packed):
    """The runner refuses a signed result holding a packed value that is not base64 of whole 8-byte numbers (the
    result is invalid: that submission's own status), and the pool refuses such a line."""
    with pytest.raises(BadPacking):
        bounds.bounded({"x": packed})
    key = os.urandom(32)
    watch = bounds.Watch(Limits(), key)
    payload = json.dumps({"traces": {"case": {"result": packed}}}).encode()
    watch.feed("result", protocol.result_frame(key, payload))
    assert watch.forgery(exited=True) is None
    assert watch.decoded_result() == (None, b"null") and watch.result_invalid
    line = json.dumps({"status": "ok", "result": {"traces": {"case": packed}}}).encode()
    assert bounds.decode_answer(line) is None
