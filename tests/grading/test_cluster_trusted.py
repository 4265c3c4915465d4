"""`grade --cluster ADDRESS` carries `--trusted` to the workers: a worker that cannot contain student code (no working
bubblewrap, no `unshare`) refuses the batch, and grades it as plain subprocesses only when the instructor said
`--trusted` — as `grade --trusted` does on one machine."""
import os
import sys
from pathlib import Path

import pytest

from .helpers import grade, results, solution_source
from .test_contained import _failing

distributed = pytest.importorskip("distributed")

pytestmark = [pytest.mark.grading, pytest.mark.slow]


@pytest.fixture(scope="module")
def uncontained_cluster(tmp_path_factory):
    """A one-worker LocalCluster whose worker finds only failing `bwrap` and `unshare` on its PATH."""
    fake_bin = _failing(tmp_path_factory.mktemp("bin"), "bwrap", "unshare")
    saved = os.environ["PATH"]
    os.environ["PATH"] = os.pathsep.join([str(fake_bin), str(Path(sys.executable).parent), saved])
    try:  # the worker process inherits the environment it is started with
        local = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0")
    finally:
        os.environ["PATH"] = saved
    with local:
        yield local.scheduler_address


@pytest.fixture(scope="module")
def honest(tmp_path_factory):
    path = tmp_path_factory.mktemp("class") / "honest.py"
    path.write_text(solution_source(), encoding="utf-8")
    return path


def test_cluster_refuses_where_workers_cannot_contain(uncontained_cluster, honest, tmp_path):
    """Without --trusted: a nonzero exit naming --trusted, and no result written."""
    done = grade(["01", honest, "--cluster", uncontained_cluster, "--out", tmp_path / "out", "--no-feedback"])
    assert done.returncode != 0
    assert "--trusted" in done.stderr
    assert not list((tmp_path / "out").glob("results/*.json"))


def test_cluster_trusted_grades_as_subprocesses(uncontained_cluster, honest, tmp_path):
    """With --trusted: the honest submission scores 100 and its result says it ran unisolated."""
    done = grade(["01", honest, "--cluster", uncontained_cluster, "--trusted", "--out", tmp_path / "out",
                  "--no-feedback"])
    assert done.returncode == 0, done.stderr
    found = results(tmp_path / "out")
    assert found["honest"]["score"] == 100
    assert found["honest"]["sandbox"] == "subprocess"
