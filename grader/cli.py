"""`python -m grader` — build the course, check one submission, grade a class, run the demo."""
import argparse
import sys


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m grader", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    build = commands.add_parser("build", help="regenerate exercises/, release/ and reference outputs from solutions/")
    build.add_argument("chapters", nargs="*", metavar="CHAPTER",
                       help="build only these chapters, e.g. 05 or 05_embeddings (default: all; a leftover file in a "
                            "shared folder is found by a whole build only)")
    build.add_argument("--check", action="store_true", help="write nothing; fail if a generated file is out of date")
    build.add_argument("--no-release", action="store_true", help="skip nbgrader generate_assignment (faster)")

    check = commands.add_parser("check", help="학생용 자가 점검: 공개 검사를 실행합니다")
    check.add_argument("chapter", help="chapter id, e.g. 01 or 01_attention")
    check.add_argument("path", nargs="?", help=".py file or filled-in notebook (default: exercises/<chapter>/transformer.py)")
    check.add_argument("--json", action="store_true", help="print Gradescope results.json")
    check.add_argument("--hidden", action="store_true", help="instructors: run the hidden checks too")

    grade = commands.add_parser("grade", help="grade submissions in the sandbox (visible + hidden checks)")
    grade.add_argument("chapter", help="chapter id, e.g. 01 or 01_attention")
    grade.add_argument("paths", nargs="+", help=".py, .ipynb, an nbgrader submitted/ tree, or an LMS zip")
    grade.add_argument("--jobs", type=int, default=2, help="parallel sandboxed workers (default 2; local runs)")
    grade.add_argument("--cluster", default=None, metavar="ADDRESS",
                       help="grade on a Dask distributed cluster: its scheduler's address, e.g. tcp://host:8786 "
                            "(each worker thread grades one submission at a time; see README)")
    grade.add_argument("--out", default="graded", help="output folder (default graded/)")
    grade.add_argument("--json", action="store_true", help="print a JSON array of results on stdout")
    grade.add_argument("--gradebook", default=None, help="nbgrader gradebook.db to write scores into")
    grade.add_argument("--timeout", type=float, default=None, help="wall-clock seconds per submission, replacing the chapter's budget (default: the chapter's, 20 unless it declares one)")
    grade.add_argument("--no-feedback", action="store_true", help="skip feedback pages and the class report")
    grade.add_argument("--similarity", type=float, default=None,
                       help="class report: list pairs of submissions at least this similar, 0-1 (default 0.5; chapters 03 on)")
    grade.add_argument("--trusted", action="store_true",
                       help="where student code cannot be contained (no bubblewrap, no root namespaces), grade it anyway "
                            "as plain subprocesses: only for code you trust")

    gradescope = commands.add_parser("gradescope", help="write a Gradescope autograder zip for a chapter")
    gradescope.add_argument("chapter", help="chapter id, e.g. 01 or 01_attention")
    gradescope.add_argument("--out", default=None, help="zip to write (default autograder-NN.zip)")
    gradescope.add_argument("--hidden-visibility", default="after_published",
                            choices=("hidden", "after_due_date", "after_published", "visible"),
                            help="when students see the hidden checks (default after_published)")
    gradescope.add_argument("--timeout", type=float, default=None, help="wall-clock seconds for the student's code (default: the chapter's budget)")

    demo = commands.add_parser("demo", help="the main job on the bundled sample class")
    demo.add_argument("--out", default="demo-out", help="output folder (default demo-out/)")

    args = parser.parse_args(argv)
    return _dispatch(args)


def _dispatch(args):
    if args.command == "build":
        from grader import chapters
        from grader.publish.generated import run

        try:
            only = [chapters.find(name).id for name in args.chapters] or None
        except chapters.UnknownChapter as error:
            print(error, file=sys.stderr)
            return 2
        return run(check=args.check, release=not args.no_release, only=only)
    if args.command == "check":
        return _check(args)
    if args.command == "grade":
        from grader.grading.command import run as grade

        return _exit_now(grade(args))
    if args.command == "gradescope":
        from grader.gradescope.bundle import run as gradescope

        return gradescope(args.chapter, args.out, args.hidden_visibility, args.timeout)
    if args.command == "demo":
        from grader.demo import run as demo

        return demo(args)
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


def _exit_now(status):
    """End the process at once: everything is written and every child is gone, and tearing down torch's
    and nbgrader's module state costs about half a second per run."""
    import os

    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)
