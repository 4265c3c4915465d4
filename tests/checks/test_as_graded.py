"""The submitted file alone (`grader/checks/as_graded.py`): the self-check cannot use what the grader never receives.

The folder-level agreement of `python -m selfcheck`, `pytest test_visible.py` and `grade` is in
`test_checks_ch01_student_folder.py`; here the two pieces on their own: a notebook kernel's namespace that took
`attention` from a file beside the notebook, and what `folder_out_of_reach` leaves importable.
"""
import sys

import pytest

from grader.checks import as_graded, messages
from grader.checks.verifying import verify

from .chapters import ChapterUnderTest

pytestmark = pytest.mark.checks

SOLUTION = ChapterUnderTest("01_attention").solution


def _helper_module(folder, name="my_helpers"):
    """A module file in `folder` that defines the chapter's `attention` (the solution's)."""
    source = SOLUTION.read_text(encoding="utf-8")
    folder.joinpath(f"{name}.py").write_text("import math\n\nimport torch\n\n\n" + source[source.index("def attention"):],
                                             encoding="utf-8")


def test_a_kernel_namespace_using_a_file_beside_the_notebook_fails_as_graded(tmp_path, monkeypatch):
    """In a kernel started in the notebook's folder, `from my_helpers import attention` works, but the grader gets the
    notebook alone: the check cell fails with the ModuleNotFoundError the grader meets, and its hint."""
    _helper_module(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "my_helpers", raising=False)
    import my_helpers

    namespace = {"__name__": "__main__", "attention": my_helpers.attention, "torch": sys.modules["torch"]}
    with pytest.raises(AssertionError) as failure:
        verify("01_attention", "return_contract", namespace)
    assert "No module named 'my_helpers'" in str(failure.value) and messages.MODULE_HINT in str(failure.value)
    namespace["attention"] = as_graded  # the same namespace without the helper: nothing of the folder is used
    assert as_graded.local_modules(namespace, tmp_path, own="__main__") == []


def test_the_folder_is_out_of_reach_only_while_the_submission_runs(tmp_path, monkeypatch):
    """Inside `folder_out_of_reach(folder)` a module of the folder cannot be imported, even one imported before; after
    it, everything is as it was."""
    _helper_module(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "my_helpers", raising=False)
    import my_helpers  # noqa: F401

    with as_graded.folder_out_of_reach(tmp_path):
        assert "my_helpers" not in sys.modules
        with pytest.raises(ModuleNotFoundError):
            __import__("my_helpers")
    assert "my_helpers" in sys.modules and str(tmp_path) in sys.path


def test_installed_packages_stay_even_in_a_folder_that_holds_the_environment():
    """A virtual environment made inside the student's folder holds torch: it is installed, not the student's module,
    and stays importable (the folder here is an ancestor of the interpreter's prefix)."""
    torch = sys.modules["torch"]
    with as_graded.folder_out_of_reach(sys.prefix.rsplit("/", 1)[0]):
        assert sys.modules.get("torch") is torch
        assert __import__("torch.nn.functional", fromlist=["softmax"]).softmax


def test_input_finds_nothing_typed_as_when_graded(tmp_path, monkeypatch):
    """`input()` at the top of the file: the sandbox's stdin is empty, so it raises EOFError there; the self-check
    gives the same 0 and message even when the student's terminal has something to read."""
    import io

    from grader.checks import in_process

    path = tmp_path / "transformer.py"
    path.write_text(SOLUTION.read_text(encoding="utf-8") + "\nname = input('이름: ')\n", encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", io.StringIO("typed\n"))
    checked, _ = in_process.check("01_attention", path)
    assert not any(result.passed for result in checked)
    assert "EOFError" in checked[0].message and messages.INPUT_HINT in checked[0].message
    assert sys.stdin.read() == "typed\n"  # put back afterwards, unread


def test_a_package_the_course_does_not_promise_is_warned_of(tmp_path):
    """A file that imports a package installed here but not promised by the course (nbformat stands in for pandas or
    einops) passes its checks where the package is, and the self-check warns that grading may not have it; the
    standard library, torch and numpy draw no warning."""
    from grader.checks import in_process

    path = tmp_path / "transformer.py"
    path.write_text("import os\nimport numpy\nimport nbformat  # noqa\n" + SOLUTION.read_text(encoding="utf-8"),
                    encoding="utf-8")
    checked, notes = in_process.check("01_attention", path)
    assert all(result.passed for result in checked)
    assert notes == [as_graded.foreign_note("nbformat")]
