"""Feedback pages for students and a class report for instructors, written from `DIR/results/*.json`.

`write_all(out_dir, chapter_id)` is what the grading command calls after grading; it can also be run
alone: `python -m grader.report DIR --chapter 01`.
"""


def write_all(out_dir, chapter_id, course_root=None, wall_seconds=None, similarity=None):
    """Write every student's feedback and the class report from `out_dir/results/`; return a summary dict."""
    from .run import write_all as run

    return run(out_dir, chapter_id, course_root=course_root, wall_seconds=wall_seconds, similarity=similarity)
