"""How much slower is the student self-check than `import torch` alone, chapter by chapter?

Runs, as fresh subprocesses (median of N each, interleaved so load drifts hit all alike), in a temporary copy of
exercises/NN_name with the solution as transformer.py and PYTHONPATH unset — as a student runs them:
  1. python -c "import torch"
  2. python -m selfcheck
  3. python -m pytest -q test_visible.py
and prints the wall times and the ratios to (1), then the same in CPU seconds (user + system of the process: less
sensitive to a busy machine than wall time, which the targets are about). Targets (issue 23, idle 2-core machine): the self-check
≤ 1.5× and pytest ≤ 2× a bare `import torch`. If above, profile with `python -X importtime -m selfcheck`.

Usage: .venv/bin/python bench/selfcheck_import.py [--runs N] [--chapters 01 12 …]   (default: all 14 chapters)
Not a test: timings depend on the machine and are never asserted.
"""
import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGETS = {"selfcheck": 1.5, "pytest": 2.0}


def _env():
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    return env


def _children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def once(command, cwd):
    """(wall, CPU) seconds of one fresh subprocess running `command` (which must exit 0)."""
    cpu, start = _children_cpu(), time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=_env(), capture_output=True)
    elapsed, cpu = time.perf_counter() - start, _children_cpu() - cpu
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} exited {done.returncode}:\n{done.stdout.decode()}{done.stderr.decode()}")
    return elapsed, cpu


def medians(commands, cwd, runs):
    """{name: (median wall, median CPU)}; runs are interleaved so load drifts hit every command alike."""
    times = {name: [] for name in commands}
    for _ in range(runs):
        for name, command in commands.items():
            times[name].append(once(command, cwd))
    return {name: tuple(statistics.median(sample[i] for sample in bucket) for i in (0, 1))
            for name, bucket in times.items()}


def chapter_folders(numbers):
    folders = sorted(p for p in (ROOT / "exercises").iterdir() if p.is_dir() and p.name[:2].isdigit())
    return [p for p in folders if not numbers or p.name[:2] in numbers]


def measure(exercise, runs):
    """{command name: (wall, CPU)} for one chapter's folder with the solution filled in."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / exercise.name
        for part in (exercise.parent / "_selfcheck", exercise):  # the chapter and the framework its selfcheck/ joins
            shutil.copytree(part, Path(tmp) / part.name, ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copy(ROOT / "solutions" / exercise.name / "transformer.py", folder / "transformer.py")
        commands = {"torch": [sys.executable, "-c", "import torch"],
                    "selfcheck": [sys.executable, "-m", "selfcheck"],
                    "pytest": [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_visible.py"]}
        once(commands["selfcheck"], folder)  # warm the file cache and compile selfcheck/*.pyc, unmeasured
        return medians(commands, folder, runs)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--chapters", nargs="*", default=[], help="chapter numbers (default: all)")
    args = parser.parse_args(argv)
    print(f"{'chapter':<20} {'torch':>7} {'selfcheck':>10} {'ratio':>6} {'pytest':>8} {'ratio':>6}  |"
          f" {'CPU torch':>9} {'selfcheck':>10} {'ratio':>6} {'pytest':>8} {'ratio':>6}"
          f"  (seconds, median of {args.runs}; targets ≤ {TARGETS['selfcheck']}x and ≤ {TARGETS['pytest']}x)")
    slow = []
    for exercise in chapter_folders(set(args.chapters)):
        found = measure(exercise, args.runs)
        columns = []
        for kind in (0, 1):  # wall, then CPU
            base = found["torch"][kind]
            ratios = {name: found[name][kind] / base for name in TARGETS}
            if kind == 0:
                slow += [f"{exercise.name} {name}" for name, ratio in ratios.items() if ratio > TARGETS[name]]
            columns.append(f"{base:>{7 + 2 * kind}.2f} {found['selfcheck'][kind]:>10.2f} {ratios['selfcheck']:>5.2f}x "
                           f"{found['pytest'][kind]:>8.2f} {ratios['pytest']:>5.2f}x")
        print(f"{exercise.name:<20} {columns[0]}  | {columns[1]}", flush=True)
    print(f"over target: {', '.join(slow) if slow else 'none'}   [1-min load average {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} CPUs; wall times are noisy when it is high]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
