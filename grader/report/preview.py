"""Grade trusted files in this process (no sandbox) into `DIR/results/*.json`, for previews, docs pictures and tests.

Never use it on student code: it runs the code unconfined. The documents have the grading command's shape.
"""
import json
import time
from pathlib import Path

from grader.checks import chapter, references
from grader.checks.execute import execute
from grader.checks.framework import judge
from grader.checks.loading import SubmissionError, read_source
from grader.checks.scoresheet import gradescope

from .picture import declared, picture_data


def document(chapter_id, path, student_id, submission_id=None):
    """The results.json document of the file at `path`."""
    module = chapter(chapter_id)
    started = time.monotonic()
    status = "ok"
    try:
        source = read_source(path)
    except SubmissionError as error:
        outcome, status = {"failure": str(error)}, "unreadable"
    else:
        outcome = execute(source, module.probe, module.probe.case_names())
    checks = judge(module.checks, module.probe, outcome, references.load(module.id))
    return gradescope(checks, {
        "submission": submission_id or student_id,
        "student_id": student_id,
        "status": status,
        "sandbox": "none (preview)",
        "seconds": round(time.monotonic() - started, 3),
        "picture": picture_data(outcome, declared(module.id)),
    })


def write(out_dir, chapter_id, students):
    """Grade {student id: path} into `out_dir/results/<student id>.json`; return the written paths."""
    folder = Path(out_dir) / "results"
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for student_id, path in students.items():
        target = folder / f"{student_id}.json"
        target.write_text(json.dumps(document(chapter_id, path, student_id), ensure_ascii=False, indent=1), encoding="utf-8")
        written.append(target)
    return written
