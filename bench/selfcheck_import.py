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
import resource
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
    """[(median wall, median CPU)] per command; runs are interleaved so load drifts hit both alike."""
    times = [[] for _ in commands]
    for _ in range(runs):
        for command, bucket in zip(commands, times):
            bucket.append(once(command, cwd))
    return [tuple(statistics.median(sample[i] for sample in bucket) for i in (0, 1)) for bucket in times]


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
    ratio = check_time[0] / torch_time[0]
    load = os.getloadavg()[0]
    print(f"python -c 'import torch'   : {torch_time[0]:.3f} s wall, {torch_time[1]:.3f} s CPU (median of {args.runs})")
    print(f"python -m selfcheck        : {check_time[0]:.3f} s wall, {check_time[1]:.3f} s CPU (median of {args.runs})")
    print(f"ratio (wall)               : {ratio:.2f}x (target ≤ {TARGET}x) {'OK' if ratio <= TARGET else 'TOO SLOW'}")
    print(f"ratio (CPU)                : {check_time[1] / torch_time[1]:.2f}x   [1-min load average {load:.1f} "
          f"on {os.cpu_count()} CPUs; wall times are noisy when it is high]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
