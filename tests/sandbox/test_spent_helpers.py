"""CPU time spent in helpers that have ended counts toward the submission's timeout.

The runner's CPU clock (`job_runner._Meter`) sums the CPU time of the submission's processes. A helper that has ended
used to drop out of that sum: a zombie its parent never reaps, or an orphan reaped by the worker. Six helpers of
1.2 s each, two at a time, spent 7.2 s against a 3 s limit and were graded "ok". In the shared sandbox the runner is now
the subreaper of the submission's orphans and counts its uid's zombies until it reaps them at the end.
"""
import pytest

from . import submissions as s
from .conftest import run_batch

pytestmark = pytest.mark.sandbox


@pytest.fixture(scope="module")
def spent(serial_pool, solution_source, case_names):
    """One worker grades CPU spent in zombies, then in orphans, then a correct submission."""
    order = [("zombies", s.prelude(s.spent_helpers(orphans=False), solution_source)),
             ("orphans", s.prelude(s.spent_helpers(orphans=True), solution_source)),
             ("after", solution_source)]
    return run_batch(serial_pool, [(name, source, case_names) for name, source in order])


@pytest.mark.parametrize("name", ["zombies", "orphans"])
def test_cpu_of_ended_helpers_counts(spent, name):
    """Both end as timeout: on the CPU clock, once their helpers have spent the limit (without the count they end "ok"
    in about 4 s on an idle machine; on a machine loaded enough that 3 s of CPU take longer than the wall backstop, 9 s,
    the backstop ends them first, as it would any submission)."""
    result = spent[name]
    assert result.status == "timeout", result


def test_the_next_submission_is_graded(spent):
    """The submission after them is graded normally."""
    assert spent["after"].status == "ok"
