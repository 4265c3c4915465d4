"""Split a chapter's Korean text (`chapter.md`) at its `<!-- cell: NAME -->` markers."""
import ast
import re

MARKER = re.compile(r"^<!-- cell: (\w+) -->\s*$", re.MULTILINE)
SLOTS = ("diff", "solution", "demo", "checks")


def parts(chapter):
    """[("markdown", text) | ("slot", name), ...] in the order of the chapter text."""
    text = chapter.text.read_text(encoding="utf-8")
    pieces = MARKER.split(text)
    out = []
    for index, piece in enumerate(pieces):
        if index % 2:
            if piece not in SLOTS:
                raise ValueError(f"{chapter.text}: unknown cell marker {piece!r} (known: {', '.join(SLOTS)})")
            out.append(("slot", piece))
        elif piece.strip():
            out.append(("markdown", piece.strip() + "\n"))
    missing = set(SLOTS) - {name for kind, name in out if kind == "slot"}
    if missing:
        raise ValueError(f"{chapter.text}: missing cell markers {sorted(missing)}")
    return out


def demo_for_notebook(chapter):
    """The demo script without its `from transformer import …` statement, all of its lines (the notebook defines the
    functions)."""
    text = chapter.demo.read_text(encoding="utf-8")
    dropped = {number for node in ast.parse(text).body
               if isinstance(node, ast.ImportFrom) and node.module == "transformer" and not node.level
               for number in range(node.lineno, node.end_lineno + 1)}
    kept = [line for number, line in enumerate(text.splitlines(), 1) if number not in dropped]
    return "\n".join(kept).strip() + "\n"
