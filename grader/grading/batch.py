"""Drive a batch: read each source just in time, run it in the sandbox pool, judge it here; yield as results come."""
from collections import deque

from grader.checks.loading import SubmissionError


class _Feeder:
    """The pool's input: reads sources one at a time; unreadable submissions are set aside, never sent."""

    def __init__(self, submissions, cases):
        self.submissions = iter(submissions)
        self.cases = list(cases)
        self.in_flight = {}
        self.unreadable = deque()

    def __iter__(self):
        for submission in self.submissions:
            try:
                source = submission.read()
            except SubmissionError as error:
                self.unreadable.append((submission, str(error)))
                continue
            except OSError as error:
                self.unreadable.append((submission, f"제출 파일을 읽을 수 없습니다 ({type(error).__name__})."))
                continue
            self.in_flight[submission.submission_id] = submission
            yield submission.submission_id, source, self.cases


def grade(submissions, pool, judge):
    """Yield (submission, verdicts, run or None) for every submission, in the order they finish."""
    feeder = _Feeder(submissions, judge.cases)

    def set_aside():
        while feeder.unreadable:
            submission, message = feeder.unreadable.popleft()
            yield submission, judge.judge_unreadable(message), None

    for run in pool.run(feeder):
        yield from set_aside()
        submission = feeder.in_flight.pop(run.submission_id)
        yield submission, judge.judge_run(run), run
    yield from set_aside()
