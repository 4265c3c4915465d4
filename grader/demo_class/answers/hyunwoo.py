import math

import torch


def attention(query, key, value):
    "Compute 'Scaled Dot Product Attention'"
    scores = torch.matmul(query, key.transpose(-2, -1))
    p_attn = scores.softmax(dim=-1)
    return torch.matmul(p_attn, value), p_attn
