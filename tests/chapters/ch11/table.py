"""Chapter 11's expectations: each bug fixture → exact score, exactly the checks it fails, the bug each one names.

Diagnoses are named by bug key (`ch11_judge.BUGS`), never retyped.
"""
from tests.checks.chapters import Bug, fails

RATES = frozenset({"rate_warmup", "rate_decay", "rate_config", "hidden_rate"})
WARMUP = frozenset({"rate_warmup", "rate_config", "hidden_rate"})  # the steps before warmup
SMOOTHING = frozenset({"ls_true_dist", "ls_loss", "hidden_ls_true_dist", "hidden_ls_loss"})
TRUE_DIST = frozenset({"ls_true_dist", "hidden_ls_true_dist"})
LOSS = frozenset({"ls_loss", "hidden_ls_loss"})
SWAPPED_EXPONENTS = ("model_size_exponent", "warmup_exponent")

EXPECTED = {
    "no_step_guard": fails(90, {"rate_step_zero"}, "no_step_guard"),
    # step = step + 1 in place of the guard: every rate one step late, and rate(0) != rate(1)
    "step_shifted": fails(50, RATES | {"rate_step_zero"}, "step_shifted"),  # rate(0) is the right rate(1), rate(1) is not: named on every check
    "step_zero_nan": fails(90, {"rate_step_zero"}, "no_step_guard"),  # torch: inf * 0 = nan at step 0
    "piecewise_no_guard": fails(90, {"rate_step_zero"}, "step_zero_value"),  # if step < warmup: …, rate(0) = 0
    "max_for_min": fails(60, RATES, "max_for_min"),
    # torch.maximum without the guard: inf at step 0 (max(inf, 0)), max for min everywhere else
    "torch_max_no_guard": fails(50, RATES, "max_for_min", first="no_step_guard",
                                 rate_step_zero="no_step_guard"),
    "model_size_exponent": fails(60, RATES, "model_size_exponent"),  # model_size ** 0.5
    "warmup_exponent": fails(70, WARMUP, "warmup_exponent"),  # warmup ** (-0.5): the steps after warmup are right
    # model_size ** (-1.5), warmup ** (-0.5): after warmup only the model size shows
    "exponents_swapped": fails(60, {"rate_decay"}, "model_size_exponent", first="warmup_exponent",
                                **dict.fromkeys(WARMUP, SWAPPED_EXPONENTS)),
    "rate_no_model_size": fails(60, RATES, "model_size_missing"),  # factor * min(...): model_size^(-0.5) left out
    # `** -1 / 2`, `** -3 / 2`: (x ** -1) / 2, the exponent without parentheses
    "step_exponent_precedence": fails(60, RATES, "precedence"),
    "warmup_exponent_precedence": fails(60, RATES, "precedence"),
    "warmup_paren": fails(60, RATES, "warmup_paren"),  # (step * warmup) ** (-1.5)
    "factor_missing": fails(85, {"rate_config", "hidden_rate"}, "factor_missing"),  # factor 1 elsewhere
    "denominator": fails(55, SMOOTHING, "denominator"),  # smoothing / (size - 1)
    "confidence_swapped": fails(55, SMOOTHING, "swapped"),
    "confidence_is_smoothing": fails(50, SMOOTHING | {"ls_attributes"}, "confidence_value",
                                     ls_attributes=()),  # self.confidence = smoothing
    "fill_after_scatter": fails(55, SMOOTHING, "fill_after_scatter"),  # fill_ after scatter_: no confidence left
    # padding column and rows zeroed first, then scatter_: the padding rows get their confidence back; half the hidden
    # credit (one hidden target has no padding)
    "scatter_after_padding": fails(65, SMOOTHING, "scatter_after_padding"),
    # scatter_(0, …): on ls_demo only the padding column is written (as fill_after_scatter), ls_batch tells them apart;
    # an index error on the hidden input with more classes than rows
    "scatter_dim0": fails(55, SMOOTHING, "scatter_dim"),
    "pad_rows_as_columns": fails(65, SMOOTHING, "pad_rows_dim"),  # index_fill_(1, …)
    "pad_column_kept": fails(55, SMOOTHING, "pad_column"),
    # true_dist = x.data.clone() never filled: x's log probabilities stay in it, and the loss is nan (the log of a
    # negative target), as the swapped criterion's is: the forward's true_dist names the real step
    "fill_missing": fails(55, SMOOTHING, "fill_missing"),
    "fill_missing_zeros": fails(55, SMOOTHING, "fill_missing"),  # torch.zeros_like(x), never filled
    # true_dist[self.padding_idx, :] = 0: a row for the column (an IndexError on the hidden input with fewer rows)
    "pad_row_for_column": fails(55, SMOOTHING, "pad_row_for_column"),
    # torch.nonzero(target.data != self.padding_idx): every row zeroed but the padding ones
    "pad_rows_inverted": fails(55, SMOOTHING, "pad_rows_inverted"),
    "pad_rows_kept": fails(65, SMOOTHING, "pad_rows"),  # half the hidden credit: one hidden target has no padding
    "true_dist_not_stored": fails(75, TRUE_DIST, "true_dist_missing"),  # the loss is right
    # self.criterion(true_dist, x): the log of negative log probabilities, a nan loss; true_dist is right
    "criterion_args_swapped": fails(80, LOSS, "criterion_swapped"),
    # true_dist = x.data without clone: filling it fills x, the loss compares the target with itself
    "no_clone": fails(80, LOSS, "x_overwritten"),
    "criterion_on_probs": fails(80, LOSS, "criterion_probs"),  # self.criterion(x.exp(), …)
    # nn.CrossEntropyLoss(reduction="sum"): soft targets on log-probabilities; the loss names the criterion too (it was
    # "loss 값이 기준과 다릅니다")
    "cross_entropy_loss": fails(75, LOSS | {"ls_attributes"}, "criterion"),
    # reduction="none" then .sum(): the loss is right, the criterion is not the TODO's KLDivLoss(reduction="sum")
    "reduction_none_summed": fails(95, {"ls_attributes"}, "reduction"),
    "reduction_mean": fails(75, LOSS | {"ls_attributes"}, "reduction"),
    "reduction_batchmean": fails(75, LOSS | {"ls_attributes"}, "reduction"),
    # reduction="sum" kept, the sum divided by x.size(0) by hand: the criterion is right, the loss is batchmean's
    "loss_divided_by_rows": fails(80, LOSS, "reduction"),
    "log_target": fails(80, LOSS, "log_target"),  # nn.KLDivLoss(reduction="sum", log_target=True)
    # scatter_add_ of the confidence: the target cell holds the smoothing share plus the confidence
    "confidence_scatter_added": fails(55, SMOOTHING, "confidence_added"),
    # near misses (issue 27): almost right, and each must still fail
    "near_rate_5_percent_high": Bug(60, dict.fromkeys(RATES, ())),  # 1.05 * factor: no bug named, the value differs
    # 1.0 - self.smoothing written inline, self.confidence never stored: the values are right, one attribute is missing
    "near_confidence_not_stored": Bug(95, {"ls_attributes": ()}),
    # step = 1e-9 instead of 1: no division by zero, but rate(0) is ~0, not rate(1)
    "near_step_guard_tiny": fails(90, {"rate_step_zero"}, "step_zero_value"),
    # self.true_dist = true_dist.unsqueeze(0): the right values with a batch axis; the loss is right
    "near_true_dist_batch_axis": Bug(75, dict.fromkeys(TRUE_DIST, ())),
    # the loss returned as .item(): the right number, no tensor (and no gradient)
    "near_loss_item": Bug(80, dict.fromkeys(LOSS, ())),
    # scatter_(…, self.confidence * 1.001): the target's probability 0.1 % high, ten times the tolerance
    "near_confidence_tenth_percent": Bug(55, dict.fromkeys(SMOOTHING, ())),
    # 1.001 * factor: 0.1 % high, ten times the judge's RTOL (the 5 % row misses RTOL loosened to 1e-2)
    "near_rate_tenth_percent": Bug(60, dict.fromkeys(RATES, ())),
    # index_fill_(0, mask.squeeze().unsqueeze(1), 0.0): a 2-D index (an IndexError with one padding row)
    "pad_rows_index_unsqueezed": fails(55, SMOOTHING, "pad_rows_index"),
    # scatter_(1, target.unsqueeze(0), …): the index (1, n) puts every confidence in row 0
    "scatter_unsqueeze_0": fails(55, SMOOTHING, "scatter_index_shape"),
}
