"""Chapter 01's expectations: each bug fixture → exact score, exactly the checks it fails, the bug each one names.

Diagnoses are named by bug key (`ch01_judge.BUGS`), never retyped: rewording a diagnosis does not break
this table, naming the wrong bug does. Partial-credit scores are pinned exactly.
"""
from grader.checks import ch01_judge

from tests.checks.chapters import Bug, fails

ALL = frozenset(check.name for check in ch01_judge.CHECKS)
# Groups of checks that one kind of bug typically breaks.
SCALE = frozenset({"seed_weights", "seed_output", "scaling_statistics", "no_saturation", "batched_3d", "batched_4d",
                   "cross_lengths", "float64_preserved", "gradients_flow"})
WEIGHTS = SCALE | {"rows_sum_to_one", "large_inputs_finite"}  # p_attn is not a softmax over the key axis
UNTOUCHED = {"inputs_untouched"}  # leaving the inputs alone earns its points only with the right output
MIXING = {"batched_3d", "batched_4d", "cross_lengths", "float64_preserved", "gradients_flow", "large_inputs_finite"}

EXPECTED = {
    # scale
    "no_scale": fails(33, SCALE | UNTOUCHED, "no_scale"),
    "divide_by_dk": fails(33, SCALE | UNTOUCHED, "divide_by_dk"),
    "half_dk": fails(64.3333, SCALE - {"seed_weights", "seed_output", "gradients_flow"} | UNTOUCHED, "half_dk"),  # d_k/2 = √d_k at 4
    "half_dk_inline": fails(33, SCALE | UNTOUCHED, "half_dk"),  # `/ d_k ** 1 / 2` divides by 2·d_k
    "times_sqrt": fails(33, SCALE | UNTOUCHED, "times_sqrt"),
    # `// math.sqrt(d_k)`: floor division; the gradient check names the graph it cuts
    "floor_divide": fails(33, SCALE | UNTOUCHED, "floor_divide", gradients_flow="no_grad"),
    "wrong_dk": fails(33, SCALE | UNTOUCHED, "wrong_dk"),  # query.size(-2)
    "wrong_dk_key_len": fails(33, SCALE | UNTOUCHED, "wrong_dk"),  # math.sqrt(key.size(-2))
    "wrong_dk_value": fails(76, {"scaling_statistics", "no_saturation", "cross_lengths", "float64_preserved"}, "wrong_dk"),
    "wrong_dk_len": fails(33, SCALE | UNTOUCHED, "wrong_dk"),  # len(query): the batch size (3 on scaling_4, 1 elsewhere)
    "extra_key_len": fails(33, SCALE | UNTOUCHED, "extra_divide"),  # / math.sqrt(d_k) / key.size(-2): no constant
    "hardcoded_dk": fails(41.3333, SCALE - {"no_saturation"} | UNTOUCHED, "fixed_dk"),  # math.sqrt(512) fits d_k = 512 only
    # math.sqrt(64), the paper's d_k: 8 = 2·d_k on the seed (d_k = 4), named by the scale being the same at every width
    "fixed_dk_64": fails(36.3333, SCALE | UNTOUCHED, "fixed_dk"),
    # scaled_dot_product_attention with a wrong scale=: consistent with p_attn, or only in the output
    "sdpa_wrong_scale": fails(33, SCALE | UNTOUCHED, "divide_by_dk"),  # scale=1/d_k, p_attn divided by d_k too
    "sdpa_scale_sqrt": fails(62, {"seed_output", "weighted_mix"} | SCALE & MIXING | UNTOUCHED, "times_sqrt"),  # scale=√d_k
    # softmax
    "softmax_dim": fails(20, WEIGHTS | UNTOUCHED, "softmax_dim"),  # dim=-2
    "softmax_dim1": fails(20, WEIGHTS | UNTOUCHED, "softmax_dim"),  # dim=1
    "softmax_no_dim": fails(20, WEIGHTS | UNTOUCHED, "softmax_dim"),  # F.softmax(scores) picks dim 0 on 3-D input
    # two mistakes at once: no √d_k and softmax(dim=-2); both are named, the scale first
    "noscale_softmax_dim": Bug(20, {check: ("no_scale", "softmax_dim") for check in WEIGHTS | UNTOUCHED}, "no_scale"),
    # a hand-made softmax without keepdim=True: softmax(dim=-2) on the symmetric seed, an error on other shapes
    "no_keepdim": fails(25, WEIGHTS - {"no_saturation"} | {"weighted_mix"} | UNTOUCHED, "no_keepdim"),
    "no_keepdim_stable": fails(25, WEIGHTS - {"no_saturation"} | {"weighted_mix"} | UNTOUCHED, "no_keepdim"),
    "max_no_keepdim": fails(31, WEIGHTS - {"no_saturation"} | {"weighted_mix"} | UNTOUCHED, "no_keepdim"),
    "scale_after_softmax": fails(20, WEIGHTS | UNTOUCHED, "scale_after_softmax"),  # softmax(q·kᵀ) / √d_k
    "log_softmax": fails(20, WEIGHTS | UNTOUCHED, "log_softmax"),
    "sigmoid": fails(20, WEIGHTS | UNTOUCHED, "sigmoid"),
    "unstable_softmax": fails(97, {"large_inputs_finite"}, "overflow"),
    "exp_softmax": fails(97, {"large_inputs_finite"}, "overflow"),
    # transpose
    "transpose_01": fails(0, ALL, "transpose_01"),
    "transpose_12": fails(94, {"batched_4d"}, "transpose_12"),
    "dot_T": fails(0, ALL, "dot_T"),
    "no_transpose": fails(0, ALL, "no_transpose"),
    "bmm": fails(94, {"batched_4d"}, "bmm"),
    "einsum_3d": fails(94, {"batched_4d"}, "only_3d"),
    # which tensor goes where (the seed input is self-attention, q = k = v, so these pass it)
    "swap_qk": fails(51, WEIGHTS - {"seed_weights", "seed_output"} | {"weighted_mix"} | UNTOUCHED, "swap_qk"),
    # right weights, output p_attnᵀ @ value (an error where p_attn is not square)
    "transposed_mix": fails(49, {"seed_output", "rows_sum_to_one", "weighted_mix", "no_saturation"} | MIXING
                            | UNTOUCHED, "transposed_mix"),
    # torch.matmul(p_attn, value.transpose(-2, -1)): raises on every case whose value is not square (was a bare runtime error)
    "value_transposed": fails(0, ALL, "value_transposed"),
    "value_as_key": fails(39, WEIGHTS - {"seed_weights", "seed_output"} | {"weighted_mix"} | UNTOUCHED, "value_as_key"),
    "query_as_value": fails(71, {"weighted_mix"} | MIXING | UNTOUCHED, "wrong_value",  # mixes key
                            gradients_flow=("unused_input", "wrong_value")),  # value never used: no gradient
    "query_mixed": fails(61, {"rows_sum_to_one", "weighted_mix", "no_saturation"} | MIXING | UNTOUCHED, "wrong_value"),
    # what is returned
    "only_output": fails(0, ALL, "only_output"),
    "swapped_return": fails(0, ALL, "swapped_return"),
    "scores": fails(26, WEIGHTS - {"seed_output", "float64_preserved"} | {"weighted_mix"}, "scores"),
    # side effects, autograd, dtype
    "in_place": fails(55, {"return_contract", "seed_weights", "seed_output", "rows_sum_to_one", "weighted_mix",
                           "inputs_untouched", "gradients_flow"}, "in_place"),
    "no_grad": fails(97, {"gradients_flow"}, "no_grad"),
    "detach": fails(97, {"gradients_flow"}, "no_grad"),
    "detach_weights": fails(97, {"gradients_flow"}, "no_grad"),
    "numpy_roundtrip": fails(97, {"gradients_flow"}, "no_grad"),
    "float_cast": fails(97, {"float64_preserved"}, "dtype"),
    # / torch.sqrt(torch.tensor(d_k)): a float32 scale, so float64 input comes out right to float32 accuracy only
    "sqrt_float32_tensor": fails(97, {"float64_preserved"}, "precision"),
    # scores.float().softmax(…): float32 weights meet float64 values in the second matmul, which raises; the message
    # names the dtypes mixed (errortext.DTYPE, asserted in test_ch01_diagnoses), not a bare runtime error
    "softmax_float32": Bug(97, {"float64_preserved": ()}),
    "new_tensor": fails(94, {"float64_preserved", "gradients_flow"}, "dtype", gradients_flow="no_grad"),  # torch.tensor
    # torch.matmul(p_attn.detach(), value): value's gradient right, query's and key's not (was "그래프가 바뀌었는지 확인하세요")
    "weights_detached": fails(97, {"gradients_flow"}, "weights_detached"),
    # not written yet
    "unimplemented": fails(0, ALL, "stub"),
    # near misses (issue 27): almost right, and each must still fail
    # scores / (1.001 * sqrt(d_k)): 0.1 % off, ten times the tolerance; no bug named, the weights differ
    "near_scale_tenth_percent": Bug(43, dict.fromkeys({"seed_weights", "seed_output", "no_saturation", "batched_3d",
                                                      "batched_4d", "cross_lengths", "float64_preserved",
                                                      "gradients_flow", "inputs_untouched"}, ())),
    # p_attn.squeeze(0): the right values, the batch axis dropped on the seed (batch 1); only the shape is wrong
    "near_weights_squeezed": Bug(70, dict.fromkeys({"return_contract", "seed_weights", "no_saturation"}, ())),
    # softmax(...) * 1.0005: each row sums to 1.0005, five times the 1e-4 the row-sum check allows
    "near_rows_sum_off": Bug(30, dict.fromkeys(ALL - {"return_contract", "weighted_mix", "scaling_statistics"}, ())),
    # (p_attn @ value) * 1.001: the output 0.1 % off its own p_attn @ value, the weights right
    "near_output_tenth_percent": Bug(59, dict.fromkeys({"seed_output", "weighted_mix", "batched_3d", "batched_4d",
                                                       "cross_lengths", "float64_preserved", "inputs_untouched",
                                                       "gradients_flow", "large_inputs_finite"}, ())),
    # scores / (1.06 * sqrt(d_k)): the scores' spread 6 % off, just past the 5 % scaling_statistics allows
    "near_scale_six_percent": Bug(33, dict.fromkeys(SCALE | UNTOUCHED | {"seed_weights"}, ())),
    # a hand-made softmax subtracting the whole tensor's max, not each row's: rows far below it underflow to 0/0
    "near_global_max": fails(97, {"large_inputs_finite"}, "overflow"),
}
