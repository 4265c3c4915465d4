"""The three ways a student checks chapter 01 never disagree on which visible check passes.

1. `runner.run` (what `python -m selfcheck` / `python -m grader check` print),
2. the generated `exercises/01_attention/test_visible.py`, run with pytest in a copy of the student folder,
3. `verify(chapter, check, namespace)` (what the notebook's test cells call), one call per visible check.

Pytest runs in subprocesses (a fresh interpreter and torch import per folder), so only three
submissions go through it: the solution (passes all), the stub (fails all) and swap_qk (mixed).
runner.run and verify() are compared in process on a few more wrong files.
"""
import xml.etree.ElementTree as ElementTree

import pytest

from grader.checks import ch01_judge, verify
from grader.checks.loading import module_from_source, read_source

from .support import CHAPTER, EXERCISE_DIR, PYTHON, SOLUTION, STUB, copy_folder, finish, fixture_path, grade, start

pytestmark = pytest.mark.checks

VISIBLE = [c.name for c in ch01_judge.CHECKS if c.visible]
SUBMISSIONS = {
    "solution": SOLUTION,  # passes all
    "stub": STUB,  # fails all (NotImplementedError)
    "swap_qk": fixture_path("swap_qk"),  # fails some visible checks, passes the seed checks
}
IN_PROCESS_ONLY = {
    name: fixture_path(name)
    for name in ("scores", "transpose_12", "in_place", "only_output", "no_scale", "softmax_dim", "wrong_dk_value")
}


@pytest.fixture(scope="module")
def pytest_outcomes(tmp_path_factory):
    """{submission: {check: passed}} from test_visible.py run by pytest in a copy of the student folder."""
    processes = {}
    for name, path in SUBMISSIONS.items():
        folder = copy_folder(EXERCISE_DIR, tmp_path_factory.mktemp(name) / "01_attention")
        (folder / "transformer.py").write_bytes(path.read_bytes())
        command = [PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--junitxml=junit.xml", "test_visible.py"]
        processes[name] = (folder, start(command, cwd=folder))
    outcomes = {}
    for name, (folder, process) in processes.items():
        status, out, err = finish(process)
        assert status in (0, 1), f"{name}: pytest exited {status}\n{out}\n{err}"
        outcomes[name] = _junit_outcomes(folder / "junit.xml")
    return outcomes


def _junit_outcomes(report):
    """{check: passed} from pytest's JUnit XML (test ids look like test_visible_check[<check>])."""
    outcomes = {}
    for case in ElementTree.parse(report).getroot().iter("testcase"):
        check = case.get("name").split("[", 1)[1].rstrip("]")
        outcomes[check] = case.find("failure") is None and case.find("error") is None
    return outcomes


def _verify_outcomes(path):
    """{check: passed} from verify(chapter, check, module) for each visible check."""
    module = module_from_source(read_source(path))
    outcomes = {}
    for check in VISIBLE:
        try:
            verify(CHAPTER, check, module)
        except AssertionError:
            outcomes[check] = False
        else:
            outcomes[check] = True
    return outcomes


@pytest.mark.parametrize("name", sorted(SUBMISSIONS))
def test_runner_pytest_and_verify_agree(name, pytest_outcomes, capsys):
    """For each visible check, runner.run, test_visible.py under pytest, and verify() give the same pass/fail."""
    runner_outcomes = {r.name: r.passed for r in grade(SUBMISSIONS[name], hidden=False)}
    verify_outcomes = _verify_outcomes(SUBMISSIONS[name])
    capsys.readouterr()  # verify prints "통과: …" lines
    assert set(runner_outcomes) == set(VISIBLE) == set(pytest_outcomes[name])
    assert pytest_outcomes[name] == runner_outcomes, "test_visible.py disagrees with runner.run"
    assert verify_outcomes == runner_outcomes, "verify() disagrees with runner.run"


@pytest.mark.parametrize("name", sorted(IN_PROCESS_ONLY))
def test_runner_and_verify_agree(name, capsys):
    """On more wrong files, runner.run and verify() give the same pass/fail for every visible check."""
    runner_outcomes = {r.name: r.passed for r in grade(IN_PROCESS_ONLY[name], hidden=False)}
    verify_outcomes = _verify_outcomes(IN_PROCESS_ONLY[name])
    capsys.readouterr()
    assert verify_outcomes == runner_outcomes


def test_the_sample_covers_pass_and_fail():
    """The pytest-checked submissions exercise both outcomes of every visible check (agreement is not vacuous)."""
    seen = {check: set() for check in VISIBLE}
    for path in SUBMISSIONS.values():
        for result in grade(path, hidden=False):
            seen[result.name].add(result.passed)
    assert all(outcomes == {True, False} for outcomes in seen.values()), seen


def test_verify_failure_message_carries_the_diagnosis(capsys):
    """verify() raises AssertionError whose text has the check title, its score and the Korean diagnosis."""
    module = module_from_source(read_source(fixture_path("no_scale")))
    with pytest.raises(AssertionError) as failure:
        verify(CHAPTER, "seed_weights", module)
    text = str(failure.value)
    assert "시드 입력의 가중치 p_attn" in text and "0/15점" in text
    assert ch01_judge.BUGS["no_scale"] in text
