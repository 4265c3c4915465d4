"""Chapter 05's expectations: each bug fixture → exact score, exactly the checks it fails, the bug each one names.

Diagnoses are named by bug key (`ch05_judge.BUGS`), never retyped.
"""
from tests.checks.chapters import Bug, fails

EMBEDDINGS = frozenset({"embeddings_structure", "embeddings_scale", "hidden_embeddings"})
PE_OUTPUTS = frozenset({"pe_eval", "pe_dropout_train", "hidden_pe", "hidden_pe_dropout"})
TRAIN = frozenset({"pe_dropout_train", "hidden_pe_dropout"})
PE = frozenset({"pe_structure"})

EXPECTED = {
    "emb_no_scale": fails(75, {"embeddings_scale", "hidden_embeddings"}, "emb_no_scale"),  # return self.lut(x)
    "emb_times_d_model": fails(75, {"embeddings_scale", "hidden_embeddings"}, "emb_times_d_model"),  # × d_model
    "renamed_lut": fails(65, EMBEDDINGS, "names"),  # self.embedding instead of self.lut
    "pe_sin_cos_swapped": fails(50, PE_OUTPUTS, "pe_swapped"),  # even columns cos, odd columns sin
    "pe_both_sin": fails(50, PE_OUTPUTS, "pe_one_function"),  # pe[:, 1::2] = torch.sin(...) too
    "pe_concatenated": fails(50, PE_OUTPUTS, "pe_concatenated"),  # torch.cat([sin, cos], dim=1)
    "pe_div_term_sign": fails(50, PE_OUTPUTS, "pe_div_sign"),  # exp(+2i·log(10000)/d)
    # pos · 10000^(2i/d) written as a power: the first sin/cos pair is right, the later ones are not
    "pe_frequency_power": fails(50, PE_OUTPUTS, "pe_frequencies"),
    "pe_no_exp": fails(50, PE_OUTPUTS, "pe_no_exp"),  # div_term = arange(0, d, 2) * -(log(10000) / d), no exp
    "pe_odd_exponent": fails(50, PE_OUTPUTS, "pe_odd_exponent"),  # arange(1, d + 1, 2): exponents 1, 3, 5, …
    # same outputs: only the module's structure shows these two
    "pe_parameter": fails(85, {"pe_structure"}, "pe_parameter"),  # nn.Parameter(pe, requires_grad=False)
    "pe_plain_tensor": fails(85, {"pe_structure"}, "pe_not_registered"),  # self.pe = pe
    "pe_max_len_ignored": fails(92.5, {"pe_structure"}, "max_len_ignored"),  # torch.zeros(5000, d_model)
    "pe_not_sliced": fails(50, PE_OUTPUTS, "pe_not_sliced"),  # x + self.pe: RuntimeError
    "pe_sliced_by_batch": fails(50, PE_OUTPUTS, "pe_sliced_by_batch"),  # self.pe[:, :x.size(0)]
    "pe_sliced_by_d_model": fails(50, PE_OUTPUTS, "pe_sliced_by_d_model"),  # self.pe[:, :x.size(-1)]
    "dropout_missing": fails(80, TRAIN, "dropout_missing"),  # self.dropout made, never applied
    "no_dropout_module": fails(65, TRAIN | {"pe_structure"}, "dropout_missing", first="dropout_module",
                               pe_structure="dropout_module"),
    # near misses (issue 27): almost right, and each must still fail
    # math.log(10001.0): frequencies off by 1e-4 relative, seen at the later positions only
    "near_log_10001": fails(80, {"pe_dropout_train", "hidden_pe"}, "pe_frequencies"),
    # lut(x) * (1.001 * sqrt(d_model)): 0.1 % off, ten times the tolerance
    "near_emb_scale_tenth_percent": Bug(75, dict.fromkeys({"embeddings_scale", "hidden_embeddings"}, ())),
    # nn.Embedding(vocab + 1, d_model): one row too many (the rows it shares are drawn the same)
    "near_vocab_plus_one": Bug(65, dict.fromkeys(EMBEDDINGS, ())),
    # zeros(max_len + 1, d_model), arange(0, max_len + 1): the same outputs, a table one row too long
    "near_max_len_plus_one": Bug(85, dict.fromkeys({"pe_structure"}, ())),
    # register_buffer("pe", pe, persistent=False): a buffer, but not in the state_dict
    "near_pe_not_persistent": fails(85, {"pe_structure"}, "pe_not_persistent"),
    # arange(1, max_len + 1): positions counted from 1, every row one position off
    "near_position_from_1": fails(50, PE_OUTPUTS, "pe_positions_from_one"),
    "pe_one_position": fails(50, PE_OUTPUTS, "pe_one_position"),  # self.pe[:, x.size(1)]: one row added at every position
    # nn.Dropout(p=dropout * 1.01): a dropout rate 1 % off, named by the structure and by the train outputs
    "near_dropout_p": fails(65, TRAIN | {"pe_structure"}, "dropout_module"),
    # position = torch.arange(0, max_len): (max_len,) * (d_model/2,) fails while the table is built
    "pe_position_flat": fails(35, PE | PE_OUTPUTS, "position_not_column"),
    # div_term from torch.arange(0, d_model): d_model frequencies for d_model/2 columns, fails while building
    "div_term_every_column": fails(35, PE | PE_OUTPUTS, "div_term_length"),
    # pe.unsqueeze(1): (max_len, 1, d_model); the structure names the shape, forward's broadcast error the table
    "pe_unsqueeze_middle": fails(35, PE | PE_OUTPUTS, "pe_table_shape", pe_structure=()),
    # register_buffer("pos_encoding", pe), used as self.pos_encoding: right outputs, another name
    "pe_buffer_renamed": fails(85, PE, "pe_renamed"),
    # super().__init__() left out of PositionalEncoding: it cannot be built; Embeddings keeps its points
    "no_super_pe": fails(35, PE | PE_OUTPUTS, "no_super"),
    # nn.functional.dropout(x, p=self.dropout.p) without training=: drops in eval mode too
    "dropout_in_eval": fails(70, {"pe_eval", "hidden_pe"}, "dropout_in_eval"),
    # cos columns at their own index: 1/10000^((2i+1)/d_model)
    "pe_cos_own_exponent": fails(50, PE_OUTPUTS, "pe_cos_exponent"),
    # math.sqrt(self.vocab): another constant scale than √d_model (no bug model: read from the values)
    "emb_sqrt_vocab": fails(75, {"embeddings_scale", "hidden_embeddings"}, "emb_other_scale"),
    # √d_model moved from Embeddings into PositionalEncoding (x * sqrt(d) + pe): each unit loses its own checks
    "pe_scaled_input": fails(25, PE_OUTPUTS | {"embeddings_scale", "hidden_embeddings"}, "emb_no_scale",
                             **dict.fromkeys(PE_OUTPUTS, "pe_scaled_input")),
    # pe built in float64 and never turned back: x + pe is float64 (the eval outputs judge the dtype)
    "pe_float64": fails(70, {"pe_eval", "hidden_pe"}, "pe_dtype"),
    # torch.zeros(max_len, d_model, dtype=torch.long): each sin and cos truncated towards 0 as it is stored
    "pe_integer": fails(50, PE_OUTPUTS, "pe_integer"),
    # sin(position / max_len * div_term): positions normalised to 0..1
    "pe_positions_normalised": fails(50, PE_OUTPUTS, "pe_positions_normalised"),
}
