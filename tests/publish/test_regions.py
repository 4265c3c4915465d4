"""nbgrader's markers are found wherever they are indented: a solution inside a method, hidden tests in a block.

Fast and direct: the build, the leak test and the notebook track all read the regions through `regions`,
so a marker that stopped being seen when indented would leave solution lines in student material.
"""
import pytest

from grader.publish import regions

pytestmark = pytest.mark.build

METHOD = """\
class Layer:
    def forward(self, x):
        # TODO: return x doubled
        ### BEGIN SOLUTION
        return x * 2
        ### END SOLUTION
"""

HIDDEN = """\
def test_layer():
    assert Layer().forward(1) == 2
    if True:
        ### BEGIN HIDDEN TESTS
        assert Layer().forward(21) == 42
        ### END HIDDEN TESTS
"""


def test_an_indented_solution_is_replaced_by_the_stub_at_its_indent():
    cleared = regions.clear_solutions(METHOD)
    assert "return x * 2" not in cleared and "### BEGIN SOLUTION" not in cleared
    assert f"        {regions.CODE_STUB}\n" in cleared
    assert regions.region_lines(METHOD, "solution") == ["        return x * 2"]


def test_indented_hidden_tests_are_removed_with_their_markers():
    removed = regions.remove_hidden(HIDDEN)
    assert "forward(21)" not in removed and "HIDDEN TESTS" not in removed
    assert "assert Layer().forward(1) == 2" in removed
    assert regions.region_lines(HIDDEN, "hidden") == ["        assert Layer().forward(21) == 42"]


def test_indented_markers_are_dropped_from_the_finished_module():
    assert regions.drop_markers(METHOD) == METHOD.replace("        ### BEGIN SOLUTION\n", "").replace(
        "        ### END SOLUTION\n", "")
