"""`nbgrader generate_assignment` for several assignments in one process, so nbgrader's start-up is paid once.

Run by `release.files` in a temporary course: `python -m grader.publish.nbgrader_batch ID [ID ...]`. It configures
nbgrader exactly as its command line does (`GenerateAssignmentApp.initialize`, which reads the course's
`nbgrader_config.py`), then runs the same converter the command runs, once per assignment, with `--force`.
"""
import sys

from nbgrader.apps.generateassignmentapp import GenerateAssignmentApp
from nbgrader.converters import GenerateAssignment, NbGraderException


def generate(assignments):
    """Generate every assignment's release; the ids of those nbgrader refused."""
    app = GenerateAssignmentApp()
    app.initialize(["--force", "--log-level=WARN"])
    failed = []
    for assignment in assignments:
        app.coursedir.assignment_id = assignment
        try:
            GenerateAssignment(coursedir=app.coursedir, parent=app).start()
        except NbGraderException:
            failed.append(assignment)
    return failed


if __name__ == "__main__":
    refused = generate(sys.argv[1:])
    if refused:
        print(f"nbgrader generate_assignment failed for: {', '.join(refused)}", file=sys.stderr)
    sys.exit(1 if refused else 0)
