import math

import torch


# TODO(01): query와 key의 내적을 √d_k로 나눈 점수에 softmax를 취해 가중치 p_attn을 만들고,
#           그 가중치로 value를 섞은 결과와 p_attn을 (출력, p_attn) 순서로 돌려주세요.
def attention(query, key, value):
    "Compute 'Scaled Dot Product Attention'"
    q = query / math.sqrt(query.size(-1))  # 먼저 나눠도 결과는 같다
    p_attn = (q @ key.mT).softmax(dim=-1)
    return p_attn @ value, p_attn
