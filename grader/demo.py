"""`python -m grader demo`: build the course, then run chapter 01's demo with the solution."""
import subprocess
import sys

from grader import chapters
from grader.build.pipeline import run as build


def run(args):
    """Build everything, then show what the first chapter prints."""
    status = build()
    if status:
        return status
    chapter = chapters.all_chapters()[0]
    print(f"\n== {chapter.id}: demo.py (solution) ==\n", flush=True)
    return subprocess.run([sys.executable, "demo.py"], cwd=chapter.folder).returncode
