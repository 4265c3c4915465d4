"""`python -m grader` — build the course, check one submission, grade a class, run the demo."""
import argparse
import sys


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m grader", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    build = commands.add_parser("build", help="regenerate exercises/, release/ and reference outputs from solutions/")
    build.add_argument("--check", action="store_true", help="write nothing; fail if a generated file is out of date")
    build.add_argument("--no-release", action="store_true", help="skip nbgrader generate_assignment (faster)")

    check = commands.add_parser("check", help="학생용 자가 점검: 공개 검사를 실행합니다")
    check.add_argument("chapter", help="chapter id, e.g. 01 or 01_attention")
    check.add_argument("path", nargs="?", help=".py file or filled-in notebook (default: exercises/<chapter>/transformer.py)")
    check.add_argument("--json", action="store_true", help="print Gradescope results.json")
    check.add_argument("--hidden", action="store_true", help="instructors: run the hidden checks too")

    _add_later_commands(commands)
    args = parser.parse_args(argv)
    return args.handler(args) if hasattr(args, "handler") else _dispatch(args)


def _add_later_commands(commands):
    """Commands implemented in their own modules register themselves here."""
    try:
        from grader.grading.cli import add_parser as add_grade
    except ImportError:
        return
    add_grade(commands)
    try:
        from grader.demo import add_parser as add_demo
    except ImportError:
        return
    add_demo(commands)


def _dispatch(args):
    if args.command == "build":
        from grader.build.pipeline import run

        return run(check=args.check, release=not args.no_release)
    if args.command == "check":
        return _check(args)
    raise SystemExit(f"unknown command {args.command}")


def _check(args):
    from grader import chapters, paths
    from grader.checks.__main__ import main as selfcheck

    try:
        chapter = chapters.find(args.chapter)
    except chapters.UnknownChapter as error:
        print(f"알 수 없는 장입니다: {error}", file=sys.stderr)
        return 2
    path = args.path or str(paths.EXERCISES / chapter.id / "transformer.py")
    return selfcheck([path, "--chapter", chapter.id] + ["--json"] * args.json + ["--hidden"] * args.hidden)
