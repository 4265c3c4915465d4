"""`python -m grader.report DIR --chapter 01`: (re)write feedback pages and the class report of a graded folder."""
import argparse

from . import write_all


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m grader.report", description=__doc__)
    parser.add_argument("out", help="the grading output folder (holds results/*.json)")
    parser.add_argument("--chapter", required=True, help="chapter id, e.g. 01 or 01_attention")
    parser.add_argument("--course", default=None, help="nbgrader course root: also place pages under its feedback/")
    parser.add_argument("--wall-seconds", type=float, default=None, help="wall time of the grading run, for the report")
    args = parser.parse_args(argv)
    done = write_all(args.out, args.chapter, course_root=args.course, wall_seconds=args.wall_seconds)
    print(f"feedback: {len(done['feedback'])} pages under {args.out}/feedback/; class report: {done['report']}")
    if done["nbgrader"]:
        print(f"nbgrader: {len(done['nbgrader'])} files under {args.course}/feedback/")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
