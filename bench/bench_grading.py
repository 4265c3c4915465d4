"""Grade the same N filled-in notebooks with `nbgrader autograde` and with `python -m grader grade --jobs 2`.

    .venv/bin/python bench/bench_grading.py              # N=20, both, prints wall times and both ratios
    .venv/bin/python bench/bench_grading.py --n 1000 --ours-only   # memory stays flat; page cost per student

Ours runs twice: grading only (`--no-feedback`) and the default run, which also writes every student's feedback
page and the class report (the per-student page cost is read from the run's own stderr line).

Builds a throw-away nbgrader course (this repo's nbgrader_config.py and grader package), runs
`nbgrader generate_assignment`, writes N notebooks into submitted/<id>/01_attention/ (a mix of right
and wrong answers: tests/fixtures/submissions and materialised chapter-01 fixtures), then times each grader on the whole folder. Not a test.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests import fixtures

CHAPTER = "01_attention"
MIX = ["solution", "ok_einsum", "no_scale", "log_softmax", "half_dk", "unimplemented", "swap_qk", "warns_correct"]


def answer(name):
    """The answer cell's code for one entry of MIX."""
    if name == "solution":
        text = (ROOT / "solutions" / CHAPTER / "transformer.py").read_text(encoding="utf-8")
        return "".join(line for line in text.splitlines(keepends=True) if "### " not in line)
    path = ROOT / "tests/fixtures/submissions" / f"{name}.py"
    return (path if path.exists() else fixtures.path("ch01", name)).read_text(encoding="utf-8")


def environment():
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env.pop("PYTHONPATH", None)
    return env


def make_course(folder, n):
    """A course with the assignment generated and n filled-in notebooks submitted."""
    shutil.copy(ROOT / "nbgrader_config.py", folder / "nbgrader_config.py")
    shutil.copytree(ROOT / "grader", folder / "grader", ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run([str(Path(sys.executable).with_name("nbgrader")), "generate_assignment", CHAPTER, "--force",
                    "--log-level=ERROR"], cwd=folder, env=environment(), check=True, capture_output=True)
    release = json.loads((folder / "release" / CHAPTER / f"{CHAPTER}.ipynb").read_text(encoding="utf-8"))
    answers = {name: answer(name) for name in MIX}
    for number in range(n):
        name = MIX[number % len(MIX)]
        for cell in release["cells"]:
            if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == "answer":
                cell["source"] = answers[name]
        target = folder / "submitted" / f"s{number:04d}_{name}" / CHAPTER / f"{CHAPTER}.ipynb"
        target.parent.mkdir(parents=True)
        target.write_text(json.dumps(release, ensure_ascii=False), encoding="utf-8")


CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


class Watch(threading.Thread):
    """Samples a process tree from /proc until its root ends: the root's peak RSS (VmHWM) and the CPU time of
    every descendant seen (the sandbox's workers are killed, not reaped, so getrusage would miss them)."""

    def __init__(self, pid, interval=0.1):
        super().__init__(daemon=True)
        self.pid, self.interval, self.running = pid, interval, True
        self.peak_kib, self.cpu_ticks = 0, {}

    def run(self):
        while self.running:
            parents, ticks = {}, {}
            for entry in os.scandir("/proc"):
                if entry.name.isdigit():
                    try:
                        fields = Path(f"/proc/{entry.name}/stat").read_text().rsplit(")", 1)[1].split()
                    except OSError:
                        continue
                    parents[int(entry.name)] = int(fields[1])
                    ticks[int(entry.name)] = int(fields[11]) + int(fields[12])
            family, frontier = {self.pid}, [self.pid]
            while frontier:
                frontier = [pid for pid, parent in parents.items() if parent in frontier and pid not in family]
                family.update(frontier)
            for pid in family & set(ticks):
                self.cpu_ticks[pid] = max(self.cpu_ticks.get(pid, 0), ticks[pid])
            try:
                found = re.search(r"VmHWM:\s+(\d+) kB", Path(f"/proc/{self.pid}/status").read_text())
            except OSError:
                return
            if found:
                self.peak_kib = max(self.peak_kib, int(found.group(1)))
            time.sleep(self.interval)

    @property
    def cpu_seconds(self):
        return sum(self.cpu_ticks.values()) / CLOCK_TICKS


def timed(command, cwd):
    """(wall seconds, CPU seconds of the process tree, stderr text, peak RSS in MiB of the command's process)."""
    started = time.monotonic()
    process = subprocess.Popen(command, cwd=cwd, env=environment(), stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    watch = Watch(process.pid)
    watch.start()
    _, stderr = process.communicate()
    seconds = time.monotonic() - started
    watch.running = False
    watch.join()
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({process.returncode}):\n{stderr[-3000:]}")
    return seconds, watch.cpu_seconds, stderr, watch.peak_kib / 1024


def ours(folder, args, extra):
    """Time `python -m grader grade` on the course's submitted/ folder; print and return its numbers."""
    wall, cpu, stderr, peak = timed([sys.executable, "-m", "grader", "grade", "01", "submitted", "--jobs",
                                     str(args.jobs), "--out", "graded", *extra], folder)
    loop = re.search(r"채점 \d+건, ([\d.]+)초", stderr)
    loop_seconds = float(loop.group(1)) if loop else float("nan")
    label = f"ours, {'grading only' if extra else 'default run'} (grade --jobs {args.jobs}{' ' + ' '.join(extra) if extra else ''}):"
    print(f"{label:46}{wall:7.1f} s wall (fixed: start-up, pages, gradebook, exit {wall - loop_seconds:.1f} s; "
          f"grading loop {loop_seconds:.1f} s = {loop_seconds / args.n * 1000:.0f} ms per notebook), {cpu:.1f} s CPU; "
          f"grader peak RSS {peak:.0f} MiB")
    return {"wall": wall, "cpu": cpu, "stderr": stderr, "loop": loop_seconds}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=20, help="number of notebooks (default 20)")
    parser.add_argument("--jobs", type=int, default=2, help="our sandbox workers (default 2)")
    parser.add_argument("--ours-only", action="store_true", help="skip nbgrader autograde (for large N)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary course and print its path")
    args = parser.parse_args()

    folder = Path(tempfile.mkdtemp(prefix="bench-grading-"))
    try:
        print(f"building a course with {args.n} notebooks …", file=sys.stderr)
        make_course(folder, args.n)
        print(f"load average before: {os.getloadavg()[0]:.2f} (2 cores; keep it low)", file=sys.stderr)
        runs = {}
        for name, extra in (("grading only", ["--no-feedback"]), ("default run", [])):
            runs[name] = ours(folder, args, extra)
        pages = re.search(r"페이지 ([\d.]+)초, 학생당 ([\d.]+) ms", runs["default run"]["stderr"])
        print(f"feedback pages + class report (default run): {float(pages.group(1)):.2f} s for {args.n} students = "
              f"{float(pages.group(2)):.1f} ms per student (written by the grading process after grading)"
              if pages else "feedback timing not found in the default run's output")
        if not args.ours_only:
            theirs, theirs_cpu, _, _ = timed([str(Path(sys.executable).with_name("nbgrader")), "autograde", CHAPTER,
                                              "--force", "--log-level=ERROR"], folder)
            print(f"nbgrader autograde:{'':28}{theirs:7.1f} s wall "
                  f"({theirs / args.n:.1f} s per notebook), {theirs_cpu:.1f} s CPU")
            for name, run in runs.items():
                print(f"ratio, {name:12}: {theirs / run['wall']:.1f}× faster than nbgrader autograde (wall, whole run), "
                      f"{theirs_cpu / run['cpu']:.1f}× less CPU")
            loop = runs["grading only"]["loop"]
            print(f"per notebook once started: {theirs / args.n:.2f} s vs {loop / args.n:.3f} s "
                  f"({theirs / loop:.0f}×); load average after: {os.getloadavg()[0]:.2f}")
    finally:
        if args.keep:
            print(f"course kept in {folder}", file=sys.stderr)
        else:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
