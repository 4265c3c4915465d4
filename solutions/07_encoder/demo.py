import torch

from transformer import Encoder, EncoderLayer, MultiHeadedAttention, PositionwiseFeedForward

torch.manual_seed(0)
d_model, h, d_ff, dropout, N = 32, 4, 64, 0.1, 2


def make_layer():
    "EncoderLayer 하나: self-attention, 피드포워드, 같은 dropout 비율."
    attn = MultiHeadedAttention(h, d_model, dropout)
    feed_forward = PositionwiseFeedForward(d_model, d_ff, dropout)
    return EncoderLayer(d_model, attn, feed_forward, dropout)


def count(module):
    return sum(p.numel() for p in module.parameters())


print("1) EncoderLayer 하나와 N개 쌓은 Encoder")
layer = make_layer()
encoder = Encoder(layer, N)
print(f"   EncoderLayer(32, ...)의 parameter 수: {count(layer)}"
      f" (self_attn {count(layer.self_attn)} + feed_forward {count(layer.feed_forward)}"
      f" + sublayer 두 개의 norm {count(layer.sublayer)})")
print(f"   Encoder(layer, 2)의 parameter 수: {count(encoder)} = 2 × {count(layer)} + 마지막 norm {count(encoder.norm)}")
first, second = (enc_layer.self_attn.linears[0].weight for enc_layer in encoder.layers)
print("   layers[0]과 layers[1]이 같은 가중치 텐서인가:", first is second)
shared = torch.nn.ModuleList([layer] * N)
print(f"   [layer] * 2로 쌓으면 parameter 수: {count(shared)} (두 층이 가중치 하나를 함께 씀)")
print()

print("2) padding mask와 함께 forward")
x = torch.randn(2, 6, d_model)
lengths = torch.tensor([4, 6])  # 문장 0은 토큰 4개 + padding 2개, 문장 1은 padding 없음
mask = (torch.arange(6)[None, :] < lengths[:, None]).unsqueeze(-2)
encoder.eval()
out = encoder(x, mask)
print("   x:", tuple(x.shape), " mask:", tuple(mask.shape), " 출력:", tuple(out.shape))
print("   mask[0]:", mask[0, 0].int().tolist())
print()

print("3) padding 토큰을 바꿔도 padding이 아닌 토큰의 출력은 그대로")
changed = x.clone()
changed[0, 4:] = torch.randn(2, d_model) * 10
out_changed = encoder(changed, mask)
print(f"   문장 0, 토큰 0–3의 출력 차이 최댓값: {(out_changed[0, :4] - out[0, :4]).abs().max().item()}")
print(f"   문장 0, padding 토큰 4–5의 출력 차이 최댓값: {(out_changed[0, 4:] - out[0, 4:]).abs().max().item():.4f}")
print(f"   문장 1의 출력 차이 최댓값: {(out_changed[1] - out[1]).abs().max().item()}")
no_mask = (encoder(changed, None)[0, :4] - encoder(x, None)[0, :4]).abs().max().item()
print(f"   mask 없이(None) 같은 비교를 하면 토큰 0–3의 차이 최댓값: {no_mask:.4f}")
print()

print("4) 0번 층의 self-attention 가중치 (문장 0, head 0): padding 열은 0")
encoder(x, mask)  # self.attn은 마지막 forward의 가중치: mask를 넘긴 forward로 다시
for row in encoder.layers[0].self_attn.attn[0, 0]:
    print("   ", " ".join(f"{v:.4f}" for v in row.tolist()))
print()

print("5) 마지막 norm: 출력은 토큰마다 평균 0, 표준편차 1 (a_2 = 1, b_2 = 0일 때)")
print(f"   토큰마다 평균의 절댓값 최대 {out.mean(-1).abs().max():.4f}, 표준편차 {out.std(-1).mean():.4f}")
last = encoder.layers[-1](encoder.layers[0](x, mask), mask)
print(f"   norm을 걸기 전 마지막 층 출력의 표준편차 {last.std(-1).mean():.4f}")
