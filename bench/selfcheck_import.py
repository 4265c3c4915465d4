"""How much slower is the student self-check than `import torch` alone?

Runs, as fresh subprocesses (median of 5 each):
  1. python -c "import torch"
  2. python -m selfcheck     (in a temporary copy of exercises/01_attention with the solution
                              as transformer.py, PYTHONPATH unset — as a student would run it)
and prints both wall times and their ratio. Target: ratio ≤ 1.3 (the self-check should cost
little beyond torch itself). If it is above, profile with `python -X importtime -m selfcheck`.

Usage: .venv/bin/python bench/selfcheck_import.py [--runs N]
Not a test: timings depend on the machine and are never asserted.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXERCISE = ROOT / "exercises" / "01_attention"
SOLUTION = ROOT / "solutions" / "01_attention" / "transformer.py"
TARGET = 1.3


def _env():
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    return env


def once(command, cwd):
    """Wall time of one fresh subprocess running `command` (which must exit 0)."""
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=_env(), capture_output=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} exited {done.returncode}:\n{done.stdout.decode()}{done.stderr.decode()}")
    return elapsed


def medians(commands, cwd, runs):
    """Median wall time of each command; runs are interleaved so machine load drifts hit both alike."""
    times = [[] for _ in commands]
    for _ in range(runs):
        for command, bucket in zip(commands, times):
            bucket.append(once(command, cwd))
    return [statistics.median(bucket) for bucket in times]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "01_attention"
        shutil.copytree(EXERCISE, folder, ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copy(SOLUTION, folder / "transformer.py")
        # Warm the OS file cache (and compile selfcheck/*.pyc) once, outside the measurement.
        subprocess.run([sys.executable, "-m", "selfcheck"], cwd=folder, env=_env(), capture_output=True)
        torch_time, check_time = medians(
            [[sys.executable, "-c", "import torch"], [sys.executable, "-m", "selfcheck"]], folder, args.runs
        )
    ratio = check_time / torch_time
    print(f"python -c 'import torch'   : {torch_time:.3f} s (median of {args.runs})")
    print(f"python -m selfcheck        : {check_time:.3f} s (median of {args.runs})")
    print(f"ratio                      : {ratio:.2f}x (target ≤ {TARGET}x) {'OK' if ratio <= TARGET else 'TOO SLOW'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
