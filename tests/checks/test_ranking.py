"""The causes a student reads first: ranked specific before generic, each once; errors located in the student's code."""
import ast
import types

import pytest

from grader.checks import scoresheet
from grader.checks.framework import CheckResult
from grader.checks.loading import given_code, given_names, module_from_source, student_line
from tests.conftest import ROOT

from .chapters import CHAPTERS

pytestmark = pytest.mark.checks

BUG = "head를 나눌 때 transpose의 축이 다릅니다."
GENERIC = "출력 값이 기준과 다릅니다. 순서를 확인하세요."
ERROR = "실행 중 오류가 났습니다 (RuntimeError, transformer.py 11번째 줄)."


def _failed(title, message):
    return CheckResult(name=title, title=title, points=10, score=0, visible=True, message=message)


def test_a_known_bug_comes_first_and_the_generic_cause_only_joins_it():
    """Generic, error, then the known bug in check order → the known bug first, the error next, no generic cause; the
    generic check is counted under the first cause."""
    checked = [_failed("a", f"입력 1: {GENERIC}"), _failed("b", ERROR), _failed("c", f"입력 2: {BUG} (자세히)")]
    found = scoresheet.causes(checked, ("입력 1", "입력 2"), bugs=(BUG,))
    assert [cause for cause, _, _ in found] == [BUG, ERROR]
    assert found[0][1] == ["c", "a"]


def test_the_generic_cause_stays_when_nothing_else_was_found():
    found = scoresheet.causes([_failed("a", GENERIC), _failed("b", GENERIC)], bugs=(BUG,))
    assert found == [(GENERIC, ["a", "b"], [])]


def test_one_bug_is_one_cause_with_every_check_it_explains():
    """The same known bug seen with different details on two checks is listed once."""
    found = scoresheet.causes([_failed("a", f"{BUG} (N=4)"), _failed("b", f"{BUG} (N=3)")], bugs=(BUG,))
    assert found == [(BUG, ["a", "b"], [])]


def test_one_exception_is_one_cause_on_visible_and_hidden_checks():
    """A hidden check's error sentence (no message) and a visible one's (with it), same type and line: one cause."""
    where = "transformer.py 368번째 줄: `loss_node.backward()`"
    visible = f"실행 중 오류가 났습니다 (RuntimeError: element 0 of tensors does not require grad, {where})."
    hidden = f"실행 중 오류가 났습니다 (RuntimeError, {where})."
    other = "실행 중 오류가 났습니다 (RuntimeError, transformer.py 12번째 줄: `x.view(3)`)."
    found = scoresheet.causes([_failed("a", visible), _failed("b", hidden), _failed("c", other)])
    assert found == [(visible, ["a", "b"], []), (other, ["c"], [])]


SOURCE = "def attention(x):\n    return x.missing\n\n\ndef clones(module, N):\n    return attention(module)\n"


def _where(probe_name):
    module = module_from_source(SOURCE)
    with given_code(types.SimpleNamespace(__name__=probe_name)):
        with pytest.raises(AttributeError) as raised:
            module.clones(1, 2)
        return student_line(raised.value)


def test_an_error_inside_given_code_is_located_at_the_students_call():
    """In chapter 03 `attention` is given: the error is the student's `clones` line; in chapter 01 it is attention's."""
    assert _where("grader.checks.ch03_probe")["line"] == 6
    assert _where("selfcheck.ch03_probe")["text"] == "return attention(module)"
    assert _where("grader.checks.ch01_probe")["line"] == 2


def _defined(path):
    """{name: whether the stub asks for it (a TODO in it or in the comments just above it)} of top-level defs."""
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    found = {}
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            start = node.lineno - 1
            while start > 0 and lines[start - 1].startswith("#"):
                start -= 1
            found[node.name] = "TODO" in "\n".join(lines[start:node.end_lineno])
    return found


@pytest.mark.parametrize("chapter", [pytest.param(c, id=c.marker, marks=getattr(pytest.mark, c.marker)) for c in CHAPTERS])
def test_given_names_are_what_the_stub_ships_written(chapter):
    """Every function or class a chapter's stub ships without a TODO is given; none it asks for is."""
    given = given_names(chapter.number)
    defined = _defined(ROOT / "exercises" / chapter.id / "transformer.py")
    assert {name for name, asked in defined.items() if not asked} <= given
    assert not {name for name, asked in defined.items() if asked} & given
