import math

import torch

from transformer import attention, subsequent_mask

torch.manual_seed(0)
torch.set_printoptions(precision=3, sci_mode=False)

print("1) subsequent_mask(4) — i행은 'i번째 토큰이 볼 수 있는 위치' (1 = 볼 수 있음)")
causal = subsequent_mask(4)
print("   모양:", tuple(causal.shape), " dtype:", causal.dtype)
print(causal[0].int())
print()

print("2) causal mask를 건 self-attention — 가려진 자리는 정확히 0.0, 행 합은 그대로 1")
x = torch.randn(1, 4, 8)
out, p_attn = attention(x, x, x, mask=causal)
print(p_attn[0])
print("   가려진 자리에 나온 값:", sorted(set(p_attn[0][~causal[0]].tolist())))
print("   행마다 합:", [f"{v:.3f}" for v in p_attn[0].sum(-1).tolist()])
print("   0번 토큰은 자기 자신만 본다 → 출력 = 0번 value:", torch.allclose(out[0, 0], x[0, 0]))
print()

print("3) padding mask와 causal mask의 broadcast")
pad = 0
tokens = torch.tensor([[5, 7, 9, pad, pad], [3, 4, 6, 8, 2]])  # 문장 2개, 0번 문장은 뒤 2칸이 padding
src_mask = (tokens != pad).unsqueeze(-2)
tgt_mask = subsequent_mask(5)
both = src_mask & tgt_mask
x = torch.randn(2, 5, 8)
print("   점수        : (2, 5, 5)  (batch, query, key)")
print("   padding mask:", tuple(src_mask.shape), " — query 축이 1: 모든 query 행에서 같은 key 열을 가린다")
print("   causal mask :", tuple(tgt_mask.shape), " — batch 축이 1: 모든 문장에 같은 삼각형을 쓴다")
print("   둘을 &      :", tuple(both.shape))
_, p_pad = attention(x, x, x, mask=src_mask)
print("   padding mask만, 0번 문장 (3, 4열 = padding 이 0):")
print(p_pad[0])
_, p_both = attention(x, x, x, mask=both)
print("   padding & causal, 0번 문장 (위 삼각형과 3, 4열이 0):")
print(p_both[0])
print()

print("4) 모든 칸이 가려진 행 — -1e9로 채우면 균등, -inf로 채우면 NaN")
q = torch.randn(1, 3, 4)
row_masked = torch.tensor([[[1, 1, 0], [0, 0, 0], [1, 1, 1]]])  # 1번 query는 볼 수 있는 key가 하나도 없다
_, p_big = attention(q, q, q, mask=row_masked)
scores = q @ q.transpose(-2, -1) / math.sqrt(q.size(-1))
p_inf = scores.masked_fill(row_masked == 0, float("-inf")).softmax(dim=-1)
print("   1번 행, -1e9로 채움:", [f"{v:.4f}" for v in p_big[0, 1].tolist()])
print("   1번 행, -inf로 채움:", [f"{v:.4f}" for v in p_inf[0, 1].tolist()])
print("   0번 행은 둘 다 같음:", torch.allclose(p_big[0, 0], p_inf[0, 0]))
print("   → softmax는 행의 최댓값을 빼고 exp를 한다. 최댓값이 -inf면 -inf - (-inf) = NaN")
print()

print("5) dropout은 softmax 다음, p_attn에 — eval 모드에서는 아무것도 바꾸지 않는다")
x = torch.randn(1, 4, 8)
dropout = torch.nn.Dropout(p=0.5)
_, p_plain = attention(x, x, x)
dropout.eval()
_, p_eval = attention(x, x, x, dropout=dropout)
print("   eval 모드 결과 == dropout 없는 결과:", torch.equal(p_eval, p_plain))
dropout.train()
torch.manual_seed(1)
_, p_train = attention(x, x, x, dropout=dropout)
print("   dropout 없는 가중치:")
print(p_plain[0])
print("   train 모드 (p=0.5): 절반쯤 0이 되고, 남은 칸은 1/(1-p) = 2배")
print(p_train[0])
print("   train 모드 행마다 합:", [f"{v:.3f}" for v in p_train[0].sum(-1).tolist()])
print("   → 학습 중에는 행 합이 1이 아니다. 2배로 키워서 평균(기댓값)만 1로 맞춘다")
