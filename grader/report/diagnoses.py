"""Group diagnoses into re-teachable topics: a chapter's known bug explanation, else the line without its case prefix."""
import ast
from collections import Counter
from functools import lru_cache

from .results import diagnosis


@lru_cache(maxsize=None)
def vocabulary(chapter_id):
    """(known bug explanations, case descriptions) of the chapter's judge, longest first."""
    tables = _literal_tables(chapter_id)
    bugs = sorted(set(tables.get("BUGS", {}).values()), key=len, reverse=True)
    cases = sorted(set(tables.get("CASE_TEXT", {}).values()), key=len, reverse=True)
    return tuple(bugs), tuple(cases)


def _literal_tables(chapter_id):
    """The judge's BUGS and CASE_TEXT dicts, read from its source (importing it would import torch)."""
    from grader.checks import HERE

    try:
        tree = ast.parse((HERE / f"ch{str(chapter_id)[:2]}_judge.py").read_text(encoding="utf-8"))
    except (OSError, SyntaxError):
        return {}
    tables = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            if node.targets[0].id in ("BUGS", "CASE_TEXT"):
                try:
                    tables[node.targets[0].id] = ast.literal_eval(node.value)
                except ValueError:
                    pass
    return tables


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
