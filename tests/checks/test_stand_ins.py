"""One mistake costs its own unit: a faulty SimpleLossCompute leaves run_epoch judged with the probe's stand-in."""
import pytest

from grader.checks import ch12_judge

from .chapters import CHAPTERS, grade

pytestmark = [pytest.mark.checks, pytest.mark.ch12]

CH12 = next(chapter for chapter in CHAPTERS if chapter.id == "12_training")


@pytest.mark.parametrize("fixture", ["loss_detached", "loss_not_divided"])
def test_a_faulty_loss_compute_costs_only_its_own_checks(fixture):
    """The loss compute's checks fail and say run_epoch was judged with the stand-in; every run_epoch check passes."""
    results = {r.name: r for r in grade(CH12, CH12.fixture(fixture))}
    assert sorted(name for name, r in results.items() if not r.passed) == ["hidden_loss", "loss_compute"]
    assert ch12_judge.STAND_IN in results["loss_compute"].message


def test_a_run_epoch_mistake_is_still_seen_with_the_students_loss_compute():
    """With a right SimpleLossCompute the runs are the student's own: run_epoch's mistake fails its checks."""
    results = {r.name: r for r in grade(CH12, CH12.fixture("no_scheduler_step"))}
    assert results["loss_compute"].passed and not results["train_epoch"].passed
    assert ch12_judge.STAND_IN not in results["train_epoch"].message
