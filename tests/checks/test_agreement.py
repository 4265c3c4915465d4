"""The four ways of checking give the same score and the same message for every check, on every fixture.

1. `python -m grader grade` (the sandbox runs every case; the grader judges them all),
2. `python -m selfcheck` / `python -m grader check` (`runner.run`, visible cases only),
3. the notebook's test cells (`verify(chapter, check, globals())`, only the check's own cases),
4. `test_visible.py` under pytest in a copy of the student folder (which calls `verify` too).

(1) and (3) are compared in process on the solution, the stub and a sample of fixtures that fails and passes every
check (`fast_sample`), (2) on that sample too; on every other fixture (`make test-exhaustive`) (1) and (3) on the
checks grading failed ((2) judges the visible checks on the visible cases as (3) does, check by check). The
subprocess form of (1) on three submissions per chapter (the solution, the stub, a fixture that passes some checks and
fails others), which `grade` reads as three kinds of input (a notebook in an LMS zip, a .py file, a notebook in an
nbgrader submitted/ tree), and (4) on the fixture that passes some checks and fails others (both verdict forms in one
run): in `make test` on one chapter of each kind (`SAMPLE_CHAPTERS`), the other chapters in `make test-exhaustive`.
"""
import json
import re
import warnings
import xml.etree.ElementTree as ElementTree
import zipfile

import pytest

from grader.checks import verify
from grader.checks.loading import module_from_source, read_source

from .chapters import CHAPTERS, each_chapter, fast_sample, grade
from .support import PYTHON, ROOT, copy_folder, filled_notebook, finish, start

pytestmark = pytest.mark.checks

VERDICT = re.compile(r"^\[(?P<title>.*?)\] (?P<score>[\d.]+)/(?P<points>[\d.]+)점 — (?P<message>.*)$", re.S)


def _submissions():
    params = []
    for chapter in CHAPTERS:
        sample = fast_sample(chapter)
        for path in [chapter.solution, chapter.stub, *chapter.fixture_files]:
            marks = [getattr(pytest.mark, chapter.marker)]
            sampled = path.parent == chapter.solution.parent or path == chapter.stub or path.stem in sample
            if not sampled:
                marks += [pytest.mark.slow, pytest.mark.exhaustive]
            params.append(pytest.param(chapter, path, sampled, id=f"{chapter.marker}-{path.parent.name}-{path.stem}",
                                       marks=marks))
    return params


def _verdict(text, points):
    """(score, message) from verify()'s AssertionError text, or full points and no message when it passed."""
    if text is None:
        return points, ""
    found = VERDICT.match(text)
    assert found, text
    return float(found["score"]), found["message"]


def _verify(chapter, path, checks, capsys):
    """{check: (score, message)} from verify() on the file's functions, one call per check (as the notebook does)."""
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. softmax without dim
        module = module_from_source(read_source(path))
        for check in chapter.contract.checks:
            if check.name not in checks:
                continue
            try:
                verify(chapter.id, check.name, module)
            except AssertionError as failure:
                out[check.name] = _verdict(str(failure), check.points)
            else:
                out[check.name] = _verdict(None, check.points)
    capsys.readouterr()
    return out


def _scored(results):
    return {r.name: (r.score, r.message) for r in results}


@pytest.mark.parametrize("chapter, path, sampled", _submissions())
def test_grade_selfcheck_and_notebook_cells_agree(chapter, path, sampled, capsys):
    """Each visible check: same score and message from grading (all cases), verify() and (on the sampled
    submissions) the self-check; each hidden check: same from grading and from verify() (the notebook's hidden test
    cells). On the other fixtures verify() is asked only the checks grading failed: a passing verdict is the same
    code path in every fixture, and the sampled ones pass every check at least once."""
    graded = _scored(grade(chapter, path))
    if sampled:
        selfcheck = _scored(grade(chapter, path, hidden=False))
        visible = set(chapter.visible_checks())
        assert selfcheck == {name: verdict for name, verdict in graded.items() if name in visible}
    points = {check.name: check.points for check in chapter.contract.checks}
    asked = set(graded) if sampled else {name for name, (score, message) in graded.items()
                                         if message or score < points[name]}
    assert _verify(chapter, path, asked, capsys) == {name: graded[name] for name in asked}


def _mixed_fixture(chapter):
    """The first bug fixture of the table that passes some visible check and fails another."""
    for name in sorted(chapter.expected):
        outcomes = {r.passed for r in grade(chapter, chapter.fixture(name), hidden=False)}
        if outcomes == {True, False}:
            return chapter.fixture(name)
    raise AssertionError(f"{chapter.id}: no fixture passes some visible checks and fails others")


RUNNING_AT_ONCE = 3  # processes of the fixture below alive together (each imports torch; 2 cores)
PYTEST_SUBMISSIONS = ("mixed",)  # test_visible.py runs on the submission that passes some checks and fails others


def _selected_chapters(session):
    """The chapters whose subprocess-agreement tests were collected (`pytest -m ch02` starts chapter 02's only)."""
    ids = {item.callspec.params["chapter"].id for item in session.items
           if "subprocess_outcomes" in getattr(item, "fixturenames", ()) and hasattr(item, "callspec")}
    return [chapter for chapter in CHAPTERS if chapter.id in ids]


def _grading_inputs(chapter, submissions, batch):
    """The three submissions as three kinds of input: the solution as a notebook in an LMS zip, the stub as a .py
    file, the mixed fixture as a notebook in an nbgrader submitted/ tree; the paths to give `grade`."""
    lms = f"{chapter.id}_solution_attempt_2024-03-01-10-00-00_{chapter.id}.ipynb"
    notebook = filled_notebook(submissions["solution"].read_text(encoding="utf-8"), batch / "solution.ipynb", chapter.id)
    with zipfile.ZipFile(batch / "class.zip", "w") as archive:
        archive.write(notebook, lms)
    notebook.unlink()
    (batch / "stub.py").write_bytes(submissions["stub"].read_bytes())
    tree = batch / "submitted" / "mixed" / chapter.id
    tree.mkdir(parents=True)
    filled_notebook(submissions["mixed"].read_text(encoding="utf-8"), tree / f"{chapter.id}.ipynb", chapter.id)
    return [batch / "class.zip", batch / "stub.py", batch / "submitted"]


def _commands(chapters, tmp_path_factory):
    """(kind, chapter, submission, folder, command) of every process: test_visible.py per submission, one grade of
    all three (with the feedback pages and the class report)."""
    commands = []
    for chapter in chapters:
        submissions = {"solution": chapter.solution, "stub": chapter.stub, "mixed": _mixed_fixture(chapter)}
        for name in PYTEST_SUBMISSIONS:
            folder = copy_folder(chapter.exercise_dir, tmp_path_factory.mktemp(f"{chapter.marker}-{name}") / chapter.id)
            (folder / "transformer.py").write_bytes(submissions[name].read_bytes())
            command = [PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--junitxml=junit.xml", "test_visible.py"]
            commands.append(("pytest", chapter, name, folder, command))
        command = [PYTHON, "-m", "grader", "check", chapter.number, str(submissions["solution"])]  # the instructor's
        commands.append(("check", chapter, "solution", ROOT, command))
        batch = tmp_path_factory.mktemp(f"{chapter.marker}-grade")
        inputs = _grading_inputs(chapter, submissions, batch)
        command = [PYTHON, "-m", "grader", "grade", chapter.number, *map(str, inputs), "--json", "--jobs", "1",
                   "--out", str(batch / "graded")]
        commands.append(("grade", chapter, None, batch, command))
    return commands


def _run_bounded(commands):
    """Run the commands, RUNNING_AT_ONCE at a time; yield (kind, chapter, name, folder, (status, out, err))."""
    pending, running = list(commands), []
    while pending or running:
        while pending and len(running) < RUNNING_AT_ONCE:
            kind, chapter, name, folder, command = pending.pop(0)
            running.append((kind, chapter, name, folder, start(command, cwd=folder)))
        kind, chapter, name, folder, process = running.pop(0)
        yield kind, chapter, name, folder, finish(process, timeout=600)


@pytest.fixture(scope="module")
def subprocess_outcomes(request, tmp_path_factory):
    """{(chapter, submission): {check: (score, message)}} from test_visible.py under pytest and from `grader grade`."""
    outcomes = {}
    commands = _commands(_selected_chapters(request.session), tmp_path_factory)
    for kind, chapter, name, folder, (status, out, err) in _run_bounded(commands):
        if kind == "check":
            outcomes[("check", chapter.id, name)] = (status, out, err)
        elif kind == "pytest":
            assert status in (0, 1), f"{chapter.id} {name}: pytest exited {status}\n{out}\n{err}"
            outcomes[("pytest", chapter.id, name)] = _junit(folder / "junit.xml", chapter)
        else:
            assert status == 0, f"{chapter.id}: grade exited {status}\n{err}"
            graded = folder / "graded"
            outcomes[("pages", chapter.id)] = sorted(p.parent.name for p in graded.glob("feedback/*/feedback.html"))
            outcomes[("report", chapter.id)] = (graded / "report.html").is_file()
            for document in json.loads(out):
                outcomes[("grade", chapter.id, document["student_id"])] = {
                    test["name"]: (test["score"], test["output"].partition("\n")[2]) for test in document["tests"]}
    return outcomes


def _junit(report, chapter):
    """{check: (score, message)} from pytest's JUnit XML (test ids look like test_visible_check[<check>])."""
    points = {check.name: check.points for check in chapter.contract.checks}
    outcomes = {}
    for case in ElementTree.parse(report).getroot().iter("testcase"):
        check = case.get("name").split("[", 1)[1].rstrip("]")
        failure = case.find("failure")
        text = None if failure is None else _failure_message(failure).removeprefix("AssertionError: ")
        outcomes[check] = _verdict(text, points[check])
    return outcomes


# pytest cuts a multi-line failure message in the XML's attribute: "line 1\n[+1 more line; full report in element text]"
CUT = re.compile(r"\n\[\+\d+ more lines?; full report in element text\]$")
REPORT_LINE = "E       "  # how pytest's report marks the exception's lines


def _failure_message(failure):
    """The whole message of a JUnit failure (its lines read back from the report when the attribute was cut)."""
    message = failure.get("message")
    if not CUT.search(message):
        return message
    return "\n".join(line.removeprefix(REPORT_LINE) for line in failure.text.splitlines() if line.startswith(REPORT_LINE))


@pytest.mark.slow
@pytest.mark.parametrize("chapter", each_chapter(sampled=True))
@pytest.mark.parametrize("name", ["solution", "stub", "mixed"])
def test_test_visible_py_and_grade_command_agree_with_the_self_check(chapter, name, subprocess_outcomes):
    """`python -m grader grade` (and test_visible.py under pytest in a student's folder, for the mixed fixture) give the
    self-check's scores and messages."""
    path = {"solution": chapter.solution, "stub": chapter.stub, "mixed": _mixed_fixture(chapter)}[name]
    selfcheck = _scored(grade(chapter, path, hidden=False))
    graded = _scored(grade(chapter, path))
    if name in PYTEST_SUBMISSIONS:
        assert subprocess_outcomes[("pytest", chapter.id, name)] == selfcheck
    assert subprocess_outcomes[("grade", chapter.id, name)] == graded


@pytest.mark.slow
@pytest.mark.parametrize("chapter", each_chapter(sampled=True))
def test_grader_check_passes_the_solution(chapter, subprocess_outcomes):
    """`python -m grader check NN FILE` passes every visible check of the solution: exit 0, the visible total, no
    traceback (the stub's Korean verdict is the grade run's, above; `check` without FILE: test_checks_ch01_cli)."""
    points = sum(check.points for check in chapter.contract.checks if check.visible)
    status, out, err = subprocess_outcomes[("check", chapter.id, "solution")]
    assert status == 0, out + err
    assert re.search(rf"합계\s+{points}/{points}", out), out
    assert "Traceback" not in out + err


@pytest.mark.slow
@pytest.mark.parametrize("chapter", each_chapter(sampled=True))
def test_grade_writes_a_feedback_page_per_student_and_the_class_report(chapter, subprocess_outcomes):
    """`grade` on an LMS zip, a .py file and a submitted/ tree finds the three students and writes their pages."""
    assert subprocess_outcomes[("pages", chapter.id)] == ["mixed", "solution", "stub"]
    assert subprocess_outcomes[("report", chapter.id)]
