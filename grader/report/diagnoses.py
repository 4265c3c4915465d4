"""Group diagnoses into re-teachable topics: a chapter's known bug explanation, else the line without its case prefix."""
from collections import Counter
from functools import lru_cache

from . import judge_source
from .results import diagnosis


@lru_cache(maxsize=None)
def vocabulary(chapter_id):
    """(known bug explanations, case descriptions) of the chapter's judge, longest first."""
    tables = _literal_tables(chapter_id)
    bugs = sorted(set(tables.get("BUGS", {}).values()), key=len, reverse=True)
    cases = sorted(set(tables.get("CASE_TEXT", {}).values()), key=len, reverse=True)
    return tuple(bugs), tuple(cases)


def _literal_tables(chapter_id):
    """The judge's BUGS and CASE_TEXT dicts."""
    found = judge_source.literals(chapter_id)
    return {name: found[name] for name in ("BUGS", "CASE_TEXT") if isinstance(found.get(name), dict)}


def topic(line, bugs, cases):
    """The topic of one diagnosis line."""
    for known in bugs:
        if known in line:
            return known
    for case in cases:
        if line.startswith(case + ": "):
            return line[len(case) + 2:].strip()
    return line.strip()


def topics(result, bugs, cases):
    """The distinct topics of one submission's failed checks, in check order."""
    found = []
    for test in result.failed:
        for line in diagnosis(test).splitlines():
            if line.strip():
                found.append(topic(line, bugs, cases))
    return list(dict.fromkeys(found))


def frequent(results, bugs, cases):
    """Counter of topic → number of submissions showing it."""
    counts = Counter()
    for result in results:
        counts.update(topics(result, bugs, cases))
    return counts


def case_text(chapter_id, case):
    """The judge's Korean description of a case (its CASE_TEXT entry), or a generic one."""
    return _literal_tables(chapter_id).get("CASE_TEXT", {}).get(case, f"공개 검사 입력 '{case}'")
