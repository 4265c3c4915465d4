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


def clones(module, N):
    "Produce N identical layers."
    return nn.ModuleList([copy.deepcopy(module) for _ in range(N)])


class MultiHeadedAttention(nn.Module):
    def __init__(self, h, d_model, dropout=0.1):
        "Take in model size and number of heads."
        super(MultiHeadedAttention, self).__init__()
        assert d_model % h == 0
        # We assume d_v always equals d_k
        self.d_k = d_model // h
        self.h = h
        self.linears = clones(nn.Linear(d_model, d_model), 4)
        self.attn = None
        self.dropout = nn.Dropout(p=dropout)

    def forward(self, query, key, value, mask=None):
        "Implements Figure 2"
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


class PositionwiseFeedForward(nn.Module):
    "Implements FFN equation."

    def __init__(self, d_model, d_ff, dropout=0.1):
        super(PositionwiseFeedForward, self).__init__()
        self.w_1 = nn.Linear(d_model, d_ff)
        self.w_2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.w_2(self.dropout(self.w_1(x).relu()))


class Embeddings(nn.Module):
    def __init__(self, d_model, vocab):
        super(Embeddings, self).__init__()
        # TODO(05): 속성 이름은 채점 기준의 일부입니다. 이 이름 그대로 만드세요.
        #           self.lut: vocab개의 토큰마다 d_model 차원 벡터를 담은 nn.Embedding(vocab, d_model)
        #           self.d_model: d_model (forward에서 곱할 √d_model에 씁니다)
        ### BEGIN SOLUTION
        self.lut = nn.Embedding(vocab, d_model)
        self.d_model = d_model
        ### END SOLUTION

    def forward(self, x):
        # TODO(05): 토큰 번호 x의 벡터를 self.lut에서 찾아 √d_model을 곱해 돌려주세요.
        ### BEGIN SOLUTION
        return self.lut(x) * math.sqrt(self.d_model)
        ### END SOLUTION


class PositionalEncoding(nn.Module):
    "Implement the PE function."

    def __init__(self, d_model, dropout, max_len=5000):
        super(PositionalEncoding, self).__init__()
        # TODO(05): self.dropout: p=dropout인 nn.Dropout.
        #           pe: (max_len, d_model) 표. 짝수 열 0, 2, 4, …에 sin(pos · div_term), 홀수 열 1, 3, 5, …에
        #           cos(pos · div_term) (번갈아 끼워 넣기), div_term = exp(-(2i) · log(10000) / d_model).
        #           pe.unsqueeze(0)으로 (1, max_len, d_model)을 만들어 self.register_buffer("pe", pe)로 등록하세요.
        #           이름 pe와 "parameter가 아닌 buffer"라는 점이 채점 기준의 일부입니다.
        ### BEGIN SOLUTION
        self.dropout = nn.Dropout(p=dropout)

        # Compute the positional encodings once in log space.
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len).unsqueeze(1)
        div_term = torch.exp(
            torch.arange(0, d_model, 2) * -(math.log(10000.0) / d_model)
        )
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        pe = pe.unsqueeze(0)
        self.register_buffer("pe", pe)
        ### END SOLUTION

    def forward(self, x):
        # TODO(05): 입력 길이 x.size(1)만큼 자른 pe를 x에 더하고 dropout을 적용해 돌려주세요.
        ### BEGIN SOLUTION
        x = x + self.pe[:, : x.size(1)].requires_grad_(False)
        return self.dropout(x)
        ### END SOLUTION
