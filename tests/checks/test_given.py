"""The units a chapter ships written (`grader/checks/given.py`): told apart by their code, put back and restored."""
import importlib
import json

import pytest

from grader import chapters, paths
from grader.checks import given, probe_module_name
from grader.checks.loading import WRITTEN_IN, module_from_source

GIVING = [chapter for chapter in chapters.all_chapters() if chapter.number >= "03"]


def _probe(chapter):
    return importlib.import_module(probe_module_name(chapter.number))


@pytest.mark.parametrize("chapter", GIVING, ids=lambda chapter: chapter.number)
def test_the_solutions_own_units_are_the_course_units(chapter):
    """Loaded from the solution file, no given unit counts as changed (the build's units compile as the file does)."""
    probe = _probe(chapter)
    units = given.units_of(probe)
    assert units, f"chapter {chapter.number} ships no given units"
    module = module_from_source(chapter.module.read_text(encoding="utf-8"), notes=[])
    assert given.changed(vars(module), units, probe) == []


def test_a_unit_compiled_in_a_cell_of_its_own_is_the_course_unit():
    """A notebook cell defining a unit without the imports (another cell made them) compiles otherwise; still equal."""
    chapter = chapters.find("09")
    probe = _probe(chapter)
    units = given.units_of(probe)
    namespace = {}
    exec("import math\nimport torch", namespace)  # noqa: S102 — the imports' cell
    exec(compile(units["attention"], "<cell>", "exec"), namespace)  # noqa: S102 — the unit's own cell
    assert given.changed(namespace, {"attention": units["attention"]}, probe) == []


def test_a_changed_unit_is_found_and_put_back_only_inside_the_block():
    """A unit with other code is named; inside `course_code` the namespace holds the course's, afterwards the student's."""
    chapter = chapters.find("09")
    probe = _probe(chapter)
    units = given.units_of(probe)
    source = chapter.module.read_text(encoding="utf-8").replace(
        "/ math.sqrt(d_k)", "/ math.sqrt(d_k) * 2", 1)
    module = module_from_source(source, notes=[])
    names = vars(module)
    mine = names["attention"]
    assert given.changed(names, units, probe) == ["attention"]
    with given.course_code(names, units, ["attention"]):
        assert names["attention"] is not mine
        assert given.changed(names, units, probe) == []
    assert names["attention"] is mine


def test_comments_and_formatting_are_no_change():
    """Comments, blank lines and line breaks inside a unit change nothing it runs."""
    chapter = chapters.find("09")
    probe = _probe(chapter)
    source = chapter.module.read_text(encoding="utf-8").replace(
        "    d_k = query.size(-1)\n", "    # the last axis\n\n    d_k = query.size(\n        -1)\n", 1)
    module = module_from_source(source, notes=[])
    assert given.changed(vars(module), given.units_of(probe), probe) == []


@pytest.mark.parametrize("chapter", GIVING, ids=lambda chapter: chapter.number)
def test_a_chapters_given_units_hold_none_of_its_own(chapter):
    """The file ships with the chapter's own selfcheck: the earlier chapters' units only, never this chapter's answers;
    and it sits in the chapter's folder, not the shared one every chapter's students get."""
    shipped = json.loads((paths.EXERCISES / chapter.id / "selfcheck" / given.file_name(chapter.number))
                         .read_text(encoding="utf-8"))
    assert not set(shipped["units"]) & set(WRITTEN_IN[chapter.number])
    assert not (paths.EXERCISES / "_selfcheck" / given.file_name(chapter.number)).exists()
