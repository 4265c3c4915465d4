"""Chapter 13's expectations: each bug fixture → exact score, exactly the checks it fails, the bug each one names.

Diagnoses are named by bug key (`ch13_judge.BUGS`), never retyped.
"""
from tests.checks.chapters import fails

TOKENS = frozenset({"copy_digits", "copy_random", "last_position", "source_mask", "hidden_copy", "hidden_random"})
RANDOM = frozenset({"last_position", "source_mask", "hidden_random"})  # the random models (start symbols other than 1)
LENGTH = frozenset({"length", "hidden_length"})
EVERYTHING = TOKENS | LENGTH
MASKED = frozenset({"source_mask", "hidden_random"})  # the sources with padding

EXPECTED = {
    # the next token read from the wrong place or picked the wrong way: every decoded sequence changes
    "first_position": fails(20, TOKENS, "first_position"),  # out[:, 0]
    "argmin": fails(20, TOKENS, "argmin"),
    "generator_skipped": fails(7.5, EVERYTHING, "generator_skipped"),  # argmax over d_model: mostly an IndexError
    # masks: only where they matter (two layers for the causal mask, padding for the source mask)
    "no_causal_mask": fails(50, RANDOM, "no_causal_mask"),
    "encode_without_mask": fails(75, MASKED, "source_mask"),  # model.encode(src, None)
    "src_mask_ones": fails(75, MASKED, "source_mask"),  # torch.ones(1, 1, src.size(1)) for both
    # ys: its length, its first token, its dtype, whether it grows
    "max_len_one_more": fails(80, LENGTH, "too_long"),  # range(max_len): the tokens themselves are right
    "max_len_one_less": fails(80, LENGTH, "too_short"),
    "start_one": fails(50, RANDOM, "start_ignored"),  # torch.ones(1, 1): right on the copy model (start 1)
    "start_zero": fails(20, TOKENS, "start_ignored"),
    "float_ys": fails(0, EVERYTHING, "float_ys"),  # no .type_as(src.data): the embedding refuses float tokens
    "ys_not_extended": fails(0, EVERYTHING, "not_extended"),  # torch.cat(...) never assigned to ys
    # near misses (issue 27): almost right, and each must still fail
    "near_ys_one_dimensional": fails(0, EVERYTHING, "not_tensor"),  # return ys[0]: the right tokens, shape (max_len,)
    "near_list_result": fails(0, EVERYTHING, "not_tensor"),  # return ys.tolist(): the right tokens, not a tensor
}
