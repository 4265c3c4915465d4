"""Local vs Dask cluster on the same machine: `grade NN` of N submissions with `--jobs J` and with `--cluster`.

    .venv/bin/python bench/bench_cluster.py                  # chapter 01, N=200: --jobs 1, --jobs 2, k=1 and k=2 workers
    .venv/bin/python bench/bench_cluster.py 09 --n 100 --k 1 2

For each k, starts a `distributed.LocalCluster` of k worker processes with one thread each (one sandbox slot per
worker, as `--jobs k` has k slots) and grades the same N files twice: cold (the workers start their sandbox pools
and load the chapter's references during the first tasks) and warm (a long-lived cluster: the pools are kept by
the worker plugin between batches). Prints wall time, time per submission and the speed-up over `--jobs 1`.
On one machine the cluster cannot beat `--jobs k` (same cores; it adds the scheduler, the transfer of every file
and the pickled verdicts); the row shows what that costs. Not a test.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_chapters import mix


def submissions(chapter_id, n, folder):
    """N `.py` files cycling through the chapter's solution and fixtures."""
    folder.mkdir(parents=True)
    sources = mix(chapter_id)
    for index in range(n):
        shutil.copy(sources[index % len(sources)], folder / f"s{index:04d}.py")
    return folder


def grade(number, folder, out, *options):
    """Wall seconds of one `python -m grader grade` run (grading only, no pages)."""
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
               PYTHONPATH=str(ROOT))
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "grader", "grade", number, str(folder), "--no-feedback",
                           "--out", str(out), *options], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=3600)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(done.stderr[-2000:])
    return wall


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("chapter", nargs="?", default="01", help="chapter number (default 01)")
    parser.add_argument("--n", type=int, default=200, help="submissions (default 200)")
    parser.add_argument("--k", type=int, nargs="+", default=[1, 2], help="cluster sizes, in workers (default 1 2)")
    args = parser.parse_args()
    from distributed import LocalCluster

    from grader import chapters

    chapter_id = chapters.find(args.chapter).id
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        folder = submissions(chapter_id, args.n, Path(scratch) / "class")
        out = Path(scratch) / "out"
        for jobs in sorted(set(args.k)):
            rows.append((f"local --jobs {jobs}", grade(args.chapter, folder, out, "--jobs", str(jobs))))
        for k in args.k:
            with LocalCluster(n_workers=k, threads_per_worker=1, dashboard_address=":0") as cluster:
                address = cluster.scheduler_address
                rows.append((f"cluster k={k} cold", grade(args.chapter, folder, out, "--cluster", address)))
                rows.append((f"cluster k={k} warm", grade(args.chapter, folder, out, "--cluster", address)))
    single = rows[0][1]
    print(f"chapter {chapter_id}, N={args.n}, {os.cpu_count()} cores")
    print(f"{'run':22s} {'wall':>8s} {'per submission':>15s} {'vs --jobs 1':>12s}")
    for name, wall in rows:
        print(f"{name:22s} {wall:7.1f}s {1000 * wall / args.n:12.1f} ms {single / wall:11.2f}x")


if __name__ == "__main__":
    main()
