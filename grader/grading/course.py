"""The nbgrader course the grader works in: its root, its `nbgrader_config.py` and the names in it."""
import os
import sys
from pathlib import Path

from grader import paths

from .naming import NAMED_REGEXP

DEFAULT_COURSE_ID = "default_course"  # nbgrader's own default
DEFAULT_VALID_EXT = (".ipynb",)  # FileNameCollectorPlugin.valid_ext's default
DEFAULT_NAMED_REGEXP = NAMED_REGEXP  # nbgrader's documented LMS naming


class Course:
    """An nbgrader course root and its configuration (a traitlets Config)."""

    def __init__(self, root=None):
        self.root = Path(root or os.getcwd()).resolve()
        self.config = load_config(self.root)

    @property
    def course_id(self):
        return self.config.CourseDirectory.get("course_id") or DEFAULT_COURSE_ID

    @property
    def source_directory(self):
        return self.root / (self.config.CourseDirectory.get("source_directory") or "source")

    def source_notebook(self, assignment):
        """The instructor's source notebook of `assignment` (this course's, else the repository's)."""
        for folder in (self.source_directory, paths.NBGRADER_SOURCE):
            candidate = folder / assignment / f"{assignment}.ipynb"
            if candidate.is_file():
                return candidate
        raise FileNotFoundError(f"no nbgrader source notebook for {assignment}")

    def lms_naming(self):
        """(named_regexp, valid extensions) as `nbgrader zip_collect` reads them from this course's config.

        Read from the Config directly: importing nbgrader (its server extensions) costs seconds.
        """
        settings = self.config.FileNameCollectorPlugin
        return settings.get("named_regexp") or DEFAULT_NAMED_REGEXP, tuple(settings.get("valid_ext") or DEFAULT_VALID_EXT)

    def gradebook_setting(self):
        """`c.GraderGrade.gradebook` from nbgrader_config.py (a path relative to the course root), or None."""
        return self.config.GraderGrade.get("gradebook") or None


def load_config(root):
    """The course's `nbgrader_config.py` (or, outside a course, the repository's) as a traitlets Config."""
    from traitlets.config import Config
    from traitlets.config.loader import PyFileConfigLoader

    for folder in (Path(root), paths.ROOT):
        if (folder / "nbgrader_config.py").is_file():
            saved_path, saved_env = list(sys.path), dict(os.environ)
            try:
                return PyFileConfigLoader("nbgrader_config.py", path=str(folder)).load_config()
            except Exception as error:  # a broken config must not stop grading
                print(f"경고: {folder / 'nbgrader_config.py'}를 읽지 못했습니다 ({error}); 기본 설정을 씁니다.",
                      file=sys.stderr)
            finally:
                sys.path[:] = saved_path
                os.environ.clear()
                os.environ.update(saved_env)
    return Config()
