"""Put a feedback page where nbgrader's `release_feedback` looks: `<course>/feedback/<student>/<assignment>/<notebook>.html`.

nbgrader 0.9.6 `release_feedback` globs `feedback/<student>/<assignment>/*.html`, takes the file name as the
notebook id, and reads `timestamp.txt` and `submission_secret.txt` from the same folder to name the released
file `md5(secret + notebook id).html`; `fetch_feedback` recomputes that name from the secret in the student's
submit cache. So the page is named after each submitted notebook, and both text files are copied from
`<course>/submitted/<student>/<assignment>/` as `nbgrader generate_feedback` would. Submissions collected with
`zip_collect` have no secret (there is no exchange): return those pages through the LMS instead.
"""
import shutil
from pathlib import Path

COPIED = ("timestamp.txt", "submission_secret.txt")


def notebook_ids(submitted, assignment_id):
    """The notebooks the student submitted (their feedback names); the assignment id for a .py submission."""
    names = sorted(p.stem for p in Path(submitted).glob("*.ipynb"))
    return names or [assignment_id]


def place(html_file, course_root, assignment_id, student_id):
    """Copy `html_file` into the course's feedback folder for `student_id`; return the written paths ([] if not submitted)."""
    course_root = Path(course_root)
    submitted = course_root / "submitted" / student_id / assignment_id
    if not submitted.is_dir():
        return []
    target = course_root / "feedback" / student_id / assignment_id
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for notebook in notebook_ids(submitted, assignment_id):
        destination = target / f"{notebook}.html"
        shutil.copyfile(html_file, destination)
        written.append(destination)
    for name in COPIED:
        if (submitted / name).is_file():
            shutil.copyfile(submitted / name, target / name)
            written.append(target / name)
    return written


def ready_for_release(course_root, assignment_id, student_id):
    """Whether `nbgrader release_feedback` can release this student's page (it needs both text files)."""
    folder = Path(course_root) / "feedback" / student_id / assignment_id
    return all((folder / name).is_file() for name in COPIED) and any(folder.glob("*.html"))
