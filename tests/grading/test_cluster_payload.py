"""What travels to a Dask worker (`cluster.payload`) reads, on the worker, exactly as the submission reads here."""
import pytest

from grader.checks.loading import SubmissionError
from grader.grading.collect import Inputs
from grader.grading.course import Course

from .helpers import CHAPTER, SUBMISSIONS, fixture_path, lms_name, write_notebook, write_zip

cluster = pytest.importorskip("grader.grading.cluster")

pytestmark = [pytest.mark.grading]


def _read(read):
    """("source", text) or ("error", the Korean message)."""
    try:
        return "source", read()
    except SubmissionError as error:
        return "error", str(error)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """A folder of good and bad files, a symlink, an LMS zip with a good and a bad entry."""
    folder = tmp_path_factory.mktemp("class")
    (folder / "plain.py").write_bytes(fixture_path("no_scale").read_bytes())
    write_notebook(folder / "notebook.ipynb", fixture_path("half_dk").read_text(encoding="utf-8"))
    for name in ("corrupt.ipynb", "euc_kr.py", "empty.py", "no_code_cells.ipynb"):
        (folder / name).write_bytes((SUBMISSIONS / name).read_bytes())
    (folder / "oversized.py").write_bytes(b"#" * (5 * 1024 * 1024 + 1))
    (folder / "link.py").symlink_to(folder / "plain.py")
    archive = write_zip(tmp_path_factory.mktemp("zip") / "lms.zip",
                        {lms_name("zipok"): (folder / "notebook.ipynb").read_bytes(),
                         lms_name("zipbad"): (SUBMISSIONS / "euc_kr.py").read_bytes(),
                         f"{CHAPTER}_zipdots_attempt_2024-03-01-10-00-00_../escape.py": b"x = 1\n"})
    with Inputs([folder, archive], CHAPTER, Course()) as found:
        yield found


def test_payload_reads_on_a_worker_as_it_reads_here(inputs):
    """Source or Korean message, the same for every kind of file; refused files never send their bytes."""
    ids = {submission.submission_id for submission in inputs.submissions}
    assert {"plain", "notebook", "corrupt", "euc_kr", "empty", "no_code_cells", "oversized", "link", "zipok",
            "zipbad"} <= ids, ids
    kinds = set()
    for submission in inputs.submissions:
        sent = cluster.payload(submission)
        kinds.add(sent[0])
        assert _read(cluster._Received(submission.submission_id, sent).read) == _read(submission.read), \
            submission.submission_id
        if submission.submission_id in ("oversized", "link"):
            assert sent[0] == "problem"
    assert kinds == {"file", "problem"}
