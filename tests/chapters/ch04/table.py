"""Chapter 04's expectations: each bug fixture → exact score, exactly the checks it fails, the bug each one names.

Diagnoses are named by bug key (`ch04_judge.BUGS`), never retyped.
"""
from grader.checks import ch04_judge

from tests.checks.chapters import fails

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
    "renamed_layers": fails(0, ALL, "names"),  # self.linear1 / self.linear2: the names differ
    # near misses (issue 27): almost right, and each must still fail
    "near_leaky_relu": fails(15, FORWARD, "other_activation"),  # F.leaky_relu: slope 0.01 below zero
}
