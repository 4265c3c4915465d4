"""Draw docs/feedback.png and docs/report.png: screenshots of a feedback page and the class report in headless Chromium.

Run from the repository root: `python docs/make_pictures.py` (needs `apt-get install -y chromium fonts-nanum`).
The class is the demo's bundled class minus the malicious and the unreadable submissions (they need the sandbox),
graded in process. Each page is first checked in the browser exactly as CI's browser test checks pages
(grader.report.browser: no console errors, Korean text drawn in a Hangul font); a page that fails stops the script.
"""
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.demo_class.pack import answer, roster
from grader.report import browser, preview, write_all

FEATURED = "hyunwoo"  # the student whose feedback page is pictured (no division by sqrt(d_k))


def grade_sample(folder):
    """Grade the trusted part of the bundled class into `folder`; write feedback and the report."""
    assignment, students = roster()
    files = {}
    for student in students:
        if student["format"] in ("ipynb", "py") and student["id"] != "mallory":
            path = folder / "answers" / f"{student['id']}.py"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(answer(student), encoding="utf-8")
            files[student["id"]] = path
    preview.write(folder, assignment, files)
    write_all(folder, assignment)
    return assignment


def picture(running, fonts, page, target):
    """Check `page` in the browser and save its screenshot at `target`; raise if the page has a problem."""
    visit = running.inspect(page, screenshot=target)
    found = browser.problems(visit, fonts)
    if found:
        raise SystemExit(f"{page}: " + "; ".join(found))
    return visit


def main():
    docs = ROOT / "docs"
    with tempfile.TemporaryDirectory(prefix="grader-docs-") as scratch:
        folder = Path(scratch)
        grade_sample(folder)
        with browser.Browser(width=1000) as running:
            fonts = browser.hangul_fonts()
            picture(running, fonts, folder / "feedback" / FEATURED / "feedback.html", docs / "feedback.png")
            picture(running, fonts, folder / "report.html", docs / "report.png")
    print(f"wrote {docs / 'feedback.png'} and {docs / 'report.png'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
