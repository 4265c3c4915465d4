import math

import torch
import torch.nn.functional as F


def attention(query, key, value):
    "Compute 'Scaled Dot Product Attention'"
    d_k = query.size(-1)
    scores = query @ key.transpose(-2, -1) / math.sqrt(d_k)
    p_attn = F.softmax(scores, 1)
    return p_attn @ value, p_attn
