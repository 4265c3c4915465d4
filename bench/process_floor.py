"""The least a process per submission costs on this machine: the chapter's solution run in a child forked from a
process set up as the sandbox's warm worker is (`worker._load`: torch, the probe, `execute`, frozen heap, huge
pages), with nothing else around it — no sandbox, no lock-down, no uid, no job transport, no result encoding, no
judging. Not a test.

    .venv/bin/python bench/process_floor.py                 # every chapter, 15 children each
    .venv/bin/python bench/process_floor.py 01 09 --n 30

For each chapter, in one warm process, it prints (medians, ms):
- `floor`: the solution over every case in the warm process itself (as `bench_floor.py`'s floor);
- `run in child`: the same run in a child forked beforehand (the fork is not timed): the run plus the pages it
  copies on write from the warm process;
- `go → exit`: from telling that pre-forked child to start until its exit is reaped: what a grader that forks ahead
  and reports only once the submission's process is gone (the security rule of `job_runner.py`) cannot go below;
- `fork → exit`: the same with the fork timed (both cores busy: nothing forks ahead for free);
- the excess of the lesser of those two over the floor, and whether that least cost is within issue 25's goal
  (≤ 2 × floor and ≤ floor + 10 ms; chapter 01 ≤ 10 ms).
Every grader design that runs each submission in its own process forked from a warm torch process pays at least
the lesser of the last two columns; what `bench_floor.py` measures above it is the sandbox's own share.
"""
import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _setup(number):
    """(probe, run_every_case, threads) in this process, set up as the chapter's warm worker is."""
    from grader import chapters
    from grader.checks import chapter, probe_module_name
    from grader.sandbox import worker

    contract = chapter(number)
    _torch, probe, _execute = worker._load(probe_module_name(number), int(contract.budget.threads))
    from grader.checks.loading import given_code, module_from_source

    source = (ROOT / "solutions" / chapters.find(number).id / "transformer.py").read_text(encoding="utf-8")
    cases = contract.probe.case_names()

    def run_every_case():
        module = module_from_source(source, notes=[])
        with given_code(probe):
            traces = {name: probe.run_case(module, name) for name in cases}
        if any("error" in trace for trace in traces.values()):
            raise SystemExit(f"the solution of chapter {number} did not run every case")

    return run_every_case


def _child(run, go_read, done_write):
    """Wait for the go byte, run, report the run's seconds, exit at once (as the sandbox's child does)."""
    os.read(go_read, 1)
    started = time.perf_counter()
    run()
    os.write(done_write, f"{time.perf_counter() - started:.9f}".encode())
    os._exit(0)


def one_child(run, fork_timed):
    """(run seconds in the child, go → exit seconds) of one child."""
    go_read, go_write = os.pipe()
    done_read, done_write = os.pipe()
    started = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        os.close(go_write)
        os.close(done_read)
        _child(run, go_read, done_write)
    os.close(go_read)
    os.close(done_write)
    if not fork_timed:
        time.sleep(0.05)  # the child is forked and waiting, as the grader's next child is
        started = time.perf_counter()
    os.write(go_write, b"g")
    answer = os.read(done_read, 64)
    os.waitpid(pid, 0)
    ended = time.perf_counter()
    os.close(go_write)
    os.close(done_read)
    return float(answer), ended - started


def measure(number, n):
    """Print one chapter's row (run in its own process, so every chapter starts from a fresh warm worker)."""
    run = _setup(number)
    warm = []
    for index in range(2 + n):
        started = time.perf_counter()
        run()
        if index >= 2:
            warm.append(time.perf_counter() - started)
    ahead = [one_child(run, fork_timed=False) for _ in range(n)]
    timed = [one_child(run, fork_timed=True)[1] for _ in range(n)]
    floor = min(warm)
    in_child = statistics.median(seconds for seconds, _ in ahead)
    go_exit = statistics.median(total for _, total in ahead)
    fork_exit = statistics.median(timed)
    least = min(go_exit, fork_exit)
    excess = least - floor
    within = excess <= 0.010 and least <= 2 * floor and (number != "01" or least <= 0.010)
    print(f"{number:>7} {floor * 1e3:9.1f} {in_child * 1e3:13.1f} {go_exit * 1e3:12.1f} {fork_exit * 1e3:13.1f} "
          f"{excess * 1e3:+10.1f}  {'within' if within else 'over'}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("chapters", nargs="*", help="chapter numbers (default: every chapter)")
    parser.add_argument("--n", type=int, default=15, help="children per chapter (default 15)")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        measure(args.one, args.n)
        return
    import subprocess

    numbers = args.chapters or [folder.name[:2] for folder in sorted((ROOT / "solutions").glob("[0-9][0-9]_*"))]
    print(f"load average {os.getloadavg()[0]:.1f}; ms, medians of {args.n} children (floor: the fastest warm run)")
    print(f"{'chapter':>7} {'floor':>9} {'run in child':>13} {'go → exit':>12} {'fork → exit':>13} {'excess':>10}  "
          "issue 25's goal", flush=True)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    for number in numbers:
        subprocess.run([sys.executable, __file__, "--one", number, "--n", str(args.n)], cwd=ROOT, env=env, check=True)


if __name__ == "__main__":
    main()
