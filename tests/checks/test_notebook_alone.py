"""The notebook alone is enough (Colab, an empty folder), in every chapter: its setup cell unpacks the embedded
`selfcheck` package and the check cells give the scores and Korean messages `python -m grader grade` gives the same
notebook, offline.

Each selected chapter's released notebook, filled with the chapter's solution and with one mutant (the fixture
test_agreement grades too: it passes some visible checks and fails others), is executed alone in an empty temporary
folder by a real kernel (nbclient; no PYTHONPATH), two kernels at once, each running its notebooks one after another
(tests/checks/kernels.py resets it between them). The very same files are graded by `python -m grader grade`
meanwhile. The fixture prints how long it took.
"""
import json
import re
import shutil
import subprocess
import threading
import time

import pytest

from grader import chapters, paths
from grader.publish import embedded, shipping
from tests import fixtures
from tests.grading.helpers import filled_notebook

from .chapters import CHAPTERS, each_chapter
from .kernels import check_outputs, run_lanes
from .support import PYTHON, carried_package, student_env

pytestmark = [pytest.mark.checks, pytest.mark.slow]

# Per chapter, the mutant: the first bug fixture of the table that passes some visible check and fails another (as
# test_agreement's `_mixed_fixture` finds it).
MUTANTS = {
    "01_attention": "divide_by_dk", "02_masking": "after_softmax", "03_multihead": "attn_not_stored",
    "04_feedforward": "dropout_after_w2", "05_embeddings": "dropout_missing", "06_sublayer": "ab_swapped",
    "07_encoder": "attn_called_early", "08_decoder": "cross_before_self", "09_model": "decode_no_src_mask",
    "10_batching": "default_pad_0", "11_smoothing": "confidence_swapped", "12_training": "accum_ignored",
    "13_decoding": "argmin", "14_attention_maps": "fill_no_return",
}
ANSWERS = ("solution", "mutant")
# What a chapter's demo cell writes beside the notebook, as its text says (ch14: the three attention pictures). Until
# the demo cell dropped the whole two-line `from transformer import (…)`, ch14's demo stopped at an IndentationError.
DEMO_WRITES = {"14_attention_maps": ["attention_pictures"]}
LANES = 2  # kernels at once (2 cores)
PASSED = re.compile(r"^통과: (?P<title>.*) \((?P<points>[\d.]+)점\)\n$", re.S)
FAILED = re.compile(r"^AssertionError: \[(?P<title>.*?)\] (?P<score>[\d.]+)/(?P<points>[\d.]+)점 — (?P<message>.*)$",
                    re.S)


def _selected(session):
    """The chapters whose tests here were collected (`pytest -m ch03` runs chapter 03's notebooks only)."""
    ids = {item.callspec.params["chapter"].id for item in session.items
           if item.path.name == __file__.rsplit("/", 1)[-1] and hasattr(item, "callspec")}
    return [chapter for chapter in CHAPTERS if chapter.id in ids]


def _source(chapter, answer):
    path = chapter.solution if answer == "solution" else fixtures.path(chapter.marker, MUTANTS[chapter.id])
    return path.read_text(encoding="utf-8")


def _grade(chapter, batch):
    """{answer: {check: (score, message)}} of the visible checks, from `python -m grader grade` on the notebooks in
    `batch` (one per answer, named after it)."""
    command = [PYTHON, "-m", "grader", "grade", chapter.number, *(str(batch / f"{a}.ipynb") for a in ANSWERS),
               "--json", "--jobs", "1", "--no-feedback", "--out", str(batch / "graded")]
    done = subprocess.run(command, cwd=paths.ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return {document["student_id"]: {test["name"]: (round(test["score"], 2), test["output"].partition("\n")[2])
                                     for test in document["tests"] if test["visibility"] == "visible"}
            for document in json.loads(done.stdout)}


def _verdicts(outputs):
    """{check: (score, message)} from the check cells' printed verdicts (full points and no message when passed)."""
    verdicts = {}
    for check, text in outputs.items():
        passed, failed = PASSED.match(text), FAILED.match(text)
        assert passed or failed, f"{check}: {text!r}"
        verdicts[check] = ((round(float(passed["points"]), 2), "") if passed
                           else (round(float(failed["score"]), 2), failed["message"]))
    return verdicts


@pytest.fixture(scope="module")
def runs(request, tmp_path_factory):
    """{(chapter id, answer): {"alone": verdicts, "origin": where selfcheck came from, "left": the folder's files,
    "graded": verdicts}}."""
    started = time.monotonic()
    chapters = _selected(request.session)
    notebooks, graded = {}, {}
    for chapter in chapters:
        batch = tmp_path_factory.mktemp(f"{chapter.marker}-grade")
        release = paths.RELEASE / chapter.id / f"{chapter.id}.ipynb"
        for answer in ANSWERS:
            text = filled_notebook(_source(chapter, answer), release)
            path = tmp_path_factory.mktemp(f"{chapter.marker}-{answer}") / f"{chapter.id}.ipynb"
            path.write_text(text, encoding="utf-8")
            (batch / f"{answer}.ipynb").write_text(text, encoding="utf-8")
            notebooks[chapter.id, answer] = path
        graded[chapter.id] = batch

    def grade_all():  # one grade process at a time, beside the kernels
        for chapter in chapters:
            graded[chapter.id] = _grade(chapter, graded[chapter.id])

    grading = threading.Thread(target=grade_all)
    grading.start()
    executed = run_lanes(list(notebooks.values()), LANES, tmp_path_factory.mktemp("kernels"), student_env())
    grading.join()
    out = {}
    for (chapter_id, answer), path in notebooks.items():
        notebook, origin = executed[path]
        out[chapter_id, answer] = {"alone": _verdicts(check_outputs(notebook)), "origin": origin,
                                   "left": sorted(p.name for p in path.parent.iterdir()),
                                   "graded": graded[chapter_id][answer]}
        if origin.startswith("/"):
            shutil.rmtree(origin.rsplit("/selfcheck/", 1)[0], ignore_errors=True)
    print(f"\n{len(notebooks)} notebooks alone on {LANES} kernels, graded beside: {time.monotonic() - started:.1f} s")
    return out


@pytest.mark.parametrize("chapter", each_chapter(sampled=True))
def test_the_solution_alone_passes_every_visible_check_as_grade_scores_it(chapter, runs):
    run = runs[chapter.id, "solution"]
    visible = {check.name: (round(check.points, 2), "") for check in chapter.contract.checks if check.visible}
    assert run["alone"] == visible
    assert run["graded"] == visible


@pytest.mark.parametrize("chapter", each_chapter(sampled=True))
def test_a_mutant_alone_gets_the_score_and_korean_messages_grade_gives(chapter, runs):
    """Same score, same first Korean message, and indeed the same verdict for every visible check."""
    run = runs[chapter.id, "mutant"]
    alone, graded = run["alone"], run["graded"]
    assert sum(s for s, _ in alone.values()) == pytest.approx(sum(s for s, _ in graded.values()))
    first = [message for _, message in alone.values() if message]
    assert first and first[0] == next(message for _, message in graded.values() if message)
    assert re.search("[가-힣]", first[0]), first[0]
    assert alone == graded


@pytest.mark.parametrize("chapter", each_chapter(sampled=True))
@pytest.mark.parametrize("answer", ANSWERS)
def test_the_setup_cell_unpacked_the_checks_and_wrote_nothing_beside_the_notebook(chapter, answer, runs):
    """The kernel found no `selfcheck` until the setup cell unpacked one into a temporary folder of its own; the
    notebook's folder still holds the notebook alone, and what the demo cell writes when it runs through
    (`DEMO_WRITES`: with the solution)."""
    run = runs[chapter.id, answer]
    assert re.search(r"/selfcheck-[^/]+/selfcheck/__init__\.py$", run["origin"]), run["origin"]
    demo = DEMO_WRITES.get(chapter.id, []) if answer == "solution" else []
    assert [name for name in run["left"] if answer == "solution" or name not in DEMO_WRITES.get(chapter.id, [])] == \
        sorted([f"{chapter.id}.ipynb", *demo])


def test_each_notebook_unpacked_its_own_copy(runs):
    """No notebook found the `selfcheck` an earlier one unpacked in the same kernel: the reset between them holds."""
    origins = [run["origin"] for run in runs.values()]
    assert len(set(origins)) == len(origins), origins


@pytest.mark.parametrize("chapter", each_chapter(sampled=True))
def test_the_setup_cell_is_locked_ungraded_and_carries_visible_checks_only(chapter):
    """The setup cell is read-only and not graded (so the grader never runs it as student code); its package is
    exactly the chapter's shipped files: its own `selfcheck/` (references of the visible cases only) and the shared
    framework files it uses, byte for byte as in `exercises/`."""
    release = paths.RELEASE / chapter.id / f"{chapter.id}.ipynb"
    notebook = json.loads(release.read_text(encoding="utf-8"))
    (cell,) = [c for c in notebook["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == embedded.CELL_ID]
    assert cell["metadata"]["nbgrader"]["locked"] and not cell["metadata"]["nbgrader"]["grade"]
    carried = carried_package(release)
    shipped = {name: (paths.EXERCISES / shipping.exercise_path(chapters.find(chapter.id), name)).read_bytes() for name in carried}
    assert carried == shipped
    own = {f"selfcheck/{p.name}" for p in (chapter.exercise_dir / "selfcheck").iterdir() if p.is_file()}
    assert own <= carried.keys()
    assert {f"selfcheck/ch{chapter.number}_probe.py", "selfcheck/reference.json"} <= own
