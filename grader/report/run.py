"""Write every feedback page and the class report for one graded folder."""
import time
from pathlib import Path

from . import classreport, feedback, nbgrader_feedback, review
from .result_files import load, safe_name


def chapter_id_of(chapter):
    """`01` → `01_attention` (unknown ids are kept as given)."""
    from grader import chapters

    try:
        return chapters.find(str(chapter)).id
    except (chapters.UnknownChapter, OSError):
        return str(chapter)


def feedback_folders(results):
    """{id(Result): folder name under feedback/}: the student id for the student's best submission (the one the
    gradebook records: highest score, then first submission id); the student's other submissions get a suffix."""
    names, taken = {}, set()
    for result in sorted(results, key=lambda r: (r.student, -r.score, r.submission)):
        name = safe_name(result.student)
        if name in taken:
            name = safe_name(f"{result.student}__{result.submission}")
        taken.add(name)
        names[id(result)] = name
    return names


def write_all(out_dir, chapter, course_root=None, wall_seconds=None, similarity=None):
    """Feedback for each `out_dir/results/*.json` in `out_dir/feedback/<student>/`, then `out_dir/report.*`.

    With `course_root` (an nbgrader course), each page is also copied where `nbgrader release_feedback` finds it.
    """
    started = time.monotonic()
    out_dir = Path(out_dir)
    chapter_id = chapter_id_of(chapter)
    results = load(out_dir)
    names = feedback_folders(results)
    pages, placed = {}, []
    for result in results:
        html = feedback.write(result, chapter_id, out_dir / "feedback" / names[id(result)])
        pages[result.submission] = html
        if course_root is not None and names[id(result)] == safe_name(result.student):
            placed += nbgrader_feedback.place(html, course_root, chapter_id, safe_name(result.student))
    sources = review.kept_sources(out_dir)
    report = classreport.write(results, chapter_id, out_dir, wall_seconds, sources=sources, threshold=similarity)
    return {"results": len(results), "feedback": pages, "report": report, "nbgrader": placed,
            "seconds": time.monotonic() - started}


def place_all(out_dir, chapter, course_root):
    """Copy the feedback pages already in `out_dir/feedback/` into an nbgrader course; return the written paths."""
    out_dir = Path(out_dir)
    chapter_id = chapter_id_of(chapter)
    placed = []
    for result in load(out_dir):
        html = out_dir / "feedback" / safe_name(result.student) / "feedback.html"
        if html.is_file():
            placed += nbgrader_feedback.place(html, course_root, chapter_id, safe_name(result.student))
    return placed
