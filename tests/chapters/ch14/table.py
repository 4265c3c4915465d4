"""Chapter 14's expectations: each bug fixture → exact score, exactly the checks it fails, the bug each one names.

Diagnoses are named by bug key (`ch14_judge.BUGS`), never retyped.
"""
from tests.checks.chapters import fails

GETTERS = frozenset({"getters", "hidden_getters"})
FILL = frozenset({"fill_attention", "hidden_fill"})
# visualize_layer draws with attn_map, but a faulty attn_map costs only its own check (and the hidden attn_map case's
# half of hidden_drawing): visualize_layer is then judged with the probe's stand-in attn_map.
MAP = frozenset({"attn_map_data", "hidden_drawing"})
TICKS = frozenset({"attn_map_ticks", "hidden_drawing"})  # half of hidden_drawing: the hidden attn_map case
LAYER = frozenset({"visualize_layer", "hidden_drawing"})  # half of hidden_drawing: the hidden visualize_layer case
# the colour range is judged on the visible attn_map case alone: a map whose colours are not fixed to 0–1 loses 5 points
SCALE = frozenset({"attn_map_scale"})

EXPECTED = {
    # the getters: one of three wrong costs a third of each getter check
    "getter_src_returns_self": fails(91.6667, GETTERS, "getter_kind"),  # get_decoder_src → self_attn
    "getters_layer_zero": fails(75, GETTERS, "getter_layer"),  # layers[0] whatever the layer
    # layers[-1] whatever the layer: right on the visible case (its last layer), wrong on the hidden middle layer
    "getters_last_layer": fails(96.6667, {"hidden_getters"}, "getter_layer"),
    "getters_return_module": fails(75, GETTERS, "getter_not_attn"),  # ….self_attn, not ….self_attn.attn
    # fill_attention
    "fill_train_mode": fails(80, FILL, "train_mode"),  # no model.eval(): dropout in the maps
    "fill_no_return": fails(80, FILL, "fill_return"),  # the maps are right, the tokens are not returned
    # attn_map's data (and visualize_layer, which draws with it)
    "map_transposed": fails(77.5, MAP, "transposed"),  # ax.imshow(m.T): the ticks stay right
    # m = attn[…].T: the ticks follow the transposed shape, so the hidden case's tick call raises; the transpose is named
    "map_data_transposed": fails(77.5, MAP, "transposed"),
    "map_softmax_again": fails(77.5, MAP, "softmax_again"),
    "map_not_cropped": fails(77.5, MAP, "not_cropped"),
    "map_head_zero": fails(77.5, MAP, "other_head"),  # attn[0, 0] whatever the head
    "map_last_batch": fails(77.5, MAP, "other_batch"),  # attn[-1, head]: batch 1 of 2 here, 2 of 3 in the hidden case
    # attn[head, 0]: an IndexError where head ≥ batch, named by its bug model (the ticks are never drawn)
    "map_axes_swapped": fails(67.5, MAP | TICKS | SCALE, "axes_swapped"),
    # set_xticklabels(col_tokens) on a map cut to max_dim: matplotlib's ValueError, named (the data check too: it raised)
    "ticks_not_cut": fails(75, {"attn_map_data", "attn_map_ticks", "attn_map_scale"}, "ticks_count"),
    # attn_map's ticks
    # two mistakes, each in its own unit: visualize_layer is judged with the stand-in attn_map and still names its own
    "map_transposed_layer_head_zero": fails(55, MAP | LAYER, "transposed", visualize_layer="same_head",
                                            hidden_drawing=("transposed", "same_head")),
    "map_transposed_layer_attn_changed": fails(55, MAP | LAYER, "transposed", visualize_layer="attn_passed",
                                               hidden_drawing=("transposed", "attn_passed")),  # attn * 1.01 passed on
    "ticks_missing": fails(87.5, TICKS, "ticks_missing"),
    "ticks_swapped": fails(87.5, TICKS, "ticks_swapped"),  # row tokens on the x axis
    # the token lists alone swapped (the tick positions right): the hidden case's tick call raises, the swap is named
    "ticks_tokens_swapped": fails(87.5, TICKS, "ticks_swapped"),
    "ticks_without_set_ticks": fails(87.5, TICKS, "ticks_misplaced"),  # set_xticklabels on matplotlib's own ticks
    # attn_map's colour range
    "map_colour_auto": fails(95, SCALE, "scale_data"),  # ax.imshow(m): matplotlib scales the colours to the data
    "map_colour_vmax_half": fails(95, SCALE, "scale_range"),  # vmin=0, vmax=0.5: fixed, but not to 0–1
    # visualize_layer
    "layer_one_axes": fails(77.5, LAYER, "one_axes"),
    # attn_map(attn, h, col_tokens, row_tokens, …): read from the ticks drawn (visible), from the tokens the stand-in
    # attn_map was handed where the student's attn_map then raised (hidden: fewer tokens than cells)
    "layer_tokens_swapped": fails(77.5, LAYER, "layer_tokens_swapped"),
    "layer_show_no_return": fails(77.5, LAYER, "not_figure"),  # plt.show(), nothing returned
    "layer_ignores_getter_fn": fails(77.5, LAYER, "getter_fn_ignored"),  # get_encoder(model, layer) always
    "layer_head_zero": fails(77.5, LAYER, "same_head"),  # attn_map(attn, 0, …) on every axes
    # n_heads = 4 for 3 heads: the student's attn_map raises the IndexError; the stand-in run names the axes count
    "layer_fixed_heads": fails(77.5, LAYER, "axes_count"),
    "layer_ntokens_ignored": fails(77.5, LAYER, "ntokens_ignored"),  # max_dim=30, the original's default
    # near misses (issue 27): almost right, and each must still fail
    # attn[0, head, :max_dim, :max_dim + 1]: one key column too many
    "near_map_one_column_more": fails(85, {"attn_map_data"}, "map_shape"),
    # get_encoder returns ….attn[:1]: the right values of batch 0, the other examples cut off
    "near_getter_first_example": fails(91.6667, GETTERS, "getter_changed"),
    # get_decoder_src reads model.decoder.layers[layer - 1]: one layer before
    "near_getter_layer_before": fails(91.6667, GETTERS, "getter_layer"),
    # greedy_decode first, model.eval() after it: the model ends in eval mode, the maps were drawn with dropout
    "near_eval_after_decode": fails(80, FILL, "fill_values"),
    # attn[0, head, :max_dim - 1, :max_dim]: one query row short (the visible attn_map case has fewer rows than max_dim)
    "near_map_one_row_less": fails(77.5, MAP, "map_shape"),  # the ticks of the rows it drew are right
    # ax.imshow(m * 1.001): the drawn weights 0.1 % off, ten times the tolerance
    "near_map_tenth_percent": fails(77.5, MAP, "map_values"),
    # set_xticklabels((["<s>"] + col_tokens)[:n]): a start token put first, each key token one cell on
    "near_ticks_shifted": fails(87.5, TICKS, "ticks_shifted"),
    # ax.imshow(m, vmin=0.0): vmax left to matplotlib, the map's own maximum
    "near_colour_vmin_only": fails(95, SCALE, "scale_data"),
    # range(n_heads - 1): the last head not drawn
    "near_layer_one_head_short": fails(77.5, LAYER, "axes_count"),
}
