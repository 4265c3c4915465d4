"""Chapter 06's expectations: each bug fixture → exact score, exactly the checks it fails, the bug each one names.

Diagnoses are named by bug key (`ch06_judge.BUGS`), never retyped. A LayerNorm mistake costs LayerNorm's checks only:
SublayerConnection's are judged with the probe's LayerNorm stand-in (`ch06_probe.NormDouble`).
"""
from tests.checks.chapters import Bug, fails

NORM_OUTPUTS = frozenset({"ln_fresh", "ln_seeded", "ln_eps", "hidden_ln", "hidden_ln_eps"})
SUBLAYER_OUTPUTS = frozenset({"sub_eval", "sub_train", "hidden_sub_train"})
LOW_VARIANCE = frozenset({"ln_eps", "hidden_ln_eps"})
FRESH = frozenset({"ln_fresh", "ln_eps", "hidden_ln_eps"})
TRAIN = frozenset({"sub_train", "hidden_sub_train"})
BOTH = ("biased_std", "eps_in_sqrt")

EXPECTED = {
    "biased_std": fails(45, NORM_OUTPUTS, "biased_std"),  # x.std(-1, unbiased=False)
    # √(biased var + eps), as nn.LayerNorm: the eps shows on low-variance inputs only
    "nn_layernorm_style": fails(45, NORM_OUTPUTS, "biased_std", ln_eps=BOTH, hidden_ln_eps=BOTH),
    "eps_in_sqrt": fails(80, LOW_VARIANCE, "eps_in_sqrt"),  # √(var + eps)
    "eps_twice": fails(80, LOW_VARIANCE, "eps_twice"),  # √(var + eps) + eps: torch's formula with the original's eps kept
    # a_2 * (x - mean) / std + eps + b_2: half of ln_eps, whose default-eps case (eps 1e-6) cannot show it
    "eps_misplaced": fails(85, LOW_VARIANCE, "eps_misplaced"),
    # mean/std over dim=1: right on a 2-D input, wrong on the others
    "wrong_axis": fails(55, NORM_OUTPUTS - {"ln_eps"}, "wrong_axis"),
    "mean_wrong_axis": fails(45, NORM_OUTPUTS, "mean_axis"),  # x.mean(0, keepdim=True), the std's axis right
    "std_wrong_axis": fails(45, NORM_OUTPUTS, "std_axis"),  # x.std(0, keepdim=True), the mean's axis right
    "ab_swapped": fails(65, FRESH, "ab_swapped"),  # a_2 = zeros, b_2 = ones: a loaded state_dict hides it
    # x -= mean: every output right, but the caller's x is changed; SublayerConnection (judged with the stand-in)
    # loses nothing for it
    "norm_in_place": fails(45, NORM_OUTPUTS, "in_place"),
    "renamed_gain_bias": fails(35, NORM_OUTPUTS | {"ln_structure"}, "names"),
    # self.layer_norm instead of self.norm: SublayerConnection's names differ from the contract's
    "renamed_norm": fails(65, SUBLAYER_OUTPUTS | {"sub_structure"}, "names"),
    "post_norm": fails(70, SUBLAYER_OUTPUTS, "post_norm"),  # norm(x + dropout(sublayer(x)))
    "no_residual": fails(70, SUBLAYER_OUTPUTS, "no_residual"),  # dropout(sublayer(norm(x)))
    "dropout_before_sublayer": fails(80, TRAIN, "dropout_before_sublayer"),  # x + sublayer(dropout(norm(x)))
    # near misses (issue 27): almost right, and each must still fail
    # nn.Parameter(torch.ones(1, features)): the right values by broadcasting, parameters of the wrong shape
    "near_parameters_2d": Bug(35, dict.fromkeys(NORM_OUTPUTS | {"ln_structure"}, ())),
    # def __init__(self, features, eps=1e-5) (nn.LayerNorm's): seen only on a low-variance input with the default eps
    "near_eps_1e5": fails(95, {"ln_eps"}, "eps_default"),
    # (std * 1.001 + eps): 0.1 % off, ten times the tolerance, in every norm and so every sublayer output
    "near_std_tenth_percent": Bug(45, dict.fromkeys(NORM_OUTPUTS, ())),
    # self.eps = eps * 1.01: seen on the low-variance inputs with a large eps (the default case's 1e-6 cannot show it)
    "near_eps_one_percent": Bug(85, dict.fromkeys(LOW_VARIANCE, ())),
    # (…).reshape(-1, features): the right values, the leading axes flattened (right only on a 2-D input)
    "near_norm_flat": Bug(55, dict.fromkeys(NORM_OUTPUTS - {"ln_eps"}, ())),
    # x * 1.001 + dropout(sublayer(norm(x))): the residual 0.1 % off, ten times the tolerance
    "near_residual_tenth_percent": Bug(70, dict.fromkeys(SUBLAYER_OUTPUTS, ())),
    # nn.Dropout(dropout * 1.01): a dropout rate 1 % off
    "near_sub_dropout_one_percent": Bug(75, {"sub_structure": ("dropout_module",), **dict.fromkeys(TRAIN, ())}),
    "all_axes": fails(45, NORM_OUTPUTS, "all_axes"),  # x.mean(), x.std(): over every axis
    "no_keepdim": fails(45, NORM_OUTPUTS, "no_keepdim"),  # x.mean(-1): x - mean raises
    "variance_not_std": fails(45, NORM_OUTPUTS, "variance_not_std"),  # / (x.var(-1) + eps)
    # torch.ones(features) without nn.Parameter: not in the state_dict. SublayerConnection is judged with the probe's
    # LayerNorm stand-in (issue 22 point 3): only LayerNorm's checks are lost
    "plain_tensors": fails(35, NORM_OUTPUTS | {"ln_structure"}, "not_parameter"),
    # the same, and post-norm: the SublayerConnection mistake is still named on the stand-in runs
    "plain_tensors_post_norm": fails(5, NORM_OUTPUTS | {"ln_structure"}, "not_parameter",
                                     **dict.fromkeys(SUBLAYER_OUTPUTS, "post_norm")),
    "residual_normed": fails(70, SUBLAYER_OUTPUTS, "residual_normed"),  # n = norm(x); n + dropout(sublayer(n))
    "norm_unused": fails(70, SUBLAYER_OUTPUTS, "norm_unused"),  # x + dropout(sublayer(x))
    "norm_after_sublayer": fails(70, SUBLAYER_OUTPUTS, "norm_after_sublayer"),  # x + dropout(norm(sublayer(x)))
    "dropout_before_norm": fails(80, TRAIN, "dropout_before_norm"),  # x + sublayer(norm(dropout(x)))
    # mistakes invented outside the fixtures (issue 22 point 2), each with its own bug model:
    "no_centering": fails(45, NORM_OUTPUTS, "no_centering"),  # a_2 * x / (std + eps) + b_2
    "no_bias": fails(80, {"ln_seeded", "hidden_ln"}, "no_bias"),  # a_2 * (x - mean) / (std + eps): fresh b_2 = 0 hides it
    "double_norm": fails(70, SUBLAYER_OUTPUTS, "double_norm"),  # norm(x + dropout(sublayer(norm(x))))
    # std = sqrt((E[x²] − E[x]²) · n/(n−1)): algebraically the unbiased std, but in float32 the two nearly equal terms
    # cancel on a token with a large mean and a small spread (a near-constant token even gets a negative variance, NaN).
    # A real numerical mistake, named from the probe's float64 run of the same code (right there, wrong in float32)
    "one_pass_variance": fails(85, LOW_VARIANCE, "precision_lost"),
    "one_pass_variance_sum": fails(85, LOW_VARIANCE, "precision_lost"),  # sqrt((Σx² − n·mean²) / (n − 1))
    "eps_hardcoded": fails(85, LOW_VARIANCE, "eps_missing"),  # (std + 1e-6): self.eps unused, eps=0.1 ignored
    "no_gain": fails(80, {"ln_seeded", "hidden_ln"}, "no_gain"),  # (x - mean) / (std + eps) + b_2: fresh a_2 = 1 hides it
    "gain_init_zeros": fails(65, FRESH, "gain_init"),  # a_2 made with zeros: a fresh LayerNorm gives zeros
    "bias_init_ones": fails(65, FRESH, "bias_init"),  # b_2 made with ones: a fresh LayerNorm gives the normalised x + 1
    "bias_multiplied": fails(45, NORM_OUTPUTS, "bias_multiplied"),  # a_2 * (x - mean) / (std + eps) * b_2
    "centering_parens": fails(45, NORM_OUTPUTS, "centering_parens"),  # a_2 * x - mean / (std + eps) + b_2
    # norm = LayerNorm(self.size) in forward: the right numbers, but SublayerConnection holds no norm (its LayerNorm is
    # fine, so this is not LayerNorm's plain tensors)
    "norm_built_in_forward": fails(65, SUBLAYER_OUTPUTS | {"sub_structure"}, "norm_not_registered"),
    "dropout_on_input": fails(80, TRAIN, "dropout_on_input"),  # self.dropout(x) + sublayer(self.norm(x))
    "norm_eps_dropout": fails(70, SUBLAYER_OUTPUTS, "norm_eps_dropout"),  # self.norm = LayerNorm(size, dropout)
}
