"""Split a chapter's Korean text (`chapter.md`) at its `<!-- cell: NAME -->` markers."""
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
    """The demo script without its `from transformer import …` line (the notebook defines the functions)."""
    lines = chapter.demo.read_text(encoding="utf-8").splitlines()
    kept = [line for line in lines if not line.startswith("from transformer import")]
    return "\n".join(kept).strip() + "\n"
