"""Judge one sandbox run in the grader process: outcome → check results, plus the student's picture data."""
import hashlib
import marshal
import sys
import traceback
from collections import OrderedDict
from dataclasses import dataclass

from grader.checks import framework, references
from grader.report import picture
from grader.sandbox import status as sandbox_status

UNREADABLE = "unreadable"
GRADER_ERROR = "grader_error"
GRADER_ERROR_MESSAGE = "채점기 내부 오류로 이 제출물을 채점하지 못했습니다. 학생의 잘못이 아닐 수 있으니 조교에게 알려 주세요."
CACHE_SIZE = 512  # distinct outcomes remembered: a class repeats the same few bugs (and identical right answers)

STATUS_NAMES = {
    sandbox_status.TIMEOUT: "시간 초과",
    sandbox_status.MEMORY: "메모리 초과",
    sandbox_status.CRASHED: "비정상 종료",
    sandbox_status.NO_RESULT: "결과 없이 종료",
    sandbox_status.OUTPUT_LIMIT: "출력 초과",
    sandbox_status.INVALID_RESULT: "채점할 수 없는 결과",
    sandbox_status.TAMPERED: "채점기 변조",
}


@dataclass(frozen=True)
class Verdicts:
    """A submission's check results, the status they were judged under, and the picture data."""

    results: list
    status: str
    picture: dict
    failure: str | None = None  # the Korean reason the whole submission scored 0, if so
    notes: tuple = ()  # IPython commands the sandbox skipped (Korean, for the student)
    tampered: tuple = ()  # what the student's code replaced in the grader or its libraries (evidence lines)


class Judge:
    """A chapter's checks and references, loaded once; judges outcomes one at a time."""

    def __init__(self, chapter, limits):
        import torch

        # The judge runs thousands of tiny tensor ops; torch's default 2+ intra-op threads spin and make
        # each one ~7× slower (measured: matmul 1.3 ms vs 0.19 ms), and they compete with the sandbox workers.
        torch.set_num_threads(1)
        self.chapter = getattr(chapter, "CHAPTER", chapter)  # a contract.Chapter (or a judge module declaring one)
        self.limits = limits
        self.references = references.load(self.chapter.id)
        self._cache = OrderedDict()
        self.declaration = picture.declared(self.chapter.id)

    @property
    def cases(self):
        return self.chapter.probe.case_names()

    def outcome(self, run):
        """The outcome dict to judge for a sandbox RunResult (a Korean failure when the run did not end well)."""
        if run.status == sandbox_status.OK and isinstance(run.result, dict):
            return run.result
        name = STATUS_NAMES.get(run.status, run.status)
        try:
            detail = sandbox_status.message(run.status, self.limits)
        except KeyError:
            detail = ""
        return {"failure": f"{name}: {detail}".rstrip(": ")}

    def judge_run(self, run):
        """Verdicts for a sandbox RunResult; a bug of ours while judging it costs only this submission."""
        try:
            outcome = self.outcome(run)
            notes = tuple(str(note) for note in outcome.get("notes") or ())
            return Verdicts(self.judge(outcome), run.status, self.picture(outcome), framework.outcome_failure(outcome),
                            notes, evidence(run))
        except Exception:
            return self.grader_error(run.submission_id)

    def grader_error(self, submission_id):
        """Verdicts for a submission the grader itself failed on: 0 points, status "grader_error", and the traceback
        on stderr (the instructor's log)."""
        print(f"grader: 제출물 {submission_id}을(를) 채점하다 채점기 내부 오류가 났습니다:\n{traceback.format_exc()}",
              file=sys.stderr, flush=True)
        outcome = {"failure": GRADER_ERROR_MESSAGE}
        return Verdicts(self._judge(outcome), GRADER_ERROR, self.picture(outcome), GRADER_ERROR_MESSAGE)

    def judge_unreadable(self, message):
        """Verdicts for a submission that could not be read (0 points, the Korean reason on every check)."""
        outcome = {"failure": message}
        return Verdicts(self.judge(outcome), UNREADABLE, self.picture(outcome), message)

    def judge(self, outcome):
        """The check results of an outcome; identical outcomes are judged once (the judge is deterministic).

        The key is the outcome's marshal bytes (plain data: types, order and float bits kept, so equal bytes are an
        equal outcome; an equal outcome in another key order is only judged again): 100x cheaper than JSON with
        sorted keys, which cost a cheap chapter's submission about as much as its judging."""
        key = hashlib.sha256(marshal.dumps(outcome)).hexdigest()
        if key in self._cache:
            self._cache.move_to_end(key)
            return list(self._cache[key])
        results = self._judge(outcome)
        self._cache[key] = tuple(results)
        if len(self._cache) > CACHE_SIZE:
            self._cache.popitem(last=False)
        return results

    def _judge(self, outcome):
        """framework.judge on every check; a judge that crashes costs only its own check (and is reported)."""
        chapter = self.chapter
        try:
            return framework.judge(chapter.checks, chapter.probe, outcome, self.references)
        except Exception:  # fall back to one check at a time
            pass
        results = []
        for check in chapter.checks:
            try:
                results.extend(framework.judge([check], chapter.probe, outcome, self.references))
            except Exception as error:
                print(f"grader: 검사 {check.name}의 채점 코드가 실패했습니다: {type(error).__name__}: {error}",
                      file=sys.stderr)
                results.append(framework.CheckResult(check.name, check.title, check.points, 0.0, check.visible,
                                                     "채점기 내부 오류로 이 검사를 채점하지 못했습니다. 조교에게 알려 주세요."))
        return results

    def picture(self, outcome):
        """{"case", "label", "student"}: the student's declared tensor for the feedback page ({} without a picture)."""
        return picture.picture_data(outcome, self.declaration)


def evidence(run):
    """The tamper evidence lines of a run (at most 50, each at most 300 characters); () when there are none."""
    found = run.result.get("tampered") if run.status == sandbox_status.TAMPERED and isinstance(run.result, dict) else ()
    return tuple(str(line)[:300] for line in found[:50]) if isinstance(found, list) else ()
