"""`grade --timeout 5`: a fan-out and a hog graded beside honest neighbours; the neighbours keep their grades."""
import pytest

from tests.sandbox import submissions as s

from .helpers import grade, results, solution_source

pytestmark = [pytest.mark.grading, pytest.mark.slow]


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """Two honest submissions, a fan-out holding 2.4 GB across three processes and a hog of 56 busy processes."""
    folder = tmp_path_factory.mktemp("neighbours")
    honest = solution_source()
    sources = {"honest_a": honest, "fan_out": s.prelude(s.fan_out(3, 800), honest), "hog": s.hog(56),
               "honest_b": honest, "honest_c": honest}
    for name, source in sources.items():
        (folder / f"{name}.py").write_text(source, encoding="utf-8")
    out = folder / "out"
    done = grade(["01", *(folder / f"{name}.py" for name in sources), "--timeout", "5", "--jobs", "2",
                  "--out", out, "--no-feedback"])
    return done, results(out)


def test_honest_neighbours_keep_full_marks(graded):
    """Every honest submission scores 100 although a hog and a fan-out ran beside it."""
    done, found = graded
    assert done.returncode == 0, done.stderr
    assert [found[name]["score"] for name in ("honest_a", "honest_b", "honest_c")] == [100, 100, 100]


def test_fan_out_and_hog_earn_nothing(graded):
    """The fan-out earns nothing: stopped by the memory of the submission as a whole, or by the time it takes to fill
    2 GiB where memory is slow (a VM here writes ~250 MB/s; tests/sandbox/test_isolation.py shows the status memory
    with a smaller budget). The hog runs out of time."""
    _, found = graded
    assert found["fan_out"]["status"] in ("memory", "timeout") and found["fan_out"]["score"] == 0
    assert (found["hog"]["status"], found["hog"]["score"]) == ("timeout", 0)


def test_every_result_says_how_it_was_isolated(graded):
    """results.json carries "isolation": "cgroup+cpu-time" here (root, cgroup v1), "cpu-time" without groups."""
    _, found = graded
    assert {document["isolation"] for document in found.values()} <= {"cgroup+cpu-time", "cpu-time"}
    assert len({document["isolation"] for document in found.values()}) == 1
