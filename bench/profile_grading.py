"""Where a submission's time goes in the grader process: cProfile over a warm batch, plus the sandbox's share.

    .venv/bin/python bench/profile_grading.py               # chapter 01, 20 copies of the solution, --jobs 1
    .venv/bin/python bench/profile_grading.py 09 --n 10 --top 40

Runs the batch as `grade` does (collect.Inputs, SandboxPool, Judge, batch.grade, Report.add) in this process:
one submission first so the pool is warm, then N under cProfile. Prints the wall time per submission, the grader
process's CPU per submission (judging, JSON, writing results, waiting on the pool), the mean `seconds` the
sandbox reports (fork to result, the student's code included) and the top functions by cumulative time. The
sandbox's own processes are not profiled here (py-spy can: `py-spy record --subprocesses -- python -m grader
grade …`). Not a test.
"""
import argparse
import cProfile
import io
import pstats
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("chapter", nargs="?", default="01", help="chapter number (default 01)")
    parser.add_argument("--n", type=int, default=20, help="profiled submissions (default 20)")
    parser.add_argument("--top", type=int, default=25, help="functions to print (default 25)")
    args = parser.parse_args()
    from grader import chapters
    from grader.checks import chapter, probe_module_name
    from grader.grading.collect import Inputs
    from grader.grading.course import Course
    from grader.grading.judging import Judge
    from grader.grading.batch import grade
    from grader.grading.outputs import Report
    from grader.sandbox import SandboxPool
    from grader.sandbox.limits import for_budget

    chapter_id = chapters.find(args.chapter).id
    module = chapter(args.chapter)
    limits = for_budget(module.budget, None)
    solution = ROOT / "solutions" / chapter_id / "transformer.py"
    with tempfile.TemporaryDirectory() as scratch, \
            SandboxPool(probe_module_name(args.chapter), jobs=1, limits=limits) as pool:
        folder = Path(scratch) / "class"
        folder.mkdir()
        for index in range(args.n + 1):
            shutil.copy(solution, folder / f"s{index:03d}.py")
        judge = Judge(module, limits)
        report = Report(Path(scratch) / "out")
        with Inputs([folder], chapter_id, Course()) as inputs:
            first, rest = inputs.submissions[:1], inputs.submissions[1:]
            for submission, verdicts, run in grade(first, pool, judge):  # warm: the pool is up, torch loaded
                report.add(submission, verdicts, run)
            profile, seconds = cProfile.Profile(), []
            wall, cpu = time.perf_counter(), time.process_time()
            profile.enable()
            for submission, verdicts, run in grade(rest, pool, judge):
                report.add(submission, verdicts, run)
                seconds.append(run.seconds if run else 0.0)
            profile.disable()
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    count = max(1, len(seconds))
    print(f"{chapter_id}: {count} warm submissions, --jobs 1 (profiling slows the grader process somewhat)")
    print(f"  wall per submission            {1000 * wall / count:8.1f} ms")
    print(f"  grader-process CPU per sub     {1000 * cpu / count:8.1f} ms  (judging, JSON, results, pool I/O)")
    print(f"  sandbox `seconds` per sub      {1000 * sum(seconds) / count:8.1f} ms  (fork to result, in the sandbox)")
    text = io.StringIO()
    pstats.Stats(profile, stream=text).sort_stats("cumulative").print_stats(args.top)
    print(text.getvalue())


if __name__ == "__main__":
    main()
