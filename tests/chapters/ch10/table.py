"""Chapter 10's expectations: each bug fixture → exact score, exactly the checks it fails, the bug each one names.

Diagnoses are named by bug key (`ch10_judge.BUGS`), never retyped.
"""
from tests.checks.chapters import Bug, fails

SOURCE = frozenset({"src_mask", "src_only", "hidden_src_mask", "hidden_src_only"})
SHIFT = frozenset({"tgt_shift", "hidden_shift"})
TGT_MASK = frozenset({"tgt_mask", "hidden_tgt_mask"})
STD_MASK = frozenset({"make_std_mask", "hidden_std_mask"})
NTOKENS = frozenset({"ntokens", "hidden_ntokens"})
TARGET = SHIFT | TGT_MASK | NTOKENS

EXPECTED = {
    # the target shift off by one
    "no_shift": fails(65, SHIFT | NTOKENS, "no_shift"),  # tgt_y = tgt[:, :-1]: equal to self.tgt
    "tgt_untrimmed": fails(60, SHIFT | TGT_MASK, "tgt_untrimmed"),  # self.tgt = tgt
    "tgt_y_untrimmed": fails(65, SHIFT | NTOKENS, "tgt_y_untrimmed"),  # self.tgt_y = tgt
    "tgt_y_from_trimmed": fails(65, SHIFT | NTOKENS, "tgt_y_from_trimmed"),  # self.tgt_y = self.tgt[:, 1:]
    "shift_swapped": fails(45, TARGET, "shift_swapped"),  # tgt[:, 1:] and tgt[:, :-1] the other way round
    "tgt_shifted_too": fails(60, SHIFT | TGT_MASK, "tgt_shifted_too"),  # self.tgt = tgt[:, 1:]: equal to tgt_y
    # tgt[:-1], tgt[1:]: the batch axis cut; half of hidden_ntokens (one hidden batch happens to count 17 tokens either way)
    "tgt_rows_sliced": fails(47.5, TARGET, "tgt_rows_sliced"),
    # self.src_mask made inside `if tgt is not None:`: only the batches without tgt lack it
    "src_mask_only_with_tgt": fails(90, {"src_only", "hidden_src_only"}, "src_mask_only_with_tgt"),
    # the masks
    "src_mask_not_unsqueezed": fails(75, SOURCE, "src_mask_flat"),  # (src != pad): (batch, len)
    "src_mask_inverted": fails(75, SOURCE, "mask_inverted"),  # (src == pad)
    "src_mask_front": fails(75, SOURCE, "src_mask_front"),  # (src != pad).unsqueeze(0): (1, batch, len)
    "tgt_mask_on_full": fails(80, TGT_MASK, "tgt_mask_on_full"),  # make_std_mask(tgt, pad): the untrimmed tgt
    # subsequent_mask(…).type_as(tgt.data): an int64 mask with the right 0/1 values
    "mask_type_as_tgt": fails(70, TGT_MASK | STD_MASK, "mask_dtype"),
    "tgt_mask_no_padding": fails(70, TGT_MASK | STD_MASK, "tgt_mask_no_padding"),  # subsequent_mask alone
    # padding mask alone; a one-token tgt has no future to hide
    "tgt_mask_no_causal": fails(72.5, TGT_MASK | STD_MASK, "tgt_mask_no_causal"),
    "tgt_mask_rows": fails(72.5, TGT_MASK | STD_MASK, "tgt_mask_rows"),  # (tgt != pad).unsqueeze(-1)
    "tgt_mask_or": fails(70, TGT_MASK | STD_MASK, "tgt_mask_or"),  # padding | causal
    "mask_float": fails(45, SOURCE | TGT_MASK | STD_MASK, "mask_dtype"),  # right values, float32
    # float & bool: torch's NotImplementedError inside make_std_mask; the other attributes are judged on the probe's
    # run with its stand-in make_std_mask, so only the mask checks are lost
    "mask_float_and": fails(70, TGT_MASK | STD_MASK, "mask_dtype"),
    # subsequent_mask(tgt.size(0)): a RuntimeError inside Batch where batch ≠ length, named by its bug model
    "tgt_mask_batch_axis": fails(70, TGT_MASK | STD_MASK, "tgt_mask_batch_axis"),
    "tgt_mask_length": fails(70, TGT_MASK | STD_MASK, "tgt_mask_length"),  # subsequent_mask(tgt.size(-1) - 1)
    # tgt_mask & torch.triu(torch.ones(1, size, size), diagonal=1).bool(): subsequent_mask's `== 0` left out
    "tgt_mask_triu": fails(70, TGT_MASK | STD_MASK, "tgt_mask_future"),
    # ntokens
    "ntokens_counts_pads": fails(85, NTOKENS, "ntokens_pads"),  # self.tgt_y.numel()
    "ntokens_on_tgt": fails(85, NTOKENS, "ntokens_on_tgt"),  # (self.tgt != pad).sum()
    "ntokens_inverted": fails(87.5, NTOKENS, "ntokens_inverted"),  # (self.tgt_y == pad).sum()
    "ntokens_per_row": fails(85, NTOKENS, "ntokens_per_row"),  # (self.tgt_y != pad).sum(dim=1)
    "ntokens_mean": fails(85, NTOKENS, "ntokens_mean"),  # (self.tgt_y != pad).float().mean()
    "ntokens_rows": fails(85, NTOKENS, "ntokens_rows"),  # len(self.tgt_y): sentences, not tokens (was "== pad" on pad0)
    # (tgt != pad).sum(): on pad0 the same count as tgt_y.numel(); the pad2 batch tells the two apart
    # (self.src != pad).sum(): right by chance on pad0; on pad2 the same count as the whole tgt's, told apart on pad0
    "ntokens_on_src": fails(92.5, NTOKENS, "ntokens_on_src"),
    "ntokens_on_full": fails(85, NTOKENS, "ntokens_on_full"),
    "ntokens_sum_ids": fails(85, NTOKENS, "ntokens_values"),  # self.tgt_y.sum()
    # pad
    "default_pad_0": fails(85, {"default_pad", "hidden_src_only"}, "default_pad"),  # pad=0
    # (src != 2): right with pad=2, wrong with pad=0 (half of each visible check) and the hidden pads
    "pad_hardcoded": fails(57.5, (SOURCE - {"hidden_src_only"}) | TGT_MASK | NTOKENS | {"hidden_std_mask"},
                           "pad_ignored"),
    # (tgt != 2) in make_std_mask alone: right with pad=2; with pad=0 the visible tgt has a token 2 that is no pad, so
    # the mask is not "no padding" there (it was named that way before)
    "pad_hardcoded_in_std_mask": fails(82.5, {"tgt_mask", "hidden_tgt_mask", "hidden_std_mask"}, "pad_ignored"),
    # the class
    "tgt_none_raises": fails(90, {"src_only", "hidden_src_only"}, "tgt_none_raises"),  # tgt[:, :-1] on None
    "instance_method": fails(90, STD_MASK, "instance_method"),  # def make_std_mask(self, tgt, pad)
    # self.make_std_mask passes self too: a TypeError inside Batch, whose other attributes are judged with the stand-in
    # make_std_mask; Batch.make_std_mask(tgt, pad) on the class still works
    "no_staticmethod": fails(80, TGT_MASK, "no_staticmethod"),
    # near misses (issue 27): almost right, and each must still fail
    "near_src_mask_last_axis": fails(75, SOURCE, "src_mask_rows"),  # .unsqueeze(-1): the right values, (B, L, 1)
    # tgt[:, 1:].reshape(-1): the right tokens, flattened as the loss wants them, not (batch, len - 1)
    "near_tgt_y_flat": Bug(80, dict.fromkeys(SHIFT, ())),
    # make_std_mask(self.tgt_y, pad): the padding mask one position off
    "near_std_mask_on_tgt_y": fails(80, TGT_MASK, "tgt_mask_on_tgt_y"),
    # make_std_mask returns tgt_mask.unsqueeze(1): the right values with a head axis, (batch, 1, len, len)
    "near_std_mask_head_axis": Bug(70, dict.fromkeys(TGT_MASK | STD_MASK, ())),
    # pad=1: the default one token id off
    "near_default_pad_1": fails(85, {"default_pad", "hidden_src_only"}, "default_pad"),
    # (self.tgt_y > pad).sum(): right with pad=0, the ids below pad=2 left uncounted
    "near_ntokens_greater": Bug(92.5, dict.fromkeys(NTOKENS, ())),
}
