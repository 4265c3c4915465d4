"""Chapter 04's expectations: each bug fixture → exact score, exactly the checks it fails, the bug each one names.

Diagnoses are named by bug key (`ch04_judge.BUGS`), never retyped.
"""
from grader.checks import ch04_judge

from tests.checks.chapters import Bug, fails

ALL = frozenset(check.name for check in ch04_judge.CHECKS)
FORWARD = ALL - {"module_structure"}
TRAIN = frozenset({"dropout_train", "hidden_dropout"})

EXPECTED = {
    "relu_missing": fails(15, FORWARD, "relu_missing"),  # w_2(dropout(w_1(x)))
    "relu_after_w2": fails(15, FORWARD, "relu_after_w2"),  # w_2(dropout(w_1(x))).relu()
    "gelu": fails(15, FORWARD, "other_activation"),  # F.gelu instead of ReLU
    "dropout_after_w2": fails(70, TRAIN, "dropout_after_w2"),  # dropout(w_2(…))
    "dropout_before_w1": fails(70, TRAIN, "dropout_before_w1"),  # w_1(dropout(x))
    "dropout_missing": fails(70, TRAIN, "dropout_missing"),  # no dropout at all
    "relu_twice": fails(15, FORWARD, "relu_twice"),  # w_2(…).relu() after the right ReLU
    "softmax_activation": fails(15, FORWARD, "other_activation"),  # softmax(dim=-1) as the activation
    "dropout_twice": fails(70, TRAIN, "dropout_twice"),  # dropout(w_2(dropout(…)))
    "dropout_in_eval": fails(45, FORWARD - TRAIN, "dropout_in_eval"),  # F.dropout(h, p): drops in eval mode too
    "residual_inside": fails(15, FORWARD, "residual_inside"),  # x + w_2(…): the residual belongs to chapter 06
    "renamed_layers": fails(0, ALL, "names"),
    # nn.Linear(…, bias=False) for both: named as such first (the names list follows); the output without biases is
    # another function, so the forward checks fail too
    "linear_no_bias": fails(0, ALL, "no_bias"),  # self.linear1 / self.linear2: the names differ
    # near misses (issue 27): almost right, and each must still fail
    "near_leaky_relu": fails(15, FORWARD, "other_activation"),  # F.leaky_relu: slope 0.01 below zero
    # def __init__(…, dropout=0.11): every case passing dropout= is right, the default rate is 10 % off
    "near_default_dropout": fails(85, {"module_structure"}, "dropout_rate"),
    # w_2(…) * 1.001: 0.1 % off, ten times the tolerance
    "near_output_tenth_percent": Bug(15, dict.fromkeys(FORWARD, ())),
    # .reshape(-1, d_model): the right values, the leading axes flattened (right only on the unbatched input)
    "near_output_flat": Bug(25, dict.fromkeys(FORWARD - {"no_batch_axis"}, ())),
    # x.unsqueeze(0) when x is 2-D: the right values, a batch axis of 1 added to the unbatched sentence
    "near_unbatched_gets_batch_axis": Bug(90, {"no_batch_axis": ()}),
    # out + (0.001·out − (0.001·out).detach()): the same output, every gradient 0.1 % high
    "near_gradient_tenth_percent": fails(90, {"hidden_gradients"}, "gradients"),
    # mistakes invented outside the fixtures:
    # nn.Dropout(0.1) whatever dropout= says: named from the module's dropout rate recorded on the train cases
    "dropout_hardcoded": fails(70, TRAIN, "dropout_rate"),
    # nn.Linear(d_model, 4 * d_model): the visible cases' d_ff is 4 · d_model; the others name the sizes typed in
    "d_ff_four_times_d_model": fails(70, {"no_batch_axis", "hidden_sizes", "hidden_gradients"}, "sizes"),
    # nn.Dropout(1 - dropout) (a keep probability): the visible train case's 0.5 hides it
    "dropout_keep_prob": fails(75, {"module_structure", "hidden_dropout"}, "dropout_rate"),
    "relu_on_input": fails(15, FORWARD, "relu_on_input"),  # w_2(dropout(w_1(x.relu())))
}
