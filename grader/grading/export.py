"""`nbgrader export` with scores as the grader shows them: at most two decimals (nbgrader sums floats as is)."""
import csv
import os

from nbgrader.plugins import CsvExportPlugin

from grader.checks.scoresheet import number

SCORE_COLUMNS = ("raw_score", "late_submission_penalty", "score", "max_score")


class TwoDecimalCsvExport(CsvExportPlugin):
    """nbgrader's CSV export, then each score column rewritten as `number` writes it (38.33, not 38.330000000000005)."""

    def export(self, gradebook):
        super().export(gradebook)
        round_scores(self.to or "grades.csv")


def round_scores(path):
    """Rewrite the score columns of an exported CSV at `path` with two decimals at most."""
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
        fields = list(rows[0]) if rows else None
    if not fields:
        return
    for row in rows:
        for column in SCORE_COLUMNS:
            if row.get(column):
                row[column] = number(row[column])
    temporary = f"{path}.tmp"
    with open(temporary, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    os.replace(temporary, path)
