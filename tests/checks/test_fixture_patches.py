"""The fixture patches: every one applies to its chapter's solution, and the applier refuses what does not fit."""
import pytest

from tests import fixtures
from tests.checks.chapters import each_chapter
from tests.fixtures import patches
from tests.fixtures.make_patch import make_patch, refresh

pytestmark = pytest.mark.checks

BASE = "".join(f"line {n}\n" for n in range(1, 21))
EDITED = BASE.replace("line 10\n", "line ten\n")


@pytest.mark.parametrize("chapter", each_chapter())
def test_every_patch_gives_python_that_compiles(chapter):
    """Each chapter's patches apply to its solution and give one source file per patch, all of them Python."""
    files = chapter.fixture_files
    assert [path.stem for path in files] == chapter.fixture_names
    for path in files:
        compile(path.read_text(encoding="utf-8"), str(path), "exec")


def test_a_patch_gives_back_the_edited_text():
    patch = patches.make(BASE, EDITED, "a", "b")
    assert "-line 10\n+line ten\n" in patch and len(patch.splitlines()) == 11
    assert patches.apply(BASE, patch, "x") == EDITED


def test_lines_added_above_a_hunk_move_it():
    """The solution gained lines above the mistake: the hunk is found below, the mistake kept."""
    patch = patches.make(BASE, EDITED, "a", "b")
    assert patches.apply("new 1\nnew 2\n" + BASE, patch, "x") == "new 1\nnew 2\n" + EDITED


def test_a_hunk_that_no_longer_fits_names_the_fixture_and_the_hunk():
    patch = patches.make(BASE, EDITED, "a", "b")
    with pytest.raises(patches.PatchError, match=r"ch99/typo\.diff: @@ -7,7 \+7,7 @@ does not apply anywhere"):
        patches.apply(BASE.replace("line 9\n", "line nine\n"), patch, "ch99/typo.diff")


def test_a_hunk_that_fits_twice_away_from_its_place_is_refused():
    patch = patches.make(BASE, EDITED, "a", "b")
    with pytest.raises(patches.PatchError, match="fits at 2 places"):
        patches.apply("moved\n" + BASE + BASE, patch, "x")


def test_a_last_line_without_newline_survives():
    patch = patches.make(BASE, BASE + "tail", "a", "b")
    assert patches.NO_NEWLINE in patch
    assert patches.apply(BASE, patch, "x") == BASE + "tail"


def test_bare_drops_solution_markers_and_todo_notes_only():
    solution = ("def f():\n    # TODO(01): do it\n    #           in two lines\n    ### BEGIN SOLUTION\n"
                "    # a comment of the solution\n    return 1\n    ### END SOLUTION\n")
    assert patches.bare(solution) == "def f():\n    # a comment of the solution\n    return 1\n"


def test_make_patch_writes_a_patch_that_materialises_the_edited_copy(tmp_path, monkeypatch):
    """The maintainers' tool: an edited copy of the solution becomes chNN/fixtures/NAME.diff and comes back byte for
    byte."""
    monkeypatch.setattr(fixtures, "CHAPTER_TESTS", tmp_path)
    monkeypatch.setattr(fixtures, "BUILT", tmp_path / ".built")
    edited = tmp_path / "edited.py"
    edited.write_text(patches.bare(fixtures.solution("ch01").read_text(encoding="utf-8")).replace(
        "math.sqrt(d_k)", "d_k"), encoding="utf-8")
    written = make_patch("ch01", "no_sqrt", edited)
    assert written == tmp_path / "ch01" / "fixtures" / "no_sqrt.diff"
    assert "+    scores = torch.matmul(query, key.transpose(-2, -1)) / d_k\n" in written.read_text(encoding="utf-8")
    assert fixtures.text("ch01", "no_sqrt") == edited.read_text(encoding="utf-8")


def test_refresh_moves_patches_to_a_changed_solution_and_keeps_the_fixtures(tmp_path, monkeypatch):
    """A line added at the top of the solution: `--refresh` rewrites the hunks' line numbers, the fixture keeps its
    mistake and gains the new line."""
    before = fixtures.text("ch01", "no_scale")
    solution = tmp_path / "solutions" / "01_attention" / "transformer.py"
    solution.parent.mkdir(parents=True)
    solution.write_text("# a new first line\n" + fixtures.solution("ch01").read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "ch01" / "fixtures").mkdir(parents=True)
    old_patch = (fixtures.patch_folder("ch01") / "no_scale.diff").read_text(encoding="utf-8")
    (tmp_path / "ch01" / "fixtures" / "no_scale.diff").write_text(old_patch, encoding="utf-8")
    monkeypatch.setattr(fixtures, "ROOT", tmp_path)
    monkeypatch.setattr(fixtures, "CHAPTER_TESTS", tmp_path)
    assert [path.name for path in refresh("ch01")] == ["no_scale.diff"]
    new_patch = (tmp_path / "ch01" / "fixtures" / "no_scale.diff").read_text(encoding="utf-8")
    assert new_patch != old_patch and new_patch.count("@@") == old_patch.count("@@")
    assert fixtures.text("ch01", "no_scale") == "# a new first line\n" + before
