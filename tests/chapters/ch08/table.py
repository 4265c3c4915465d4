"""Chapter 08's expectations: each bug fixture → exact score, exactly the checks it fails, the bug each one names.

Diagnoses are named by bug key (`ch08_judge.BUGS`), never retyped.
"""
from grader.checks import ch08_judge

from tests.checks.chapters import Bug, fails

ALL = frozenset(check.name for check in ch08_judge.CHECKS)
STRUCTURES = frozenset({"layer_structure", "decoder_structure"})
FORWARD = ALL - STRUCTURES
DECODER = frozenset({"decoder_structure", "decoder_forward", "decoder_train", "hidden_decoder", "hidden_train"})
# A DecoderLayer mistake costs DecoderLayer's checks only: the Decoder's checks judge the "_alone" twins built with
# the probe's LayerDouble (`ch08_probe.LayerDouble`).
LAYER = FORWARD - DECODER

EXPECTED = {
    # self_attn(x, x, x, src_mask), src_attn(x, m, m, tgt_mask): an error where S ≠ T, wrong values where S = T
    "masks_swapped": fails(65, LAYER, "masks_swapped"),
    # self_attn(x, x, x, tgt_mask.unsqueeze(1)): an axis added to a mask (was named masks_swapped, the fallback)
    "mask_unsqueezed": fails(65, LAYER, "mask_shape"),
    "memory_ignored": fails(65, LAYER, "memory_ignored"),  # src_attn(x, x, x, src_mask)
    "memory_normalised": fails(65, LAYER, "memory_normalised"),  # src_attn(x, norm(m), norm(m), src_mask)
    "memory_as_query": fails(65, LAYER, "memory_as_query"),  # src_attn(m, x, x, src_mask)
    "self_attn_for_source": fails(65, LAYER, "self_attn_for_source"),  # self_attn(x, m, m, src_mask): src_attn unused
    "sublayer_reused": fails(65, LAYER, "sublayer_reused"),  # sublayer[1] around the feed forward too (three made)
    # clones(SublayerConnection(...), 2) and sublayer[1] used again for the feed forward, as in the encoder
    "two_sublayers": fails(55, LAYER | {"layer_structure"}, "third_sublayer"),
    "no_feed_forward": fails(65, LAYER, "third_sublayer"),  # returns after the source attention
    "plain_feed_forward": fails(65, LAYER, "third_sublayer"),  # return self.feed_forward(x): no residual
    "no_final_norm": fails(55, DECODER - {"decoder_structure"}, "final_norm"),  # self.norm made, return x
    "no_norm_attribute": fails(45, DECODER, "final_norm"),  # no self.norm at all
    "shared_layers": fails(45, DECODER, "shared_layers"),  # nn.ModuleList([layer] * N)
    "shallow_copy": fails(45, DECODER, "shared_layers"),  # copy.copy(layer)
    "layers_list": fails(45, DECODER, "layers_list"),  # [copy.deepcopy(layer) …]: nothing registered
    # no self.size: the layer's structure check says so (the Decoder, built around the stand-in, loses nothing)
    "size_missing": fails(90, {"layer_structure"}, "size"),
    # near misses (issue 27): almost right, and each must still fail
    # SublayerConnection(size, 0.1) in DecoderLayer: right in eval mode, the wrong rate in train mode
    "near_dropout_hardcoded": Bug(80, dict.fromkeys({"decoder_train", "hidden_train"}, ())),
    # SublayerConnection(size, dropout * 1.001): a rate 0.1 % off, seen by the layer's structure (the Decoder's checks
    # then use the stand-in layer)
    "near_dropout_tenth_percent": fails(90, {"layer_structure"}, "dropout_module"),
    # DecoderLayer returns sublayer[2](…) * 1.001: every forward 0.1 % off, ten times the tolerance
    "near_layer_output_tenth_percent": Bug(65, dict.fromkeys(LAYER, ())),
    # Decoder returns self.norm(x) * 1.001: the layers right, the stack's output 0.1 % off
    "near_decoder_output_tenth_percent": Bug(55, dict.fromkeys(DECODER - {"decoder_structure"}, ())),
    # LayerNorm(layer.size, eps=1e-3): the final norm's eps a thousand times the reference's
    "near_final_norm_eps": Bug(55, dict.fromkeys(DECODER - {"decoder_structure"}, ())),
    # for layer in self.layers[:-1]: one layer short (with N=2 only the first, as a return inside the loop)
    "near_last_layer_skipped": fails(55, DECODER - {"decoder_structure"}, "return_in_loop",
                                     hidden_decoder="layers_skipped"),
    "cross_before_self": fails(65, LAYER, "cross_before_self"),  # src_attn in sublayer[0], self_attn in sublayer[1]
    "self_attn_skipped": fails(65, LAYER, "self_attn_skipped"),  # no self-attention step: memory attention, then FF
    "src_attn_skipped": fails(65, LAYER, "src_attn_skipped"),  # no source-attention step: the memory never read
    "ff_in_sublayer_1": fails(65, LAYER, "sublayer_indices_swapped"),  # src_attn in sublayer[2], feed forward in [1]
    "tgt_mask_not_passed": fails(65, LAYER, "tgt_mask_not_passed"),  # self.self_attn(x, x, x)
    "src_mask_not_passed": fails(65, LAYER, "src_mask_not_passed"),  # self.src_attn(x, m, m)
    "lambda_outer_x": fails(65, LAYER, "lambda_ignores_argument"),  # lambda y: self.self_attn(x, x, x, tgt_mask)
    "memory_normed_as_key": fails(65, LAYER, "memory_not_key_value"),  # self.src_attn(y, y, memory, src_mask)
    "return_in_loop": fails(55, DECODER - {"decoder_structure"}, "return_in_loop"),  # return inside the for loop
    # for layer in self.layers[1:]: with N=2 the numbers of layers_not_chained (layer 1 on the input); the calls
    # recorded show which layers ran
    "first_layer_skipped": fails(55, DECODER - {"decoder_structure"}, "layers_skipped"),
    # mistakes invented outside the fixtures (issue 22 point 2), each with its own bug model or call evidence:
    "key_not_memory": fails(65, LAYER, "memory_not_key_value"),  # src_attn(x, x, m, src_mask)
    # self_attn(x, x, x, src_mask): nothing swapped; the same error as masks_swapped where S ≠ T, told apart on S = T
    "self_attn_src_mask": fails(65, LAYER, "self_attn_src_mask"),
    # out = layer(x, …) in the loop, return self.norm(out): every layer on the decoder's input, the last one kept
    "layers_not_chained": fails(55, DECODER - {"decoder_structure"}, "layers_not_chained"),
    "memory_through_layers": fails(55, DECODER - {"decoder_structure"}, "memory_replaced"),  # memory = x in the loop
    "norm_every_layer": fails(55, DECODER - {"decoder_structure"}, "norm_every_layer"),  # x = self.norm(layer(...))
    # the same, and return self.norm(x) after the loop as well
    "norm_every_layer_and_final": fails(55, DECODER - {"decoder_structure"}, "norm_every_layer"),
    # src_attn(x, m, m, tgt_mask): tgt_mask given twice (was named "masks swapped"); an error where S ≠ T
    "src_attn_tgt_mask": fails(65, LAYER, "src_attn_tgt_mask"),
    # x = x + self.sublayer[i](…) on every sublayer, or only on the feed forward: SublayerConnection adds it already
    "double_residual": fails(65, LAYER, "double_residual"),
    "double_residual_ff": fails(65, LAYER, "double_residual"),
    # self.norm = nn.LayerNorm(layer.size): a final norm, but torch's (weight/bias), not the chapter's (a_2/b_2)
    "torch_layernorm_final": fails(45, DECODER, "torch_layernorm"),
    # layer(memory, x, src_mask, tgt_mask) in the Decoder's loop: the layers are right, their arguments are not
    "x_memory_swapped": fails(55, DECODER - {"decoder_structure"}, "x_memory_swapped"),
    "final_norm_fixed_size": fails(45, DECODER, "norm_size"),  # self.norm = LayerNorm(512)
    # the Decoder's loop hands its (right) layers the wrong arguments: named there, not in the layer
    "loop_tgt_mask_none": fails(55, DECODER - {"decoder_structure"}, "loop_tgt_mask_not_passed"),  # layer(…, src_mask, None)
    "loop_memory_normed": fails(55, DECODER - {"decoder_structure"}, "loop_memory_changed"),  # layer(x, self.norm(memory), …)
    "loop_masks_swapped": fails(55, DECODER - {"decoder_structure"}, "loop_masks"),  # layer(x, memory, tgt_mask, src_mask)
    "loop_masks_unsqueezed": fails(55, DECODER - {"decoder_structure"}, "loop_mask_shape"),  # each mask .unsqueeze(1)
    # self.src_attn(x, x, x, tgt_mask), then self.self_attn(x, m, m, src_mask): the order is right, the modules swapped
    "attn_modules_swapped": fails(65, LAYER, "attn_modules_swapped"),
    "layers_reversed": fails(55, DECODER - {"decoder_structure"}, "layers_reversed"),  # for layer in self.layers[::-1]
    "decoder_residual": fails(55, DECODER - {"decoder_structure"}, "decoder_residual"),  # x = x + layer(x, memory, …)
    # the source attention's residual adds the memory: an error where S ≠ T, named by the models that also reproduce
    # the same-length case; self.sublayer[1](x, …) + m, and self.sublayer[1](m, lambda m: self.src_attn(x, m, m, …))
    "memory_added": fails(65, LAYER, "memory_residual"),
    "sublayer_on_memory": fails(65, LAYER, "memory_residual"),
}
