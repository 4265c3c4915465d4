"""The Korean sentence for an exception the student's code raised, shared by every chapter's judge."""
from .loading import place


def runtime_error(evidence, case, error):
    """`실행 중 오류가 났습니다 (NameError: …, 코드 셀 3의 5번째 줄: `…`).`

    The exception's message is shown for a visible case, and for a hidden case only when a visible case raised
    the very same message (so one crash reads the same on every check, and nothing hidden is revealed).
    """
    detail = error["type"]
    if error.get("message") and (_visible(evidence, case) or _seen_on_visible_case(evidence, error)):
        detail += f": {error['message']}"
    where = place(error.get("where"))
    return f"실행 중 오류가 났습니다 ({detail}{', ' + where if where else ''})."


def _visible(evidence, case):
    return evidence.probe.CASES[case].visible


def _seen_on_visible_case(evidence, error):
    """Whether a visible case the check may read (its `cases` or `reads`) raised the same exception."""
    for case in evidence.probe.case_names(visible_only=True):
        if not evidence.may_read(case):
            continue
        seen = evidence.trace(case).get("error") or {}
        if (seen.get("type"), seen.get("message")) == (error["type"], error["message"]):
            return True
    return False
