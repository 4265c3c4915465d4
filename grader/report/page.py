"""A tiny document model (headings, text, tables, figures) rendered to Markdown and to one self-contained HTML file."""
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
class Figure:
    """A drawing made as HTML/inline SVG (escaped by its maker), with its Markdown stand-in."""

    html: str
    markdown: str


@dataclass(frozen=True)
class Code:
    text: str


def markdown(blocks):
    """The blocks as Markdown."""
    return "\n\n".join(_markdown(block) for block in blocks) + "\n"


CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.DOTALL)
TAG_START = re.compile(r"<(?=[A-Za-z/!?])")  # what a Markdown renderer would read as raw HTML
ENTITY_START = re.compile(r"&(?=#?\w+;)")
QUOTE_START = re.compile(r"(?m)^(\s*)>")


def md_text(text):
    """Text for Markdown as readers write it (`dim > 1`, no HTML entities): only a `<` that would open an HTML tag,
    an `&` that would spell an entity and a `>` that would start a quote get CommonMark's backslash; code spans stay
    as they are (a renderer shows them literally)."""
    text, out, last = str(text), [], 0
    for span in CODE_SPAN.finditer(text):
        out += [_md_escape(text[last:span.start()]), span.group()]
        last = span.end()
    return "".join(out + [_md_escape(text[last:])])


def _md_escape(text):
    return QUOTE_START.sub(r"\1\\>", ENTITY_START.sub(r"\\&", TAG_START.sub(r"\\<", text)))


def _markdown(block):
    if isinstance(block, Heading):
        return "#" * block.level + " " + md_text(block.text)
    if isinstance(block, Text):
        lines = md_text(block.text).splitlines() or [""]
        return "\n".join(("> " + line if block.quote else line) + ("  " if i < len(lines) - 1 else "")
                         for i, line in enumerate(lines))
    if isinstance(block, Bullets):
        return "\n".join("- " + md_text(item).replace("\n", " ") for item in block.items)
    if isinstance(block, Table):
        def row(cells):
            return "| " + " | ".join(md_text(c).replace("|", "\\|").replace("\n", "<br>") for c in cells) + " |"
        return "\n".join([row(block.header), "|" + "---|" * len(block.header)] + [row(r) for r in block.rows])
    if isinstance(block, Figure):
        return block.markdown
    if isinstance(block, Code):
        return "```\n" + block.text.replace("```", "'''") + "\n```"
    raise TypeError(block)


FONTS = ('system-ui, "Apple SD Gothic Neo", "Malgun Gothic", "맑은 고딕", "Noto Sans KR", "Noto Sans CJK KR", '
         '"NanumGothic", "나눔고딕", sans-serif')
STYLE = """
body { font-family: FONTS;
       max-width: 60rem; margin: 2rem auto; padding: 0 1rem; line-height: 1.55; color: #222; }
table { border-collapse: collapse; margin: 1rem 0; }
th, td { border: 1px solid #ccc; padding: .3rem .6rem; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
blockquote { margin: .5rem 0 1rem; padding: .5rem 1rem; border-left: 4px solid #d9534f; background: #fdf3f3; }
code, pre { font-family: ui-monospace, Menlo, Consolas, monospace; background: #f6f6f6; }
pre { padding: .6rem; overflow-x: auto; }
.figures { display: flex; flex-wrap: wrap; gap: 1.5rem; align-items: flex-start; }
figure { margin: .5rem 0 1rem; }
figcaption { font-weight: 600; margin-bottom: .3rem; }
table.heatmap { margin: 0; font-variant-numeric: tabular-nums; }
table.heatmap td { width: 3.6rem; height: 2.2rem; text-align: center; vertical-align: middle; padding: 0; border-color: #fff; }
table.heatmap th { font-weight: normal; font-size: .8rem; background: none; border: none; text-align: center; }
.scale { display: inline-block; width: 10rem; height: .8rem; vertical-align: middle; border: 1px solid #ccc; margin: 0 .4rem; }
svg.chart { max-width: 100%; height: auto; }
svg.chart text { font-family: FONTS; font-size: 12px; fill: #222; }
""".replace("FONTS", FONTS)


def html_page(title, blocks):
    """The blocks as one HTML file with its drawings inline (it can be mailed or uploaded alone)."""
    body = "\n".join(_html(block) for block in blocks)
    return (f'<!DOCTYPE html>\n<html lang="ko">\n<head>\n<meta charset="utf-8">\n<title>{html.escape(title)}</title>\n'
            f"<style>{STYLE}</style>\n</head>\n<body>\n{body}\n</body>\n</html>\n")


def _inline(text):
    escaped = html.escape(str(text))
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", escaped)


def _html(block):
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
    if isinstance(block, Figure):
        return block.html
    if isinstance(block, Code):
        return f"<pre>{html.escape(block.text)}</pre>"
    raise TypeError(block)


def _cell(text):
    return "<br>".join(_inline(line) for line in str(text).splitlines())


def write(folder, stem, title, blocks):
    """Write `stem.md` and `stem.html` into `folder`; return their paths."""
    folder = Path(folder)
    md, page = folder / f"{stem}.md", folder / f"{stem}.html"
    md.write_text(f"# {md_text(title)}\n\n" + markdown(blocks), encoding="utf-8")
    page.write_text(html_page(title, [Heading(title, 1)] + list(blocks)), encoding="utf-8")
    return md, page
