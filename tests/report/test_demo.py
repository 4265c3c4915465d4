"""`python -m grader demo`: runs the whole job on the bundled class, prints the class table, writes only under --out."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from grader.demo_class.pack import roster
from grader.report.texts import status_word
from tests.conftest import committed_copy, expected_sandbox, git_status

pytestmark = [pytest.mark.report, pytest.mark.slow]
IGNORED = ("__pycache__", ".pytest_cache")


def _repo_state(root):
    """{file: (size, mtime)} of a repository copy, caches aside: what the demo must not change."""
    return {str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns) for p in root.rglob("*")
            if p.is_file() and not set(IGNORED) & set(p.parts)}


def _everything(folder):
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """Run the demo once, from a scratch git copy of the repository, with torch's default kernels (as on a machine
    with another CPU), its own empty TMPDIR, HOME and working directory; return (run, out, folders, repo).
    The demo's own build must write nothing: the committed files are what any machine builds.
    (How long the demo takes is measured by bench/bench_demo.py.)"""
    base = tmp_path_factory.mktemp("demo")
    repo = committed_copy(base / "repo")
    folders = {name: base / name for name in ("tmp", "home", "cwd")}
    for folder in folders.values():
        folder.mkdir()
    out = base / "demo-out"
    env = dict(os.environ, TMPDIR=str(folders["tmp"]), HOME=str(folders["home"]), PYTHONPATH=str(repo),
               ATEN_CPU_CAPABILITY="default", PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]))
    before = (repo, _repo_state(repo))
    done = subprocess.run([sys.executable, "-m", "grader", "demo", "--out", str(out)], cwd=folders["cwd"], env=env,
                          capture_output=True, text=True, timeout=900)  # a hang guard, not a speed bound
    return done, out, folders, before


def test_demo_completes_and_prints_the_class_table(demo):
    """Exit 0; one table row per bundled student with score and status (timeout for the busy loop, unreadable for
    the cut-short notebook); it says where the report and the feedback are."""
    done, out, _, _ = demo
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "(0 written, 0 removed)" in done.stdout.split("== 1b.", 1)[0], done.stdout[:3000]
    table = done.stdout.split("== class table", 1)[1]
    _, students = roster()
    for student in students:
        assert any(line.startswith(student["id"] + " ") for line in table.splitlines()), student["id"]
    row = {line.split()[0]: line for line in table.splitlines() if line.strip() and line.split()[0] in
           {s["id"] for s in students}}
    assert row["mallory"].split()[1] == "0/100" and status_word("timeout") in row["mallory"]
    assert status_word("unreadable") in row["gunwoo"]
    assert row["minji"].split()[1] == "100/100" and status_word("ok") in row["minji"]
    assert str(out / "graded" / "report.html") in done.stdout and "feedback.html" in done.stdout


def test_demo_grades_in_the_sandbox(demo):
    """Every submission that was run ran in bubblewrap where it is installed (the unreadable one never ran)."""
    _, out, _, _ = demo
    documents = {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in (out / "graded" / "results").glob("*.json")}
    ran = {document["sandbox"] for document in documents.values() if document["status"] != "unreadable"}
    assert ran == {expected_sandbox()}
    assert {document["sandbox"] for document in documents.values() if document["status"] == "unreadable"} == {None}


def test_demo_writes_reports_feedback_and_the_gradebook_export(demo):
    """The class report, a feedback page per student (also in nbgrader's feedback layout) and nbgrader's CSV export."""
    _, out, _, _ = demo
    _, students = roster()
    graded = out / "graded"
    assert (graded / "report.html").is_file() and (graded / "report.md").is_file()
    for student in students:
        assert (graded / "feedback" / student["id"] / "feedback.html").is_file()
        assert (out / "course" / "feedback" / student["id"] / "01_attention" / "01_attention.html").is_file()
    export = (out / "nbgrader-grades.csv").read_text(encoding="utf-8").splitlines()
    assert export[0].startswith("assignment,") and len(export) == len(students) + 1


def test_demo_leaves_nothing_outside_its_output_folder(demo):
    """TMPDIR, HOME and the working directory stay empty; no file of the repository is added, changed or removed
    (its git status stays clean)."""
    _, _, folders, (repo, before) = demo
    for name, folder in folders.items():
        assert _everything(folder) == [], name
    assert _repo_state(repo) == before
    assert git_status(repo) == ""
