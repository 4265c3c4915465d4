"""Chapter 12's expectations: each bug fixture → exact score, exactly the checks it fails, the bug each one names.

Diagnoses are named by bug key (`ch12_judge.BUGS`), never retyped.
"""
from tests.checks.chapters import fails

DATA = frozenset({"hidden_data"})
LOSS = frozenset({"loss_compute", "hidden_loss"})
RUNS = frozenset({"train_epoch", "accumulation", "hidden_train"})  # the training runs (eval_mode does not step)

EXPECTED = {
    # the run_epoch mistakes, each seen on the recorded counters, calls and parameters
    "no_zero_grad": fails(60, RUNS, "no_zero_grad"),
    "no_scheduler_step": fails(60, RUNS, "no_scheduler"),
    "loss_on_tgt": fails(55, RUNS | {"eval_mode"}, "target_tgt"),  # loss_compute(out, batch.tgt, ...)
    "eval_steps_optimizer": fails(95, {"eval_mode"}, "eval_steps"),  # backward and step whatever the mode
    "accum_ignored": fails(70, {"train_state", "accumulation", "hidden_train"}, "accum_ignored"),
    "tokens_not_accumulated": fails(75, {"train_state", "hidden_train"}, "tokens_not_accumulated"),
    "epoch_holds_graph": fails(65, {"train_epoch", "eval_mode", "hidden_train"}, "epoch_graph"),
    # SimpleLossCompute's mistakes cost its own checks only: run_epoch is judged with the probe's stand-in
    "loss_not_divided": fails(85, LOSS, "loss_not_divided"),
    "loss_holds_graph": fails(85, LOSS, "loss_graph"),  # return sloss * norm, sloss
    "loss_detached": fails(85, LOSS, "loss_node_detached"),  # return sloss.data * norm, sloss.data
    # data_gen's mistakes
    "data_no_start": fails(80, DATA | {"data_tokens"}, "data_no_start"),
    "data_draws_pad": fails(80, DATA | {"data_tokens"}, "data_pad"),  # torch.randint(0, V, ...)
    "data_default_pad": fails(80, DATA | {"data_batches"}, "data_pad_arg"),  # Batch(src, tgt): pad 2
    "data_python_random": fails(80, DATA | {"data_tokens"}, "data_seed"),  # random.randrange: no torch seed
    # near misses (issue 27): almost right, and each must still fail
    # generator(x).detach().requires_grad_(): the right loss values, no gradient reaches the generator
    # (run_epoch, TrainState and accum_iter are judged with the probe's stand-in loss compute: they pass)
    "near_loss_gradient_cut": fails(85, LOSS, "loss_gradient"),
}
