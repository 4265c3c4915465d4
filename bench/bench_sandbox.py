"""The sandbox pool's speed: N correct submissions on cold workers (start-up included), then N on warm ones.

    .venv/bin/python bench/bench_sandbox.py            # N=20, jobs=2
    .venv/bin/python bench/bench_sandbox.py --n 40 --jobs 1

Prints the wall time of each batch, each worker's start-up time and the warm cost per submission. On an idle
2-core machine expect about 2.5 s cold and 0.5 s warm for 20. Not a test: timings are never asserted.
(This replaces the timing bounds the sandbox tests used to assert: `cold < 30 s`, `warm < 20 × 0.5 s`.)
"""
import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.checks import ch01_probe  # noqa: E402
from grader.sandbox import Limits, SandboxPool  # noqa: E402

SOLUTION = ROOT / "solutions" / "01_attention" / "transformer.py"


def batch(pool, prefix, count, source):
    """Run `count` copies of `source`; return (seconds, how many passed every case)."""
    started = time.monotonic()
    results = list(pool.run((f"{prefix}{i}", source, ch01_probe.case_names()) for i in range(count)))
    seconds = time.monotonic() - started
    ok = sum(r.status == "ok" and all("error" not in t for t in r.result["traces"].values()) for r in results)
    return seconds, ok


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20, help="submissions per batch")
    parser.add_argument("--jobs", type=int, default=2, help="warm workers")
    args = parser.parse_args(argv)
    source = SOLUTION.read_text(encoding="utf-8")
    started = time.monotonic()
    with SandboxPool("grader.checks.ch01_probe", jobs=args.jobs, limits=Limits()) as pool:
        _, cold_ok = batch(pool, "cold", args.n, source)
        cold = time.monotonic() - started  # the pool's start-up included
        startup = [worker.startup_seconds for worker in pool._workers if worker is not None]
        warm, warm_ok = batch(pool, "warm", args.n, source)
        print(f"sandbox: {pool.sandbox}, jobs={args.jobs}")
    print(f"{args.n} submissions incl. start-up: {cold:.2f} s ({cold_ok}/{args.n} passed); worker start-up {startup} s")
    print(f"{args.n} more on warm workers: {warm:.2f} s ({warm / args.n * 1000:.0f} ms each; {warm_ok}/{args.n} passed)")
    return 0 if cold_ok == warm_ok == args.n else 1


if __name__ == "__main__":
    sys.exit(main())
