"""The chapters this copy of the checks holds, found by file name (no registration), and their loaded contracts."""
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
