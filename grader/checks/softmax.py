"""Softmax analysis shared by attention chapters: which temperature turned scores into the student's weights."""
import torch


def fitted_scale(query, key, p_attn):
    """Recover c in p = softmax(q·kᵀ / c) from log p, with the fit's correlation (1.0 = exact)."""
    raw = torch.matmul(query.to(torch.float64), key.to(torch.float64).transpose(-2, -1))
    raw, p = raw.reshape(-1, raw.shape[-1]), p_attn.reshape(-1, p_attn.shape[-1])
    if raw.shape != p.shape:
        return None, 0.0
    usable = p > 1e-200
    counts = usable.sum(-1, keepdim=True)
    rows = (counts >= 2).squeeze(-1)
    if not rows.any():
        return None, 0.0
    usable, counts = usable[rows], counts[rows]
    # Per row, over the usable entries only: centre the raw scores and log p, then fit one slope.
    x = torch.where(usable, raw[rows], torch.zeros(()).to(raw))
    y = torch.where(usable, p[rows].clamp_min(1e-300).log(), torch.zeros(()).to(raw))
    x = torch.where(usable, x - x.sum(-1, keepdim=True) / counts, torch.zeros(()).to(raw))
    y = torch.where(usable, y - y.sum(-1, keepdim=True) / counts, torch.zeros(()).to(raw))
    slope_inverse = (x * y).sum() / (x * x).sum()
    correlation = (x * y).sum() / ((x * x).sum().sqrt() * (y * y).sum().sqrt() + 1e-300)
    if slope_inverse <= 0:
        return None, float(correlation)
    return float(1.0 / slope_inverse), float(correlation)


def scores_spread(inputs, p):
    """The spread of the scores the student's softmax saw: std of q·kᵀ / c with c fitted from p."""
    query, key, _ = inputs
    scale, correlation = fitted_scale(query, key, p)
    if scale is None or correlation < 0.99:
        return None
    raw = torch.matmul(query.to(torch.float64), key.to(torch.float64).transpose(-2, -1))
    return float((raw / scale).std())
