"""A throwaway nbgrader course for the demo: config, the released notebook, and the LMS download folder."""
import shutil
from pathlib import Path

from grader import paths
from grader.grading.naming import NAMED_REGEXP

from .pack import lms_zip

CONFIG = '''"""nbgrader configuration of the demo course (written by `python -m grader demo`)."""
c = get_config()  # noqa: F821
c.CourseDirectory.course_id = "annotated-transformer-ko"
c.CourseDirectory.submitted_directory = "submitted"
c.CourseDirectory.feedback_directory = "feedback"
c.FileNameCollectorPlugin.named_regexp = {regexp!r}
c.FileNameCollectorPlugin.valid_ext = [".ipynb", ".py"]
c.ExportApp.plugin_class = "grader.grading.export.TwoDecimalCsvExport"  # scores with two decimals at most
'''


def create(root, assignment):
    """Lay out the course at `root`; return the LMS zip it holds under downloaded/<assignment>/archive/."""
    root = Path(root)
    root.mkdir(parents=True)
    (root / "nbgrader_config.py").write_text(CONFIG.format(regexp=NAMED_REGEXP), encoding="utf-8")
    released = paths.RELEASE / assignment / f"{assignment}.ipynb"
    (root / "release" / assignment).mkdir(parents=True)
    shutil.copyfile(released, root / "release" / assignment / released.name)
    archive = root / "downloaded" / assignment / "archive"
    archive.mkdir(parents=True)
    target = archive / "lms-export.zip"
    lms_zip(target, released)
    return target
