"""`python -m grader grade CHAPTER PATH… [--jobs N | --cluster ADDRESS] [--out DIR] [--json] [--gradebook PATH]`."""
import sys
import time
from pathlib import Path

from grader.checks import find, judge_file, probe_module_name
from grader.checks.scoresheet import number
from grader.report import texts

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2


def run(args):
    """Grade every submission found in args.paths; write results; return the exit status."""
    started = time.monotonic()
    number = str(args.chapter)[:2]
    if not (number.isdigit() and find(judge_file(number))):
        print(f"알 수 없는 장입니다: {args.chapter}", file=sys.stderr)
        return EXIT_USAGE
    if args.jobs < 1:
        print("--jobs는 1 이상이어야 합니다.", file=sys.stderr)
        return EXIT_USAGE

    from contextlib import nullcontext

    from grader.checks import chapter
    from grader.checks.discovery import declared_budget
    from grader.sandbox import SandboxError
    from grader.sandbox.limits import for_budget

    from .course import Course
    from .gradebook_process import GradebookProcess

    # The chapter's budget sets the limits (an instructor's --timeout replaces its times). Read from the judge's
    # text, it lets the warm workers import torch while this process imports the judge (and torch) and collects
    # the inputs, and the gradebook helper imports nbgrader meanwhile; a cluster's workers load it themselves.
    cluster = getattr(args, "cluster", None)
    budget = None if cluster else declared_budget(number)
    module = chapter(number) if budget is None else None
    limits = for_budget(budget or module.budget, args.timeout)
    if cluster:
        from .cluster import Cluster, ClusterError

        cluster_errors = (ClusterError,)
        try:  # before anything is written: an unreachable scheduler leaves no partial output
            pool = Cluster(cluster, number, args.timeout, limits, trusted=getattr(args, "trusted", False))
        except ClusterError as error:
            print(f"오류: {error}", file=sys.stderr)
            return EXIT_PROBLEMS
        print(f"Dask 클러스터 {cluster}: 워커 스레드 {pool.threads()}개가 채점합니다.", file=sys.stderr)
    else:
        cluster_errors = ()
        try:  # refuses here, before anything is written, where nothing can contain untrusted code
            pool = _started_pool(number, args, limits)
            if module is None:
                module = _loaded(chapter, number, pool)
                if for_budget(module.budget, args.timeout) != limits:  # the loaded chapter's budget wins
                    pool.close()
                    limits = for_budget(module.budget, args.timeout)
                    pool = _started_pool(number, args, limits)
        except SandboxError as error:
            print(error, file=sys.stderr)
            return EXIT_PROBLEMS
    course = Course()
    gradebook_path, asked_by = _gradebook_path(args.gradebook, course)
    helper = GradebookProcess(gradebook_path, Path.cwd()) if gradebook_path is not None else nullcontext()
    with pool, helper:
        from .collect import Inputs

        with Inputs(args.paths, module.id, course) as inputs:
            for problem in inputs.problems:
                print(f"오류: {problem}", file=sys.stderr)
            if not inputs.submissions:
                print("채점할 제출물이 없습니다.", file=sys.stderr)
                return EXIT_USAGE
            try:
                report = _grade(inputs.submissions, pool, module, limits, args.out)
            except SandboxError as error:
                print(f"샌드박스 오류로 채점을 멈췄습니다: {error}", file=sys.stderr)
                return EXIT_PROBLEMS
            except cluster_errors as error:  # the cluster stopped answering, or a task failed there
                print(f"클러스터 오류로 채점을 멈췄습니다: {error}", file=sys.stderr)
                return EXIT_PROBLEMS
        csv_path = report.write_csv()
        status = EXIT_PROBLEMS if inputs.problems else EXIT_OK
        if gradebook_path is not None:
            status = max(status, _write_gradebook(helper, gradebook_path, asked_by, module, report))
    if not args.no_feedback:
        _write_feedback(args.out, module.id, time.monotonic() - started, getattr(args, "similarity", None))
    if args.json:
        report.stream_json(sys.stdout)
    else:
        _summary(report, csv_path)
    return status


def _started_pool(number, args, limits):
    """The local sandbox pool of the batch, started (its workers warm up in the background)."""
    from grader.sandbox import SandboxPool

    pool = SandboxPool(probe_module=probe_module_name(number), jobs=args.jobs, limits=limits,
                       trusted=getattr(args, "trusted", False))
    pool.start()
    return pool


def _loaded(chapter, number, pool):
    """The chapter's contract, loaded while `pool` warms up (closed if loading fails)."""
    try:
        return chapter(number)
    except BaseException:
        pool.close()
        raise


def _write_feedback(out, chapter_id, wall_seconds, similarity=None):
    """Feedback pages per student and the class report; in an nbgrader course also where release_feedback looks."""
    from grader.report import write_all

    course_root = Path.cwd() if (Path.cwd() / "submitted").is_dir() else None
    written = write_all(out, chapter_id, course_root=course_root, wall_seconds=wall_seconds, similarity=similarity)
    pages = len(written["feedback"])
    print(f"피드백: {out}/feedback/<학생>/feedback.html ({pages}명), 학급 보고서: {out}/report.html "
          f"(페이지 {written['seconds']:.2f}초, 학생당 {1000 * written['seconds'] / max(pages, 1):.1f} ms)",
          file=sys.stderr)


def _grade(submissions, pool, module, limits, out):
    from .progress import Progress
    from .outputs import Report

    from .judging import Judge

    judge = Judge(module, limits)  # here too for a cluster: a result that cannot be written is a grader error
    if hasattr(pool, "grade"):  # a cluster.Cluster: its workers judge, next to their sandboxes
        graded = pool.grade(submissions)
    else:
        from .batch import grade

        graded = grade(submissions, pool, judge)
    report = Report(out)
    progress = Progress(len(submissions))
    for submission, verdicts, run in graded:
        try:
            row = report.add(submission, verdicts, run)
        except Exception:  # noqa: BLE001 — e.g. a result that cannot be written: that submission's status only
            row = report.add(submission, judge.grader_error(submission.submission_id), run)
        progress.update(row)
        if run is not None:
            _keep_source(report, submission)
    progress.finish()
    return report


def _keep_source(report, submission):
    """Keep the graded source for the class report (read again: the pipeline holds no source after sending it)."""
    from grader.checks.loading import SubmissionError

    try:
        report.keep_source(submission.submission_id, submission.read())
    except (SubmissionError, OSError):
        pass


def _gradebook_path(option, course):
    """(the gradebook to write, who asked for it): --gradebook PATH, else the course's
    `c.GraderGrade.gradebook` setting in nbgrader_config.py, else (None, None): nothing is written."""
    if option:
        return Path(option), "--gradebook"
    setting = course.gradebook_setting()
    if setting:
        return course.root / setting, f"{course.root / 'nbgrader_config.py'}의 c.GraderGrade.gradebook"
    return None, None


def _write_gradebook(writer, path, asked_by, module, report):
    from .gradebook import GradebookError

    points = {check.name: check.points for check in module.checks}
    try:
        count = writer.finish(module.id, points, report.rows)
    except GradebookError as error:
        print(f"gradebook에 기록하지 못했습니다: {error}", file=sys.stderr)
        return EXIT_PROBLEMS
    print(f"gradebook: {path}에 학생 {count}명의 점수를 기록했습니다 ({asked_by}).", file=sys.stderr)
    return EXIT_OK


def _summary(report, csv_path):
    rows = report.sorted_rows()
    counts = {}
    for row in rows:
        counts[row.status] = counts.get(row.status, 0) + 1
    mean = sum(row.score for row in rows) / len(rows) if rows else 0.0
    statuses = ", ".join(f"{texts.status_word(name)} {count}건" for name, count in sorted(counts.items()))
    print(f"제출 {len(rows)}건 ({statuses}), 평균 {number(mean)}점")
    print(f"결과: {report.results_dir}/<제출>.json, {csv_path}")
