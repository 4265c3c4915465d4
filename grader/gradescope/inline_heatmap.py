"""The student's attention weights as a small HTML table with inline styles (Gradescope shows no stylesheet);
colours and labels as on the feedback pages."""
import html
import math

from grader.report.heatmap import colour, label

MAX_CELLS = 32 * 32  # larger pictures are left out of results.json


def table(picture):
    """HTML for a picture {"case", "label", "student": rows or a row}; "" when there is nothing to draw."""
    rows = picture.get("student") if isinstance(picture, dict) else None
    if not rows:
        return ""
    if not isinstance(rows[0], list):
        rows = [rows]
    if sum(len(row) for row in rows) > MAX_CELLS:
        return ""
    values = [value for row in rows for value in row if math.isfinite(value)] or [0.0]
    low, high = min(values), max(values)
    high = high if high > low else low + 1.0
    name = html.escape(str(picture.get("label", "")))
    case = html.escape(str(picture.get("case", "")))
    lines = [f"<p>공개 입력 <code>{case}</code>에서 내 코드가 만든 <code>{name}</code> "
             "(행 = query 토큰, 열 = key 토큰, 진할수록 큰 값):</p>",
             '<table style="border-collapse:collapse;font-family:monospace">']
    for row in rows:
        cells = []
        for value in row:
            background, ink = colour(value, low, high)
            cells.append(f'<td style="background:{background};color:{ink};padding:4px 8px;'
                         f'border:1px solid #ccc">{label(value)}</td>')
        lines.append("<tr>" + "".join(cells) + "</tr>")
    lines.append("</table>")
    return "\n".join(lines)
