"""The student's attention weights as a small HTML table: a shaded cell per weight, its value written in it."""
import html

MAX_CELLS = 32 * 32  # larger pictures are left out of results.json


def _shade(value, low, high):
    """A white-to-blue background for `value` in [low, high], and a text colour that stays readable on it."""
    share = 0.0 if high <= low else min(1.0, max(0.0, (value - low) / (high - low)))
    red, green = round(255 - 205 * share), round(255 - 155 * share)
    return f"rgb({red},{green},255)", "#fff" if share > 0.6 else "#000"


def table(picture):
    """HTML for a picture {"case", "label", "student": rows or a row}; "" when there is nothing to draw."""
    rows = picture.get("student") if isinstance(picture, dict) else None
    if not rows:
        return ""
    if not isinstance(rows[0], list):
        rows = [rows]
    if sum(len(row) for row in rows) > MAX_CELLS:
        return ""
    values = [value for row in rows for value in row]
    low, high = min(values), max(values)
    label = html.escape(str(picture.get("label", "")))
    case = html.escape(str(picture.get("case", "")))
    lines = [f"<p>공개 입력 <code>{case}</code>에서 내 코드가 만든 <code>{label}</code> "
             "(행 = query 토큰, 열 = key 토큰, 진할수록 큰 값):</p>",
             '<table style="border-collapse:collapse;font-family:monospace">']
    for row in rows:
        cells = []
        for value in row:
            background, colour = _shade(value, low, high)
            cells.append(f'<td style="background:{background};color:{colour};padding:4px 8px;'
                         f'border:1px solid #ccc">{value:.3f}</td>')
        lines.append("<tr>" + "".join(cells) + "</tr>")
    lines.append("</table>")
    return "\n".join(lines)
