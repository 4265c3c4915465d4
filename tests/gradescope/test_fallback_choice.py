"""When bubblewrap passes its probe but its workers cannot start, the autograder falls back instead of failing."""
import pytest

from grader.gradescope import autograder
from grader.gradescope.settings import Settings
from grader.sandbox import SandboxError

pytestmark = pytest.mark.grading


@pytest.mark.parametrize("switch, expected", [("", [None, False]), ("0", [False]), ("1", [True])])
def test_the_switch_chooses_the_sandboxes(monkeypatch, switch, expected):
    monkeypatch.setenv(autograder.BUBBLEWRAP_SWITCH, switch)
    assert autograder.bubblewrap_choices() == expected


def test_a_broken_bubblewrap_falls_back_to_the_subprocess(monkeypatch, tmp_path):
    (tmp_path / "transformer.py").write_text("x = 1\n", encoding="utf-8")
    monkeypatch.setattr(autograder, "SUBMISSION", tmp_path)
    monkeypatch.setenv(autograder.BUBBLEWRAP_SWITCH, "")
    tried = []

    def run_sandboxed(submission, judge, settings, limits, use_bwrap):
        tried.append(use_bwrap)
        if use_bwrap is None:
            raise SandboxError("a sandbox worker failed to start 3 times in a row")
        verdicts = judge.judge_unreadable("대체 실행")
        return submission, verdicts, None

    monkeypatch.setattr(autograder, "run_sandboxed", run_sandboxed)
    document = autograder.grade(Settings("01_attention"))
    assert tried == [None, False] and document["output"] == "대체 실행"
