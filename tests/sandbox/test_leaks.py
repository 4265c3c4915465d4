"""The hidden expected values never enter the sandbox: a submission that hunts for them everywhere finds none.

The test fingerprints the real hidden reference values (salted hashes of runs of three of them) and gives the
submission only the fingerprints. The same hunt, run outside the sandbox on planted values, finds each of them,
so a leak would not go unnoticed.
"""
import hashlib
import json
import os
import subprocess
import sys
import uuid

import pytest

from grader.checks import ch01_probe, references
from grader.sandbox import Limits, SandboxPool, bwrap
from grader.sandbox.limits import GIB

from . import submissions as s
from .conftest import PROBE

pytestmark = pytest.mark.sandbox

# Searching ~170,000 objects twice takes a few seconds of CPU: more than the other sandbox tests allow.
HUNT_LIMITS = Limits(wall_seconds=120, cpu_seconds=120, memory_bytes=2 * GIB, max_processes=32)
RUNS_PER_TENSOR = 4
PLACES = ["environ", "proc_environ", "proc_cmdline", "probe", "gc", "files"]


def _significant_digits(text):
    mantissa = text.lstrip("-").split("e")[0].replace(".", "")
    return len(mantissa.lstrip("0"))


def _expected_tensors(value, inside_inputs=False):
    """The data lists of every tensor in a reference trace, recorded inputs aside (the probe makes those itself)."""
    if isinstance(value, dict):
        if value.get("kind") == "tensor" and isinstance(value.get("data"), list) and not inside_inputs:
            yield value["data"]
        for key, item in value.items():
            yield from _expected_tensors(item, inside_inputs or key.startswith("inputs"))
    elif isinstance(value, list):
        for item in value:
            yield from _expected_tensors(item, inside_inputs)


def hidden_runs():
    """Runs of three consecutive distinctive expected values (7 significant digits) from every hidden case's tensors."""
    document = references.load("01_attention")["cases"]
    hidden = sorted(set(ch01_probe.case_names()) - set(ch01_probe.case_names(visible_only=True)))
    assert hidden, "chapter 01 has hidden cases"
    runs = []
    for name in hidden:
        for data in _expected_tensors(document[name]):
            texts = [format(value, ".7g") for value in data]
            distinctive = [i for i in range(len(texts) - 2)
                           if all(_significant_digits(text) >= 6 for text in texts[i:i + 3])]
            step = max(1, len(distinctive) // RUNS_PER_TENSOR)
            runs += [tuple(data[i:i + 3]) for i in distinctive[::step][:RUNS_PER_TENSOR]]
    return runs


def fingerprint(salt, run):
    """What the hunt compares: sha256(salt + the run written with 7 significant digits)."""
    return hashlib.sha256((salt + ",".join(format(value, ".7g") for value in run)).encode()).hexdigest()


def reports(stdout):
    """{(word, moment): counts} from the hunt's SEARCHED and FOUND lines."""
    found = {}
    for line in stdout.splitlines():
        word, moment, counts = line.split(" ", 2)
        found[word, moment] = json.loads(counts)
    return found


def test_hidden_values_are_fingerprinted():
    """Every hidden case contributes runs, enough to recognise any leaked output tensor."""
    runs = hidden_runs()
    assert len(runs) >= 7 * 2 * 2
    assert len({fingerprint("salt", run) for run in runs}) == len(runs)


def test_the_hunt_finds_planted_values(tmp_path):
    """Outside the sandbox, runs planted in the environment, argv, a module, the heap and a file are all found."""
    salt = uuid.uuid4().hex
    runs = hidden_runs()
    hunt = tmp_path / "hunt.py"
    hunt.write_text(s.leak_hunt(salt, [fingerprint(salt, run) for run in runs], file_root=str(tmp_path / "files"),
                                probe="planted_probe"), encoding="utf-8")
    (tmp_path / "files").mkdir()
    (tmp_path / "files" / "reference.json").write_text(json.dumps({"data": list(runs[-1])}), encoding="utf-8")
    planting = (
        "import json, os, sys, types\n"
        "held = json.loads(os.environ['PLANTED'])\n"
        "module = types.ModuleType('planted_probe')\n"
        "module.EXPECTED = {'case': {'data': list(held[1])}}\n"
        "sys.modules['planted_probe'] = module\n"
        f"exec(compile(open({str(hunt)!r}).read(), 'hunt', 'exec'), {{'__name__': 'hunt'}})\n"
    )
    planted = json.dumps([list(runs[0]), list(runs[1])])
    done = subprocess.run([sys.executable, "-c", planting, ",".join(map(repr, runs[2]))], capture_output=True,
                          text=True, timeout=120, env=dict(os.environ, PLANTED=planted), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    found = reports(done.stdout)[("FOUND", "import")]
    assert set(PLACES) <= set(found), found


@pytest.fixture(scope="module")
def hunted(need_bwrap):
    """The hunt run in its own bubblewrap pool on every case of chapter 01."""
    salt = uuid.uuid4().hex
    source = s.leak_hunt(salt, [fingerprint(salt, run) for run in hidden_runs()],
                         skipped_trees=["/usr", *bwrap.python_trees()])
    with SandboxPool(PROBE, jobs=1, limits=HUNT_LIMITS, use_bwrap=True) as pool:
        (result,) = pool.run([("hunt", source, ch01_probe.case_names())])
    return result


def test_the_hunt_ran_in_bubblewrap(hunted):
    """The hunt ended normally, in the bubblewrap sandbox, with one trace per case."""
    assert (hunted.status, hunted.sandbox) == ("ok", "bubblewrap"), hunted
    assert set(hunted.result["traces"]) == set(ch01_probe.case_names())


@pytest.mark.parametrize("moment", ["import", "call"])
def test_no_hidden_value_is_within_reach(hunted, moment):
    """os.environ, /proc/*/{environ,cmdline}, the probe module, gc.get_objects() and the readable files hold none
    of the hidden expected values, neither when the submission is imported nor when attention is first called."""
    found = reports(hunted.stdout)
    searched = found["SEARCHED", moment]
    assert searched["probe_module"] == 1 and searched["proc_files"] >= 2
    assert searched["gc_objects"] > 10_000 and searched["gc"] > 0 and searched["probe"] > 0
    if moment == "import":
        assert searched["files_read"] > 0
    assert found["FOUND", moment] == {}
