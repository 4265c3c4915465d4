"""Chapter 12's expectations: each bug fixture → exact score, exactly the checks it fails, the bug each one names.

Diagnoses are named by bug key (`ch12_judge.BUGS`), never retyped.
"""
from tests.checks.chapters import Bug, fails

DATA = frozenset({"hidden_data"})
LOSS = frozenset({"loss_compute", "hidden_loss"})
RUNS = frozenset({"train_epoch", "accumulation", "hidden_train"})  # the training runs (eval_mode does not step)

EXPECTED = {
    # loss.backward() on the loss compute's first value (detached, for the record): torch refuses it in every run
    "backward_on_record": fails(50, RUNS | {"train_state"}, "backward_on_record"),
    # train_state.samples += batch.src.shape[1]: the sentence length, not the batch size; the other counters right
    "samples_sequence_length": fails(75, {"train_state", "hidden_train"}, "samples_counted"),
    # the run_epoch mistakes, each seen on the recorded counters, calls and parameters
    "no_zero_grad": fails(60, RUNS, "no_zero_grad"),
    "no_scheduler_step": fails(60, RUNS, "no_scheduler"),
    # the order within a batch, read from the recorded events (loss call, backward, step, zero_grad, scheduler)
    "step_before_backward": fails(60, RUNS, "step_before_backward"),  # optimizer.step() and then loss_node.backward()
    "zero_grad_before_step": fails(60, RUNS, "zero_grad_before_step"),  # zero_grad(), then step(): the gradients gone
    # optimizer.zero_grad() before every backward: right with accum_iter=1, the accumulated gradients cleared otherwise
    "zero_grad_every_batch": fails(75, {"accumulation", "hidden_train"}, "zero_grad_unstepped"),
    "loss_on_tgt": fails(55, RUNS | {"eval_mode"}, "target_tgt"),  # loss_compute(out, batch.tgt, ...)
    "norm_batch_size": fails(55, RUNS | {"eval_mode"}, "norm_arg"),  # loss_compute(out, batch.tgt_y, batch.src.size(0))
    # scheduler.step() inside the accum_iter branch: right with accum_iter=1, one rate step per update otherwise
    "scheduler_in_accum": fails(75, {"accumulation", "hidden_train"}, "scheduler_in_accum"),
    "eval_steps_optimizer": fails(95, {"eval_mode"}, "eval_steps"),  # backward and step whatever the mode
    "accum_ignored": fails(70, {"train_state", "accumulation", "hidden_train"}, "accum_ignored"),
    "tokens_not_accumulated": fails(75, {"train_state", "hidden_train"}, "tokens_not_accumulated"),
    "state_samples_tokens_swapped": fails(75, {"train_state", "hidden_train"}, "state_swapped"),
    "epoch_per_batch": fails(65, {"train_epoch", "eval_mode", "hidden_train"}, "epoch_loss"),  # total_loss / (i + 1)
    # total_tokens += batch.ntokens inside the train branch: eval divides by 0 (inf)
    "tokens_counted_in_train": fails(95, {"eval_mode"}, "epoch_no_tokens"),
    "epoch_holds_graph": fails(65, {"train_epoch", "eval_mode", "hidden_train"}, "epoch_graph"),
    # SimpleLossCompute's mistakes cost its own checks only: run_epoch is judged with the probe's stand-in
    "loss_not_divided": fails(85, LOSS, "loss_not_divided"),
    "loss_multiplied": fails(85, LOSS, "loss_multiplied"),  # self.criterion(...) * norm
    "loss_divided_by_numel": fails(85, LOSS, "loss_other_count"),  # self.criterion(...) / y.numel(): pads counted
    "loss_divided_twice": fails(85, LOSS, "loss_divided_twice"),  # return sloss.data * norm, sloss / norm
    # return sloss.data, sloss / norm: both values named, the second first
    "loss_divided_twice_first_per_token": fails(85, LOSS, "loss_divided_twice",
                                                **{check: ("loss_divided_twice", "loss_first") for check in LOSS}),
    "loss_holds_graph": fails(85, LOSS, "loss_graph"),  # return sloss * norm, sloss
    # y.view(-1) on the sliced tgt_y: the loss case's y is a slice too, so it costs SimpleLossCompute's checks only
    "loss_view": fails(85, LOSS, "loss_view"),
    "loss_no_generator": fails(85, LOSS, "loss_no_generator"),  # criterion on the decoder output: LabelSmoothing's assert
    "criterion_args_swapped": fails(85, LOSS, "criterion_args_swapped"),  # criterion(y, x): the hook saw (1-D, 2-D)
    "loss_detached": fails(85, LOSS, "loss_node_detached"),  # return sloss.data * norm, sloss.data
    # data_gen's mistakes
    "data_no_start": fails(80, DATA | {"data_tokens"}, "data_no_start"),
    "data_start_row": fails(80, DATA | {"data_tokens"}, "data_no_start"),  # data[0] = 1: the first row, not column
    "data_draws_pad": fails(80, DATA | {"data_tokens"}, "data_pad"),  # torch.randint(0, V, ...)
    "data_default_pad": fails(80, DATA | {"data_batches"}, "data_pad_arg"),  # Batch(src, tgt): pad 2
    "data_python_random": fails(80, DATA | {"data_tokens"}, "data_seed"),  # random.randrange: no torch seed
    # near misses (issue 27): almost right, and each must still fail
    # generator(x).detach().requires_grad_(): the right loss values, no gradient reaches the generator
    # (run_epoch, TrainState and accum_iter are judged with the probe's stand-in loss compute: they pass)
    "near_loss_gradient_cut": fails(85, LOSS, "loss_gradient"),
    # range(nbatches - 1): one Batch short
    "near_data_one_batch_short": fails(70, DATA | {"data_batches", "data_tokens"}, "data_count"),
    # torch.randint(1, V + 1, …): the upper bound one token too high, V itself drawn
    "near_data_token_v": fails(80, DATA | {"data_tokens"}, "data_range"),
    # torch.randint(2, V, …): every token in range, seeded, not the reference's draw
    "near_data_from_two": fails(80, DATA | {"data_tokens"}, "data_values"),
    "data_reseeded": fails(80, DATA | {"data_tokens"}, "data_repeated"),  # torch.manual_seed(0) before each batch
    # return sloss.data, sloss: the right loss, the first value not multiplied back by norm
    "near_loss_first_not_times_norm": fails(85, LOSS, "loss_first"),
    # criterion(…) / (norm * 1.001): the loss 0.1 % off, ten times the tolerance
    "near_loss_tenth_percent": fails(85, LOSS, "loss_value"),
    # total_loss / (total_tokens + 1): the average one token off
    "near_epoch_one_token_more": fails(65, {"train_epoch", "eval_mode", "hidden_train"}, "epoch_loss"),
    # scheduler.step() before optimizer.step(): every step at the next step's rate
    "near_scheduler_before_optimizer": fails(60, RUNS, "parameters"),
    # (i + 1) % accum_iter == 0: as many steps with accum_iter=2 (on other batches), one fewer with 3
    "near_accum_offset": fails(75, {"accumulation", "hidden_train"}, "parameters", hidden_train="optimizer_count"),
    # train_state.step += 1 inside the accum_iter branch: right with accum_iter=1, steps counted as updates otherwise
    "near_step_per_update": Bug(80, {"train_state": ("state_counters",), "hidden_train": ("state_counters",)},
                                "state_counters"),
    # loss_node.backward() before the mode test: gradients left behind in eval mode
    "near_eval_backward": fails(95, {"eval_mode"}, "eval_steps"),
    # if mode == "train": (no "train+log"): the accum case runs with mode="train+log" and nothing trains
    "near_train_log_ignored": fails(85, {"train_state", "accumulation"}, "train_log_ignored"),
    # model.forward(batch.src, batch.tgt, batch.tgt_mask, batch.src_mask): named from the forward call's arguments
    "forward_masks_swapped": fails(45, RUNS | {"train_state", "eval_mode"}, "forward_masks_swapped"),
    # loss_compute(model.generator(out), …): the loss compute's generator refuses the vocabulary-sized input
    "epoch_applies_generator": fails(45, RUNS | {"train_state", "eval_mode"}, "generator_in_epoch"),
}
