"""The chapters this copy of the checks holds, found by file name (no registration), and their loaded contracts."""
import ast
import importlib

from .naming import CHAPTER_FILE, FOLDERS, find, judge_file, judge_module_name


def chapter_ids():
    """The chapters this copy of the checks knows, e.g. ['01_attention']."""
    names = (path.name for folder in FOLDERS for path in folder.iterdir())
    numbers = sorted({m.group(1) for m in map(CHAPTER_FILE.match, names) if m})
    return [chapter(number).id for number in numbers if find(judge_file(number))]


def judge_module(chapter_id):
    """The judge module of chapter `01` or `01_attention`."""
    number = str(chapter_id)[:2]
    if not find(judge_file(number)):
        raise LookupError(f"이 검사 모음에는 {chapter_id} 장의 검사가 없습니다.")
    return importlib.import_module(judge_module_name(number))


def chapter(chapter_id):
    """The `contract.Chapter` of chapter `01` or `01_attention` (checked when its judge loads)."""
    from .contract import Chapter, ChapterError

    declared = getattr(judge_module(chapter_id), "CHAPTER", None)
    if not isinstance(declared, Chapter):
        raise ChapterError(f"{judge_file(str(chapter_id)[:2])} must define CHAPTER = Chapter(...)")
    return declared


def declared_budget(chapter_id):
    """The `contract.Budget` chapter `01` declares, read from its judge file's text without importing it (nor torch),
    so `grade` can start its sandbox while it imports the judge; None where the declaration is not plain literals
    (then ask `chapter(...)`). tests/checks/test_chapters.py holds it equal to the loaded chapter's budget."""
    from .contract import Budget, ChapterError

    tree = ast.parse(find(judge_file(str(chapter_id)[:2])).read_text(encoding="utf-8"))
    calls = [node for node in ast.walk(tree)
             if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Budget"]
    if not calls:
        return Budget()  # Chapter's default
    if len(calls) > 1 or calls[0].args or not all(keyword.arg for keyword in calls[0].keywords):
        return None
    try:
        return Budget(**{keyword.arg: ast.literal_eval(keyword.value) for keyword in calls[0].keywords})
    except (ValueError, TypeError, ChapterError):
        return None
