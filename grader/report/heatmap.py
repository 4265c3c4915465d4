"""Draw p_attn heatmaps (student beside reference) as a PNG; labels are ASCII so no CJK font is needed."""
import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # the backend must be chosen first
import numpy as np

from .picture import finite_range

ANNOTATE_UP_TO = 12  # write the value in each cell when both sides are at most this long


def draw(path, student, reference, student_label="your p_attn", reference_label="reference p_attn"):
    """Write a PNG at `path`: one panel per matrix given (rows = query tokens, cols = key tokens)."""
    panels = [(m, label) for m, label in ((student, student_label), (reference, reference_label)) if m is not None]
    if not panels:
        raise ValueError("nothing to draw")
    side = max(max(len(m), len(m[0])) for m, _ in panels)
    cell = 0.75 if side <= ANNOTATE_UP_TO else 0.3
    width = max(3.2, cell * side + 1.6)
    height = max(2.8, cell * side + 1.3)
    figure, axes = plt.subplots(1, len(panels), figsize=(width * len(panels), height), squeeze=False)
    figure.subplots_adjust(wspace=0.55)
    for axis, (rows, label) in zip(axes[0], panels):
        _panel(figure, axis, rows, label)
    figure.savefig(path, dpi=100, bbox_inches="tight", pad_inches=0.15)
    plt.close(figure)
    return path


def _panel(figure, axis, rows, label):
    data = np.array(rows, dtype=float)
    low, high = _scale(rows)
    masked = np.ma.masked_invalid(data)
    colormap = matplotlib.colormaps["Blues"].with_extremes(bad="#d9d9d9")
    image = axis.imshow(masked, cmap=colormap, vmin=low, vmax=high)
    axis.set_title(label, fontsize=10)
    axis.set_xlabel("key token")
    axis.set_ylabel("query token")
    axis.set_xticks(range(data.shape[1]))
    axis.set_yticks(range(data.shape[0]))
    if max(data.shape) <= ANNOTATE_UP_TO:
        for (i, j), value in np.ndenumerate(data):
            dark = math.isfinite(value) and (value - low) > 0.6 * (high - low)
            axis.text(j, i, _label(value), ha="center", va="center", fontsize=9, color="white" if dark else "black")
    figure.colorbar(image, ax=axis, fraction=0.046, pad=0.04)


def _scale(rows):
    """Colour range: [0, 1] for weights; the data's own range when values fall outside it."""
    found = finite_range(rows)
    if found is None:
        return 0.0, 1.0
    low, high = min(0.0, found[0]), max(1.0, found[1])
    return (low, high) if high > low else (low, low + 1.0)


def _label(value):
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return f"{value:.3f}" if abs(value) < 100 else f"{value:.3g}"
