"""Peak memory of the Gradescope autograder grading one correct chapter submission (run as root; needs bubblewrap).

Builds the zip, installs it into a private /autograder (tests/gradescope/private_root.py) against this
venv, runs run_autograder and samples every process below it every 20 ms: the peak of the summed PSS
(shared pages split between the processes that map them; what a container's memory limit sees, apart
from the page cache) and of the summed RSS (counts torch's shared libraries once per process).

    python bench/gradescope_memory.py [--chapter 01] [--no-bubblewrap]
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.gradescope.private_root import PrivateRoot

SOLUTION = {"01": "01_attention", "02": "02_masking"}


def _children():
    table = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        table.setdefault(int(fields[1]), []).append(int(pid))
    return table


def _tree(root):
    table, found, todo = _children(), [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(table.get(pid, []))
    return found


def _memory(pids):
    """(summed PSS, summed RSS) in bytes."""
    pss = rss = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    pss += int(line.split()[1]) * 1024
                elif line.startswith("Rss:"):
                    rss += int(line.split()[1]) * 1024
        except OSError:
            continue
    return pss, rss


def measure(chapter, bubblewrap):
    with tempfile.TemporaryDirectory() as tmp:
        archive = Path(tmp, "autograder.zip")
        subprocess.run([sys.executable, "-m", "grader", "gradescope", chapter, "--out", str(archive)], check=True, cwd=ROOT)
        root = PrivateRoot(Path(tmp, "root"))
        with zipfile.ZipFile(archive) as opened:
            opened.extractall(root.source)
        for script in ("setup.sh", "run_autograder"):
            os.chmod(root.source / script, 0o755)
        env = {"PATH": os.defpath, "GRADER_VENV": str(Path(sys.executable).parent.parent)}
        subprocess.run(root.command(["/autograder/source/setup.sh"]), env=env, check=True, capture_output=True)
        (root.submission / "transformer.py").write_bytes((ROOT / "solutions" / SOLUTION[chapter] / "transformer.py").read_bytes())
        started = time.monotonic()
        process = subprocess.Popen(root.command(["/autograder/source/run_autograder"]), stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, env={"PATH": os.defpath, "GRADER_BUBBLEWRAP": "" if bubblewrap else "0"})
        peak_pss = peak_rss = 0
        while process.poll() is None:
            pss, rss = _memory(_tree(process.pid))
            peak_pss, peak_rss = max(peak_pss, pss), max(peak_rss, rss)
            time.sleep(0.02)
        seconds = time.monotonic() - started
        score = __import__("json").loads(root.results.read_text())["score"]
        shutil.rmtree(root.tmp / "etc", ignore_errors=True)
    return peak_pss, peak_rss, seconds, score


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chapter", default="01")
    parser.add_argument("--no-bubblewrap", action="store_true")
    args = parser.parse_args()
    pss, rss, seconds, score = measure(args.chapter, not args.no_bubblewrap)
    mode = "subprocess fallback" if args.no_bubblewrap else "bubblewrap where it works"
    print(f"chapter {args.chapter}, {mode}: peak PSS {pss / 2**20:.0f} MiB, peak RSS sum {rss / 2**20:.0f} MiB, "
          f"{seconds:.1f} s, score {score:g}")


if __name__ == "__main__":
    main()
