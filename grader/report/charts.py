"""The class report's charts (score histogram, pass rate per check) as inline SVG with Korean labels.

The browser draws the text with the page's Korean font stack (page.FONTS), so no font ships with the page.
"""
from html import escape

from . import page

WIDTH = 760
BAR = "#4c72b0"
VISIBLE, HIDDEN = "#55a868", "#8172b2"
HATCH = ('<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">'
         f'<rect width="6" height="6" fill="{HIDDEN}"/><line x1="0" y1="0" x2="0" y2="6" stroke="#fff" stroke-width="2"/>'
         "</pattern></defs>")
IN_HTML = "_그림은 report.html에 있습니다._"


def _text(x, y, content, anchor="middle", extra=""):
    return f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}"{extra}>{escape(str(content))}</text>'


def _svg(height, title, body, defs=""):
    return (f'<svg class="chart" role="img" aria-label="{escape(title)}" xmlns="http://www.w3.org/2000/svg" '
            f'width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}">{defs}'
            + _text(WIDTH / 2, 20, title, extra=' font-weight="bold" style="font-size:15px"') + body + "</svg>")


def histogram(bins, max_score):
    """Vertical bars: the number of submissions per score bin."""
    left, top, bottom, height = 60, 40, 80, 330
    plot_height, step = height - top - bottom, (WIDTH - left - 20) / len(bins)
    most = max([b.count for b in bins] + [1])
    body = [f'<line x1="{left}" y1="{height - bottom}" x2="{WIDTH - 20}" y2="{height - bottom}" stroke="#888"/>']
    for index, b in enumerate(bins):
        x, bar = left + index * step, plot_height * b.count / most
        body.append(f'<rect class="bar" x="{x + 4:.1f}" y="{height - bottom - bar:.1f}" width="{step - 8:.1f}" '
                    f'height="{bar:.1f}" fill="{BAR}"><title>{escape(b.label)}: {b.count}</title></rect>')
        if b.count:
            body.append(_text(x + step / 2, height - bottom - bar - 4, b.count))
        body.append(_text(x + step / 2, height - bottom + 16, b.label, extra=' style="font-size:11px"'))
    body.append(_text(left + (WIDTH - left) / 2, height - bottom + 44, f"점수 구간 (만점 {max_score:g}점)"))
    body.append(_text(18, top + plot_height / 2, "제출 수", extra=f' transform="rotate(-90 18 {top + plot_height / 2:.1f})"'))
    return page.Figure(_svg(height, "점수 분포", "".join(body)), IN_HTML)


def pass_rates(rates):
    """Horizontal bars: the share of submissions passing each check (hidden checks hatched)."""
    names = list(rates)
    left, top, row = 250, 40, 26
    height = top + row * len(names) + 50
    span = WIDTH - left - 90
    body = []
    for index, name in enumerate(names):
        entry, y = rates[name], top + index * row
        fill = VISIBLE if entry["visible"] else "url(#hatch)"
        bar = span * entry["rate"]
        body.append(_text(left - 8, y + row / 2 + 4, name, anchor="end"))
        body.append(f'<rect class="bar" x="{left}" y="{y + 4}" width="{bar:.1f}" height="{row - 8}" fill="{fill}">'
                    f'<title>{escape(entry["title"])}</title></rect>')
        body.append(_text(left + bar + 6, y + row / 2 + 4, f"{entry['passed']}/{entry['total']} "
                          f"({100 * entry['rate']:.0f}%)", anchor="start"))
    bottom = top + row * len(names)
    body.append(f'<line x1="{left}" y1="{top}" x2="{left}" y2="{bottom}" stroke="#888"/>')
    body.append(_text(left + span / 2, bottom + 22, "통과한 제출의 비율 (%)"))
    body.append(f'<rect x="{left}" y="{bottom + 32}" width="12" height="12" fill="{VISIBLE}"/>'
                + _text(left + 16, bottom + 43, "공개 검사", anchor="start")
                + f'<rect x="{left + 100}" y="{bottom + 32}" width="12" height="12" fill="url(#hatch)"/>'
                + _text(left + 116, bottom + 43, "숨겨진 검사", anchor="start"))
    return page.Figure(_svg(height, "검사별 통과율", "".join(body), HATCH), IN_HTML)
