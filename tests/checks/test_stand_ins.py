"""One mistake costs its own unit: a faulty SimpleLossCompute leaves run_epoch judged with the probe's stand-in; a
make_model whose init loop raises leaves the model judged as built with the probe's lenient init; a faulty LayerNorm
leaves SublayerConnection judged with the probe's NormDouble."""
import pytest

from grader.checks import ch12_judge

from .chapters import CHAPTERS, grade

pytestmark = [pytest.mark.checks]

CH12 = next(chapter for chapter in CHAPTERS if chapter.id == "12_training")


@pytest.mark.ch12
@pytest.mark.parametrize("fixture", ["loss_detached", "loss_not_divided"])
def test_a_faulty_loss_compute_costs_only_its_own_checks(fixture):
    """The loss compute's checks fail and say run_epoch was judged with the stand-in; every run_epoch check passes."""
    results = {r.name: r for r in grade(CH12, CH12.fixture(fixture))}
    assert sorted(name for name, r in results.items() if not r.passed) == ["hidden_loss", "loss_compute"]
    assert ch12_judge.STAND_IN in results["loss_compute"].message


@pytest.mark.ch12
def test_a_run_epoch_mistake_is_still_seen_with_the_students_loss_compute():
    """With a right SimpleLossCompute the runs are the student's own: run_epoch's mistake fails its checks."""
    results = {r.name: r for r in grade(CH12, CH12.fixture("no_scheduler_step"))}
    assert results["loss_compute"].passed and not results["train_epoch"].passed
    assert ch12_judge.STAND_IN not in results["train_epoch"].message


CH09 = next(chapter for chapter in CHAPTERS if chapter.id == "09_model")


@pytest.mark.ch09
def test_an_init_loop_that_raises_costs_only_the_xavier_checks():
    """xavier_uniform_ on every parameter makes make_model raise; the model checks run on the same make_model built
    with the probe's lenient init, and the Xavier check says so."""
    from grader.checks import ch09_judge

    results = {r.name: r for r in grade(CH09, CH09.fixture("xavier_all"))}
    assert sorted(name for name, r in results.items() if not r.passed) == ["hidden_model", "xavier"]
    assert ch09_judge.STAND_IN in results["xavier"].message
    assert results["hidden_model"].score == pytest.approx(results["hidden_model"].points / 2)


@pytest.mark.ch09
def test_the_lenient_init_restores_torchs_own_functions():
    """Inside the block a 1-D tensor is left as it is; after it, torch refuses it again."""
    import types

    import torch

    from grader.checks import ch09_probe

    original = torch.nn.init.xavier_uniform_
    namespace = types.SimpleNamespace(xavier_uniform_=original)
    bias = torch.ones(3)
    with ch09_probe.lenient_init(namespace):
        assert torch.nn.init.xavier_uniform_(bias) is bias and namespace.xavier_uniform_(bias) is bias
        assert torch.equal(bias, torch.ones(3))
    assert torch.nn.init.xavier_uniform_ is original and namespace.xavier_uniform_ is original
    with pytest.raises(ValueError):
        torch.nn.init.xavier_uniform_(bias)


CH06 = next(chapter for chapter in CHAPTERS if chapter.id == "06_sublayer")


@pytest.mark.ch06
def test_a_faulty_layer_norm_costs_only_its_own_checks():
    """LayerNorm with plain tensors fails LayerNorm's checks, which say SublayerConnection is judged with the stand-in;
    every SublayerConnection check passes."""
    from grader.checks import ch06_judge

    results = {r.name: r for r in grade(CH06, CH06.fixture("plain_tensors"))}
    assert all(results[name].passed for name in ("sub_structure", "sub_eval", "sub_train", "hidden_sub_train"))
    assert ch06_judge.STAND_IN in results["ln_structure"].message


@pytest.mark.ch06
def test_a_sublayer_mistake_is_seen_with_the_students_layer_norm():
    """With a right LayerNorm the SublayerConnection runs are the student's own."""
    from grader.checks import ch06_judge

    results = {r.name: r for r in grade(CH06, CH06.fixture("post_norm"))}
    assert not results["sub_eval"].passed and "대역" not in results["sub_eval"].message
    assert all(ch06_judge.STAND_IN not in r.message for r in results.values())
