import copy

import torch

from transformer import (Decoder, DecoderLayer, MultiHeadedAttention, PositionwiseFeedForward, subsequent_mask)

torch.manual_seed(0)

d_model, h, d_ff, N = 16, 2, 32, 2
attn = MultiHeadedAttention(h, d_model, dropout=0.1)
ff = PositionwiseFeedForward(d_model, d_ff, dropout=0.1)
decoder = Decoder(DecoderLayer(d_model, copy.deepcopy(attn), copy.deepcopy(attn), copy.deepcopy(ff), 0.1), N)
decoder.eval()

print("1) 모양 — target x와 encoder의 memory는 길이가 달라도 된다")
x = torch.randn(1, 8, d_model)
memory = torch.randn(1, 10, d_model)
src_mask = torch.ones(1, 1, 10, dtype=torch.bool)
src_mask[0, 0, 7:] = False  # memory의 마지막 3개는 padding
tgt_mask = subsequent_mask(8)
out = decoder(x, memory, src_mask, tgt_mask)
print("   x (target)  :", tuple(x.shape), " (batch, T, d_model)")
print("   memory      :", tuple(memory.shape), " (batch, S, d_model)")
print("   src_mask    :", tuple(src_mask.shape), "  tgt_mask:", tuple(tgt_mask.shape))
print("   출력        :", tuple(out.shape), " x와 같은 모양")
print("   sublayer 수 :", len(decoder.layers[0].sublayer), "  층 수:", len(decoder.layers))
print()

print("2) source attention — query는 target, key와 value는 memory")
weights = decoder.layers[0].src_attn.attn
print("   layers[0].src_attn.attn:", tuple(weights.shape), " (batch, h, T, S)")
print(f"   padding인 memory 위치 7~9가 받는 가중치의 최대: {weights[..., 7:].max():.4f}")
print()

print("3) 위치 5의 target만 바꾸면 — 출력은 위치 5부터만 달라진다 (tgt_mask)")
changed = x.clone()
changed[0, 5] = torch.randn(d_model)
difference = (decoder(changed, memory, src_mask, tgt_mask) - out).abs().amax(-1)[0]
for position, value in enumerate(difference.tolist()):
    print(f"   위치 {position}: 최대 차이 {value:.4f}")
print()

print("4) memory를 바꾸면 — 모든 위치가 달라진다 (어느 위치나 memory 전체를 본다)")
other = memory.clone()
other[0, 2] = torch.randn(d_model)
difference = (decoder(x, other, src_mask, tgt_mask) - out).abs().amax(-1)[0]
print("   위치마다 최대 차이:", " ".join(f"{value:.4f}" for value in difference.tolist()))
padded = memory.clone()
padded[0, 8] = torch.randn(d_model)
print("   padding 위치 8만 바꾸면 최대 차이:", f"{(decoder(x, padded, src_mask, tgt_mask) - out).abs().max():.4f}")
