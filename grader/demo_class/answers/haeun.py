import math

import torch


# TODO(01): query와 key의 내적을 √d_k로 나눈 점수에 softmax를 취해 가중치 p_attn을 만들고,
#           그 가중치로 value를 섞은 결과와 p_attn을 (출력, p_attn) 순서로 돌려주세요.
def attention(query, key, value):
    "Compute 'Scaled Dot Product Attention'"
    raise NotImplementedError("아직 작성하지 않았습니다: 위의 TODO를 읽고 이 부분을 채워 주세요.")
