import math

import torch

from transformer import Embeddings, PositionalEncoding

torch.manual_seed(0)


def rms(t):
    "Root mean square of the components: their typical size."
    return t.pow(2).mean().sqrt()


d_model, vocab = 20, 11

print("1) Embeddings — 토큰 번호 → d_model 차원 벡터, √d_model 곱하기")
emb = Embeddings(d_model, vocab)
tokens = torch.tensor([[1, 5, 6, 2]])
print("   토큰 번호        :", tuple(tokens.shape), " (batch, 토큰 수)")
print("   self.lut.weight  :", tuple(emb.lut.weight.shape), " (vocab, d_model)")
print("   Embeddings 출력  :", tuple(emb(tokens).shape), " (batch, 토큰 수, d_model)")
ratio = emb(tokens) / emb.lut(tokens)
print(f"   출력 / lut(x) = {ratio.min():.4f} … {ratio.max():.4f}   √d_model = √{d_model} = {math.sqrt(d_model):.4f}")
big = Embeddings(512, 1000)
torch.nn.init.xavier_uniform_(big.lut.weight)  # 9장의 make_model이 쓰는 초기화
ids = torch.arange(1000)
print(f"   d_model=512, xavier 초기화: lut(x) 성분의 제곱평균제곱근 {rms(big.lut(ids)):.4f}"
      f" → × √512 뒤 {rms(big(ids)):.4f}")
print()

print("2) pe 표 — 짝수 열 sin, 홀수 열 cos, 번갈아")
pe_module = PositionalEncoding(d_model, dropout=0.1)
pe_module.eval()  # 값을 볼 때는 dropout을 끈다
pe = pe_module.pe[0]
print("   pe 모양:", tuple(pe_module.pe.shape), " (1, max_len, d_model)")
print("   위치 0:", " ".join(f"{v:.4f}" for v in pe[0].tolist()))
print("   위치 1:", " ".join(f"{v:.4f}" for v in pe[1, :6].tolist()), "…")
print(f"   sin(1) = {math.sin(1):.4f}, cos(1) = {math.cos(1):.4f}"
      f", sin(1/10000^(2/{d_model})) = {math.sin(10000 ** (-2 / d_model)):.4f}")
print()

print("3) 위치마다 벡터의 길이가 같다 — sin² + cos² = 1이 d_model/2 쌍")
norms = pe[:50].norm(dim=-1)
print(f"   ‖PE_pos‖ (pos 0~49): 최소 {norms.min():.4f}, 최대 {norms.max():.4f}"
      f"   √(d_model/2) = √{d_model // 2} = {math.sqrt(d_model / 2):.4f}")
print()

print("4) 열마다 주기가 다르다 — 앞 열은 빨리, 뒤 열은 천천히 돈다")
for column in (0, 6, 18):
    period = 2 * math.pi * 10000 ** (column / d_model)
    print(f"   {column:2d}번 열: 주기 2π·10000^({column}/{d_model}) = {period:10.1f} 위치")
print()

print("5) forward = x + pe[:, :길이], 그다음 dropout")
x = emb(tokens)
out = pe_module(x)
print("   입력:", tuple(x.shape), " 출력:", tuple(out.shape))
print("   eval 모드에서 출력 - 입력 == pe[:, :4]:", torch.allclose(out - x, pe_module.pe[:, :4], atol=1e-6))
print(f"   pe 성분의 제곱평균제곱근 (pos 0~49): {rms(pe[:50]):.4f}  — 임베딩(× √d_model)과 같은 자릿수")
print()

print("6) pe는 buffer — 학습되지 않지만 state_dict에는 저장된다")
print("   parameters() 개수:", len(list(pe_module.parameters())))
print("   buffers()        :", [name for name, _ in pe_module.named_buffers()])
print("   state_dict()     :", list(pe_module.state_dict()))
