"""Module-level literal tables of a chapter's judge, read from its source (importing it would import torch)."""
import ast
from functools import lru_cache


@lru_cache(maxsize=None)
def literals(chapter_id):
    """{name: value} of the judge's module-level assignments whose value is a Python literal."""
    from grader.checks import HERE

    try:
        tree = ast.parse((HERE / f"ch{str(chapter_id)[:2]}_judge.py").read_text(encoding="utf-8"))
    except (OSError, SyntaxError):
        return {}
    found = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                found[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                pass
    return found
