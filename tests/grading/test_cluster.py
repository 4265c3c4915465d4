"""`grade --cluster ADDRESS` on a real Dask LocalCluster (two worker processes): the same results as `--jobs 2`,
a worker killed mid-batch, an unreachable scheduler, bad input files read on the workers."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests import fixtures
from tests.chapters.ch01.table import EXPECTED
from tests.conftest import ROOT, expected_sandbox

from .helpers import (SUBMISSIONS, fixture_path, grade, lms_name, results, solution_source, without_timing,
                      write_notebook, write_zip)

distributed = pytest.importorskip("distributed")

pytestmark = [pytest.mark.grading, pytest.mark.slow]

BAD_FILES = ("corrupt.ipynb", "euc_kr.py", "empty.py", "no_code_cells.ipynb")


@pytest.fixture(scope="module")
def cluster():
    """One LocalCluster for the module: two worker processes of one thread each (a 2-core machine's `--jobs 2`)."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as local:
        with distributed.Client(local, set_as_default=False) as client:
            yield local, client


@pytest.fixture(scope="module")
def mixed_class(tmp_path_factory):
    """[a folder, an LMS zip]: every chapter-01 fixture, the solution, a notebook, an LMS zip with a bad entry, and unreadable files."""
    folder = tmp_path_factory.mktemp("class")
    (folder / "solution.py").write_text(solution_source(), encoding="utf-8")
    for path in fixtures.all_files("ch01"):
        (folder / path.name).write_bytes(path.read_bytes())
    for name in ("warns_correct", "exits_at_import"):
        (folder / f"{name}.py").write_bytes(fixture_path(name).read_bytes())
    write_notebook(folder / "notebook_half_dk.ipynb", fixture_path("half_dk").read_text(encoding="utf-8"))
    for name in BAD_FILES:
        (folder / name).write_bytes((SUBMISSIONS / name).read_bytes())
    (folder / "oversized.py").write_bytes(b"#" * (5 * 1024 * 1024 + 1))
    archive = write_zip(tmp_path_factory.mktemp("lms") / "lms.zip", {lms_name("zipok"): (folder / "notebook_half_dk.ipynb").read_bytes(),
                                   lms_name("zipeuckr"): (SUBMISSIONS / "euc_kr.py").read_bytes()})
    return [folder, archive]


@pytest.fixture(scope="module")
def local_run(mixed_class, tmp_path_factory):
    """`grade 01 <class> --jobs 2`: the reference the cluster must reproduce."""
    out = tmp_path_factory.mktemp("local")
    done = grade(["01", *mixed_class, "--jobs", "2", "--out", out, "--no-feedback"])
    assert done.returncode == 0, done.stderr
    return out


@pytest.fixture(scope="module")
def cluster_run(cluster, mixed_class, tmp_path_factory):
    """`grade 01 <class> --cluster ADDRESS` (pages and class report included)."""
    local, _ = cluster
    out = tmp_path_factory.mktemp("cluster")
    done = grade(["01", *mixed_class, "--cluster", local.scheduler_address, "--out", out])
    assert done.returncode == 0, done.stderr
    return done, out


def _text_without_timing(path):
    return [line for line in Path(path).read_text(encoding="utf-8").splitlines() if '"seconds":' not in line]


def _warm_graders(dask_worker):
    """(on a worker) how many warm graders its plugin keeps."""
    from grader.grading.cluster import PLUGIN

    return len(dask_worker.plugins[PLUGIN]._graders)


def test_cluster_results_equal_local_jobs_2(cluster, local_run, cluster_run):
    """Both workers graded, each keeping its warm grader; every results.json is the local run's, byte for byte apart
    from the wall time; grades.csv is identical."""
    _, client = cluster
    _, out = cluster_run
    assert list(client.run(_warm_graders).values()) == [1, 1]
    local, remote = results(local_run), results(out)
    assert len(remote) > 50
    assert {key: without_timing(doc) for key, doc in remote.items()} == \
        {key: without_timing(doc) for key, doc in local.items()}
    for name in local:
        assert _text_without_timing(out / "results" / f"{name}.json") == _text_without_timing(local_run / "results" / f"{name}.json")
    assert (out / "grades.csv").read_bytes() == (local_run / "grades.csv").read_bytes()
    assert {doc["sandbox"] for doc in remote.values() if doc["status"] != "unreadable"} == {expected_sandbox()}
    assert remote["solution"]["score"] == 100 and remote["no_scale"]["score"] == EXPECTED["no_scale"].score


def test_pages_and_report_written_once_here(cluster_run):
    """The feedback pages and the class report are written on the instructor's machine, one page per student."""
    _, out = cluster_run
    pages = sorted((out / "feedback").glob("*/feedback.html"))
    assert len(pages) == len(results(out)) and (out / "report.html").is_file()


def test_bad_inputs_read_on_workers(cluster_run):
    """Unreadable files (bytes decoded on a worker, or refused here before sending) cost 0 with the Korean reason."""
    _, out = cluster_run
    found = results(out)
    for name, words in (("corrupt", "잘려"), ("euc_kr", "UTF-8"), ("empty", "비어"), ("no_code_cells", "코드 셀"),
                        ("oversized", "너무 큽니다"), ("zipeuckr", "UTF-8")):
        document = found[name]
        assert (document["status"], document["score"], document["sandbox"]) == ("unreadable", 0, None), name
        assert words in document["output"], name
    assert found["zipok"]["score"] == found["notebook_half_dk"]["score"] > 0
    assert found["exits_at_import"]["status"] == "no_result"


def test_worker_killed_mid_batch_loses_nothing(cluster, mixed_class, local_run, tmp_path):
    """SIGKILL a worker process while it grades: Dask runs its tasks again elsewhere; every student appears once,
    with the local run's results."""
    local, client = cluster
    out = tmp_path / "out"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    command = [sys.executable, "-m", "grader", "grade", "01", *map(str, mixed_class), "--cluster", local.scheduler_address,
               "--out", str(out), "--no-feedback"]
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    killed = None
    try:
        for line in process.stderr:
            if line.startswith("[1/"):  # the first result is back: the batch is under way
                killed = _kill_a_busy_worker(client)
                break
        rest, errors = process.communicate(timeout=600)
    finally:
        if process.poll() is None:
            process.kill()
    assert killed is not None, "no worker was grading when the batch was under way"
    assert process.returncode == 0, errors
    graded = results(out)
    assert graded.keys() == results(local_run).keys()
    rows = (out / "grades.csv").read_text(encoding="utf-8").splitlines()[1:]
    assert len(rows) == len({row.split(",")[0] for row in rows}) == len(graded)
    assert {key: without_timing(doc) for key, doc in graded.items()} == \
        {key: without_timing(doc) for key, doc in results(local_run).items()}
    client.wait_for_workers(2, timeout=120)  # the nanny restarts it, for the next test


def _kill_a_busy_worker(client, seconds=30):
    """SIGKILL the process of a worker that has a task running; its address, or None if none was busy."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        busy = [address for address, keys in client.processing().items() if keys]
        if busy:
            pid = client.run(os.getpid, workers=busy[:1])[busy[0]]
            os.kill(pid, signal.SIGKILL)
            return busy[0]
        time.sleep(0.05)
    return None


def test_unreachable_scheduler_writes_nothing(mixed_class, tmp_path):
    """No scheduler at the address: a clear Korean message, a nonzero exit, and no output folder at all."""
    out = tmp_path / "out"
    done = grade(["01", *mixed_class, "--cluster", "tcp://127.0.0.1:9", "--out", out])
    assert done.returncode != 0
    assert "Dask 스케줄러 tcp://127.0.0.1:9에 연결할 수 없습니다" in done.stderr
    assert "Traceback" not in done.stderr
    assert not out.exists()
