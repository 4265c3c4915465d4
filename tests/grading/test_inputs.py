"""Finding submissions in what `grade` is given: files, nbgrader trees, LMS zips (safely), broken files."""
import json
import os
import zipfile
from pathlib import Path

import pytest

from grader.checks import loading
from grader.checks.loading import SubmissionError
from grader.grading import archive, outputs
from grader.grading.judging import Verdicts
from grader.grading.collect import Inputs
from grader.grading.course import Course

from .helpers import (CHAPTER, SUBMISSIONS, add_symlink, fixture_path, lms_name, solution_source, write_notebook,
                      write_zip)

pytestmark = pytest.mark.grading


@pytest.fixture(scope="module")
def course():
    """The repository's nbgrader course configuration."""
    return Course()


def collect(paths, course, warnings=None):
    """Inputs for `paths` (a list), warnings appended to `warnings`."""
    sink = warnings if warnings is not None else []
    return Inputs([str(p) for p in paths], CHAPTER, course, warn=sink.append)


def by_id(inputs):
    return {s.submission_id: s for s in inputs.submissions}


def test_python_file_is_one_submission_named_after_the_file(course):
    """A .py file is one submission; its id and student id are the file's stem; read() gives its text."""
    path = fixture_path("no_scale")
    with collect([path], course) as inputs:
        (submission,) = inputs.submissions
        assert (submission.submission_id, submission.student_id) == ("no_scale", "no_scale")
        assert submission.read() == path.read_text(encoding="utf-8")


def test_filled_notebook_gives_the_answer_cell(course, tmp_path):
    """A filled-in release notebook is read through loading.read_source: the answer cell's code."""
    path = write_notebook(tmp_path / "kim.ipynb", solution_source())
    with collect([path], course) as inputs:
        (submission,) = inputs.submissions
        assert submission.student_id == "kim"
        source = submission.read()
        assert "def attention(query, key, value):" in source and "verify(" not in source


def test_lms_named_file_gets_the_student_id_from_the_naming(course, tmp_path):
    """A file named the LMS way (`…_<student>_attempt_<time>_<file>`) is that student's, timestamp included."""
    path = write_notebook(tmp_path / lms_name("lee", day=5), solution_source())
    with collect([path], course) as inputs:
        (submission,) = inputs.submissions
        assert (submission.submission_id, submission.student_id) == ("lee", "lee")
        assert submission.timestamp == "2024-03-05-10-00-00"


def test_submitted_tree_all_students_one_student_and_one_assignment(course, tmp_path):
    """submitted/, submitted/<id> and submitted/<id>/01_attention all work; ids come from the folders."""
    root = tmp_path / "submitted"
    write_notebook(root / "alice" / CHAPTER / f"{CHAPTER}.ipynb", solution_source())
    (root / "alice" / CHAPTER / "timestamp.txt").write_text("2024-03-01 09:00:00.000000 UTC")
    write_notebook(root / "bob" / CHAPTER / f"{CHAPTER}.ipynb", fixture_path("no_scale").read_text())
    (root / "bob" / CHAPTER / "selfcheck").mkdir()
    (root / "carol" / "02_other").mkdir(parents=True)  # no submission for this chapter: not listed
    with collect([root], course) as inputs:
        assert sorted(by_id(inputs)) == ["alice", "bob"]
        assert by_id(inputs)["alice"].timestamp == "2024-03-01 09:00:00.000000 UTC"
        assert "softmax" in by_id(inputs)["bob"].read()
    with collect([root / "bob"], course) as inputs:
        assert list(by_id(inputs)) == ["bob"]
    with collect([root / "alice" / CHAPTER], course) as inputs:
        assert list(by_id(inputs)) == ["alice"]


def test_student_folder_with_extra_files_grades_the_chapter_notebook(course, tmp_path):
    """With several files in submitted/<id>/01_attention, the chapter's notebook is graded."""
    folder = tmp_path / "submitted" / "dana" / CHAPTER
    write_notebook(folder / f"{CHAPTER}.ipynb", solution_source())
    (folder / "scratch.py").write_text("x = 1\n")
    with collect([tmp_path / "submitted"], course) as inputs:
        (submission,) = inputs.submissions
        assert submission.origin.endswith(f"{CHAPTER}.ipynb")


def test_ambiguous_student_folder_is_a_readable_problem(course, tmp_path):
    """Two candidate files and neither is the chapter notebook: a Korean message, not a guess."""
    folder = tmp_path / "submitted" / "eve" / CHAPTER
    folder.mkdir(parents=True)
    (folder / "a.py").write_text("x = 1\n")
    (folder / "b.py").write_text("x = 2\n")
    with collect([tmp_path / "submitted"], course) as inputs:
        (submission,) = inputs.submissions
        with pytest.raises(SubmissionError, match="어느 것을 채점할지"):
            submission.read()


def test_lms_zip_students_duplicates_nested_zips_and_junk(course, tmp_path):
    """An LMS zip: ids from the naming, the newest duplicate wins (the older attempt is named in the log and the
    results JSON, never dropped silently), nested zips are read, junk is skipped."""
    inner = write_zip(tmp_path / "inner.zip", {f"{CHAPTER}/{CHAPTER}.ipynb": solution_source_notebook()})
    zip_path = write_zip(tmp_path / "class.zip", {
        lms_name("alice", day=1): notebook_text("no_scale"),
        lms_name("alice", day=3): notebook_text(None),  # newer: this one is graded
        lms_name("bob", day=2): notebook_text("log_softmax"),
        lms_name("carol", day=2, file_id="work.zip"): inner.read_bytes(),
        lms_name("dave", day=2, file_id="photo.png"): b"\x89PNG",
        "__MACOSX/._x.ipynb": b"junk",
    })
    notes = []
    with collect([zip_path], course, notes) as inputs:
        found = by_id(inputs)
        assert sorted(found) == ["alice", "bob", "carol"]
        assert found["alice"].timestamp == "2024-03-03-10-00-00"
        assert "math.sqrt" in found["alice"].read()
        assert "math.sqrt" in found["carol"].read()
        assert "log_softmax" in found["bob"].read()
        assert [a["timestamp"] for a in found["alice"].superseded] == ["2024-03-01-10-00-00"]
        assert found["bob"].superseded == ()
        document = outputs.document(found["alice"], Verdicts([], "ok", {}))
    assert any("건너뛰었습니다" in note for note in notes)
    said = [note for note in notes if "이전 시도" in note]
    assert len(said) == 1 and "alice" in said[0] and "2024-03-01-10-00-00" in said[0] and "2024-03-03-10-00-00" in said[0]
    assert [a["timestamp"] for a in document["superseded"]] == ["2024-03-01-10-00-00"]
    assert document["graded_attempt"]["timestamp"] == "2024-03-03-10-00-00"


def test_korean_names_in_a_windows_zip_are_decoded(course, tmp_path):
    """Entry names stored in CP949 without the UTF-8 flag (Korean Windows) give the right student id."""
    path = tmp_path / "class.zip"
    raw = lms_name("김민수").encode("cp949")
    placeholder = b"p" * len(raw)
    write_zip(path, {placeholder.decode(): notebook_text(None)})
    data = path.read_bytes()
    assert data.count(placeholder) == 2  # local header and central directory; same length keeps offsets valid
    path.write_bytes(data.replace(placeholder, raw))
    with zipfile.ZipFile(path) as handle:
        assert handle.infolist()[0].flag_bits & 0x800 == 0
    with collect([path], course) as inputs:
        assert [s.student_id for s in inputs.submissions] == ["김민수"]


def test_zip_slip_absolute_and_symlink_entries_are_rejected(course, tmp_path):
    """`../`, absolute paths and symlinks are rejected with a message per entry; nothing lands outside."""
    outside = tmp_path / "outside"
    outside.mkdir()
    zip_path = write_zip(tmp_path / "evil.zip", {
        f"../../outside/{lms_name('mallory')}": notebook_text(None),
        f"/tmp/{lms_name('trudy')}": notebook_text(None),
        f"..\\..\\{lms_name('oscar')}": notebook_text(None),
        lms_name("honest"): notebook_text(None),
    })
    add_symlink(zip_path, lms_name("linker"), "/etc/passwd")
    before = set(os.listdir(tmp_path))
    notes = []
    with collect([zip_path], course, notes) as inputs:
        found = by_id(inputs)
        assert sorted(found) == ["honest", "linker", "mallory", "oscar", "trudy"]
        for student in ("mallory", "trudy", "oscar"):
            with pytest.raises(SubmissionError, match="안전하지 않아 거부"):
                found[student].read()
        with pytest.raises(SubmissionError, match="심볼릭 링크"):
            found["linker"].read()
        assert "def attention" in found["honest"].read()
    assert len([note for note in notes if note.startswith("거부:")]) == 4
    assert not list(outside.iterdir())
    assert set(os.listdir(tmp_path)) == before
    assert not any(Path(folder, lms_name(name)).exists()
                   for folder in ("/tmp", "/", tmp_path.parent) for name in ("mallory", "trudy", "oscar"))


def test_zip_bombs_are_rejected(course, tmp_path, monkeypatch):
    """Oversized or suspiciously compressed entries, too many entries, too many bytes: rejected, with messages."""
    monkeypatch.setattr(loading, "MAX_NOTEBOOK_BYTES", archive.MAX_ENTRY_BYTES)  # these entries are notebooks
    bomb = write_zip(tmp_path / "bomb.zip", {
        lms_name("big"): b"#" * (archive.MAX_ENTRY_BYTES + 1),
        lms_name("ok"): notebook_text(None),
    })
    with collect([bomb], course) as inputs:
        found = by_id(inputs)
        with pytest.raises(SubmissionError, match="너무 큽니다|압축률"):
            found["big"].read()
        assert "def attention" in found["ok"].read()
    many = write_zip(tmp_path / "many.zip", {f"f{i}.txt": b"" for i in range(50)})
    monkeypatch.setattr(archive, "MAX_ENTRIES", 20)
    with collect([many], course) as inputs:
        assert inputs.submissions == [] and any("항목이 너무 많습니다" in p for p in inputs.problems)
    monkeypatch.setattr(archive, "MAX_TOTAL_BYTES", 1000)
    with collect([bomb], course) as inputs:
        assert inputs.submissions == [] and any("압축 폭탄" in p for p in inputs.problems)


def test_entry_larger_than_declared_is_cut_off(course, tmp_path, monkeypatch):
    """An entry that inflates past the cap while being copied is stopped there (declared sizes are not trusted)."""
    monkeypatch.setattr(loading, "MAX_NOTEBOOK_BYTES", archive.MAX_ENTRY_BYTES)  # the entry is a notebook
    path = write_zip(tmp_path / "liar.zip", {lms_name("liar"): b"x" * (archive.MAX_ENTRY_BYTES + 10)})
    entry = archive.entries(path, tmp_path)[0]
    fake = archive.Entry(entry.container, entry.label, entry.raw_name, entry.name, 10, None, entry.path)
    with pytest.raises(SubmissionError, match="너무 큽니다"):
        fake.copy_to(tmp_path / "copy")
    assert not (tmp_path / "copy").exists()


@pytest.mark.parametrize("name, message", [
    ("corrupt.ipynb", "중간에서 잘려"),
    ("not_a_notebook.ipynb", "Jupyter 노트북이 아닙니다"),
    ("euc_kr.py", "UTF-8"),
    ("empty.py", "비어 있습니다"),
    ("no_code_cells.ipynb", "코드 셀이 없습니다"),
])
def test_bad_files_become_korean_problems(course, name, message):
    """Cut-short, not-a-notebook, non-UTF-8, empty and cell-less files are listed but read() raises a Korean
    SubmissionError that says which of these it is."""
    with collect([SUBMISSIONS / name], course) as inputs:
        (submission,) = inputs.submissions
        with pytest.raises(SubmissionError, match=message):
            submission.read()


def test_huge_file_is_a_problem_and_missing_paths_are_reported(course, tmp_path):
    """A file over the size cap cannot be read; a path that does not exist is an input-level problem."""
    huge = tmp_path / "huge.py"
    huge.write_bytes(b"#" * (6 * 1024 * 1024))
    with collect([huge, tmp_path / "nope.py", tmp_path / "notes.txt"], course) as inputs:
        (submission,) = inputs.submissions
        with pytest.raises(SubmissionError, match="너무 큽니다"):
            submission.read()
        assert len(inputs.problems) == 2


def test_a_notebook_with_its_outputs_is_read_and_a_huge_one_says_what_to_do(course, tmp_path, monkeypatch):
    """A notebook saved with its outputs (plots: several MB on Colab) is read, only its code counts; one past
    MAX_NOTEBOOK_BYTES is a problem whose message says to clear the outputs; the code itself stays capped."""
    notebook = json.loads(notebook_text(None))
    plot = {"output_type": "display_data", "metadata": {}, "data": {"image/png": "iVBORw0KGgo" * 700_000}}
    next(cell for cell in notebook["cells"] if cell["cell_type"] == "code")["outputs"] = [plot]
    path = tmp_path / "with_outputs.ipynb"
    path.write_text(json.dumps(notebook), encoding="utf-8")
    assert path.stat().st_size > loading.MAX_SUBMISSION_BYTES
    with collect([path], course) as inputs:
        (submission,) = inputs.submissions
        assert "def attention" in submission.read()
    monkeypatch.setattr(loading, "MAX_NOTEBOOK_BYTES", loading.MAX_SUBMISSION_BYTES)
    with collect([path], course) as inputs:
        (submission,) = inputs.submissions
        with pytest.raises(SubmissionError, match="모든 출력 지우기"):
            submission.read()


def test_colliding_ids_are_made_unique_and_temp_files_are_removed(course, tmp_path):
    """Two files with one stem get distinct ids; the private temp folder is gone after `with`."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = Path(tmp_path / "a" / "same.py")
    second = Path(tmp_path / "b" / "same.py")
    first.write_text("x = 1\n")
    second.write_text("x = 2\n")
    with collect([first, second], course) as inputs:
        assert [s.submission_id for s in inputs.submissions] == ["same", "same-2"]
        workdir = inputs.workdir
        assert workdir.exists()
    assert not workdir.exists()


def notebook_text(fixture):
    """A filled-in notebook's text: the solution (fixture None) or a tests/fixtures/ch01 fixture."""
    from .helpers import filled_notebook

    source = solution_source() if fixture is None else fixture_path(fixture).read_text(encoding="utf-8")
    return filled_notebook(source)


def solution_source_notebook():
    return notebook_text(None)


def test_symlink_in_a_submitted_tree_is_not_followed(course, tmp_path):
    """A student's file that is a symlink (e.g. to the instructor's files) is rejected, not read."""
    folder = tmp_path / "submitted" / "sly" / CHAPTER
    folder.mkdir(parents=True)
    secret = tmp_path / "secret.py"
    secret.write_text("ANSWER = 42\n")
    (folder / f"{CHAPTER}.ipynb").symlink_to(secret)
    with collect([tmp_path / "submitted"], course) as inputs:
        (submission,) = inputs.submissions
        with pytest.raises(SubmissionError, match="심볼릭 링크"):
            submission.read()
