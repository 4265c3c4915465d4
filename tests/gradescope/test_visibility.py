"""Which Gradescope tests a student sees: each check's visibility in results.json follows the chapter's contract.

A visible check is always "visible"; a hidden one gets the instructor's `--hidden-visibility` (default
"after_published"), read back from the zip's config.json as the autograder reads it. Not `slow`: no
/autograder, one sandboxed grading of a wrong submission, and every chapter's unreadable path (no sandbox).
"""
import json
import zipfile

import pytest

from grader import chapters as course
from grader.checks import chapter as load_chapter
from grader.gradescope import autograder
from grader.gradescope.document import results_json
from grader.gradescope.settings import Settings
from tests.conftest import PYTHON, ROOT, run

pytestmark = pytest.mark.grading

# zip options → the hidden checks' visibility they must give
CHOICES = {"after_published": [], "hidden": ["--hidden-visibility", "hidden"]}
WRONG = ROOT / "grader/demo_class/answers/hyunwoo.py"  # passes some checks of chapter 01, fails others


def _settings(folder, number, options):
    """The Settings the autograder reads from the config.json of `python -m grader gradescope NN …`'s zip."""
    archive = folder / f"autograder-{number}.zip"
    done = run([PYTHON, "-m", "grader", "gradescope", number, "--out", str(archive), *options])
    assert done.returncode == 0, done.stderr
    config = folder / "config.json"
    with zipfile.ZipFile(archive) as opened:
        config.write_bytes(opened.read("config.json"))
    return Settings.load(config)


@pytest.fixture(scope="module", params=list(CHOICES))
def settings(request, tmp_path_factory):
    """(the visibility hidden checks must get, the Settings of a zip built with the matching options)."""
    return request.param, _settings(tmp_path_factory.mktemp(request.param), "01", CHOICES[request.param])


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """`python -m grader grade 01` on a wrong submission: its grading document (what the autograder converts)."""
    out = tmp_path_factory.mktemp("graded")
    done = run([PYTHON, "-m", "grader", "grade", "01", str(WRONG), "--out", str(out), "--jobs", "1", "--json",
                "--no-feedback"])
    assert done.returncode == 0, done.stderr
    [document] = json.loads(done.stdout)
    return document


def _expected(chapter_id, hidden_visibility):
    """{check name: the visibility its Gradescope test must have}, from the chapter's contract alone."""
    return {check.name: "visible" if check.visible else hidden_visibility for check in load_chapter(chapter_id).checks}


def _shown(results):
    return {test["extra_data"]["check"]: test["visibility"] for test in results["tests"]}


def test_each_check_of_a_graded_submission_has_its_contracts_visibility(settings, graded):
    """Visible checks are shown at once, hidden ones as the instructor chose, on a submission that passes and fails."""
    wanted, settings = settings
    results = results_json(graded, settings.hidden_visibility, 1.0)
    assert _shown(results) == _expected(settings.chapter_id, wanted)
    statuses = {(test["visibility"], test["status"]) for test in results["tests"]}
    assert {("visible", "passed"), ("visible", "failed")} <= statuses
    assert {status for visibility, status in statuses if visibility != "visible"} == {"passed", "failed"}


@pytest.mark.parametrize("chapter_id", [source.id for source in course.all_chapters()])
@pytest.mark.parametrize("hidden_visibility", ["after_published", "hidden"])
def test_every_chapters_autograder_shows_its_checks_as_the_contract_says(chapter_id, hidden_visibility, tmp_path,
                                                                        monkeypatch):
    """autograder.grade → results.json for an empty upload (no sandbox): every check present, each as its contract says."""
    monkeypatch.setattr(autograder, "SUBMISSION", tmp_path)
    settings = Settings(chapter_id, hidden_visibility)
    results = results_json(autograder.grade(settings), settings.hidden_visibility, 1.0)
    assert _shown(results) == _expected(chapter_id, hidden_visibility)
    assert "visible" in _shown(results).values() and hidden_visibility in _shown(results).values()
