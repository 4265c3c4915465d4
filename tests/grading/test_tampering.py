"""The probe's word can't be bought: submissions that patch the probe, `modules`, `json`/`pickle`, shadow a tensor
method in a subclass (`torch.Tensor.tolist = …`), hand back a
duck-typed Figure or forge the result pipe (the solution's traces, `tests/sandbox/submissions.forger`), from a `.py`
file and from a notebook cell before the answer cell, in chapters 09, 13 and 14."""
import copy
import json

import pytest

from grader.checks import ch09_probe
from grader.checks.execute import execute

from tests import fixtures
from tests.conftest import ROOT
from tests.sandbox.submissions import forger

from .helpers import grade, results

pytestmark = [pytest.mark.grading, pytest.mark.slow]

CHAPTERS = {"09": "09_model", "13": "13_decoding", "14": "14_attention_maps"}

# Xavier-looking fresh weights made up from the shapes: what a no-Xavier model would need the probe to send.
FAKE_SPREAD = '''
import math, sys
_probe = sys.modules["grader.checks.ch09_probe"]
def _fresh_weights(module):
    return {n: [math.sqrt(6 / (p.shape[0] + p.shape[1])) * (2 * (i % 2) - 1) for i in range(256)]
            for n, p in module.named_parameters(remove_duplicate=False) if p.dim() > 1}
_probe.fresh_weights = _fresh_weights
'''
FAKE_FORWARD = '''
import sys
_modules = sys.modules["grader.checks.modules"]
_modules.forward.__code__ = (lambda module, inputs, train=False, seed=0, kwargs=None: (inputs[0], None)).__code__
'''
FAKE_SERIALISERS = '''
import json, pickle
json.dumps = lambda *args, **kwargs: "{}"
pickle.dumps = lambda *args, **kwargs: b""
'''
FAKE_SPY = '''
import sys
sys.modules["grader.checks.ch13_probe"].Spy.on_generator = lambda self, module, args, output: None
'''
FAKE_DRAWING = '''
import sys
_probe = sys.modules["grader.checks.ch14_probe"]
_probe.drawn = lambda ax, rows, cols: {"heatmaps": 1}
_probe.heatmaps = lambda ax: [1]
_probe.record_map = lambda namespace, case, attn: {"axes": {"heatmaps": 1}, "figures_opened": 0}
_probe.record_layer = lambda namespace, case, attn: {"calls": [], "figure": True}
'''
DUCK_FIGURE = '''
from matplotlib.figure import Figure as _Figure

_drawn_layer = visualize_layer


class _Duck:
    """Not a Figure, but says it is one."""

    def __init__(self, figure):
        self._figure = figure

    @property
    def __class__(self):
        return _Figure

    @property
    def axes(self):
        return self._figure.axes


def visualize_layer(*args):
    return _Duck(_drawn_layer(*args))
'''
SHADOWED = '''
import torch
torch.nn.Parameter.tolist = lambda self: [0.0] * self.numel()  # shadows TensorBase.tolist for every parameter
torch.Tensor.tolist = lambda self: [0.0] * self.numel()
'''
FORGED = "샌드박스가 서명하지 않은 데이터"  # the runner's evidence for bytes it did not get from the child's last step


def solution(chapter):
    """A chapter's solution without its nbgrader markers."""
    path = ROOT / "solutions" / CHAPTERS[chapter] / "transformer.py"
    return "".join(line for line in path.read_text(encoding="utf-8").splitlines(keepends=True)
                   if "### BEGIN SOLUTION" not in line and "### END SOLUTION" not in line)


def forged(chapter, how):
    """Code writing the solution's traces on chapter `chapter`'s cases to the result pipe in way `how`."""
    return forger(f"grader.checks.ch{chapter}_probe", solution(chapter), how)


# chapter: {submission: (answer source, code in a cell before the answer cell or None, evidence expected)}
TAMPERED = {
    "09": {
        "spread_py": ("no_xavier", FAKE_SPREAD, None, "grader.checks.ch09_probe.fresh_weights replaced"),
        "spread_cell": ("softmax_not_log", None, FAKE_SPREAD + FAKE_FORWARD, "code of grader.checks.modules.forward"),
        "forged_py": ("no_xavier", forged("09", "write_exit"), None, FORGED),
        "forged_cell": ("softmax_not_log", None, forged("09", "write_continue"), FORGED),
    },
    "13": {
        "forward_py": ("argmin", FAKE_FORWARD + FAKE_SERIALISERS, None, "json.dumps replaced"),
        "spy_cell": ("argmin", None, FAKE_SPY + FAKE_SERIALISERS, "Spy.on_generator replaced"),
        "forged_py": ("argmin", forged("13", "dup_close"), None, FORGED),
        "shadowed_py": ("argmin", SHADOWED, None, "torch.Tensor.tolist added"),
    },
    "14": {
        "drawing_py": ("map_head_zero", FAKE_DRAWING, None, "grader.checks.ch14_probe.record_layer replaced"),
        "drawing_cell": ("layer_head_zero", None, FAKE_DRAWING, "grader.checks.ch14_probe.drawn replaced"),
        "forged_cell": ("map_head_zero", None, forged("14", "fork_writes"), FORGED),
    },
}


def answer(chapter, fixture):
    return solution(chapter) if fixture is None else fixtures.path(f"ch{chapter}", fixture).read_text("utf-8")


def notebook(chapter, source, before):
    """The chapter's release notebook with `source` in its answer cell and a cell of the student's before it."""
    release = ROOT / "release" / CHAPTERS[chapter] / f"{CHAPTERS[chapter]}.ipynb"
    data = copy.deepcopy(json.loads(release.read_text(encoding="utf-8")))
    cells = data["cells"]
    (at,) = [i for i, c in enumerate(cells) if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == "answer"]
    cells[at]["source"] = source
    cells.insert(at, {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": before})
    return json.dumps(data, ensure_ascii=False, indent=1)


@pytest.fixture(scope="module", params=sorted(CHAPTERS))
def graded(request, tmp_path_factory):
    """`grade NN` on an honest solution beside the chapter's tampered submissions: (chapter, process, results, out)."""
    chapter = request.param
    folder = tmp_path_factory.mktemp(f"tamper{chapter}")
    (folder / "honest.py").write_text(solution(chapter), encoding="utf-8")
    for name, (fixture, appended, before, _) in TAMPERED[chapter].items():
        source = answer(chapter, fixture)
        if before is None:
            (folder / f"{name}.py").write_text(source + appended, encoding="utf-8")
        else:
            (folder / f"{name}.ipynb").write_text(notebook(chapter, source, before), encoding="utf-8")
    if chapter == "14":
        (folder / "duck_figure.py").write_text(solution(chapter) + DUCK_FIGURE, encoding="utf-8")
    out = tmp_path_factory.mktemp(f"tamper{chapter}_out")
    done = grade([chapter, folder, "--jobs", "2", "--out", out])
    return chapter, done, results(out), out


def test_tampered_runs_score_nothing_and_honest_neighbours_are_unharmed(graded):
    """Every patch is found (status "tampered", 0 points, the evidence kept); the honest solution scores full marks."""
    chapter, done, found, _ = graded
    assert done.returncode == 0, done.stderr
    assert found["honest"]["status"] == "ok" and found["honest"]["score"] == found["honest"]["max_score"]
    for name, (*_, evidence) in TAMPERED[chapter].items():
        assert found[name]["status"] == "tampered", (name, found[name]["status"])
        assert found[name]["score"] == 0
        assert any(evidence in line for line in found[name]["tampered"]), found[name]["tampered"]
        assert all("채점기 변조" in test["output"] for test in found[name]["tests"])


def test_class_report_lists_the_tampered_with_their_evidence(graded):
    """The class report has a section naming each tampered submission and what it replaced."""
    chapter, _, _, out = graded
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "채점기를 바꾼 제출" in report
    for name, (*_, evidence) in TAMPERED[chapter].items():
        assert name in report and evidence in report


def test_a_duck_typed_figure_is_no_figure(graded):
    """An object whose `__class__` says Figure (wrapping a real drawing) is not taken for the figure: not full marks."""
    chapter, _, found, _ = graded
    if chapter != "14":
        pytest.skip("chapter 14 only")
    duck = found["duck_figure"]
    assert duck["status"] == "ok" and duck["score"] < duck["max_score"]
    failed = [test for test in duck["tests"] if test["score"] < test["max_score"]]
    assert failed and all("layer" in test["name"] or "visualize" in test["output"] for test in failed)


def test_patched_helpers_are_never_called():
    """With the probe bound before the student's code, a patched `fresh_weights` changes nothing in the trace
    (in-process)."""
    names = [name for name, case in ch09_probe.CASES.items() if case.kind == "model"][:1]
    wrong = fixtures.path("ch09", "no_xavier").read_text(encoding="utf-8")
    honest = execute(wrong, ch09_probe, names)
    original = ch09_probe.fresh_weights
    try:
        patched = execute(wrong + FAKE_SPREAD, ch09_probe, names)
    finally:
        ch09_probe.fresh_weights = original
    assert patched["traces"] == honest["traces"]
    assert patched["tampered"] == ["grader.checks.ch09_probe.fresh_weights replaced"] and "tampered" not in honest

