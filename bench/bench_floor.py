"""Marginal grading cost per submission beside its floor, chapter by chapter, and the overhead ratio.

    .venv/bin/python bench/bench_floor.py                    # every chapter, N=20 copies of the solution, --jobs 1
    .venv/bin/python bench/bench_floor.py 01 09 --n 40
    .venv/bin/python bench/bench_floor.py 01 --mix           # the solution and the fixtures (right and wrong answers)
    .venv/bin/python bench/bench_floor.py --rounds 3         # a shared machine: the best of three rounds, loads shown

Floor: what the chapter's solution itself needs to run every case in a plain warm interpreter — no sandbox, no
fork, no guard, no JSON, no judging: a fresh `python` imports torch (the chapter's thread budget, as the sandbox
worker sets it) and the chapter's probe, loads the solution as a module and runs the probe on every case, twice to
warm up, then `--repeat` more times; the floor is the fastest of those (load only adds time). Until 2026-12-03 the
floor was a run of `execute`, which also binds the probe (`guard.bind`, about 13 ms, paid once per sandbox worker,
not per submission): floors measured before then are too high by that much.

Marginal: `python -m grader grade NN` of N submissions with `--jobs 1`, timed from its per-submission progress
lines on stderr: (time of the last result − time of the first) / (N − 1). The start of the batch is not in it
(printed apart as "first result": from launching the command to its first result). The goal (issue 25):
marginal ≤ 2 × floor and ≤ floor + 10 ms for every chapter, chapter 01's marginal ≤ 10 ms. Not a test.
"""
import argparse
import importlib
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

from bench.bench_chapters import mix


def floor_seconds(number, repeat):
    """Fastest seconds of `execute(solution, probe, every case)` in a fresh warm interpreter (its own process)."""
    done = subprocess.run([sys.executable, __file__, number, "--floor-only", "--repeat", str(repeat)], cwd=ROOT,
                          env=_env(), capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        raise SystemExit(done.stderr[-2000:])
    return float(done.stdout.split()[-1])


def _measure_floor(number, repeat):
    """(in the --floor-only process) print the fastest run time of the solution over every case."""
    from grader import chapters

    source = (ROOT / "solutions" / chapters.find(number).id / "transformer.py").read_text(encoding="utf-8")
    print(solution_seconds(number, source, repeat))


def solution_seconds(number, source, repeat):
    """The fastest of `repeat` warm runs (after two more) of `source` loaded as a module and the chapter's probe run
    on every case, in this process: what grading cannot do without. Not the guard (`execute` binds the probe and
    compares it afterwards, which the sandbox pays partly once per worker), no fork, no JSON, no judging."""
    import torch

    from grader.checks import chapter, probe_module_name
    from grader.checks.loading import given_code, module_from_source

    contract = chapter(number)
    threads = torch.get_num_threads()
    torch.set_num_threads(int(contract.budget.threads))
    try:
        torch.set_num_interop_threads(1)  # as the sandbox worker does; only possible before any parallel work
    except RuntimeError:
        pass
    probe = importlib.import_module(probe_module_name(number))
    cases = contract.probe.case_names()

    def run_every_case():
        module = module_from_source(source, notes=[])
        with given_code(probe):
            return {name: probe.run_case(module, name) for name in cases}

    times = []
    for index in range(2 + repeat):
        started = time.perf_counter()
        traces = run_every_case()
        if index >= 2:
            times.append(time.perf_counter() - started)
    torch.set_num_threads(threads)
    if any("error" in trace for trace in traces.values()):
        raise SystemExit(f"the solution of chapter {number} did not run every case: {json.dumps(traces)[:500]}")
    return min(times)  # the floor: the fastest run (load only ever adds time)


def marginal_seconds(number, files, out):
    """(seconds from launch to the first result, marginal seconds per further result) of one `grade --jobs 1`."""
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "grader", "grade", number, *map(str, files), "--jobs", "1",
                                "--no-feedback", "--out", str(out)], cwd=ROOT, env=_env(),
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    stamps, tail = [], []
    for line in process.stderr:
        if line.startswith("[") and "/" in line.split()[0]:
            stamps.append(time.perf_counter())
        else:
            tail.append(line)
    if process.wait(timeout=3600) != 0 or len(stamps) != len(files):
        raise SystemExit("".join(tail)[-2000:])
    return stamps[0] - started, (stamps[-1] - stamps[0]) / max(1, len(stamps) - 1)


def _env():
    return dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
                PYTHONPATH=str(ROOT))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("chapters", nargs="*", help="chapter numbers (default: every chapter)")
    parser.add_argument("--n", type=int, default=20, help="submissions per chapter (default 20)")
    parser.add_argument("--repeat", type=int, default=10, help="timed runs of the solution for the floor (default 10)")
    parser.add_argument("--mix", action="store_true", help="grade the solution and the fixtures, not N solutions")
    parser.add_argument("--rounds", type=int, default=1,
                        help="measure each chapter this many times, keep the fastest floor and marginal (default 1)")
    parser.add_argument("--floor-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    from grader import chapters

    numbers = args.chapters or [folder.name[:2] for folder in sorted((ROOT / "solutions").glob("[0-9][0-9]_*"))]
    if args.floor_only:
        return _measure_floor(numbers[0], args.repeat)
    print(f"N={args.n} ({'solution and fixtures' if args.mix else 'copies of the solution'}), --jobs 1, "
          f"{os.cpu_count()} cores; goal: marginal <= 2x floor and <= floor + 10 ms (chapter 01 <= 10 ms)")
    print(f"load average before: {_load()}; best of {args.rounds} round(s) per chapter")
    print(f"{'chapter':18s} {'floor':>9s} {'marginal':>9s} {'ratio':>6s} {'excess':>9s} {'first result':>13s}  goal")
    with tempfile.TemporaryDirectory() as scratch:
        for number in numbers:
            chapter_id = chapters.find(number).id
            sources = mix(chapter_id) if args.mix else mix(chapter_id)[:1]
            folder = Path(scratch) / chapter_id
            folder.mkdir()
            files = []
            for index in range(args.n):
                files.append(folder / f"s{index:03d}.py")
                shutil.copy(sources[index % len(sources)], files[-1])
            rounds = [(floor_seconds(number, args.repeat), *marginal_seconds(number, files, Path(scratch) / f"out-{number}"))
                      for _ in range(max(1, args.rounds))]
            floor, first, marginal = (min(values) for values in zip(*rounds))
            met = marginal <= 2 * floor and marginal <= floor + 0.010 and (number != "01" or marginal <= 0.010)
            print(f"{chapter_id:18s} {floor * 1000:6.1f} ms {marginal * 1000:6.1f} ms {marginal / floor:5.1f}x "
                  f"{(marginal - floor) * 1000:+6.1f} ms {first:11.2f} s  {'met' if met else 'not met'}  "
                  f"(load {_load()})", flush=True)
    print(f"load average after: {_load()}")


def _load():
    """The 1-, 5- and 15-minute load averages (other jobs on a shared machine inflate every time here)."""
    return " ".join(f"{value:.1f}" for value in os.getloadavg())


if __name__ == "__main__":
    main()
