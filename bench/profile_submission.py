"""Where one submission's wall time goes, phase by phase, across the grader process and the sandbox.

    .venv/bin/python bench/profile_submission.py               # chapter 01, 30 warm copies of the solution, --jobs 1
    .venv/bin/python bench/profile_submission.py 09 --n 10
    .venv/bin/python bench/profile_submission.py 03 --mix      # the solution and the fixtures (failing checks too)

Runs a batch as `grade` does (collect.Inputs, SandboxPool, Judge, batch.grade, Report.add) in this process, with
timers wrapped around the pool's and the grader's steps (no profiler, so the numbers are not inflated). One
submission first warms the pool; then, per submission, the mean of:

- `enter`: the job's control group made and the idle worker's tree moved into it (accounting.enter);
- `send`: the job frame written to the worker;
- `sandbox`: from the frame written to the result line read — of which `child` is the runner's own `seconds`
  (its child forked, the student's code loaded and run on every case, the result sent) and the rest the runner's
  reading of the job and its tail (kill leftovers, check and re-encode the result, wipe the scratch);
- `decode`: the pool's parse and bounds check of the result line;
- `judge`, `write`: judging the outcome and writing results/<id>.json;
- `gap`: what is left of the wall time per submission (the pool's turn-around: polling, waiting for the worker
  to fork its next runner, accounting).

Beside it, the floor (`bench_floor.solution_seconds`: the solution over every case, warm, in this process). Not a test.
"""
import argparse
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_chapters import mix  # noqa: E402
from bench.bench_floor import solution_seconds  # noqa: E402


class Timers:
    """Total seconds and calls per phase name."""

    def __init__(self):
        self.total = defaultdict(float)
        self.calls = defaultdict(int)
        self.on = False

    def wrap(self, owner, name, phase):
        """Replace `owner.name` by a timed version that adds to `phase` while timing is on."""
        original = getattr(owner, name)

        def timed(*args, **kwargs):
            started = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                if self.on:
                    self.total[phase] += time.perf_counter() - started
                    self.calls[phase] += 1

        setattr(owner, name, timed)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("chapter", nargs="?", default="01", help="chapter number (default 01)")
    parser.add_argument("--n", type=int, default=30, help="timed submissions (default 30)")
    parser.add_argument("--mix", action="store_true", help="the solution and the fixtures, not N solutions")
    args = parser.parse_args()
    from grader import chapters
    from grader.checks import chapter, probe_module_name
    from grader.grading import judging, outputs
    from grader.grading.batch import grade
    from grader.grading.collect import Inputs
    from grader.grading.course import Course
    from grader.sandbox import SandboxPool, accounting, pool as pool_module
    from grader.sandbox.limits import for_budget

    chapter_id = chapters.find(args.chapter).id
    module = chapter(args.chapter)
    limits = for_budget(module.budget, None)
    sources = mix(chapter_id) if args.mix else mix(chapter_id)[:1]
    timers = Timers()
    timers.wrap(accounting.Accounting, "enter", "enter")
    timers.wrap(accounting.Accounting, "accounted", "accounted")
    timers.wrap(pool_module, "decode_answer", "decode")
    timers.wrap(judging.Judge, "judge_run", "judge")
    timers.wrap(outputs.Report, "add", "write")
    sent, received, child = {}, {}, {}
    original_send, original_message = pool_module.SandboxPool._send, pool_module.SandboxPool._message

    def send(self, worker, item):
        started = time.perf_counter()
        original_send(self, worker, item)
        sent[item[0]] = time.perf_counter()
        if timers.on:
            timers.total["send"] += sent[item[0]] - started - 0  # enter is counted apart below
            timers.calls["send"] += 1

    def message(self, worker, line):
        result = original_message(self, worker, line)
        if result is not None and result is not False:
            received[result.submission_id] = time.perf_counter()
            child[result.submission_id] = result.seconds
        return result

    pool_module.SandboxPool._send, pool_module.SandboxPool._message = send, message
    with tempfile.TemporaryDirectory() as scratch, \
            SandboxPool(probe_module_name(args.chapter), jobs=1, limits=limits) as pool:
        folder = Path(scratch) / "class"
        folder.mkdir()
        for index in range(args.n + 1):
            shutil.copy(sources[index % len(sources)], folder / f"s{index:03d}.py")
        judge = judging.Judge(module, limits)
        report = outputs.Report(Path(scratch) / "out")
        with Inputs([folder], chapter_id, Course()) as inputs:
            first, rest = inputs.submissions[:1], inputs.submissions[1:]
            for submission, verdicts, run in grade(first, pool, judge):
                report.add(submission, verdicts, run)
            timers.on = True
            wall = time.perf_counter()
            for submission, verdicts, run in grade(rest, pool, judge):
                report.add(submission, verdicts, run)
            wall = time.perf_counter() - wall
            timers.on = False
            ids = [submission.submission_id for submission in rest]
    floor = solution_seconds(args.chapter, sources[0].read_text(encoding="utf-8"), repeat=10)
    count = len(ids)
    mean = {phase: timers.total[phase] / count for phase in timers.total}
    mean["send"] = mean.get("send", 0.0) - mean.get("enter", 0.0)
    mean["sandbox"] = sum(received[i] - sent[i] for i in ids) / count
    mean["child"] = sum(child[i] for i in ids) / count
    per = wall / count
    shown = ("enter", "send", "sandbox", "decode", "accounted", "judge", "write")
    mean["gap"] = per - sum(mean.get(phase, 0.0) for phase in shown) + mean.get("decode", 0.0)
    print(f"{chapter_id}: {count} warm submissions ({'mix' if args.mix else 'solution'}), --jobs 1, "
          f"wall per submission {1000 * per:.1f} ms, floor {1000 * floor:.1f} ms ({per / floor:.1f}x)")
    rows = [("enter", "control group made, worker tree moved in"), ("send", "job frame written"),
            ("sandbox", "frame written -> result line read"), ("  child", "  runner's seconds: fork, run, send"),
            ("  runner rest", "  job read, tail: leftovers, result check, wipe"),
            ("decode", "result line parsed and bounds-checked (inside sandbox above)"),
            ("accounted", "out-of-memory check, old group removed"), ("judge", "judge_run"),
            ("write", "results/<id>.json"), ("gap", "rest: polling, next runner, loop")]
    for name, text in rows:
        value = mean["sandbox"] - mean["child"] if name == "  runner rest" else mean.get(name.strip(), 0.0)
        print(f"  {name:14s} {1000 * value:8.2f} ms  {text}")


if __name__ == "__main__":
    main()
