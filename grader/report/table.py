"""The class table for a terminal: student, score, status, top diagnosis, aligned for Korean text."""
import unicodedata

from . import classreport, diagnoses


def width(text):
    """Columns `text` takes in a terminal (wide East Asian characters count 2)."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _clip(text, columns):
    out, used = "", 0
    for ch in text:
        if used + width(ch) > columns - 1:
            return out + "…"
        out, used = out + ch, used + width(ch)
    return out


def _pad(text, columns):
    return text + " " * max(0, columns - width(text))


def render(results, chapter_id, diagnosis_columns=60):
    """The table as text, one row per submission."""
    bugs, cases = diagnoses.vocabulary(chapter_id)
    rows = [("학생", "점수", "상태", "주요 진단")] + [
        (student, score, status, top if width(top) <= diagnosis_columns else _clip(top, diagnosis_columns))
        for student, score, status, top in classreport.class_table(results, bugs, cases)
    ]
    columns = [max(width(row[i]) for row in rows) for i in range(3)]
    lines = ["  ".join(_pad(cell, columns[i]) for i, cell in enumerate(row[:3])) + "  " + row[3] for row in rows]
    lines.insert(1, "-" * (sum(columns) + 6 + min(diagnosis_columns, max(width(r[3]) for r in rows))))
    return "\n".join(lines)
