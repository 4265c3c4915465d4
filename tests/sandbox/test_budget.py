"""A chapter's declared Budget reaches the sandbox: CPU and wall limits, torch threads, and the grade command."""
import dataclasses
import json
import textwrap

import pytest

from grader.checks import ch01_judge
from grader.checks.contract import Budget, ChapterError
from grader.grading import command
from grader.grading.judging import Judge
from grader.sandbox import Limits, SandboxPool
from grader.sandbox.limits import for_budget

from .conftest import PROBE, run_batch

pytestmark = pytest.mark.sandbox

BUSY_LOOP = "while True:\n    pass\n"
# attention() reports what the sandbox gave it: torch's threads and the OpenMP/MKL variables, as a returned tensor.
THREADS = textwrap.dedent("""\
    import os
    import torch


    def attention(query, key, value, mask=None, dropout=None):
        seen = [torch.get_num_threads(), int(os.environ.get("OMP_NUM_THREADS", "0")),
                int(os.environ.get("MKL_NUM_THREADS", "0"))]
        return torch.tensor(seen, dtype=torch.float64), None
""")


def test_default_budget_is_the_old_limits():
    """A chapter that declares nothing keeps the limits every chapter had: 20 s wall, 20 s CPU, one thread."""
    assert for_budget(Budget()) == Limits()
    assert ch01_judge.CHAPTER.budget == Budget()


def test_timeout_replaces_the_budgets_times_and_keeps_its_threads():
    """`--timeout 5` sets wall 5 s and CPU 5 s (as before budgets), whatever the chapter declared; threads stay."""
    limits = for_budget(Budget(cpu_seconds=90, wall_seconds=120, threads=2), timeout=5.5)
    assert (limits.wall_seconds, limits.cpu_seconds, limits.threads) == (5.5, 5, 2)


@pytest.mark.parametrize("bad", [{"cpu_seconds": 0}, {"wall_seconds": -1}, {"threads": 1.5}, {"threads": True}])
def test_a_budget_must_be_positive(bad):
    with pytest.raises(ChapterError):
        Budget(**bad)


def _seen(result):
    """The three numbers THREADS returned on the seed case."""
    return result.result["traces"]["seed"]["result"]["items"][0]["data"]


@pytest.mark.parametrize("threads", [1, 2])
def test_threads_inside_the_sandbox_follow_the_budget(need_bwrap, threads):
    """torch.get_num_threads() and OMP/MKL_NUM_THREADS inside the child are the chapter's threads (1 by default)."""
    with SandboxPool(PROBE, jobs=1, limits=for_budget(Budget(wall_seconds=10, threads=threads)), use_bwrap=True) as pool:
        (result,) = run_batch(pool, [("threads", THREADS, ["seed"])]).values()
    assert result.status == "ok", result
    assert _seen(result) == [threads, threads, threads]


def test_threads_without_bubblewrap_too():
    """The plain-subprocess fallback gives the child one thread as well."""
    with SandboxPool(PROBE, jobs=1, limits=for_budget(Budget(wall_seconds=10)), use_bwrap=False) as pool:
        (result,) = run_batch(pool, [("threads", THREADS, ["seed"])]).values()
    assert result.status == "ok", result
    assert _seen(result) == [1, 1, 1]


def test_a_tiny_cpu_budget_ends_in_a_korean_timeout(need_bwrap):
    """A submission that burns CPU past a declared 1-second budget is stopped by RLIMIT_CPU long before the wall
    limit, ends as "timeout" and scores 0 with 시간 초과 in every check's message."""
    limits = for_budget(Budget(cpu_seconds=1, wall_seconds=60))
    with SandboxPool(PROBE, jobs=1, limits=limits, use_bwrap=True) as pool:
        (run,) = run_batch(pool, [("busy", BUSY_LOOP, ["seed"])]).values()
    assert run.status == "timeout" and run.seconds < 30
    verdicts = Judge(ch01_judge, limits).judge_run(run)
    assert verdicts.failure.startswith("시간 초과")
    assert all(r.score == 0 and "시간 초과" in r.message for r in verdicts.results)


@pytest.mark.slow
def test_grade_command_uses_the_chapters_budget(need_bwrap, tmp_path, monkeypatch):
    """`python -m grader grade` takes the per-submission limits from the chapter's CHAPTER.budget: chapter 01
    declared with cpu_seconds=1 stops a busy loop by its CPU limit (well before its 60 s wall limit)."""
    tiny = dataclasses.replace(ch01_judge.CHAPTER, budget=Budget(cpu_seconds=1, wall_seconds=60))
    monkeypatch.setattr("grader.checks.chapter", lambda chapter_id: tiny)
    (tmp_path / "busy.py").write_text(BUSY_LOOP, encoding="utf-8")
    out = tmp_path / "out"
    args = type("Args", (), dict(chapter="01", paths=[str(tmp_path / "busy.py")], jobs=1, out=str(out), json=False,
                                 timeout=None, gradebook=None, no_feedback=True))
    assert command.run(args) == command.EXIT_OK
    result = json.loads((out / "results" / "busy.json").read_text(encoding="utf-8"))
    assert result["status"] == "timeout" and result["seconds"] < 30
    assert result["score"] == 0 and "시간 초과" in result["output"]
