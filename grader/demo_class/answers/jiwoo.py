import math

import torch


def attention(query, key, value):
    "Compute 'Scaled Dot Product Attention'"
    scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))
    # softmax를 직접: 행마다 최댓값을 빼서 exp가 넘치지 않게
    e = torch.exp(scores - scores.amax(dim=-1, keepdim=True))
    p_attn = e / e.sum(dim=-1, keepdim=True)
    return p_attn @ value, p_attn
