"""Chapter 03's expectations: each bug fixture → exact score, exactly the checks it fails, the bug each one names.

Diagnoses are named by bug key (`ch03_judge.BUGS`), never retyped.
"""
from grader.checks import ch03_judge

from tests.checks.chapters import Bug, fails

ALL = frozenset(check.name for check in ch03_judge.CHECKS)
FORWARD = frozenset({"self_attention", "stores_attn", "cross_attention", "padding_mask", "dropout_train",
                     "hidden_causal", "hidden_cross_mask", "hidden_dropout", "hidden_gradients"})
OUTPUTS = FORWARD - {"stores_attn"}  # the output is wrong, self.attn is right
KEY_NOT_VALUE = frozenset({"cross_attention", "hidden_cross_mask", "hidden_dropout", "hidden_gradients"})
PER_EXAMPLE_PADDING = frozenset({"padding_mask", "hidden_cross_mask", "hidden_dropout"})
TRAIN = frozenset({"dropout_train", "hidden_dropout"})
MASKED = frozenset({"padding_mask", "hidden_causal", "hidden_cross_mask", "hidden_dropout"})

EXPECTED = {
    "no_split_transpose": fails(20, FORWARD, "no_split_transpose"),  # view(…, h, d_k) without transpose(1, 2)
    "attn_unpacked_swapped": fails(20, FORWARD, "attn_unpacked_swapped"),  # self.attn, x = attention(…)
    "dropout_rate_passed": fails(20, FORWARD, "dropout_rate_passed"),  # attention(…, dropout=0.1): a float called
    "no_merge_transpose": fails(25, OUTPUTS, "no_merge_transpose"),  # x.contiguous().view(…) before the output
    "no_contiguous": fails(20, FORWARD, "no_contiguous"),  # transpose(1, 2).view(…): RuntimeError
    "no_unsqueeze": fails(75, PER_EXAMPLE_PADDING, "no_unsqueeze"),  # mask kept as (batch, 1, key length)
    # A faulty clones costs its own check only: the class is judged with the probe's deep-copying stand-in.
    "shared_clones": fails(90, {"clones_deep_copies"}, "clones_shared"),  # nn.ModuleList([module] * N)
    "shallow_copy": fails(90, {"clones_deep_copies"}, "clones_shared"),  # copy.copy(module)
    "shallow_clones_loop": fails(90, {"clones_deep_copies"}, "clones_shared"),  # [module for _ in range(N)]
    "plain_list": fails(90, {"clones_deep_copies"}, "clones_list"),  # [copy.deepcopy(module) for …]: nothing registered
    "split_transpose_axes": fails(20, FORWARD, "split_transpose_axes"),  # view(…, h, d_k).transpose(1, 3)
    "dropout_on_output": fails(83, TRAIN, "dropout_on_output"),  # self.dropout(self.linears[-1](x))
    "no_output_projection": fails(25, OUTPUTS, "no_output_projection"),  # return x
    "dk_is_d_model": fails(20, FORWARD, "dk_is_d_model"),  # self.d_k = d_model
    "dropout_not_passed": fails(83, TRAIN, "dropout_not_passed"),  # attention(…, mask=mask)
    "attn_not_stored": fails(95, {"stores_attn"}, "attn_not_stored"),  # x, attn = attention(…)
    "key_as_value": fails(68, KEY_NOT_VALUE, "key_as_value"),  # zip(self.linears, (query, key, key))
    "query_as_key": fails(68, KEY_NOT_VALUE, "query_as_key"),  # zip(self.linears, (query, query, value))
    "query_for_all": fails(68, KEY_NOT_VALUE, "query_for_all"),  # zip(self.linears, (query, query, query))
    "mask_not_passed": fails(67, MASKED, "mask_not_passed"),  # attention(query, key, value, dropout=…)
    "mask_inverted": fails(67, MASKED, "mask_inverted"),  # attention(…, mask=mask == 0, …)
    "output_first_linear": fails(25, OUTPUTS, "output_first_linear"),  # return self.linears[0](x)
    "view_heads_first": fails(20, FORWARD, "view_heads_first"),  # lin(x).view(nbatches, self.h, -1, self.d_k)
    "dk_float": fails(20, FORWARD, "dk_float"),  # self.d_k = d_model / h: a float in view()
    "dk_h": fails(20, FORWARD, "head_size"),  # self.d_k = h: no bug model, the d_k it was built with names it
    "dk_fixed": fails(70, {"hidden_causal", "hidden_cross_mask", "hidden_dropout", "hidden_gradients"}, "head_size_fixed"),  # self.d_k = 8
    # self.layers instead of self.linears: the names differ (clones itself is right)
    "renamed_linears": fails(10, ALL - {"clones_deep_copies"}, "names"),
    # near misses (issue 27): almost right, and each must still fail
    # nn.Dropout(p=0.1) whatever dropout is: right in eval mode, the wrong rate in train mode
    # named from the module's own dropout rate on the train cases (its structure is recorded there too)
    "near_dropout_hardcoded": fails(83, TRAIN, "dropout_rate"),
    # clones returns N + 1 deep copies: one too many (the class is judged with the stand-in clones)
    "near_clones_one_extra": fails(90, {"clones_deep_copies"}, "clones_length"),
    # nn.Sequential of N deep copies: registered and unshared, but not the nn.ModuleList asked for (half credit)
    "near_clones_sequential": fails(95, {"clones_deep_copies"}, "clones_container"),
    # def __init__(…, dropout=0.11): every case passing dropout= is right, the default rate is 10 % off
    "near_default_dropout": fails(90, {"module_structure"}, "dropout_rate"),
    # self.linears[-1](x) * 1.001: 0.1 % off, ten times the tolerance; self.attn is right
    "near_output_tenth_percent": Bug(25, dict.fromkeys(OUTPUTS, ())),
    # .view(-1, d_model): the right values flattened to (batch · length, d_model)
    "near_output_flat": Bug(25, dict.fromkeys(OUTPUTS, ())),
    # self.attn = attn.reshape(batch · h, …): the right weights, the head axis merged into the batch axis
    "near_attn_heads_flat": Bug(95, {"stores_attn": ()}),
    # x + (0.001·x − (0.001·x).detach()): the same output, every gradient 0.1 % high
    "near_gradient_tenth_percent": fails(93, {"hidden_gradients"}, "gradients"),
    # mistakes invented outside the fixtures, each with its own bug model:
    "dropout_on_context": fails(83, TRAIN, "dropout_on_output"),  # attention(…) without dropout, then self.dropout(x)
    "unsqueeze_last_axis": fails(67, MASKED, "no_unsqueeze"),  # mask.unsqueeze(-1): masks query rows, or raises
    # attention written inline with / math.sqrt(self.h * self.d_k); self.attn wrong too (named the same, not "store it")
    "inline_scale_d_model": fails(20, FORWARD, "scale_d_model"),
    "projection_shared": fails(20, FORWARD, "projection_shared"),  # zip([self.linears[0]] * 3, (query, key, value))
    "projection_shifted": fails(20, FORWARD, "projection_shifted"),  # zip(self.linears[1:], (query, key, value))
    "inline_softmax_axis": fails(20, FORWARD, "softmax_axis"),  # attention written inline, scores.softmax(dim=-2)
    # the four linears in another order: query and key's swapped; the output's linears[3] used for the query too
    "projections_query_key_swapped": fails(20, FORWARD, "projections_swapped"),
    "projection_output_as_query": fails(20, FORWARD, "projection_reused"),
    # one head at a time (ok_heads_loop draws the same dropout in another order: full marks), then self.dropout again
    # on the heads' output: the weights are dropped right, the output is not what they give
    "heads_loop_dropout_twice": Bug(83, dict.fromkeys(TRAIN, ())),
    # zip(self.linears, (query, value, key)): the inputs in another order, seen where key ≠ value
    "inputs_key_value_swapped": fails(68, KEY_NOT_VALUE, "inputs_swapped"),
}
