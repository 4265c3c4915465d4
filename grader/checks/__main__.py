"""Self-check from the command line: `python -m selfcheck [PATH] [--json]` in a chapter folder."""
import argparse
import json
import os
import sys
import threading
from pathlib import Path

from . import chapter as load_chapter
from . import chapter_ids, in_process, korean, scoresheet

PY_FILE = "transformer.py"
DEFAULT_TIMEOUT = 120  # seconds: the visible checks take a few seconds, torch's import included
IMPORT_SECONDS = 60  # beyond twice the chapter's budget: torch's import on a slow laptop


def main(argv=None, chapter=None, default_path=None):
    """Run the visible checks on PATH, print the Korean table (or Gradescope JSON); exit 1 on a failure."""
    parser = argparse.ArgumentParser(prog="python -m selfcheck", description="공개 검사로 내 코드를 점검합니다.")
    parser.add_argument("path", nargs="?", default=default_path,
                        help=".py 파일 또는 채운 노트북(.ipynb); 생략하면 transformer.py, 없으면 이 폴더의 노트북")
    parser.add_argument("--json", action="store_true", help="Gradescope results.json 형식으로 출력")
    parser.add_argument("--chapter", default=chapter, help="장 번호 (예: 01)")
    parser.add_argument("--timeout", type=float, default=None,
                        help="이 시간(초)이 지나면 멈춥니다 (기본: 2분, 채점 시간 예산이 큰 장은 더 깁니다)")
    parser.add_argument("--hidden", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    known = chapter_ids()
    chapter = args.chapter or (known[-1] if len(known) == 1 else None)
    if chapter is None:
        parser.error(f"--chapter가 필요합니다 (가능한 장: {', '.join(known)})")
    try:
        path = args.path or default_file(chapter)
    except FileChoiceError as error:
        parser.exit(2, f"{error}\n")
    timer = _time_limit(args.timeout or default_timeout(load_chapter(chapter).budget))
    try:
        outcome, notes = in_process.check(chapter, path, visible_only=not args.hidden)
    finally:
        timer.cancel()
    if args.json:
        print(json.dumps(scoresheet.gradescope(outcome, {"notes": notes} if notes else None), ensure_ascii=False, indent=2))
    else:
        declared = load_chapter(chapter)
        print(scoresheet.table(outcome, heading=f"{chapter} 자가 점검: {path}", notes=notes,
                            case_texts=tuple(declared.case_texts().values()), bugs=tuple(declared.bugs.values())))
        if not all(r.passed for r in outcome):
            print("\n원인을 읽고 코드를 고친 뒤 다시 실행하세요. 숨겨진 검사는 채점 때 실행됩니다.")
    return 0 if all(r.passed for r in outcome) else 1


def default_timeout(budget):
    """Seconds before the self-check stops: two minutes, or more for a chapter whose grading budget is larger
    (the self-check runs in process, torch's import included, on the student's own machine)."""
    return max(DEFAULT_TIMEOUT, IMPORT_SECONDS + 2 * budget.wall_seconds)


class FileChoiceError(Exception):
    """The folder holds several files the self-check could mean; the Korean message lists them."""


def default_file(chapter, folder="."):
    """transformer.py (the .py track); in a notebook folder, the notebook named after the chapter
    (`03_multihead.ipynb` over the copies `03_multihead (1).ipynb`, `03_multihead-Copy1.ipynb`), or the only
    notebook of the chapter. Raises `FileChoiceError` when several could be meant and none has the exact name."""
    folder = Path(folder)
    if (folder / PY_FILE).exists():
        return PY_FILE
    exact = f"{chapter}.ipynb"
    if (folder / exact).exists():
        return exact
    notebooks = sorted(p.name for p in folder.glob("*.ipynb"))
    candidates = [name for name in notebooks if name.startswith(str(chapter)[:2])] or notebooks
    copies = sorted(p.name for p in folder.glob("transformer*.py"))
    if not candidates and len(copies) > 1:
        candidates = copies
    elif not candidates:
        return copies[0] if copies else PY_FILE
    if len(candidates) == 1:
        return candidates[0]
    listed = "\n".join(f"  python -m selfcheck \"{name}\"" for name in candidates)
    raise FileChoiceError(f"이 폴더에 {korean.attach(exact, '이')} 없고, 점검할 수 있는 파일이 {len(candidates)}개 있어 어느 것인지 "
                          f"알 수 없습니다. 점검할 파일의 이름을 붙여 다시 실행하세요:\n{listed}")


def _time_limit(seconds):
    """A timer that ends the self-check after `seconds`, with a Korean explanation (student code may loop forever)."""

    def stop():
        print(f"\n자가 점검을 {seconds:g}초 만에 멈췄습니다: 코드가 끝나지 않습니다. 무한 루프(끝나지 않는 while, "
              "자기 자신을 부르는 함수)나 너무 큰 계산이 없는지 확인하세요. 채점에서도 시간 제한을 넘으면 0점입니다.",
              file=sys.stderr, flush=True)
        os._exit(3)

    timer = threading.Timer(seconds, stop)
    timer.daemon = True
    timer.start()
    return timer


if __name__ == "__main__":
    sys.exit(main())
