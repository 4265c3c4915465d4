"""Self-check from the command line: `python -m selfcheck [PATH] [--json]` in a chapter folder."""
import argparse
import json
import sys

from . import chapter_ids, results, runner


def main(argv=None, chapter=None, default_path="transformer.py"):
    """Run the visible checks on PATH, print the Korean table (or Gradescope JSON); exit 1 on a failure."""
    parser = argparse.ArgumentParser(prog="python -m selfcheck", description="공개 검사로 내 코드를 점검합니다.")
    parser.add_argument("path", nargs="?", default=default_path, help=".py 파일 또는 채운 노트북(.ipynb)")
    parser.add_argument("--json", action="store_true", help="Gradescope results.json 형식으로 출력")
    parser.add_argument("--chapter", default=chapter, help="장 번호 (예: 01)")
    parser.add_argument("--hidden", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    known = chapter_ids()
    chapter = args.chapter or (known[-1] if len(known) == 1 else None)
    if chapter is None:
        parser.error(f"--chapter가 필요합니다 (가능한 장: {', '.join(known)})")
    outcome = runner.run(chapter, args.path, visible_only=not args.hidden)
    if args.json:
        print(json.dumps(results.gradescope(outcome), ensure_ascii=False, indent=2))
    else:
        print(results.table(outcome, heading=f"{chapter} 자가 점검: {args.path}"))
        if not all(r.passed for r in outcome):
            print("\n실패한 검사의 안내(└)를 읽고 코드를 고친 뒤 다시 실행하세요. 숨겨진 검사는 채점 때 실행됩니다.")
    return 0 if all(r.passed for r in outcome) else 1


if __name__ == "__main__":
    sys.exit(main())
