"""The student self-check: run the visible checks on a `.py` file or a filled-in notebook, in process."""
import contextlib
import sys
from pathlib import Path

from . import chapter as load_chapter
from . import references, tracks
from .as_graded import folder_out_of_reach, foreign_imports, foreign_note, no_input
from .execute import execute
from .framework import judge, torch_threads
from .loading import SubmissionError, read_source


def check(chapter, path, visible_only=True):
    """Check the student's file at `path`: (CheckResults in the words of its track, notes on skipped IPython commands)."""
    declared = load_chapter(chapter)
    try:
        source = read_source(path)
    except SubmissionError as error:
        outcome = {"failure": str(error)}
    else:
        # Whatever the student's code prints goes to stderr, so `--json` output on stdout stays valid JSON.
        # Run as the sandbox runs it: the file alone, the modules beside it out of reach, no input (as_graded.py).
        with contextlib.redirect_stdout(sys.stderr), torch_threads(declared.budget.threads), \
                folder_out_of_reach(Path(path).resolve().parent), no_input():
            outcome = execute(source, declared.probe, declared.probe.case_names(visible_only=visible_only))
    results = judge(declared.checks, declared.probe, outcome, references.load(declared.id), visible_only)
    notes = outcome.get("notes", [])
    if "load_error" not in outcome and "failure" not in outcome:  # it ran here: warn of what grading may not have
        notes = notes + [foreign_note(name) for name in foreign_imports(source)]
    return tracks.results_for(results, tracks.track_of(path, notes)), notes


def run(chapter, path, visible_only=True):
    """Check the student's file at `path`; return the list of CheckResult."""
    return check(chapter, path, visible_only)[0]
