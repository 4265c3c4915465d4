"""Write the gradebook from a helper process started with the batch, so importing nbgrader overlaps grading.

Importing nbgrader takes seconds of CPU, and so does tearing it down at exit. In the grader process it
would run after the last result on one core while the other idles; here it runs in parallel, and the
helper just waits for the rows (JSON on stdin). `python -m grader.grading.gradebook_process` is that helper.
"""
import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import grader

from .outputs import Row


class GradebookProcess:
    """A helper that imports nbgrader now and writes `rows` into the gradebook at `path` when given them."""

    def __init__(self, path, course_root):
        self.request = {"path": str(Path(path).resolve()), "course_root": str(course_root)}
        env = dict(os.environ)
        package_root = str(Path(grader.__file__).resolve().parent.parent)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
        # nbgrader's Gradebook runs `alembic` from PATH: this interpreter's bin comes first.
        env["PATH"] = os.pathsep.join(p for p in (str(Path(sys.executable).parent), env.get("PATH")) if p)
        # -P: the course root (cwd) must not shadow this grader package with another copy.
        self.process = subprocess.Popen([sys.executable, "-P", "-m", "grader.grading.gradebook_process"],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, cwd=course_root)

    def finish(self, chapter_id, check_points, rows):
        """Send the rows; wait; return the number of students written (raise GradebookError if it failed)."""
        from .gradebook import GradebookError

        request = dict(self.request, chapter=chapter_id, points=check_points,
                       rows=[dataclasses.asdict(row) for row in rows])
        output, _ = self.process.communicate(json.dumps(request, ensure_ascii=False).encode("utf-8"))
        if self.process.returncode != 0:
            raise GradebookError(f"the gradebook helper failed (exit {self.process.returncode}); see above")
        return int(output.decode().strip() or 0)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.cancel()

    def cancel(self):
        """Stop the helper without writing anything (nothing happens if it has already finished)."""
        if self.process.poll() is None:
            try:
                self.process.stdin.close()
            except OSError:
                pass
            self.process.wait()


def main():
    """Import nbgrader, then read one request from stdin and write it; print the number of students written."""
    from .gradebook import GradebookError, _skip_slow_optional_imports, write

    _skip_slow_optional_imports()
    import nbgrader.api  # the slow part, done while the grader is still grading

    data = sys.stdin.buffer.read()
    if not data:
        return 0  # cancelled
    request = json.loads(data)
    from .course import Course

    rows = [Row(**dict(row, checks=tuple(tuple(check) for check in row["checks"]))) for row in request["rows"]]
    try:
        count = write(request["path"], request["chapter"], request["points"], rows, Course(request["course_root"]))
    except (GradebookError, FileNotFoundError, RuntimeError) as error:
        print(f"gradebook에 기록하지 못했습니다: {error}", file=sys.stderr)
        return 1
    print(count)
    return 0


if __name__ == "__main__":
    exit_status = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(exit_status)  # the gradebook is committed and closed; skip tearing down nbgrader's modules
