"""Progress on stderr: a bar redrawn in place on a terminal, plain lines otherwise."""
import io

import pytest

from grader.grading.progress import Progress
from grader.grading.outputs import Row

pytestmark = pytest.mark.grading


class Terminal(io.StringIO):
    """A text stream that says it is a terminal."""

    def isatty(self):
        return True


def row(name, score):
    return Row(name, name, score, 100.0, "ok", None, ())


def test_terminal_gets_one_redrawn_bar():
    """On a terminal every update rewrites the same line (carriage return) and the end adds one newline."""
    stream = Terminal()
    progress = Progress(2, stream=stream)
    progress.update(row("kim", 100.0))
    progress.update(row("park", 36.0))
    progress.finish()
    text = stream.getvalue()
    assert text.count("\r") == 2 and "2/2" in text and "#" * 30 in text
    assert text.count("\n") == 2  # the bar's end, then the summary


def test_pipe_gets_plain_lines():
    """Not a terminal: one line per submission, no carriage returns."""
    stream = io.StringIO()
    progress = Progress(2, stream=stream)
    progress.update(row("kim", 100.0))
    progress.update(row("park", 36.0))
    progress.finish()
    lines = stream.getvalue().splitlines()
    assert lines[:2] == ["[1/2] kim: 100/100 (정상)", "[2/2] park: 36/100 (정상)"] and "\r" not in stream.getvalue()
