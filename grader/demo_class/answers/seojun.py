import math

import torch
import torch.nn.functional as F


def attention(query, key, value):
    "Compute 'Scaled Dot Product Attention'"
    p_attn = F.softmax(query @ key.transpose(-2, -1), dim=-1)  # 점수 → 가중치
    return p_attn @ value, p_attn
