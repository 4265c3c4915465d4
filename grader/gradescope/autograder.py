"""Grade /autograder/submission inside Gradescope's container (run as root by run_autograder); always write results.json.

The grading is `python -m grader grade`'s pipeline for one submission: the sandbox pool runs the
student's code (bubblewrap where it works; otherwise a plain subprocess as the unprivileged
`grader-student` account without network where `unshare` may cut it; `grader/sandbox/modes.py` and
`launch_plain.py`), the judge runs here, as root,
reading references the student's account cannot open (/autograder/source is 0700 root).
"""
import json
import os
import pwd
import sys
import time
import traceback
from pathlib import Path

from .settings import FALLBACK_UID, Settings

AUTOGRADER = Path("/autograder")
SOURCE = AUTOGRADER / "source"
SUBMISSION = AUTOGRADER / "submission"
RESULTS = AUTOGRADER / "results"
BUBBLEWRAP_SWITCH = "GRADER_BUBBLEWRAP"  # "0": never use bubblewrap, "1": require it; unset: when it works
GRADER_ERROR = "채점기 내부 오류로 채점하지 못했습니다. 다시 제출해 보고, 그래도 같으면 조교에게 알려 주세요."


def lock_down():
    """Only root may enter the grader's files; only root may write results."""
    for path, mode in ((SOURCE, 0o700), (RESULTS, 0o755)):
        os.chown(path, 0, 0)
        os.chmod(path, mode)


def student_uid(settings):
    """The uid the student's code runs as in the subprocess fallback (None when we are not root)."""
    if os.geteuid() != 0:
        return None
    try:
        return pwd.getpwnam(settings.student_user).pw_uid
    except KeyError:
        return FALLBACK_UID


def bubblewrap_choices():
    """The sandboxes to try in turn: as GRADER_BUBBLEWRAP says, else bubblewrap if it works, then the fallback."""
    switch = os.environ.get(BUBBLEWRAP_SWITCH, "")
    return {"0": [False], "1": [True]}.get(switch, [None, False])


def run_sandboxed(submission, judge, settings, limits, use_bwrap):
    """(submission, verdicts, run) of one sandboxed run; every process of the student's account is killed after it."""
    from grader.checks import probe_module_name
    from grader.grading.batch import grade as grade_all
    from grader.sandbox import SandboxPool
    from grader.sandbox.processes import kill_uid

    uid = student_uid(settings)
    try:
        with SandboxPool(probe_module_name(settings.number), jobs=1, limits=limits, use_bwrap=use_bwrap,
                         run_as=uid) as pool:
            for graded in grade_all([submission], pool, judge):
                return graded
    finally:
        if uid is not None:
            kill_uid(uid)  # anything the student's code left behind, wherever it went
    raise RuntimeError("the sandbox returned no result")


def grade(settings):
    """Grade the submission; return the grading document `python -m grader grade` writes for it."""
    from grader.checks import chapter
    from grader.grading.judging import Judge
    from grader.grading.outputs import document
    from grader.sandbox import SandboxError
    from grader.sandbox.limits import for_budget

    from .submission import find

    module = chapter(settings.number)
    # config.json holds the chapter's wall time unless the instructor gave --timeout, which replaces the budget's times
    given = None if settings.wall_seconds == module.budget.wall_seconds else settings.wall_seconds
    limits = for_budget(module.budget, given)
    submission, problem = find(SUBMISSION, module.id)
    judge = Judge(module, limits)
    if problem:  # nothing to run: no sandbox needed
        return document(submission, judge.judge_unreadable(problem))
    choices = bubblewrap_choices()
    for number, use_bwrap in enumerate(choices, 1):
        try:
            return document(*run_sandboxed(submission, judge, settings, limits, use_bwrap))
        except SandboxError:  # e.g. bubblewrap starts but its workers may not unshare: try the fallback
            if number == len(choices):
                raise
            traceback.print_exc()


def write_results(data):
    """results.json, written whole (a temporary file renamed over it)."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    temporary = RESULTS / ".results.json.tmp"
    temporary.write_text(json.dumps(data, ensure_ascii=False, indent=2, allow_nan=False) + "\n", encoding="utf-8")
    os.replace(temporary, RESULTS / "results.json")


def main():
    """Grade and write results.json, whatever happens; the exit status is 0 once results.json is written."""
    started = time.monotonic()
    from .document import failure_json, results_json

    try:
        settings = Settings.load(SOURCE / "config.json")
        lock_down()
        data = results_json(grade(settings), settings.hidden_visibility, time.monotonic() - started)
    except BaseException:  # the student must still get a result
        traceback.print_exc()
        data = failure_json(GRADER_ERROR, time.monotonic() - started)
    write_results(data)
    print(f"score {round(float(data['score']), 2):g} ({data['extra_data'].get('status')}, sandbox {data['extra_data'].get('sandbox')})")
    return 0


if __name__ == "__main__":
    sys.stdout.flush()
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)  # everything is written; skip torch's slow teardown
