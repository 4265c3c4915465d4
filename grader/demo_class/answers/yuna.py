import math

import torch


def attention(query, key, value):
    "Compute 'Scaled Dot Product Attention'"
    d_k = query.size(-1)
    scores = torch.matmul(query, key.transpose(-2, -1)) / (d_k ** 1 / 2)
    p_attn = scores.softmax(dim=-1)
    return torch.matmul(p_attn, value), p_attn
