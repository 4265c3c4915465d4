"""Group diagnoses into re-teachable topics: a chapter's known bug explanation, else the line without its case prefix."""
from collections import Counter
from functools import lru_cache

from grader.checks.scoresheet import known_text, merge_errors, ranked

from .result_files import diagnosis


@lru_cache(maxsize=None)
def vocabulary(chapter_id):
    """(known bug explanations, case descriptions) of the chapter's contract, longest first."""
    declared = _chapter(chapter_id)
    bugs = sorted(set(declared.bugs.values()), key=len, reverse=True)
    cases = sorted(set(declared.case_texts().values()), key=len, reverse=True)
    return tuple(bugs), tuple(cases)


def _chapter(chapter_id):
    from grader.checks import chapter

    return chapter(chapter_id)


def topic(line, bugs, cases):
    """The topic of one diagnosis line: the one known bug text it holds, else the line without its case prefix."""
    known = known_text(line, bugs)
    if known:
        return known
    for case in cases:
        if line.startswith(case + ": "):
            return line[len(case) + 2:].strip()
    return line.strip()


def topics(result, bugs, cases):
    """The distinct topics of one submission's failed checks, ranked as the self-check ranks its causes
    (`grader.checks.scoresheet.ranked`: known bugs first, the generic one only when nothing else was found)."""
    grouped = {}
    for test in result.failed:
        for line in diagnosis(test).splitlines():
            if line.strip():
                grouped.setdefault(topic(line, bugs, cases), ([], []))
    return [cause for cause, _, _ in ranked(merge_errors(grouped), bugs)]


def frequent(results, bugs, cases):
    """Counter of topic → number of submissions showing it."""
    counts = Counter()
    for result in results:
        counts.update(topics(result, bugs, cases))
    return counts


def case_text(chapter_id, case):
    """The chapter's Korean description of a case (its probe case's text), or a generic one."""
    return _chapter(chapter_id).case_texts().get(case) or f"공개 검사 입력 '{case}'"
