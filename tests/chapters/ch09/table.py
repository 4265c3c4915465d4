"""Chapter 09's expectations: each bug fixture → exact score, exactly the checks it fails, the bug each one names.

Diagnoses are named by bug key (`ch09_judge.BUGS`), never retyped.
"""
from tests.checks.chapters import Bug, fails

TRAIN = frozenset({"train", "hidden_train"})
DECODER = frozenset({"decode", "forward", "hidden_outputs"}) | TRAIN  # everything that runs the decoder's embedding
FORWARD = frozenset({"forward", "hidden_outputs"}) | TRAIN
GENERATOR = frozenset({"generator", "hidden_outputs"})
MODEL = frozenset({"model_structure", "hidden_model"})
MAKE_MODEL = MODEL | TRAIN | {"xavier"}  # make_model's own checks, and the train runs on its model

EXPECTED = {
    # self.linear instead of the contract's self.proj: make_model and EncoderDecoder are judged on a model built
    # around the probe's GeneratorDouble, so only the Generator's own checks are lost
    "generator_renamed": fails(86.6667, GENERATOR, "names"),
    "softmax_not_log": fails(86.6667, GENERATOR, "softmax_not_log"),  # self.proj(x).softmax(dim=-1)
    "no_log_softmax": fails(86.6667, GENERATOR, "no_log_softmax"),  # self.proj(x), no normalisation
    # decode embeds tgt with src_embed: another vocabulary on the hidden decode (an IndexError named by its model)
    "decode_src_embed": fails(53.3333, DECODER, "decode_src_embed"),
    "encode_no_mask": fails(56.6667, FORWARD | {"encode"}, "encode_no_mask"),  # encoder(src_embed(src), None)
    # decoder(x, memory, tgt_mask, src_mask): an error when src and tgt lengths differ, wrong values when equal
    "masks_swapped": fails(53.3333, DECODER, "masks_swapped"),
    "forward_masks_swapped": fails(66.6667, FORWARD, "masks_swapped"),  # decode(memory, tgt_mask, tgt, src_mask)
    # decoder(memory, self.tgt_embed(tgt), …): x and memory swapped (was named masks_swapped: the same error where the
    # lengths differ); the decode case (src length = tgt length) shows which
    "decoder_inputs_swapped": fails(53.3333, DECODER, "decoder_inputs_swapped"),
    # MultiHeadedAttention(d_model, h): the build's assert (d_model % h) raises; the recorder saw the numbers swapped
    "make_model_attention_args_swapped": fails(50, MAKE_MODEL, "attention_args_swapped"),
    # Generator(d_model, src_vocab): shows only on the hidden models, whose vocabularies differ
    "generator_src_vocab": fails(80, {"hidden_model", "hidden_train"}, "vocab_swapped"),
    "forward_generator": fails(66.6667, FORWARD, "forward_generator"),  # forward returns generator(decode(...))
    # no Xavier at all, or only the nn.Linear weights (the embeddings keep N(0, 1)): loaded weights hide it
    "no_xavier": fails(85, {"xavier", "hidden_model"}, "no_xavier"),
    "xavier_linear_only": fails(85, {"xavier", "hidden_model"}, "no_xavier"),
    # DecoderLayer(d_model, attn, attn, ...): the structure shows the sharing, the outputs name it from the numbers
    "shared_attention": fails(38.3333, MODEL | DECODER, "shared_attention"),
    # make_model's structural mistakes (layers, names, shapes) cost make_model's checks (and the train runs, which judge
    # its dropout on its own model): encode, decode and forward are judged on the student's EncoderDecoder around the
    # probe's stand-in parts
    "n_ignored": fails(50, MAKE_MODEL, "n_ignored"),  # Encoder(..., 6), Decoder(..., 6)
    # the same, with the given attention changed too (no scale): the chapter's checks are judged with the course's
    # attention (given.py), so only make_model's own mistake costs points, named as before
    "n_ignored_given_attention_changed": fails(50, MAKE_MODEL, "n_ignored"),
    # PositionwiseFeedForward(d_ff, d_model, dropout): named by the shapes of feed_forward.w_1 and w_2
    "make_model_ff_swapped": Bug(50, dict.fromkeys(MAKE_MODEL, ())),
    "src_embed_no_position": fails(50, MAKE_MODEL, "names"),  # nn.Sequential(Embeddings(d_model, src_vocab))
    # Encoder(..., 6) and an EncoderDecoder mistake: the EncoderDecoder mistake is still seen, and named by its bug model
    # computed around the stand-in parts
    "n_ignored_encode_no_mask": fails(26.6667, MAKE_MODEL | {"encode", "forward", "hidden_outputs"}, "n_ignored",
                                      **dict.fromkeys({"encode", "forward", "hidden_outputs"}, "encode_no_mask")),
    "n_ignored_decode_no_tgt_mask": fails(23.3333, MAKE_MODEL | {"decode", "forward", "hidden_outputs"}, "n_ignored",
                                          **dict.fromkeys({"decode", "forward", "hidden_outputs"},
                                                          "decode_no_tgt_mask")),
    "n_ignored_forward_generator": fails(36.6667, MAKE_MODEL | {"forward", "hidden_outputs"}, "n_ignored",
                                         **dict.fromkeys({"forward", "hidden_outputs"}, "forward_generator")),
    "dropout_ignored": fails(65, MODEL | TRAIN, "dropout_ignored"),  # 0.1 everywhere, whatever dropout is
    "decode_no_tgt_mask": fails(53.3333, DECODER, "decode_no_tgt_mask"),  # decoder(…, memory, src_mask, None)
    # decoder(…, memory, src_mask, src_mask): nothing swapped; the same error as masks_swapped where the lengths differ,
    # told apart by the visible decode case (src length = tgt length) and named there and everywhere else
    "decode_src_mask_as_tgt": fails(53.3333, DECODER, "decode_src_mask_as_tgt"),
    "decode_no_src_mask": fails(53.3333, DECODER, "decode_no_src_mask"),  # decoder(…, memory, None, tgt_mask)
    "generator_no_proj": fails(86.6667, GENERATOR, "generator_no_proj"),  # log_softmax(x, dim=-1): no proj
    "ff_no_dropout": fails(65, MODEL | TRAIN, "ff_no_dropout"),  # PositionwiseFeedForward(d_model, d_ff)
    # `return model` indented into the loop: only the first matrix gets Xavier
    "return_in_init_loop": fails(85, {"xavier", "hidden_model"}, "no_xavier"),
    # xavier_normal_: the Xavier spread, but values past the uniform bound ±√(6/(fan_in + fan_out))
    "xavier_normal": fails(85, {"xavier", "hidden_model"}, "xavier_not_uniform"),
    # xavier_uniform_ on every parameter: torch refuses the 1-D ones, so make_model raises; the other checks are
    # judged on the same make_model built with the probe's lenient init (issue 22 point 3): only Xavier is lost
    "xavier_all": fails(85, {"xavier", "hidden_model"}, "xavier_all"),
    # the same, and decode drops tgt_mask: the decode mistake is still seen on the stand-in model
    "xavier_all_decode_no_tgt_mask": fails(38.3333, {"xavier", "hidden_model"}, "xavier_all",
                                           **dict.fromkeys(DECODER, "decode_no_tgt_mask")),
    # near misses (issue 27): almost right, and each must still fail
    # xavier_uniform_(p, gain=1.25): a spread 25 % off, past the 20 % the check allows
    "near_xavier_gain": fails(85, {"xavier", "hidden_model"}, "no_xavier"),
    # log_softmax(self.proj(x) / 1.001): logits 0.1 % off
    "near_generator_temperature": Bug(86.6667, dict.fromkeys(GENERATOR, ())),
    # encode scales the embedded source by 1.001: the encoder's output is off; forward's decoder hardly sees it
    "near_encode_scaled": Bug(90, {"encode": ()}),
    # decode's values flattened to (batch * length, d_model)
    "near_decode_flat": Bug(53.3333, dict.fromkeys(DECODER, ())),
    # forward(...)[:, :-1]: one target position short
    "near_forward_one_short": Bug(66.6667, dict.fromkeys(FORWARD, ())),
    # PositionalEncoding(d_model, 0.1): right for the default dropout only
    "position_dropout_fixed": fails(65, MODEL | TRAIN, "pe_no_dropout"),
    # memory = self.encode(...) then decode(self.encode(...)): eval right, train draws dropout twice (it was "출력 값이
    # 기준과 다릅니다" alone)
    "encode_twice": fails(80, TRAIN, "train_draws"),
    "near_position_dropout_off": fails(65, MODEL | TRAIN, "pe_no_dropout"),  # PositionalEncoding(d_model, dropout + 0.001)
    # self.decode(self.encode(tgt, src_mask), …): the target encoded (was named masks_swapped: the same error where
    # the lengths differ); named from what src_embed received
    "encode_target": fails(66.6667, FORWARD, "encode_target"),
    # the token ids handed to the encoder or decoder without their embedding: an error in the first LayerNorm (a
    # mean of integers), named from what the part received
    "encode_no_embed": fails(56.6667, FORWARD | {"encode"}, "encode_no_embed"),
    "decode_no_embed": fails(53.3333, DECODER, "decode_no_embed"),
    # MultiHeadedAttention(8, d_model): the names and shapes do not show the head count, the outputs do
    "h_ignored": fails(43.3333, {"encode"} | DECODER, "h_ignored"),
}
