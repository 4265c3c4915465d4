"""A graded folder for the report tests: a few fixtures graded in process, plus runs that timed out, crashed or were unreadable."""
import json

import pytest

from grader import paths
from grader.checks import judge_module, references
from grader.checks.framework import judge
from grader.checks.scoresheet import gradescope
from grader.report import preview, write_all
from tests import fixtures

CHAPTER = "01_attention"
CHAPTER_02 = "02_masking"
GRADED_02 = {
    "solution": paths.SOLUTIONS / CHAPTER_02 / "transformer.py",
    "fill_zero": fixtures.path("ch02", "fill_zero"),
}
# A student id and a check message carrying markup: every page must show them as text.
MARKUP = '<script>alert("x")</script> & "quoted" <b>'

GRADED = {
    "solution": paths.SOLUTIONS / CHAPTER / "transformer.py",
    "einsum": fixtures.path("ch01", "ok_einsum"),
    "no_scale": fixtures.path("ch01", "no_scale"),
    "half_dk": fixtures.path("ch01", "half_dk"),
    "softmax_dim": fixtures.path("ch01", "softmax_dim"),
    "scores": fixtures.path("ch01", "scores"),
    "only_output": fixtures.path("ch01", "only_output"),
    "unstable": fixtures.path("ch01", "unstable_softmax"),
    "stub": fixtures.path("ch01", "unimplemented"),
}
INJECTION = "<script>alert('x')</script> | ** `"
BROKEN = {
    "looper": ("timeout", 20.4, "시간 제한(20초)을 넘어 실행을 중단했습니다."),
    "crasher": ("crashed", 1.5, "프로세스가 비정상적으로 끝났습니다. " + INJECTION),
    "garbled": ("unreadable", 0.01, "노트북 파일(.ipynb)이 중간에서 잘려 있습니다."),
}


def broken_document(student, status, seconds, message):
    """A results.json like the grading command writes for a run that produced no traces."""
    module = judge_module(CHAPTER)
    checks = judge(module.CHECKS, module.probe, {"failure": message}, references.load(CHAPTER))
    return gradescope(checks, {"submission": f"{student}-1", "student_id": student, "status": status,
                               "sandbox": "test", "seconds": seconds, "output": message,
                               "picture": {"case": "seed", "label": "p_attn", "student": None}})


def make_results(folder):
    """Write results/*.json into `folder` (graded fixtures + broken runs); return the folder."""
    preview.write(folder, CHAPTER, GRADED)
    for student, (status, seconds, message) in BROKEN.items():
        document = broken_document(student, status, seconds, message)
        (folder / "results" / f"{student}-1.json").write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    return folder


@pytest.fixture(scope="session")
def graded(tmp_path_factory):
    """(folder, write_all's answer): a graded folder with feedback pages and the class report written."""
    folder = make_results(tmp_path_factory.mktemp("graded"))
    return folder, write_all(folder, "01", wall_seconds=12.5)


@pytest.fixture(scope="session")
def documents(graded):
    """{student id: results.json document} of the graded folder."""
    folder, _ = graded
    out = {}
    for path in sorted((folder / "results").glob("*.json")):
        document = json.loads(path.read_text(encoding="utf-8"))
        out[document["student_id"]] = document
    return out


def graded_chapter(tmp_path_factory, chapter_id, students):
    """(folder, write_all's answer): {student id: file} of chapter `chapter_id` graded in process, pages written."""
    folder = tmp_path_factory.mktemp(f"graded{chapter_id[:2]}")
    preview.write(folder, chapter_id, students)
    return folder, write_all(folder, chapter_id[:2])


@pytest.fixture(scope="session")
def graded_02(tmp_path_factory):
    """(folder, write_all's answer) for chapter 02 (its declared picture: p_attn under the causal mask)."""
    return graded_chapter(tmp_path_factory, CHAPTER_02, GRADED_02)


@pytest.fixture(scope="session")
def graded_markup(tmp_path_factory, documents):
    """(folder, document) graded from one no_scale result whose student id, check name and message carry markup."""
    folder = tmp_path_factory.mktemp("markup")
    document = json.loads(json.dumps(documents["no_scale"]))
    document.update(student_id=MARKUP, submission="evil-1")
    failed = next(t for t in document["tests"] if t["status"] != "passed")
    failed["name"] = "check " + MARKUP
    failed["output"] = f"제목 {MARKUP}\n진단 {MARKUP}"
    (folder / "results").mkdir()
    (folder / "results" / "evil-1.json").write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    write_all(folder, "01")
    return folder, document


CHAPTER_03 = "03_multihead"
GRADED_03 = {
    "solution": paths.SOLUTIONS / CHAPTER_03 / "transformer.py",
    "shared_clones": fixtures.path("ch03", "shared_clones"),
    "attn_not_stored": fixtures.path("ch03", "attn_not_stored"),
}
CHAPTER_04 = "04_feedforward"  # declares picture=None


@pytest.fixture(scope="session")
def graded_03(tmp_path_factory):
    """(folder, write_all's answer) for chapter 03 (its declared picture: self.attn after a forward, batch 0, head 0)."""
    return graded_chapter(tmp_path_factory, CHAPTER_03, GRADED_03)


@pytest.fixture(scope="session")
def graded_04(tmp_path_factory):
    """(folder, write_all's answer) for chapter 04, a chapter without a picture."""
    return graded_chapter(tmp_path_factory, CHAPTER_04, {"solution": paths.SOLUTIONS / CHAPTER_04 / "transformer.py"})
