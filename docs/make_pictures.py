"""Draw docs/feedback.png and docs/report.png: a feedback page and the class report of a small sample class.

Run from the repository root: `python docs/make_pictures.py`. The class is the demo's bundled class minus the
malicious and the unreadable submissions (they need the sandbox), graded in process. The pictures are collages
of the PNGs the report writes plus the page's numbers; labels are ASCII (no CJK font is assumed).

With headless Chromium and a Korean font on the machine (Debian: `apt-get install -y chromium fonts-nanum`)
the pictures are screenshots of the real pages instead.
"""
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from grader.demo_class.pack import answer, roster
from grader.report import classreport, preview, write_all
from grader.report.results import load

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


def _image(axis, path, title):
    axis.imshow(plt.imread(path))
    axis.set_anchor("N")
    axis.set_title(title, fontsize=10, loc="left")
    axis.axis("off")


def feedback_picture(folder, target):
    """The featured student's page: the score table beside the p_attn heatmap."""
    result = next(r for r in load(folder) if r.student == FEATURED)
    figure = plt.figure(figsize=(12, 3.9))
    figure.suptitle(f"feedback/{FEATURED}/feedback.html  -  score {result.score:g}/{result.max_score:g}  "
                    "(Korean page: score table, likely causes, each failed check's diagnosis, heatmap)", fontsize=11)
    table_axis = figure.add_axes([0.01, 0.03, 0.42, 0.85])
    table_axis.axis("off")
    rows = [[t["name"], "visible" if t["visibility"] == "visible" else "hidden",
             f"{t['score']:g}/{t['max_score']:g}", "pass" if t["status"] == "passed" else "FAIL"] for t in result.tests]
    table = table_axis.table(cellText=rows, colLabels=["check", "kind", "points", "result"], loc="upper left", cellLoc="left",
                             colWidths=[0.5, 0.17, 0.17, 0.16])
    table.auto_set_font_size(False)
    table.set_fontsize(9)
    for (row, _), cell in table.get_celld().items():
        if row > 0 and rows[row - 1][3] == "FAIL":
            cell.set_facecolor("#fdecea")
    _image(figure.add_axes([0.45, 0.03, 0.54, 0.82]), folder / "feedback" / FEATURED / "attention.png",
           "attention.png: seed input, rows = query tokens, cols = key tokens")
    figure.savefig(target, dpi=100)
    plt.close(figure)


def report_picture(folder, assignment, target):
    """The class report's two charts with its headline numbers."""
    summary = classreport.summary(load(folder), assignment)
    scores = summary["scores"]
    figure = plt.figure(figsize=(12, 5.4))
    figure.suptitle(f"report.html  -  {summary['submissions']} submissions, mean {scores['mean']:.1f}, "
                    f"median {round(scores['median'], 2):g}; also: most frequent diagnoses, failed runs, grading time", fontsize=11)
    _image(figure.add_axes([0.01, 0.02, 0.48, 0.86]), folder / classreport.HISTOGRAM, classreport.HISTOGRAM)
    _image(figure.add_axes([0.51, 0.02, 0.48, 0.86]), folder / classreport.PASS_RATES, classreport.PASS_RATES)
    figure.savefig(target, dpi=100)
    plt.close(figure)


def screenshot(page, target, scratch, height=1500):
    """A headless-Chromium screenshot of an HTML page; False if Chromium is not installed or fails."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        return False
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
             f"--user-data-dir={scratch / 'chromium'}", f"--window-size=1100,{height}", f"--screenshot={target}"]
    done = subprocess.run([browser, *flags, page.as_uri()], capture_output=True, timeout=120)
    return done.returncode == 0 and target.exists() and target.stat().st_size > 0


def main():
    docs = ROOT / "docs"
    with tempfile.TemporaryDirectory(prefix="grader-docs-") as scratch:
        folder = Path(scratch)
        assignment = grade_sample(folder)
        if not screenshot(folder / "feedback" / FEATURED / "feedback.html", docs / "feedback.png", folder):
            feedback_picture(folder, docs / "feedback.png")
        if not screenshot(folder / "report.html", docs / "report.png", folder):
            report_picture(folder, assignment, docs / "report.png")
    print(f"wrote {docs / 'feedback.png'} and {docs / 'report.png'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
