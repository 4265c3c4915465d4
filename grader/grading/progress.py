"""Progress on stderr: a bar redrawn in place on a terminal, one plain line per submission otherwise."""
import sys
import time

from grader.checks.scoresheet import number
from grader.report.texts import status_word


class Progress:
    """Counts finished submissions out of `total` and shows it."""

    def __init__(self, total, stream=None, width=30):
        self.total = total
        self.done = 0
        self.stream = stream or sys.stderr
        self.width = width
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.started = time.monotonic()

    def update(self, row):
        """One more submission is done (`row` is its report.Row)."""
        self.done += 1
        score = f"{number(row.score)}/{number(row.max_score)}"
        if self.tty:
            filled = int(self.width * self.done / max(1, self.total))
            bar = "#" * filled + "." * (self.width - filled)
            line = f"\r[{bar}] {self.done}/{self.total} {row.submission_id[:24]:<24} {score:>9} {status_word(row.status):<10}"
            self.stream.write(line)
        else:
            self.stream.write(f"[{self.done}/{self.total}] {row.submission_id}: {score} ({status_word(row.status)})\n")
        self.stream.flush()

    def finish(self):
        """End the bar's line and say how long it took."""
        seconds = time.monotonic() - self.started
        if self.tty and self.done:
            self.stream.write("\n")
        self.stream.write(f"채점 {self.done}건, {seconds:.1f}초\n")
        self.stream.flush()
