"""Heatmaps as HTML tables of coloured cells with the values written in (crisp, selectable, no image files)."""
import html
import math

from . import page
from .picture import finite_range

ANNOTATE_UP_TO = 12  # write the value in each cell when both sides are at most this long (else on hover)
# matplotlib's "Blues" colour map at 9 evenly spaced points.
BLUES = ("#f7fbff", "#deebf7", "#c6dbef", "#9ecae1", "#6baed6", "#4292c6", "#2171b5", "#08519c", "#08306b")
NOT_FINITE = "#d9d9d9"


def figure(panels, rows_name, columns_name):
    """A page.Figure with one heatmap per (caption, 2-D list) panel, side by side; rows and columns named."""
    low, high = _scale([rows for _, rows in panels])
    tables = "".join(_panel(caption, rows, low, high, rows_name, columns_name) for caption, rows in panels)
    legend = (f'<p class="legend">색: {label(low)} <span class="scale" style="background: linear-gradient(to right, '
              f'{", ".join(BLUES)})"></span> {label(high)}'
              + (' · 회색 = nan/inf</p>' if any(_has_non_finite(rows) for _, rows in panels) else "</p>"))
    markdown = "\n\n".join(_markdown(caption, rows, rows_name, columns_name) for caption, rows in panels)
    return page.Figure(f'<div class="figures">{tables}</div>{legend}', markdown)


def _panel(caption, rows, low, high, rows_name, columns_name):
    annotate = max(len(rows), len(rows[0])) <= ANNOTATE_UP_TO
    head = (f'<tr><th>{html.escape(rows_name)} ↓ · {html.escape(columns_name)} →</th>'
            + "".join(f"<th>{j}</th>" for j in range(len(rows[0]))) + "</tr>")
    body = "".join(
        f"<tr><th>{i}</th>" + "".join(_cell(value, low, high, annotate) for value in row) + "</tr>"
        for i, row in enumerate(rows))
    return (f'<figure><figcaption>{html.escape(caption)}</figcaption>'
            f'<table class="heatmap" data-rows="{len(rows)}" data-columns="{len(rows[0])}">{head}{body}</table></figure>')


def _cell(value, low, high, annotate):
    background, ink = colour(value, low, high)
    text = label(value)
    return (f'<td style="background:{background};color:{ink}" title="{text}" data-value="{text}">'
            f'{text if annotate else ""}</td>')


def colour(value, low, high):
    """(background, text colour) of a cell: Blues from `low` to `high`, grey for nan/inf."""
    if not math.isfinite(value):
        return NOT_FINITE, "#000"
    share = min(1.0, max(0.0, (value - low) / (high - low)))
    position = share * (len(BLUES) - 1)
    index = min(int(position), len(BLUES) - 2)
    a, b = _rgb(BLUES[index]), _rgb(BLUES[index + 1])
    mixed = tuple(round(x + (y - x) * (position - index)) for x, y in zip(a, b))
    return "#%02x%02x%02x" % mixed, "#fff" if share > 0.6 else "#000"


def _rgb(hex_colour):
    return tuple(int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))


def _scale(matrices):
    """Colour range of all panels: [0, 1] for weights; wider when values fall outside it."""
    found = [r for r in (finite_range(rows) for rows in matrices) if r is not None]
    if not found:
        return 0.0, 1.0
    low, high = min(0.0, *(r[0] for r in found)), max(1.0, *(r[1] for r in found))
    return (low, high) if high > low else (low, low + 1.0)


def _has_non_finite(rows):
    return any(not math.isfinite(x) for row in rows for x in row)


def label(value):
    """A cell's value as written in it: 3 decimals, nan/inf spelled out."""
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return f"{value:.3f}" if abs(value) < 100 else f"{value:.3g}"


def _markdown(caption, rows, rows_name, columns_name):
    """The panel as a Markdown table of values."""
    header = f"| {rows_name} \\ {columns_name} | " + " | ".join(str(j) for j in range(len(rows[0]))) + " |"
    lines = [f"**{caption}**", "", header, "|" + "---|" * (len(rows[0]) + 1)]
    lines += [f"| {i} | " + " | ".join(label(x) for x in row) + " |" for i, row in enumerate(rows)]
    return "\n".join(lines)
