"""How `make test` shares the suite between its pytest-xdist workers (`--dist loadgroup --no-loadscope-reorder`).

Each test gets an `xdist_group` mark naming its work unit; a unit runs whole on one worker, in collection order.
- A file's tests are one unit: its module fixtures, session fixtures and per-process caches are built once.
- The tests of one chapter in BY_CHAPTER and `tests/chapters/`, which share per-process caches keyed by chapter
  (`tests.checks.chapters.grade`'s graded fixtures, `test_module_chapter_material.demo_output`'s demo runs), form one
  unit per chapter across those files: a fixture graded by test_agreement is not graded again for test_chapters on
  the other worker, nor a demo run twice, and 14 units of a minute or two balance two workers better than two files
  of ten. The `slow` ones over every fixture of a chapter (`chapters.every`) too: in their files' units, test_chapters
  and test_first_cause graded the same fixtures once on each worker. A test there that uses a module or session
  fixture of its own stays in its file's unit.
- The files whose tests use the session fixtures of a folder's conftest (`tests/sandbox`'s warm sandbox pools,
  `tests/report`'s graded folders) are one unit per folder: the fixtures are built once, not once per worker.
- Each test of EACH_TEST is its own unit: long, independent commands that need not wait for one another.
Units are handed out longest first (LONGEST, then units with `slow` tests), so no worker ends alone on a long file.
"""
import pytest

BY_CHAPTER = ("tests/checks/test_agreement.py", "tests/checks/test_chapters.py", "tests/checks/test_first_cause.py",
              "tests/checks/test_ranking.py", "tests/checks/test_shortcuts.py",
              "tests/checks/test_module_chapter_material.py")
CHAPTER_TESTS = "tests/chapters/"
EACH_TEST = ("tests/publish/test_portability.py",)
# The longest units of `make test` (7 Dec 2026: `pytest -v -n 2 --junitxml`, summed per unit), longest first, so no
# worker ends alone on a long one; the rest follow in collection order. A stale entry only costs balance, never a test.
LONGEST = (
    "tests/publish/test_portability.py::test_build_under_other_kernels_leaves_git_status_clean",
    "tests/sandbox/session-fixtures",
    "tests/publish/test_generated.py",
    "tests/grading/test_nbgrader_course.py",
    "chapter-ch12",
    "tests/gradescope/test_autograder.py",
    "chapter-ch14",
    "chapter-ch01",
    "tests/report/test_demo.py",
    "tests/grading/test_cluster.py",
    "chapter-ch03",
    "tests/checks/test_notebook_alone.py",
    "chapter-ch02",
    "tests/checks/test_notebook_as_run.py",
    "tests/publish/test_student_material.py",
    "chapter-ch09",
    "tests/grading/test_command.py",
    "tests/chapters/ch13/test_ch13_material.py",
    "tests/publish/test_bug_models.py",
    "tests/grading/test_limits.py",
    "tests/publish/test_portability.py::test_grading_does_not_depend_on_where_references_were_built[01]",
    "tests/chapters/ch14/test_ch14_material.py",
    "tests/grading/test_tampering.py",
    "tests/checks/test_exported_notebook.py",
    "tests/report/session-fixtures",
    "tests/grading/test_cluster_trusted.py",
    "chapter-ch11",
    "tests/chapters/ch12/test_ch12_material.py",
    "chapter-ch07",
    "chapter-ch08",
    "chapter-ch13",
    "chapter-ch06",
    "chapter-ch05",
    "chapter-ch10",
    "chapter-ch04",
)
OWN_FIXTURES = ("module", "package", "session", "class")
SHARED_ANYWHERE = {"_one_torch_thread", "tmp_path_factory", "worker_id", "testrun_uid"}  # cheap or per-process


def _chapter(item):
    """The item's single chapter marker (`ch07`), or None."""
    found = {mark.name for mark in item.iter_markers() if mark.name[:2] == "ch" and mark.name[2:].isdigit()}
    return found.pop() if len(found) == 1 else None


def _uses_shared_fixtures(item):
    """Whether the test uses a fixture wider than itself (built once per module or session), cheap ones aside."""
    definitions = getattr(item, "_fixtureinfo", None)
    if definitions is None:
        return True
    return any(definition.scope in OWN_FIXTURES and name not in SHARED_ANYWHERE
               for name, chain in definitions.name2fixturedefs.items() for definition in chain)


def _folder_session_fixtures(item):
    """Where the session fixtures the test uses from a folder's conftest live (`tests/sandbox`), or None."""
    definitions = getattr(item, "_fixtureinfo", None)
    folders = {definition.baseid for chain in getattr(definitions, "name2fixturedefs", {}).values()
               for definition in chain if definition.scope == "session" and definition.baseid.startswith("tests/")}
    return min(folders) if folders else None


def unit(item, relative, shared_by_file):
    """The work unit of a test whose file is `relative` (a path from the repository root, with slashes);
    `shared_by_file`: {file: folder whose session fixtures a test of the file uses}."""
    if relative in EACH_TEST:
        return f"{relative}::{item.name}"
    if relative in shared_by_file:
        return f"{shared_by_file[relative]}/session-fixtures"
    chapter = _chapter(item)
    by_chapter = relative in BY_CHAPTER or relative.startswith(CHAPTER_TESTS)
    if by_chapter and chapter and not _uses_shared_fixtures(item):
        return f"chapter-{chapter}"
    return relative


def _suffix_for_xdist(item, name):
    """What pytest-xdist's loadgroup does to a test's id (`<nodeid>@<group>`, its work unit), done here: xdist 3.8 sets
    `item._nodeid`, which pytest 9 no longer reads (its ids live in `item._id`), so its groups would be ignored."""
    from _pytest.nodeid import NodeId

    if "@" not in item.nodeid.rpartition("]")[2]:
        item._id = NodeId.parse(f"{item.nodeid}@{name}")


def assign(items, root, loadgroup=False):
    """Mark each item with its unit; order the units LONGEST first, then those with end-to-end tests (`slow`: long,
    not measured here), then the rest, each in collection order (a unit's tests stay in theirs)."""
    files = [item.path.relative_to(root).as_posix() for item in items]
    shared_by_file = {}
    for item, relative in zip(items, files):
        folder = _folder_session_fixtures(item)
        if folder:
            shared_by_file.setdefault(relative, folder)
    units = [unit(item, relative, shared_by_file) for item, relative in zip(items, files)]
    rank, first_seen, end_to_end = {name: place for place, name in enumerate(LONGEST)}, {}, set()
    for item, name in zip(items, units):
        item.add_marker(pytest.mark.xdist_group(name))
        if loadgroup:  # a worker of `--dist loadgroup`: the controller reads each test's unit from its id
            _suffix_for_xdist(item, name)
        first_seen.setdefault(name, len(first_seen))
        if item.get_closest_marker("slow") is not None:
            end_to_end.add(name)
    order = sorted(range(len(items)), key=lambda at: (rank.get(units[at], len(rank)), units[at] not in end_to_end,
                                                      first_seen[units[at]]))
    items[:] = [items[at] for at in order]
