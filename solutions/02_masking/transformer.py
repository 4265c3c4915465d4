import math

import torch


def attention(query, key, value, mask=None, dropout=None):
    "Compute 'Scaled Dot Product Attention'"
    d_k = query.size(-1)
    scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(d_k)
    # TODO(02): mask가 주어지면(None이 아니면) mask가 0인 자리의 점수를 -1e9로 채우세요.
    #           softmax보다 먼저 채워야 그 자리의 가중치가 정확히 0이 됩니다.
    ### BEGIN SOLUTION
    if mask is not None:
        scores = scores.masked_fill(mask == 0, -1e9)
    ### END SOLUTION
    p_attn = scores.softmax(dim=-1)
    # TODO(02): dropout이 주어지면 softmax가 끝난 가중치 p_attn에 적용하세요 (value와 섞기 전에).
    ### BEGIN SOLUTION
    if dropout is not None:
        p_attn = dropout(p_attn)
    ### END SOLUTION
    return torch.matmul(p_attn, value), p_attn


# TODO(02): (1, size, size) 모양의 bool mask를 돌려주세요. i행 j열은 j ≤ i일 때(대각선과 그 아래) True,
#           j > i일 때(미래 위치) False입니다. torch.triu와 diagonal 인자를 쓰면 됩니다.
def subsequent_mask(size):
    "Mask out subsequent positions."
    ### BEGIN SOLUTION
    attn_shape = (1, size, size)
    subsequent_mask = torch.triu(torch.ones(attn_shape), diagonal=1).type(torch.uint8)
    return subsequent_mask == 0
    ### END SOLUTION
