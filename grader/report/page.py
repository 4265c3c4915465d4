"""A tiny document model (headings, text, tables, images) rendered to Markdown and to self-contained HTML."""
import base64
import html
import re
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Heading:
    text: str
    level: int = 2


@dataclass(frozen=True)
class Text:
    """A paragraph; `quote` sets it off (used for diagnoses)."""

    text: str
    quote: bool = False


@dataclass(frozen=True)
class Bullets:
    items: tuple


@dataclass(frozen=True)
class Table:
    header: tuple
    rows: tuple


@dataclass(frozen=True)
class Image:
    """A PNG next to the page (`name` is relative to the page's folder)."""

    name: str
    alt: str


@dataclass(frozen=True)
class Code:
    text: str


def markdown(blocks):
    """The blocks as Markdown."""
    return "\n\n".join(_markdown(block) for block in blocks) + "\n"


def _md_inline(text):
    return str(text).replace("<", "&lt;").replace(">", "&gt;")


def _markdown(block):
    if isinstance(block, Heading):
        return "#" * block.level + " " + _md_inline(block.text)
    if isinstance(block, Text):
        lines = _md_inline(block.text).splitlines() or [""]
        return "\n".join(("> " + line if block.quote else line) + ("  " if i < len(lines) - 1 else "")
                         for i, line in enumerate(lines))
    if isinstance(block, Bullets):
        return "\n".join("- " + _md_inline(item).replace("\n", " ") for item in block.items)
    if isinstance(block, Table):
        def row(cells):
            return "| " + " | ".join(_md_inline(c).replace("|", "\\|").replace("\n", "<br>") for c in cells) + " |"
        return "\n".join([row(block.header), "|" + "---|" * len(block.header)] + [row(r) for r in block.rows])
    if isinstance(block, Image):
        return f"![{_md_inline(block.alt)}]({block.name})"
    if isinstance(block, Code):
        return "```\n" + block.text.replace("```", "'''") + "\n```"
    raise TypeError(block)


STYLE = """
body { font-family: system-ui, "Apple SD Gothic Neo", "Malgun Gothic", "Noto Sans KR", sans-serif;
       max-width: 60rem; margin: 2rem auto; padding: 0 1rem; line-height: 1.55; color: #222; }
table { border-collapse: collapse; margin: 1rem 0; }
th, td { border: 1px solid #ccc; padding: .3rem .6rem; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
blockquote { margin: .5rem 0 1rem; padding: .5rem 1rem; border-left: 4px solid #d9534f; background: #fdf3f3; }
code, pre { font-family: ui-monospace, Menlo, Consolas, monospace; background: #f6f6f6; }
pre { padding: .6rem; overflow-x: auto; }
img { max-width: 100%; }
"""


def html_page(title, blocks, folder):
    """The blocks as one HTML file with the images embedded (it can be mailed or uploaded alone)."""
    body = "\n".join(_html(block, Path(folder)) for block in blocks)
    return (f'<!DOCTYPE html>\n<html lang="ko">\n<head>\n<meta charset="utf-8">\n<title>{html.escape(title)}</title>\n'
            f"<style>{STYLE}</style>\n</head>\n<body>\n{body}\n</body>\n</html>\n")


def _inline(text):
    escaped = html.escape(str(text))
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", escaped)


def _html(block, folder):
    if isinstance(block, Heading):
        return f"<h{block.level}>{_inline(block.text)}</h{block.level}>"
    if isinstance(block, Text):
        inner = "<br>\n".join(_inline(line) for line in block.text.splitlines())
        return f"<blockquote>{inner}</blockquote>" if block.quote else f"<p>{inner}</p>"
    if isinstance(block, Bullets):
        return "<ul>" + "".join(f"<li>{_inline(item)}</li>" for item in block.items) + "</ul>"
    if isinstance(block, Table):
        head = "".join(f"<th>{_inline(c)}</th>" for c in block.header)
        body = "".join("<tr>" + "".join(f"<td>{_cell(c)}</td>" for c in row) + "</tr>" for row in block.rows)
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    if isinstance(block, Image):
        data = base64.b64encode((folder / block.name).read_bytes()).decode("ascii")
        return f'<p><img src="data:image/png;base64,{data}" alt="{html.escape(block.alt)}"></p>'
    if isinstance(block, Code):
        return f"<pre>{html.escape(block.text)}</pre>"
    raise TypeError(block)


def _cell(text):
    return "<br>".join(_inline(line) for line in str(text).splitlines())


def write(folder, stem, title, blocks):
    """Write `stem.md` and `stem.html` into `folder`; return their paths."""
    folder = Path(folder)
    md, page = folder / f"{stem}.md", folder / f"{stem}.html"
    md.write_text(f"# {_md_inline(title)}\n\n" + markdown(blocks), encoding="utf-8")
    page.write_text(html_page(title, [Heading(title, 1)] + list(blocks), folder), encoding="utf-8")
    return md, page
