"""One submission never sinks the batch: hostile results beside honest neighbours, `--jobs 1` and `--jobs 2`."""
import csv

import pytest

from grader.checks import ch01_judge
from grader.grading import judging
from grader.grading.collect import Inputs
from grader.grading.command import _grade
from grader.grading.course import Course
from grader.sandbox import Limits, SandboxPool

from .helpers import CHAPTER, grade, results, solution_source

pytestmark = [pytest.mark.grading, pytest.mark.slow]

# Each writes its own "result" to the child's result pipe (fd 3), signed with the job's key found by walking the
# interpreter's frames (SECURITY.md: what in-process code can still do), and leaves, or leaves the way the child
# does when its encoder refuses the result: what a student who reads the grader's source can do. The runner's
# decoding, not its signature check, is what these try.
_RAW = '''
import hmac, os, struct, sys
payload = {payload!r}
frame = sys._getframe()
while not isinstance(frame.f_locals.get("key"), bytes):
    frame = frame.f_back
head = struct.pack(">Q", len(payload)) + payload
os.write(3, head + hmac.digest(frame.f_locals["key"], head, "sha256"))
os._exit(0)
'''
_PROBE = '''
import sys
probe = sys.modules["grader.checks.ch01_probe"]
def run_case(module, name):
    return {value}
probe.run_case = run_case
'''
HOSTILE = {
    "deep": _RAW.format(payload=b'{"traces":{"seed":' + b"[" * 985 + b"]" * 985 + b"}}"),
    "bad_utf8": _RAW.format(payload=b'{"traces":{"seed":{"error":{"type":"X","message":"\xff\xfe"}}}}'),
    "bad_json": _RAW.format(payload=b'{"traces":{"seed":[1,2'),
    "not_a_result": _RAW.format(payload=b'[1, 2, 3]'),
    "encode_failed": "import os\nos._exit(72)\n",  # child.EXIT_ENCODE_FAILED
}
# Replacing the probe's run_case to hand back what cannot be encoded, or NaN keys: the bound probe never calls
# the replacement, and the run is "tampered".
TAMPERING = {
    "unencodable": _PROBE.format(value="object()"),
    "nan_keys": _PROBE.format(value='{float("nan"): float("nan"), "kind": {1.5: [float("inf")]}}'),
}
# Strange but well-formed: graded as usual (0 points), written as valid UTF-8.
ODD = {
    "surrogates": _RAW.format(payload=b'{"traces":{"seed":{"error":{"type":"X\\udc80","message":"\\ud800"}}}}'),
    "wide": _RAW.format(payload=b'{"traces":{"seed":[' + b"0," * 199_999 + b'0]}}'),
}
INVALID = {"deep", "bad_utf8", "bad_json", "not_a_result", "encode_failed"}
# Returned values whose own methods lie or never end, appended to the solution: each is read through its base
# class (tests/checks' encode), so it is judged on its real data, in time.
_WRAPPED = """

_attention = attention
{code}
"""
LYING = {
    # the solution's tensors, whose tolist() returns a list that contains itself (it used to time out)
    "cyclic_tolist": _WRAPPED.format(code="""
class Cyclic(torch.Tensor):
    def tolist(self):
        loop = []
        loop.append(loop)
        return loop


def attention(query, key, value):
    out, p_attn = _attention(query, key, value)
    return out.as_subclass(Cyclic), p_attn.as_subclass(Cyclic)
"""),
    # the solution's pair in a tuple whose __iter__ never ends (it used to exhaust the memory)
    "endless_tuple": _WRAPPED.format(code="""
class Endless(tuple):
    def __iter__(self):
        while True:
            yield None


def attention(query, key, value):
    return Endless(_attention(query, key, value))
"""),
    # zeros whose tolist() tells the solution's numbers: judged as the zeros they are
    "posing_zeros": _WRAPPED.format(code="""
class Posing(torch.Tensor):
    def tolist(self):
        return self.told


def attention(query, key, value):
    out, p_attn = _attention(query, key, value)
    posing = []
    for right in (out, p_attn):
        zeros = torch.zeros_like(right).as_subclass(Posing)
        zeros.told = right.tolist()
        posing.append(zeros)
    return tuple(posing)
"""),
}


@pytest.fixture(scope="module")
def hostile_class(tmp_path_factory):
    """Three honest solutions around the hostile and odd submissions."""
    folder = tmp_path_factory.mktemp("hostile")
    for name in ("honest_a", "honest_b", "honest_c"):
        (folder / f"{name}.py").write_text(solution_source(), encoding="utf-8")
    for name, source in {**HOSTILE, **TAMPERING, **ODD}.items():
        (folder / f"{name}.py").write_text(source, encoding="utf-8")
    for name, code in LYING.items():
        (folder / f"{name}.py").write_text(solution_source() + code, encoding="utf-8")
    return folder


@pytest.fixture(scope="module", params=["1", "2"])
def graded(request, hostile_class, tmp_path_factory):
    """`grade 01 <folder> --jobs N`: (CompletedProcess, {id: results document}, grades.csv rows, output folder)."""
    out = tmp_path_factory.mktemp(f"graded{request.param}")
    done = grade(["01", hostile_class, "--jobs", request.param, "--out", out])
    with open(out / "grades.csv", encoding="utf-8") as handle:
        rows = {row["submission"]: row for row in csv.DictReader(handle)}
    return done, results(out), rows, out


def test_batch_finishes_and_honest_neighbours_get_full_marks(graded):
    """Exit 0; every submission has its result file, CSV row and feedback page; the honest ones score 100."""
    done, found, rows, out = graded
    assert done.returncode == 0, done.stderr
    expected = {"honest_a", "honest_b", "honest_c", *HOSTILE, *TAMPERING, *ODD, *LYING}
    assert set(found) == set(rows) == expected
    assert (out / "report.html").is_file()
    for name in ("honest_a", "honest_b", "honest_c"):
        assert found[name]["status"] == "ok"
        assert found[name]["score"] == found[name]["max_score"] > 0
        assert (out / "feedback" / name / "feedback.html").is_file()


def test_each_hostile_result_is_its_own_korean_status(graded):
    """Unreadable results are "invalid_result": 0 points, the Korean reason on every check."""
    _, found, rows, _ = graded
    for name in INVALID:
        assert found[name]["status"] == "invalid_result", name
        assert found[name]["score"] == 0 and rows[name]["score"] == "0"
        assert all("채점할 수 없는 결과" in test["output"] for test in found[name]["tests"]), name
    for name in TAMPERING:
        assert found[name]["status"] == "tampered" and found[name]["score"] == 0, name
        assert found[name]["tampered"] == ["grader.checks.ch01_probe.run_case replaced"]


def test_odd_but_plain_results_are_judged_and_written(graded):
    """Lone surrogates and a 200,000-value trace are judged like any wrong answer: 0 points, valid files."""
    _, found, _, out = graded
    for name in ODD:
        assert found[name]["status"] == "ok", name
        assert found[name]["score"] == 0, name
        (out / "results" / f"{name}.json").read_bytes().decode("utf-8")


def test_a_judge_bug_costs_only_its_submission(tmp_path, monkeypatch, capfd):
    """A grader bug while judging one submission gives it "grader_error" (0 points, Korean) with the traceback on
    stderr; its neighbours are judged and written as usual."""
    for name in ("victim", "neighbour"):
        (tmp_path / f"{name}.py").write_text(solution_source(), encoding="utf-8")
    outcome = judging.Judge.outcome

    def buggy(self, run):
        if run.submission_id == "victim":
            raise ZeroDivisionError("a bug of ours")
        return outcome(self, run)

    monkeypatch.setattr(judging.Judge, "outcome", buggy)
    limits = Limits()
    with Inputs([str(tmp_path / "victim.py"), str(tmp_path / "neighbour.py")], CHAPTER, Course()) as inputs, \
            SandboxPool(probe_module="grader.checks.ch01_probe", jobs=2, limits=limits) as pool:
        report = _grade(inputs.submissions, pool, ch01_judge, limits, tmp_path / "out")
    found = results(tmp_path / "out")
    assert found["victim"]["status"] == "grader_error" and found["victim"]["score"] == 0
    assert all("채점기 내부 오류" in test["output"] for test in found["victim"]["tests"])
    assert found["neighbour"]["status"] == "ok" and found["neighbour"]["score"] == found["neighbour"]["max_score"]
    assert {row.submission_id for row in report.rows} == {"victim", "neighbour"}
    assert "ZeroDivisionError: a bug of ours" in capfd.readouterr().err


def test_returned_values_are_read_by_their_base_class(graded):
    """A tensor or tuple subclass's own `tolist` or `__iter__` is never what describes it: the solution's numbers
    behind a cyclic `tolist` get full marks in time, zeros that claim the solution's numbers get what zeros get."""
    _, found, _, _ = graded
    assert found["cyclic_tolist"]["status"] == "ok"
    assert found["cyclic_tolist"]["score"] == found["cyclic_tolist"]["max_score"]
    assert found["endless_tuple"]["status"] == "ok", found["endless_tuple"]["output"]
    seed = {test["name"]: test for test in found["posing_zeros"]["tests"]}["seed_weights"]
    assert found["posing_zeros"]["status"] == "ok" and seed["score"] == 0
