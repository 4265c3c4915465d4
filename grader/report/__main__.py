"""`python -m grader.report DIR --chapter 01`: (re)write feedback pages and the class report of a graded folder."""
import argparse

from . import write_all


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m grader.report", description=__doc__)
    parser.add_argument("out", help="the grading output folder (holds results/*.json)")
    parser.add_argument("--chapter", required=True, help="chapter id, e.g. 01 or 01_attention")
    parser.add_argument("--course", default=None, help="nbgrader course root: also place pages under its feedback/")
    parser.add_argument("--wall-seconds", type=float, default=None, help="wall time of the grading run, for the report")
    parser.add_argument("--similarity", type=float, default=None,
                        help="list pairs of submissions at least this similar, 0-1 (default 0.5; chapters 03 on)")
    args = parser.parse_args(argv)
    done = write_all(args.out, args.chapter, course_root=args.course, wall_seconds=args.wall_seconds,
                     similarity=args.similarity)
    print(f"피드백: {args.out}/feedback/ 아래 {len(done['feedback'])}명, 학급 보고서: {done['report']} "
          f"({done['seconds']:.2f}초)")
    if done["nbgrader"]:
        print(f"nbgrader: {args.course}/feedback/ 아래 파일 {len(done['nbgrader'])}개")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
