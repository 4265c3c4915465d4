"""Turn the bundled class into what an LMS export looks like: filled-in notebooks (or .py) in one zip, zip_collect naming."""
import copy
import json
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def roster():
    """The class list: (assignment id, [student entries]) from class.json."""
    data = json.loads((HERE / "class.json").read_text(encoding="utf-8"))
    return data["assignment"], data["students"]


def answer(student):
    """The code the student wrote in the answer cell."""
    return (HERE / "answers" / f"{student.get('answer', student['id'])}.py").read_text(encoding="utf-8")


def filled_notebook(release_notebook, code):
    """The release notebook with its answer cell (nbgrader `solution` cell) replaced by `code`."""
    notebook = copy.deepcopy(release_notebook)
    cells = [c for c in notebook["cells"] if c.get("metadata", {}).get("nbgrader", {}).get("solution")]
    if len(cells) != 1:
        raise ValueError(f"expected one answer cell in the release notebook, found {len(cells)}")
    cells[0]["source"] = code.splitlines(keepends=True)
    return notebook


def submission_file(student, assignment, release_notebook):
    """(file id, bytes) of what the student handed in."""
    code = answer(student)
    if student["format"] == "py":
        return "transformer.py", code.encode("utf-8")
    text = json.dumps(filled_notebook(release_notebook, code), ensure_ascii=False, indent=1).encode("utf-8")
    if student["format"] == "truncated":
        text = text[: len(text) // 3]
    return f"{assignment}.ipynb", text


def lms_zip(target, release_notebook_path):
    """Write the class's LMS export zip at `target`; return [(student id, name in the zip)]."""
    assignment, students = roster()
    release_notebook = json.loads(Path(release_notebook_path).read_text(encoding="utf-8"))
    names = []
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for student in students:
            file_id, data = submission_file(student, assignment, release_notebook)
            name = f"{assignment}_{student['id']}_attempt_{student['submitted']}_{file_id}"
            archive.writestr(name, data)
            names.append((student["id"], name))
    return names
