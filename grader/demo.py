"""`python -m grader demo [--out demo-out]`: the instructor's whole job on the bundled sample class, offline.

build the course → a throwaway nbgrader course in OUT/course → the class's LMS zip → `nbgrader zip_collect`
→ `python -m grader grade 01 submitted/ --gradebook …` → feedback and class report → `nbgrader export`.
Everything it writes stays under OUT.
"""
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from grader import chapters, paths

MARKER = ".grader-demo"
DEMO_TIMEOUT_SECONDS = 5  # per submission; the bundled malicious submission busy-loops until it is killed


class DemoError(RuntimeError):
    """A step of the demo failed; the message says which and why."""


def _environment():
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(paths.ROOT), env.get("PYTHONPATH")]))
    return env


def _start(args, cwd):
    """Start a step's command in the background."""
    return subprocess.Popen(args, cwd=cwd, env=_environment(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _finish(name, process):
    """Wait for a step's command; return (stdout, stderr), or raise DemoError with its output."""
    try:
        stdout, stderr = process.communicate(timeout=600)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        raise DemoError(f"{name} did not finish in 600 s") from None
    if process.returncode not in (0, 1) or (process.returncode == 1 and name != "grade"):
        raise DemoError(f"{name} failed ({process.returncode}):\n{stdout}\n{stderr}")
    return stdout, stderr


def _command(name, args, cwd):
    """Run a step's command to the end; return (stdout, stderr)."""
    return _finish(name, _start(args, cwd))


def _nbgrader(*args):
    local = Path(sys.executable).with_name("nbgrader")
    return [str(local) if local.exists() else "nbgrader", *args]


def _fresh(out):
    """An empty output folder; only a previous demo's folder (it has the marker) is cleared."""
    if out.exists() and any(out.iterdir()):
        if not (out / MARKER).exists():
            raise DemoError(f"{out} exists and is not a demo output folder; choose another --out")
        shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / MARKER).write_text("written by `python -m grader demo`; safe to delete\n")


def run(args):
    """Run the demo; print the class table and where everything is. Return the exit status."""
    try:
        return _run(Path(args.out).resolve())
    except DemoError as error:
        print(f"demo: {error}", file=sys.stderr)
        return 1


def _run(out):
    from grader.publish.generated import run as build
    from grader.demo_class import demo_course
    from grader.demo_class.pack import roster

    started = time.monotonic()
    steps = []

    def step(name, since):
        steps.append((name, time.monotonic() - since))
        print(f"  {name}: {steps[-1][1]:.1f} s", flush=True)

    _fresh(out)
    # matplotlib keeps its font cache under ~/.cache and ~/.config, torch's compiler (imported by the optimizers
    # of chapter 12) a cache dir under TMPDIR: keep even those inside OUT
    os.environ["MPLCONFIGDIR"] = str(out / ".matplotlib")
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = str(out / ".torchinductor")
    print("== 1. build the course (solutions → exercises/, release/, references)", flush=True)
    t = time.monotonic()
    if build():
        raise DemoError("the build failed")
    step("build", t)

    first = chapters.all_chapters()[0]
    print(f"\n== 1b. {first.id}: demo.py with the solution (the chapter's printed numbers)\n", flush=True)
    shown, _ = _command("chapter demo", [sys.executable, "demo.py"], first.folder)
    print("\n".join(f"  {line}" for line in shown.splitlines()), flush=True)

    assignment, students = roster()
    chapter = chapters.find(assignment)
    course, graded = out / "course", out / "graded"
    print(f"\n== 2. an nbgrader course with {len(students)} submissions in an LMS zip: {course}", flush=True)
    t = time.monotonic()
    archive = demo_course.create(course, assignment)
    _command("zip_collect", _nbgrader("zip_collect", assignment, "--force", "--log-level=WARN"), course)
    collected = sorted(p.name for p in (course / "submitted").iterdir() if p.is_dir())
    step(f"nbgrader zip_collect ({archive.name} → submitted/, {len(collected)} students)", t)

    print("\n== 3. grade in the sandbox", flush=True)
    t = time.monotonic()
    stdout, stderr = _command("grade", [sys.executable, "-m", "grader", "grade", chapter.number, "submitted",
                              "--out", str(graded), "--gradebook", "gradebook.db",
                              "--timeout", str(DEMO_TIMEOUT_SECONDS)], course)
    for line in (stdout + stderr).splitlines():
        if not line.startswith("["):  # the per-submission progress lines
            print(f"  | {line}")
    step("python -m grader grade", t)
    if not (graded / "results").is_dir():
        raise DemoError(f"grading wrote no results:\n{stdout}\n{stderr}")

    print("\n== 4. nbgrader export (the grade command wrote the feedback pages and the class report)", flush=True)
    t = time.monotonic()
    export = out / "nbgrader-grades.csv"
    exporting = _start(_nbgrader("export", f"--to={export}", "--log-level=WARN"), course)
    from grader.report.result_files import load
    from grader.report.table import render

    _finish("export", exporting)
    step("nbgrader export", t)

    print(f"\n== class table ({chapter.id})\n")
    print(render(load(graded), chapter.id))
    print(f"""
class report     {graded / 'report.html'}  (and report.md)
feedback         {graded / 'feedback'}/<student>/feedback.html  (and .md; heatmap drawn in the page)
nbgrader         {course / 'feedback'}/<student>/{assignment}/{assignment}.html  (release_feedback layout)
results          {graded / 'results'}/<submission>.json  (Gradescope), {graded / 'grades.csv'}
gradebook        {course / 'gradebook.db'}  → nbgrader export → {export}

demo finished in {time.monotonic() - started:.1f} s""")
    return 0
