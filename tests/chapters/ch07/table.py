"""Chapter 07's expectations: each bug fixture → exact score, exactly the checks it fails, the bug each one names.

Diagnoses are named by bug key (`ch07_judge.BUGS`), never retyped.
"""
from tests.checks.chapters import Bug, fails

STRUCTURES = frozenset({"layer_structure", "encoder_structure"})
ENCODER_OUTPUTS = frozenset({"encoder_forward", "encoder_train", "hidden_encoder", "hidden_train"})
LAYER_OUTPUTS = frozenset({"layer_forward", "hidden_layer"})
OUTPUTS = ENCODER_OUTPUTS | LAYER_OUTPUTS
ENCODER = ENCODER_OUTPUTS | {"encoder_structure"}  # an Encoder's checks but the padding weights (still 0)
# An EncoderLayer mistake costs EncoderLayer's checks (and the padding weights, which its attention gives on its own
# case): the Encoder's checks judge the "_alone" twins built with the probe's LayerDouble (`ch07_probe.LayerDouble`).
LAYER = LAYER_OUTPUTS | {"pad_attention"}

EXPECTED = {
    "layers_times_n": fails(45, ENCODER, "layers_shared"),  # nn.ModuleList([layer] * N)
    "layers_shallow_copy": fails(45, ENCODER, "layers_shared"),  # copy.copy(layer): the same parameters
    "layers_plain_list": fails(45, ENCODER, "layers_list"),  # a plain list of deep copies: never registered
    "no_final_norm": fails(45, ENCODER, "no_final_norm"),  # no self.norm at all
    "final_norm_unused": fails(55, ENCODER_OUTPUTS, "no_final_norm"),  # self.norm built, return x
    "mask_not_passed": fails(65, LAYER, "mask_not_passed"),  # self.self_attn(x, x, x)
    "sublayers_swapped": fails(75, LAYER_OUTPUTS, "sublayers_swapped"),  # feed-forward first, then attention
    # self.sublayer[0](x, lambda x: self.feed_forward(x)): self.self_attn never called, its weights never stored
    "attention_not_called": fails(65, LAYER, "attention_not_called"),
    "sublayer_indices_swapped": fails(75, LAYER_OUTPUTS, "sublayer_indices_swapped"),  # attention in sublayer[1]
    "one_sublayer": fails(65, LAYER_OUTPUTS | {"layer_structure"}, "sublayer_reused"),  # self.sublayer = SublayerConnection(...) used twice
    "sublayer_times_two": fails(65, LAYER_OUTPUTS | {"layer_structure"}, "sublayer_reused"),  # nn.ModuleList([SublayerConnection(...)] * 2)
    "sublayer_0_twice": fails(75, LAYER_OUTPUTS, "sublayer_reused"),  # two built, sublayer[0] used for both
    "layers_not_chained": fails(55, ENCODER_OUTPUTS, "layers_not_chained"),  # out = layer(x, mask) in the loop
    # the real layer cannot be stacked; its attention alone is right (the Encoder is judged with the stand-in)
    "no_size": fails(90, {"layer_structure"}, "size_missing"),
    "attn_not_wrapped": fails(65, LAYER, "sublayer_function"),  # self.sublayer[0](x, self.self_attn)
    "attn_called_early": fails(65, LAYER, "sublayer_function"),  # self.sublayer[0](x, self.self_attn(x, x, x, mask))
    "dropout_hardcoded": fails(90, {"layer_structure"}, "dropout_rate"),  # SublayerConnection(size, 0.1)
    "near_dropout_rate_off": fails(90, {"layer_structure"}, "dropout_rate"),  # dropout + 0.001
    # self.attention = self_attn: the names are part of the contract, and pad_attention finds no self_attn.attn (a
    # change of the given MultiHeadedAttention that never stores it is judged with the course's: ok_given_attn_not_stored)
    "attn_renamed": fails(55, LAYER | {"layer_structure"}, "names", pad_attention="attn_missing"),
    # near misses (issue 27): almost right, and each must still fail
    # self.sublayer[1](x, self.feed_forward) * 1.001: each layer 0.1 % off, ten times the tolerance
    "near_layer_tenth_percent": Bug(75, dict.fromkeys(LAYER_OUTPUTS, ())),
    # self.norm(x) * 1.001: the encoder's output 0.1 % off; the layers are right
    "near_encoder_tenth_percent": Bug(55, dict.fromkeys(ENCODER_OUTPUTS, ())),
    # self.norm(x).reshape(-1, d_model): the right values, batch and length flattened into one axis
    "near_encoder_flat": Bug(55, dict.fromkeys(ENCODER_OUTPUTS, ())),
    # clones(layer, N + 1), looping over self.layers[:-1]: the right outputs, one unused layer registered
    "near_extra_layer": fails(45, ENCODER, "names"),
    # the function given to SublayerConnection ignores its argument: lambda y: self.self_attn(x, x, x, mask)
    "lambda_outer_x": fails(75, LAYER_OUTPUTS, "lambda_ignores_argument"),
    "ff_lambda_outer_x": fails(75, LAYER_OUTPUTS, "lambda_ignores_argument"),  # lambda y: self.feed_forward(h)
    "attn_result_unused": fails(75, LAYER_OUTPUTS, "attn_result_unused"),  # return self.sublayer[1](x, ...) on the input x
    "return_in_loop": fails(55, ENCODER_OUTPUTS, "return_in_loop"),  # return self.norm(x) inside the for loop
    "first_layer_only": fails(55, ENCODER_OUTPUTS, "first_layer_only"),  # x = self.layers[0](x, mask) N times
    "norm_first": fails(55, ENCODER_OUTPUTS, "norm_first"),  # x = self.norm(x) before the layers, return x
    "norm_every_layer": fails(55, ENCODER_OUTPUTS, "norm_every_layer"),  # x = self.norm(layer(x, mask))
    # the same, and return self.norm(x) after the loop as well
    "norm_every_layer_and_final": fails(55, ENCODER_OUTPUTS, "norm_every_layer"),
    # self.norm = nn.LayerNorm(layer.size): a final norm, but torch's (weight/bias), not the chapter's (a_2/b_2)
    "torch_layernorm_final": fails(45, ENCODER, "torch_layernorm"),
    "ff_not_wrapped": fails(75, LAYER_OUTPUTS, "ff_not_wrapped"),  # return self.feed_forward(x): no third SublayerConnection
    "ff_result_unused": fails(75, LAYER_OUTPUTS, "ff_result_unused"),  # self.sublayer[1](x, ...) called, x returned
    "layer_output_discarded": fails(55, ENCODER_OUTPUTS, "layer_output_discarded"),  # layer(x, mask), result dropped
    # x = x + self.sublayer[0](…), return x + self.sublayer[1](…): SublayerConnection already adds the residual
    "double_residual": fails(75, LAYER_OUTPUTS, "double_residual"),
    "double_residual_ff": fails(75, LAYER_OUTPUTS, "double_residual"),  # only on the feed-forward sublayer
    # the same with the given attention changed too (no scale): both runs fail; the course run's message names the mistake
    # (the student's own run said "출력 값이 기준과 다릅니다")
    "double_residual_given_attention_changed": fails(75, LAYER_OUTPUTS, "double_residual"),
    # self.norm = LayerNorm(512): raises after the layers ran; costs the Encoder's checks only (was 35: the padding
    # weights were read from the Encoder's run)
    "final_norm_fixed_size": fails(45, ENCODER, "norm_size"),
    "loop_mask_none": fails(55, ENCODER_OUTPUTS, "loop_mask_not_passed"),  # x = layer(x, None) in the Encoder's loop
    "layers_reversed": fails(55, ENCODER_OUTPUTS, "layers_reversed"),  # for layer in reversed(self.layers)
    "encoder_residual": fails(55, ENCODER_OUTPUTS, "encoder_residual"),  # x = x + layer(x, mask)
    # for i in range(len(self.layers) - 1): one layer short (with N=2 only the first, as a return inside the loop)
    "last_layer_skipped": fails(55, ENCODER_OUTPUTS, "return_in_loop", hidden_encoder="layers_skipped",
                                hidden_train="layers_skipped"),
    # for layer in self.layers[1:]: with N=2 only layer 1 on the input, the numbers of layers_not_chained; the calls
    # recorded show which layers ran
    "first_layer_skipped": fails(55, ENCODER_OUTPUTS, "layers_skipped"),
    # x = layer(x, mask.unsqueeze(1)) in the Encoder's loop: the layers pass their own checks, the masks they get do not
    "loop_mask_unsqueezed": fails(55, ENCODER_OUTPUTS, "loop_mask_shape"),
    # self.sublayer[0](x, lambda: self.self_attn(x, x, x, mask)): a function of no argument
    "lambda_no_argument": fails(65, LAYER, "sublayer_function"),
    # lambda x: self.self_attn(x, mask): query, key, value not all given
    "attn_two_arguments": fails(65, LAYER, "sublayer_function"),
}
