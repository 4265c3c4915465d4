import copy
import math

import torch
import torch.nn as nn


def attention(query, key, value, mask=None, dropout=None):
    "Compute 'Scaled Dot Product Attention'"
    d_k = query.size(-1)
    scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == 0, -1e9)
    p_attn = scores.softmax(dim=-1)
    if dropout is not None:
        p_attn = dropout(p_attn)
    return torch.matmul(p_attn, value), p_attn


def subsequent_mask(size):
    "Mask out subsequent positions."
    attn_shape = (1, size, size)
    subsequent_mask = torch.triu(torch.ones(attn_shape), diagonal=1).type(torch.uint8)
    return subsequent_mask == 0


# TODO(03): module을 N번 깊은 복사(copy.deepcopy)해서 nn.ModuleList로 묶어 돌려주세요.
#           같은 객체를 N번 담으면([module] * N) 가중치를 함께 쓰고, 그냥 list면 parameter로 등록되지 않습니다.
def clones(module, N):
    "Produce N identical layers."
    ### BEGIN SOLUTION
    return nn.ModuleList([copy.deepcopy(module) for _ in range(N)])
    ### END SOLUTION


class MultiHeadedAttention(nn.Module):
    def __init__(self, h, d_model, dropout=0.1):
        "Take in model size and number of heads."
        super(MultiHeadedAttention, self).__init__()
        assert d_model % h == 0
        # TODO(03): 속성 이름은 채점 기준의 일부입니다. 이 이름 그대로 만드세요.
        #           self.d_k: head 하나의 차원 (d_model // h)          self.h: head 수
        #           self.linears: clones로 만든 nn.Linear(d_model, d_model) 4개 (query, key, value, 출력 순서)
        #           self.attn: None으로 시작, forward가 마지막 어텐션 가중치를 저장하는 자리
        #           self.dropout: p=dropout인 nn.Dropout (attention에 넘깁니다)
        ### BEGIN SOLUTION
        # We assume d_v always equals d_k
        self.d_k = d_model // h
        self.h = h
        self.linears = clones(nn.Linear(d_model, d_model), 4)
        self.attn = None
        self.dropout = nn.Dropout(p=dropout)
        ### END SOLUTION

    def forward(self, query, key, value, mask=None):
        "Implements Figure 2"
        # TODO(03): 1) mask가 있으면 head 축을 끼우세요(mask.unsqueeze(1)). 모든 head에 같은 mask를 씁니다.
        #           2) linears[0], [1], [2]로 query, key, value를 투영하고 (batch, -1, h, d_k)로 view한 뒤
        #              transpose(1, 2)로 (batch, h, 길이, d_k)를 만드세요.
        #           3) attention(…, mask=mask, dropout=self.dropout)을 부르고 가중치를 self.attn에 저장하세요.
        #           4) transpose(1, 2) → contiguous() → view(batch, -1, h * d_k)로 head를 이어 붙이고
        #              마지막 linears[-1]로 투영해 돌려주세요.
        ### BEGIN SOLUTION
        if mask is not None:
            mask = mask.unsqueeze(1)  # Same mask applied to all h heads.
        nbatches = query.size(0)

        # 1) Do all the linear projections in batch from d_model => h x d_k
        query, key, value = [
            lin(x).view(nbatches, -1, self.h, self.d_k).transpose(1, 2)
            for lin, x in zip(self.linears, (query, key, value))
        ]

        # 2) Apply attention on all the projected vectors in batch.
        x, self.attn = attention(query, key, value, mask=mask, dropout=self.dropout)

        # 3) "Concat" using a view and apply a final linear.
        x = x.transpose(1, 2).contiguous().view(nbatches, -1, self.h * self.d_k)
        del query
        del key
        del value
        return self.linears[-1](x)
        ### END SOLUTION
