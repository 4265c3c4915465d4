"""Read the grading command's `DIR/results/*.json` (Gradescope results.json plus our keys)."""
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

OK = "ok"
UNREADABLE = "unreadable"
SAFE_NAME = re.compile(r"[^\w.@\-]+")  # letters of any script, digits, _ . @ -


@dataclass
class Result:
    """One submission's results.json, with safe accessors for the fields the reports use."""

    path: Path
    data: dict = field(repr=False)

    @property
    def submission(self):
        return str(self.data.get("submission") or self.path.stem)

    @property
    def student(self):
        return str(self.data.get("student_id") or self.submission)

    @property
    def status(self):
        return str(self.data.get("status") or OK)

    @property
    def score(self):
        return float(self.data.get("score") or 0.0)

    @property
    def max_score(self):
        return float(self.data.get("max_score") or sum(t["max_score"] for t in self.tests) or 0.0)

    @property
    def seconds(self):
        value = self.data.get("seconds")
        return float(value) if isinstance(value, (int, float)) else None

    @property
    def tests(self):
        tests = self.data.get("tests")
        return [t for t in tests if isinstance(t, dict)] if isinstance(tests, list) else []

    @property
    def failed(self):
        return [t for t in self.tests if t.get("status") != "passed"]

    @property
    def reason(self):
        """Why the whole submission scored 0 (e.g. why its file could not be read), as the grader wrote it, or ""."""
        output = self.data.get("output")
        lines = [line for line in str(output).splitlines() if line.strip() and not line.startswith("※")] \
            if isinstance(output, str) else []
        return lines[0].strip() if lines else ""

    @property
    def superseded(self):
        """The older attempts of this student that were not graded ([{"timestamp", "origin"}, …])."""
        found = self.data.get("superseded")
        return [a for a in found if isinstance(a, dict)] if isinstance(found, list) else []

    @property
    def graded_attempt(self):
        """The attempt that was graded when older ones were set aside: its timestamp (or where it came from)."""
        graded = self.data.get("graded_attempt")
        graded = graded if isinstance(graded, dict) else {}
        return str(graded.get("timestamp") or graded.get("origin") or self.submission)

    @property
    def file_problem(self):
        """Whether the submission's file could not be read (a problem of the file, not of a concept)."""
        return self.status == UNREADABLE

    @property
    def picture(self):
        picture = self.data.get("picture")
        return picture if isinstance(picture, dict) else {}


def title(test):
    """The check's Korean title: the first line of its output."""
    return str(test.get("output") or test.get("name") or "").split("\n", 1)[0]


def diagnosis(test):
    """The check's Korean diagnosis: its output after the title line ("" when it passed)."""
    parts = str(test.get("output") or "").split("\n", 1)
    return parts[1].strip() if len(parts) > 1 else ""


def safe_name(text):
    """`text` as one harmless path component (no separators, no leading dots)."""
    cleaned = SAFE_NAME.sub("_", str(text)).lstrip(".")
    return cleaned[:100] or "_"


def load(out_dir):
    """Every readable `out_dir/results/*.json`, sorted by student then submission; broken files are skipped."""
    found = []
    for path in sorted(Path(out_dir, "results").glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict):
            found.append(Result(path, data))
    return sorted(found, key=lambda r: (r.student, r.submission))
