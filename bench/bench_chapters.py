"""Grading cost per submission, chapter by chapter: `python -m grader grade NN` on N and on 1 `.py` files.

    .venv/bin/python bench/bench_chapters.py                 # chapters 01 and 03, N=20, --jobs 1
    .venv/bin/python bench/bench_chapters.py 01 03 04 --n 40
    .venv/bin/python bench/bench_chapters.py 01 09 --n 10    # chapter 09: a whole (small) model per case

For each chapter, grades N copies of a mix of the chapter's solution and its fixtures (right and wrong
answers) in the sandbox, then one copy; the marginal cost per submission is (wall(N) - wall(1)) / (N - 1):
what one more submission costs once the grader and its warm workers are up. Also prints the mean of the
per-submission `seconds` the grader reports, and an estimate of a whole class's wall time on a machine with
`--cores` cores (`--class-size` students, default 100 on 2): wall(1) + (class - 1) × marginal / cores, i.e. the
start-up once and then one worker per core (with `--jobs 1` the marginal cost is one worker's). Not a test.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests import fixtures


def mix(chapter_id):
    """The solution and every fixture of the chapter, in a fixed order."""
    return [ROOT / "solutions" / chapter_id / "transformer.py", *fixtures.all_files(f"ch{chapter_id[:2]}")]


def submissions(chapter_id, n, folder):
    """N `.py` files cycling through the mix, named s000.py …"""
    folder.mkdir(parents=True)
    sources = mix(chapter_id)
    for index in range(n):
        shutil.copy(sources[index % len(sources)], folder / f"s{index:03d}.py")
    return sorted(folder.glob("*.py"))


def grade(number, files, jobs, out):
    """(wall seconds, [per-submission seconds]) of one `python -m grader grade` run."""
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "grader", "grade", number, *map(str, files), "--json",
                           "--no-feedback", "--jobs", str(jobs), "--out", str(out)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(done.stderr[-2000:])
    return wall, [r["seconds"] for r in json.loads(done.stdout) if r.get("seconds") is not None]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("chapters", nargs="*", default=["01", "03"], help="chapter numbers (default 01 03)")
    parser.add_argument("--n", type=int, default=20, help="submissions per chapter (default 20)")
    parser.add_argument("--jobs", type=int, default=1, help="sandbox workers (default 1)")
    parser.add_argument("--class-size", type=int, default=100, help="students in the class estimate (default 100)")
    parser.add_argument("--cores", type=int, default=2, help="cores of the grading machine in the estimate (default 2)")
    args = parser.parse_args()
    from grader import chapters

    estimate = f"{args.class_size} on {args.cores} cores"
    print(f"{'chapter':16s} {'N':>4s} {'wall N':>8s} {'wall 1':>8s} {'marginal/sub':>13s} {'mean seconds':>13s} "
          f"{estimate:>17s}")
    with tempfile.TemporaryDirectory() as scratch:
        for number in args.chapters:
            chapter_id = chapters.find(number).id
            files = submissions(chapter_id, args.n, Path(scratch) / chapter_id)
            wall_n, seconds = grade(number, files, args.jobs, Path(scratch) / f"out-{number}-n")
            wall_1, _ = grade(number, files[:1], args.jobs, Path(scratch) / f"out-{number}-1")
            marginal = (wall_n - wall_1) / max(1, args.n - 1)
            mean = sum(seconds) / len(seconds) if seconds else float("nan")
            print(f"{chapter_id:16s} {args.n:4d} {wall_n:7.2f}s {wall_1:7.2f}s {marginal * 1000:10.0f} ms "
                  f"{mean * 1000:10.0f} ms {class_wall(wall_1, marginal, args):15.0f} s")


def class_wall(wall_1, marginal, args):
    """Seconds to grade `args.class_size` submissions on `args.cores` cores: start-up once, then the marginal cost
    of each further submission shared by one worker per core (measured with `args.jobs` workers)."""
    per_worker = marginal * args.jobs  # one worker's cost per submission
    return wall_1 + (args.class_size - 1) * per_worker / args.cores


if __name__ == "__main__":
    main()
