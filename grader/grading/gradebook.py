"""Write automatic scores into an nbgrader gradebook, through nbgrader's own API (`nbgrader.api.Gradebook`)."""
import sys
import warnings
from pathlib import Path


class GradebookError(RuntimeError):
    """The gradebook cannot take these scores (e.g. the assignment's grade cells do not match the checks)."""


def _skip_slow_optional_imports():
    """Before importing nbgrader: keep jsonschema from loading its optional `rfc3987_syntax` (~2.7 s).

    nbgrader imports nbformat, which imports jsonschema, whose format checker compiles an IRI grammar
    at import time if that package is installed. nbformat's schemas use no "iri" format, and nothing
    in the grader validates one, so this process does without it (nbgrader's own commands are unaffected).
    """
    sys.modules.setdefault("rfc3987_syntax", None)


def db_url(path):
    """The SQLAlchemy URL nbgrader uses for a gradebook file."""
    return f"sqlite:///{Path(path).resolve()}"


def write(path, chapter_id, check_points, rows, course):
    """Record each student's best row in the gradebook at `path`; return the number of students written.

    check_points: {check name: points}; rows: report.Row objects (any order).
    The assignment and notebook are both named `chapter_id` (nbgrader's source layout); each grade
    cell named like a check gets that check's score as `auto_score`.
    """
    _skip_slow_optional_imports()
    from nbgrader.api import Gradebook, MissingEntry

    best = _best_per_student(rows)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SQLAlchemy chatter from inside nbgrader.api
        with Gradebook(db_url(path), course.course_id) as gradebook:
            try:
                notebook = gradebook.find_notebook(chapter_id, chapter_id)
            except MissingEntry:
                notebook = None
            if notebook is None or not set(check_points) <= {cell.name for cell in notebook.grade_cells}:
                _save_cells(gradebook, path, chapter_id, course)
                notebook = gradebook.find_notebook(chapter_id, chapter_id)
            cells = {cell.name: cell.max_score for cell in notebook.grade_cells}
            missing = sorted(set(check_points) - set(cells))
            if missing:
                raise GradebookError(f"gradebook {path}: {chapter_id} has no grade cells named {', '.join(missing)}")
            for name, points in check_points.items():
                if abs(cells[name] - points) > 1e-9:
                    print(f"경고: gradebook의 {name} 셀은 {cells[name]:g}점, 검사는 {points:g}점입니다.", file=sys.stderr)
            for row in best:
                _record(gradebook, chapter_id, row, set(cells))
            gradebook.db.commit()
    return len(best)


def _best_per_student(rows):
    """One row per student: the highest score (ties: the first submission id); warn about the others."""
    chosen = {}
    for row in sorted(rows, key=lambda r: r.submission_id):
        kept = chosen.get(row.student_id)
        if kept is None or row.score > kept.score:
            if kept is not None:
                print(f"경고: 학생 {row.student_id}의 제출이 여러 개입니다; 점수가 가장 높은 {row.submission_id}를 기록합니다.",
                      file=sys.stderr)
            chosen[row.student_id] = row
        else:
            print(f"경고: 학생 {row.student_id}의 제출이 여러 개입니다; {kept.submission_id}를 기록합니다.", file=sys.stderr)
    return [chosen[student] for student in sorted(chosen)]


def _record(gradebook, chapter_id, row, cell_names):
    from nbgrader.api import Grade, GradeCell

    from .naming import parse_timestamp

    gradebook.update_or_create_student(row.student_id)
    options = {}
    timestamp = parse_timestamp(row.timestamp)
    if timestamp is not None:
        options["timestamp"] = timestamp
    gradebook.update_or_create_submission(chapter_id, row.student_id, **options)
    notebook = gradebook.find_submission_notebook(chapter_id, chapter_id, row.student_id)
    grades = dict((name, grade) for grade, name in  # one query, not a find_grade (and lazy loads) per cell
                  gradebook.db.query(Grade, GradeCell.name).join(GradeCell, GradeCell.id == Grade.cell_id)
                  .filter(Grade.notebook_id == notebook.id))
    for name, score, _ in row.checks:
        if name in cell_names and name in grades:
            grades[name].auto_score = float(score)
            grades[name].needs_manual_grade = False


def _save_cells(gradebook, path, chapter_id, course):
    """Create the assignment, notebook and cells from the source notebook, as `nbgrader generate_assignment` does."""
    import nbformat
    from nbgrader.preprocessors import CheckCellMetadata, ClearOutput, ClearSolutions, ComputeChecksums, LockCells
    from nbgrader.preprocessors import SaveCells

    source = course.source_notebook(chapter_id)
    gradebook.update_or_create_assignment(chapter_id)
    notebook = nbformat.read(str(source), as_version=nbformat.NO_CONVERT)
    resources = {"nbgrader": {"db_url": db_url(path), "assignment": chapter_id, "notebook": chapter_id}}
    for step in (LockCells, ClearSolutions, ClearOutput, CheckCellMetadata, ComputeChecksums, SaveCells):
        notebook, resources = step(config=course.config)(notebook, resources)
    print(f"gradebook: {chapter_id} 과제를 {source}에서 만들었습니다.", file=sys.stderr)
