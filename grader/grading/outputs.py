"""Write what grading found: results/<submission>.json as it arrives, then grades.csv and the --json array."""
import csv
import json
import os
from dataclasses import dataclass
from pathlib import Path

from grader.checks import scoresheet
from grader.checks import tracks


@dataclass(frozen=True)
class Row:
    """The little that is kept in memory per submission (for grades.csv, the gradebook and the summary)."""

    submission_id: str
    student_id: str
    score: float
    max_score: float
    status: str
    timestamp: str | None
    checks: tuple  # ((check name, score, points), …)


def document(submission, verdicts, run=None):
    """A Gradescope results.json for one submission, plus the grader's own keys."""
    extra = {
        "submission": submission.submission_id,
        "student_id": submission.student_id,
        "status": verdicts.status,
        "sandbox": run.sandbox if run else None,
        "isolation": run.isolation if run else None,  # "cgroup+cpu-time" or "cpu-time" (see sandbox/cgroups.py)
        "seconds": round(run.seconds, 3) if run else 0.0,
        "picture": verdicts.picture,
    }
    track = tracks.track_of(getattr(submission, "file_name", ""), verdicts.notes or ())
    extra["track"] = track
    output = [tracks.worded(verdicts.failure, track)] if verdicts.failure else []
    if verdicts.tampered:
        extra["tampered"] = list(verdicts.tampered)
    superseded = getattr(submission, "superseded", ())
    if superseded:  # older attempts of the same student, not graded: named, never dropped silently
        extra["superseded"] = [dict(attempt) for attempt in superseded]
        extra["graded_attempt"] = {"timestamp": submission.timestamp, "origin": submission.origin}
    if verdicts.notes:
        extra["notes"] = list(verdicts.notes)
        output += [f"※ {note}" for note in verdicts.notes]
    if output:
        extra["output"] = "\n".join(output)
    return scoresheet.gradescope(tracks.results_for(verdicts.results, track), extra)


class Report:
    """The output folder: one JSON per submission written as results come, then grades.csv sorted by id."""

    def __init__(self, out):
        self.out = Path(out)
        self.results_dir = self.out / "results"
        self.results_dir.mkdir(parents=True, exist_ok=True)
        for stale in self.results_dir.glob("*.json"):  # this run's results only
            stale.unlink()
        self.sources_dir = self.out / "sources"  # the code as graded, for the class report's review and similarity
        self.sources_dir.mkdir(exist_ok=True)
        for stale in self.sources_dir.glob("*.py"):
            stale.unlink()
        self.rows = []
        self.check_names = None

    def add(self, submission, verdicts, run=None):
        """Write the submission's results file now; keep only its Row. Return the Row."""
        data = document(submission, verdicts, run)
        _write_atomic(self.result_path(submission.submission_id),
                      json.dumps(data, ensure_ascii=False, indent=2, allow_nan=False) + "\n")
        checks = tuple((r.name, r.score, r.points) for r in verdicts.results)
        if self.check_names is None:
            self.check_names = [name for name, _, _ in checks]
        row = Row(submission.submission_id, submission.student_id, data["score"], data["max_score"], verdicts.status,
                  submission.timestamp, checks)
        self.rows.append(row)
        return row

    def keep_source(self, submission_id, source):
        """Keep the source that was graded as `sources/<submission>.py` (read outside the sandbox, never run)."""
        _write_atomic(self.sources_dir / f"{submission_id}.py", source)

    def result_path(self, submission_id):
        return self.results_dir / f"{submission_id}.json"

    def sorted_rows(self):
        return sorted(self.rows, key=lambda row: row.submission_id)

    def write_csv(self):
        """grades.csv: submission, student_id, score, max_score, status, then one column per check."""
        names = self.check_names or []
        lines = []
        for row in self.sorted_rows():
            scores = dict((name, score) for name, score, _ in row.checks)
            lines.append([row.submission_id, row.student_id, _number(row.score), _number(row.max_score), row.status]
                         + [_number(scores.get(name, 0.0)) for name in names])
        path = self.out / "grades.csv"
        temporary = path.with_suffix(".csv.tmp")
        with open(temporary, "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(["submission", "student_id", "score", "max_score", "status", *names])
            writer.writerows(lines)
        os.replace(temporary, path)
        return path

    def stream_json(self, stream):
        """Write a JSON array of every results document (sorted by submission id) to `stream`, one at a time."""
        stream.write("[")
        for number, row in enumerate(self.sorted_rows()):
            text = self.result_path(row.submission_id).read_text(encoding="utf-8").strip()
            stream.write(("\n" if number == 0 else ",\n") + text)
        stream.write("\n]\n" if self.rows else "]\n")
        stream.flush()


def _number(value):
    """A score for grades.csv with at most two decimals (4.0 → "4", 2.5 → "2.5", 3.3333 → "3.33")."""
    return scoresheet.number(value) if isinstance(value, float) else str(value)


def _write_atomic(path, text):
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)
