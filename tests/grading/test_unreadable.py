"""Files that cannot be read are graded "unreadable" with 0 points and a Korean reason, and never run.

Not `slow` (unlike `test_command.py`'s mixed class): one small `python -m grader grade` run, so `make test-fast`
sees an unreadable file graded as "ok" or scored above 0.
"""
import pytest

from .helpers import SUBMISSIONS, grade, results, solution_source

pytestmark = pytest.mark.grading

UNREADABLE = {"corrupt": ("corrupt.ipynb", "잘려"), "euc_kr": ("euc_kr.py", "UTF-8"), "empty": ("empty.py", "비어")}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """{submission id: results document} of `grade 01` on the unreadable files and the solution."""
    folder = tmp_path_factory.mktemp("class")
    (folder / "solution.py").write_text(solution_source(), encoding="utf-8")
    for file_name, _ in UNREADABLE.values():
        (folder / file_name).write_bytes((SUBMISSIONS / file_name).read_bytes())
    out = tmp_path_factory.mktemp("graded")
    done = grade(["01", folder, "--jobs", "1", "--out", out, "--no-feedback"])
    assert done.returncode == 0, done.stderr
    return results(out)


@pytest.mark.parametrize("name", list(UNREADABLE))
def test_an_unreadable_file_scores_0_with_its_reason_and_never_runs(graded, name):
    document, words = graded[name], UNREADABLE[name][1]
    assert (document["status"], document["score"], document["sandbox"]) == ("unreadable", 0, None)
    assert words in document["output"]
    assert document["tests"] and all(test["status"] == "failed" and words in test["output"]
                                     for test in document["tests"])


def test_a_readable_file_beside_them_is_graded_as_usual(graded):
    assert (graded["solution"]["status"], graded["solution"]["score"]) == ("ok", 100)
