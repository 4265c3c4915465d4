"""How long `python -m grader demo` takes, end to end (build, nbgrader course, sandboxed grading, reports, export).

    .venv/bin/python bench/bench_demo.py

Runs the demo (as `make demo` does, from the repository root) into a temporary folder and prints the step
times the demo reports and the total wall time. Not a test: tests/report/test_demo.py checks what the demo does, this measures how long (it used to assert
`< 600 s`).
"""
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main():
    env = dict(os.environ, PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
    with tempfile.TemporaryDirectory(prefix="bench-demo-") as folder:
        started = time.monotonic()
        process = subprocess.Popen([sys.executable, "-m", "grader", "demo", "--out", str(Path(folder) / "demo-out")],
                                   cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for line in process.stdout:
            if re.fullmatch(r"  [^:]+: [0-9.]+ s", line.rstrip("\n")):
                print(line.rstrip())
        process.wait()
        total = time.monotonic() - started
    print(f"  total wall time: {total:.1f} s (exit {process.returncode})")
    return process.returncode


if __name__ == "__main__":
    sys.exit(main())
