"""Chapter 02's expectations: each bug fixture → exact score, exactly the checks it fails, the bug each one names.

Diagnoses are named by bug key (`ch02_judge.BUGS`), never retyped. Partial-credit scores are pinned exactly.
"""
from grader.checks import ch02_judge

from tests.checks.chapters import Bug, fails

ALL = frozenset(check.name for check in ch02_judge.CHECKS)
# Checks that pass a mask to attention: a bug in how the mask is applied breaks all of them...
MASKED = frozenset({"masked_exact_zero", "causal_mask", "padding_mask", "fully_masked_row", "dropout_eval",
                    "dropout_train", "cross_lengths", "batched_4d", "int_mask", "empty_sentence", "dropout_hidden"})
# Checks whose mask is smaller than the scores and must broadcast (not the causal (1, 5, 5) or int (2, 4, 4) cases).
BROADCAST = MASKED - {"causal_mask", "int_mask"}
DROPOUT_TRAIN = frozenset({"dropout_train", "dropout_hidden"})
FULLY_MASKED = frozenset({"fully_masked_row", "empty_sentence"})  # a row with every key masked
SUBSEQUENT = frozenset({"subsequent_mask_dtype", "subsequent_mask_shape", "subsequent_mask_values",
                        "subsequent_mask_hidden"})
NO_DROPOUT_MODULE = ALL - {"dropout_eval"} - DROPOUT_TRAIN - SUBSEQUENT
SUBSEQUENT_VALUES = frozenset({"subsequent_mask_values", "subsequent_mask_hidden"})

EXPECTED = {
    # the scores and the softmax in attention (every attention check; subsequent_mask is right)
    "softmax_over_queries": fails(18, ALL - SUBSEQUENT, "softmax_axis"),  # scores.softmax(dim=-2)
    # / d_k, or no division: masked weights are still exactly 0 and rows still sum to 1
    "scale_by_d_k": fails(28, ALL - SUBSEQUENT - {"masked_exact_zero"}, "scale_not_sqrt"),
    "no_scale": fails(28, ALL - SUBSEQUENT - {"masked_exact_zero"}, "no_scale"),
    # the mask in attention
    "inverted_mask": fails(28, MASKED, "inverted_mask"),  # masked_fill(mask == 1, -1e9)
    "mask_true_filled": fails(28, MASKED, "inverted_mask", int_mask="mask_bool_only"),  # masked_fill(mask, …)
    "fill_zero": fails(28, MASKED, "fill_zero"),  # masked_fill(mask == 0, 0)
    "multiply_mask": fails(28, MASKED, "fill_zero"),  # scores * mask
    "neg_inf": fails(92, FULLY_MASKED, "neg_inf"),  # float("-inf"): NaN on fully masked rows only
    "where_neg_inf": fails(92, FULLY_MASKED, "neg_inf"),  # torch.where(…, -math.inf, …)
    "after_softmax": fails(28, MASKED, "after_softmax"),  # p_attn.masked_fill(mask == 0, 0)
    "mask_not_assigned": fails(28, MASKED, "mask_ignored"),  # scores.masked_fill(…) result dropped
    "no_if_mask": fails(90, {"no_mask_unchanged"}, "mask_none"),  # masked_fill even when mask is None
    "boolean_index": fails(46, BROADCAST, "boolean_index"),  # scores[mask == 0] = -1e9
    "bitwise_not": fails(97, {"int_mask"}, "mask_bool_only"),  # ~mask on a 0/1 integer mask
    "head_axis": fails(33, MASKED, "head_axis"),  # mask.unsqueeze(1) inside attention
    "mask_arith": fails(31, MASKED - {"int_mask"}, "mask_arith"),  # scores + (1 - mask) * -1e9: an error on a bool mask
    "if_mask": fails(28, MASKED, "mask_truthiness"),  # `if mask:` on a tensor
    "fill_plus_1e9": fails(28, MASKED, "fill_positive"),  # masked_fill(mask == 0, 1e9): the sign dropped
    "fill_minus_1e_minus9": fails(28, MASKED, "fill_zero"),  # masked_fill(mask == 0, -1e-9): the exponent's sign
    "mask_transposed": fails(28, MASKED, "mask_transposed"),  # masked_fill(mask.transpose(-2, -1) == 0, …)
    "old_signature": fails(28, MASKED, "signature"),  # def attention(query, key, value)
    # dropout
    "dropout_on_scores": fails(85, DROPOUT_TRAIN, "dropout_scores"),
    "dropout_on_output": fails(85, DROPOUT_TRAIN, "dropout_output"),
    "dropout_on_value": fails(85, DROPOUT_TRAIN, "dropout_value"),  # value = dropout(value): the weights stay whole
    "dropout_ignored": fails(85, DROPOUT_TRAIN, "dropout_ignored"),
    "dropout_not_returned": fails(92.5, DROPOUT_TRAIN, "dropout_not_returned"),  # half of each: the output is right
    "dropout_after_output": fails(85, DROPOUT_TRAIN, "dropout_after_output"),  # output = p_attn @ value, then dropout
    "functional_dropout": fails(95, {"dropout_eval"}, "dropout_eval_ignored"),  # F.dropout(p_attn, p): training=True
    "no_if_dropout": fails(38, NO_DROPOUT_MODULE, "dropout_none"),  # dropout(p_attn) with dropout=None
    # subsequent_mask
    "triu_diagonal_0": fails(88, SUBSEQUENT_VALUES, "subsequent_diagonal"),
    "triu_diagonal_neg1": fails(88, SUBSEQUENT_VALUES, "subsequent_diagonal"),
    "tril_eq0": fails(88, SUBSEQUENT_VALUES, "subsequent_inverted"),
    "triu_bool": fails(88, SUBSEQUENT_VALUES, "subsequent_inverted"),  # triu(…, diagonal=1).bool(): the future is True
    "forgot_eq0": fails(85, {"subsequent_mask_dtype", "subsequent_mask_hidden"}, "subsequent_uint8",  # uint8 triu
                        subsequent_mask_values="subsequent_inverted"),
    "float_mask": fails(96, {"subsequent_mask_dtype", "subsequent_mask_hidden"}, "subsequent_float"),
    "no_batch_axis": fails(96, {"subsequent_mask_shape", "subsequent_mask_hidden"}, "subsequent_no_batch"),
    # near misses (issue 27): almost right, and each must still fail
    # masked_fill(mask == 0, -10.0): masked weights ~1e-6, not exactly 0; the causal and padding patterns still show
    "near_fill_minus_ten": Bug(48, dict.fromkeys({"masked_exact_zero", "fully_masked_row", "dropout_eval",
                                                 "dropout_train", "cross_lengths", "batched_4d", "int_mask",
                                                 "empty_sentence", "dropout_hidden"}, ())),
    # scores / (1.001 * sqrt(d_k)): 0.1 % off, ten times the tolerance; zeros and row sums stay exact
    "near_scale_tenth_percent": Bug(28, dict.fromkeys(MASKED - {"masked_exact_zero"} | {"no_mask_unchanged"}, ())),
    # triu(..., diagonal=2): one step into the future left visible
    "near_triu_diagonal_2": fails(92.5, SUBSEQUENT_VALUES, "subsequent_diagonal"),
    # (triu(...) == 0).type(torch.uint8): the right values, the wrong dtype
    "near_mask_uint8": fails(96, {"subsequent_mask_dtype", "subsequent_mask_hidden"}, "subsequent_uint8"),
    # attn_shape = (1, 1, size, size): the right values (and it broadcasts), one axis too many
    "near_mask_4d": Bug(96, dict.fromkeys({"subsequent_mask_shape", "subsequent_mask_hidden"}, ())),
}
