"""Chapter 08's expectations: each bug fixture → exact score, exactly the checks it fails, the bug each one names.

Diagnoses are named by bug key (`ch08_judge.BUGS`), never retyped.
"""
from grader.checks import ch08_judge

from .chapters import Bug, fails

ALL = frozenset(check.name for check in ch08_judge.CHECKS)
STRUCTURES = frozenset({"layer_structure", "decoder_structure"})
FORWARD = ALL - STRUCTURES
DECODER = frozenset({"decoder_structure", "decoder_forward", "decoder_train", "hidden_decoder", "hidden_train"})

EXPECTED = {
    # self_attn(x, x, x, src_mask), src_attn(x, m, m, tgt_mask): an error where S ≠ T, wrong values where S = T
    "masks_swapped": fails(20, FORWARD, "masks_swapped"),
    "memory_ignored": fails(20, FORWARD, "memory_ignored"),  # src_attn(x, x, x, src_mask)
    "memory_as_query": fails(20, FORWARD, "memory_as_query"),  # src_attn(m, x, x, src_mask)
    # clones(SublayerConnection(...), 2) and sublayer[1] used again for the feed forward, as in the encoder
    "two_sublayers": fails(0, ALL, "third_sublayer"),
    "no_feed_forward": fails(20, FORWARD, "third_sublayer"),  # returns after the source attention
    "plain_feed_forward": fails(20, FORWARD, "third_sublayer"),  # return self.feed_forward(x): no residual
    "no_final_norm": fails(55, DECODER - {"decoder_structure"}, "final_norm"),  # self.norm made, return x
    "no_norm_attribute": fails(45, DECODER, "final_norm"),  # no self.norm at all
    "shared_layers": fails(45, DECODER, "shared_layers"),  # nn.ModuleList([layer] * N)
    "shallow_copy": fails(45, DECODER, "shared_layers"),  # copy.copy(layer)
    "layers_list": fails(45, DECODER, "layers_list"),  # [copy.deepcopy(layer) …]: nothing registered
    # no self.size: the layer's structure check says so, and Decoder's LayerNorm(layer.size) raises
    "size_missing": fails(35, DECODER | {"layer_structure"}, "size"),
    # near misses (issue 27): almost right, and each must still fail
    # SublayerConnection(size, 0.1) in DecoderLayer: right in eval mode, the wrong rate in train mode
    "near_dropout_hardcoded": Bug(80, dict.fromkeys({"decoder_train", "hidden_train"}, ())),
}
