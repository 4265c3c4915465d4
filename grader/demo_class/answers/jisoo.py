import math

import torch


def attention(query, key, value):
    "Compute 'Scaled Dot Product Attention'"
    d_k = query.size(-1)
    query /= math.sqrt(d_k)  # 메모리를 아끼려고 제자리에서 나눔
    p_attn = torch.matmul(query, key.transpose(-2, -1)).softmax(dim=-1)
    return torch.matmul(p_attn, value), p_attn
