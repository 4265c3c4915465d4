import math

import torch

from transformer import make_model, subsequent_mask

torch.manual_seed(0)

print("1) parameter 수 — make_model(src_vocab, tgt_vocab, N, d_model, d_ff, h)")
big = make_model(11, 11, N=2)
print(f"   make_model(11, 11, N=2), 기본값 d_model=512, d_ff=2048, h=8 : {sum(p.numel() for p in big.parameters()):,}개")
del big
model = make_model(11, 11, N=2, d_model=64, d_ff=128, h=4)
print(f"   make_model(11, 11, N=2, d_model=64, d_ff=128, h=4)           : {sum(p.numel() for p in model.parameters()):,}개")
print()

print("2) Xavier 초기화 — 행렬마다 처음 표준편차 ≈ √(2/(fan_in + fan_out))")
for name in ("encoder.layers.0.feed_forward.w_1.weight", "src_embed.0.lut.weight", "generator.proj.weight"):
    weight = dict(model.named_parameters())[name]
    fan_out, fan_in = weight.shape
    print(f"   {name:42s} {str(tuple(weight.shape)):10s} std {weight.std():.4f}   "
          f"√(2/({fan_in}+{fan_out})) = {math.sqrt(2 / (fan_in + fan_out)):.4f}")
print()

print("3) forward와 generator — src 7개, tgt 5개 토큰, 두 번째 문장은 padding(0)이 있음")
model.eval()
src = torch.tensor([[1, 2, 3, 4, 5, 6, 7], [1, 8, 9, 10, 0, 0, 0]])
tgt = torch.tensor([[1, 3, 5, 7, 9], [1, 2, 4, 0, 0]])
src_mask = (src != 0).unsqueeze(-2)
tgt_mask = (tgt != 0).unsqueeze(-2) & subsequent_mask(tgt.size(-1))
print("   src_mask 모양:", tuple(src_mask.shape), "  tgt_mask 모양:", tuple(tgt_mask.shape))
with torch.no_grad():
    out = model.forward(src, tgt, src_mask, tgt_mask)
    log_probs = model.generator(out)
    print("   encode(src, src_mask) 모양 (memory):", tuple(model.encode(src, src_mask).shape))
print("   forward(...) 모양 (decoder 출력)   :", tuple(out.shape))
print("   generator(출력) 모양 (로그 확률)    :", tuple(log_probs.shape))
sums = log_probs.exp().sum(-1)
print("   exp(로그 확률)의 행마다 합, 첫 문장:", " ".join(f"{s:.4f}" for s in sums[0].tolist()))
print("   모든 행의 합이 1:", bool(torch.allclose(sums, torch.ones_like(sums))))
print("   가장 높은 확률의 토큰 (학습 전이라 아무 토큰):", log_probs.argmax(-1)[0].tolist())
print()

print("4) decoder 0번 층 source-attention, 두 번째 문장, head 0 (행: tgt 토큰, 열: src 토큰)")
attn = model.decoder.layers[0].src_attn.attn[1, 0]
for row in attn.tolist():
    print("   " + " ".join(f"{v:.2f}" for v in row))
print("   padding인 src 토큰 3개(마지막 세 열)의 가중치 합:", f"{attn[:, 4:].sum():.4f}")
