"""Chapter 13's expectations: each bug fixture → exact score, exactly the checks it fails, the bug each one names.

Diagnoses are named by bug key (`ch13_judge.BUGS`), never retyped.
"""
from tests.checks.chapters import Bug, fails

TOKENS = frozenset({"copy_digits", "copy_random", "last_position", "source_mask", "hidden_copy", "hidden_random"})
RANDOM = frozenset({"last_position", "source_mask", "hidden_random"})  # the random models (start symbols other than 1)
LENGTH = frozenset({"length", "hidden_length"})
EVERYTHING = TOKENS | LENGTH
MASKED = frozenset({"source_mask", "hidden_random"})  # the sources with padding

EXPECTED = {
    # the next token read from the wrong place or picked the wrong way: every decoded sequence changes
    "first_position": fails(20, TOKENS, "first_position"),  # out[:, 0]
    "memory_embedded": fails(20, TOKENS, "memory_not_encoded"),  # memory = model.src_embed(src): never encoded
    "argmin": fails(20, TOKENS, "argmin"),
    "argmax_batch_axis": fails(20, TOKENS, "batch_axis"),  # torch.max(prob, dim=0): token 0 every step
    "generator_skipped": fails(7.5, EVERYTHING, "generator_skipped"),  # argmax over d_model: mostly an IndexError
    # sampled rather than picked: the tokens change under another seed (the trained copy model is sure enough of the
    # digits that a sample is the best token there)
    "sample_multinomial": fails(30, TOKENS - {"copy_digits"}, "sampled"),  # torch.multinomial(prob.exp(), 1)
    "sample_categorical": fails(30, TOKENS - {"copy_digits"}, "sampled"),  # Categorical(logits=prob).sample()
    "multinomial_log_probs": fails(0, EVERYTHING, "sampled_log_probs"),  # torch.multinomial(prob, 1): log-probs refused
    # picked otherwise than as the generator's best, seen from the generator's outputs step by step
    "topk_second": fails(20, TOKENS, "not_best"),  # prob.topk(2, dim=1).indices[:, 1]
    "max_pair": fails(0, EVERYTHING, "max_pair"),  # next_word = torch.max(prob, dim=1): the pair, then .data raises
    # prob.max(dim=1)[0]: the log-probability itself as the token (0 while it is above -1, then -1: IndexError); on the
    # copy model, sure of every token, all 0 is the batch axis's answer too
    # torch.max's values: on the copy model all 0, as the batch axis gives; the random models' cases tell them apart
    "max_values": fails(7.5, EVERYTHING, "values_not_indices"),
    "ys_prepended": fails(20, TOKENS, "prepended"),  # torch.cat([new token, ys], dim=1): ys ends with the start symbol
    # the decoder handed another target than the ys so far: named from the lengths the hooks saw, step by step
    "decode_src_tokens": fails(20, TOKENS, "decode_target"),  # model.decode(memory, src_mask, src, …): src every step
    "decode_last_token_only": fails(20, TOKENS, "last_token_only"),  # model.decode(…, ys[:, -1:], subsequent_mask(1))
    "cat_batch_axis": fails(0, EVERYTHING, "ys_batch_axis"),  # torch.cat(..., dim=0): the second decode raises
    # masks: only where they matter (two layers for the causal mask, padding for the source mask)
    "no_causal_mask": fails(50, RANDOM, "no_causal_mask"),
    "encode_without_mask": fails(75, MASKED, "source_mask"),  # model.encode(src, None)
    "src_mask_ones": fails(75, MASKED, "source_mask"),  # torch.ones(1, 1, src.size(1)) for both
    # the source mask where the causal mask belongs: the first decode raises (the hooks saw the masks it was handed)
    "decode_src_mask_as_tgt": fails(0, EVERYTHING, "tgt_is_source_mask"),  # model.decode(memory, src_mask, ys, src_mask)
    "decode_masks_swapped": fails(0, EVERYTHING, "masks_swapped"),  # decode(memory, subsequent_mask(…), ys, src_mask)
    # ys: its length, its first token, its dtype, whether it grows
    "max_len_one_more": fails(80, LENGTH, "too_long"),  # range(max_len): the tokens themselves are right
    "max_len_one_less": fails(80, LENGTH, "too_short"),
    "start_one": fails(50, RANDOM, "start_ignored"),  # torch.ones(1, 1): right on the copy model (start 1)
    "start_zero": fails(20, TOKENS, "start_ignored"),
    "start_dropped": fails(0, EVERYTHING, "start_dropped"),  # return ys[:, 1:]: the right tokens after the start
    "float_ys": fails(0, EVERYTHING, "float_ys"),  # no .type_as(src.data): the embedding refuses float tokens
    "ys_not_extended": fails(0, EVERYTHING, "not_extended"),  # torch.cat(...) never assigned to ys
    # near misses (issue 27): almost right, and each must still fail
    "near_ys_one_dimensional": fails(0, EVERYTHING, "not_tensor"),  # return ys[0]: the right tokens, shape (max_len,)
    "near_list_result": fails(0, EVERYTHING, "not_tensor"),  # return ys.tolist(): the right tokens, not a tensor
    "near_ys_transposed": fails(0, EVERYTHING, "not_tensor"),  # return ys.t(): the right tokens, shape (max_len, 1)
    # return src[:, :max_len]: the copy model's very answer, nothing decoded; elsewhere another start and length
    "near_src_returned": Bug(15, {**dict.fromkeys({"copy_digits", "copy_random", "hidden_copy"}, ("not_decoded",)),
                                  **dict.fromkeys(RANDOM, ("start_ignored",)), "length": ("length",),
                                  "hidden_length": ("too_short",)}, "not_decoded"),
    # generator(out[:, -2]) after the first step: the position one before the last; no bug model, no bug named
    "near_second_last_position": Bug(20, dict.fromkeys(TOKENS, ())),
    # model.decode(memory, None, ys, …): the source mask given to encode only
    "near_decode_without_mask": fails(85, {"source_mask"}, "source_mask"),
    # subsequent_mask(n) & ~eye(n): a causal mask one diagonal short, each position blind to itself
    "near_causal_without_diagonal": fails(40, TOKENS - {"copy_digits"}, "causal_mask_wrong"),
    # range(src.size(1) - 1): right where the source is max_len long (the copy cases), another length elsewhere
    "near_length_from_source": Bug(85, {"length": ("length", "too_long"), "hidden_length": ("length", "too_short")},
                                   "length"),
}
