import math

import torch


def attention(query, key, value):
    "Compute 'Scaled Dot Product Attention'"
    d_k = query.shape[-1]
    scores = torch.einsum("...qd,...kd->...qk", query, key) / math.sqrt(d_k)
    p_attn = torch.softmax(scores, dim=-1)
    output = torch.einsum("...qk,...kv->...qv", p_attn, value)
    return output, p_attn
