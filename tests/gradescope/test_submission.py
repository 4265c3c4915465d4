"""Which file of /autograder/submission is graded, and the Korean message when none or several could be."""
import pytest

from grader.gradescope.submission import choose, find

pytestmark = pytest.mark.grading


def _files(folder, *names):
    for name in names:
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x = 1\n", encoding="utf-8")
    return folder


@pytest.mark.parametrize("names, chosen", [
    (["transformer.py"], "transformer.py"),
    (["hw/01_attention.ipynb", "README.md"], "hw/01_attention.ipynb"),
    (["transformer.py", "demo.py", "test_visible.py"], "transformer.py"),
    (["01_attention.ipynb", "transformer.py"], "01_attention.ipynb"),
    (["answer.py", ".ipynb_checkpoints/answer-checkpoint.py", "__MACOSX/answer.py"], "answer.py"),
])
def test_the_answer_file_is_found(tmp_path, names, chosen):
    assert str(choose(_files(tmp_path, *names), "01_attention")[0]) == chosen


@pytest.mark.parametrize("names, words", [
    ([], "찾지 못했습니다"),
    (["report.pdf"], "report.pdf"),
    (["a.py", "b.py"], "a.py, b.py"),
])
def test_no_or_several_answer_files_give_a_korean_message(tmp_path, names, words):
    relative, problem = choose(_files(tmp_path, *names), "01_attention")
    assert relative is None and words in problem and "01_attention.ipynb 또는 transformer.py" in problem


def test_a_symlink_is_never_read(tmp_path):
    secret = tmp_path / "secret.json"
    secret.write_text("{}", encoding="utf-8")
    (tmp_path / "submission").mkdir()
    (tmp_path / "submission" / "transformer.py").symlink_to(secret)
    submission, problem = find(tmp_path / "submission", "01_attention")
    assert "찾지 못했습니다" in problem
    with pytest.raises(Exception, match="찾지 못했습니다"):
        submission.read()
