import torch

from transformer import LayerNorm, SublayerConnection

torch.manual_seed(0)

print("1) LayerNorm — 토큰마다 마지막 축을 평균 0, 표준편차 1로")
x = torch.tensor([[1.0, 2.0, 3.0, 4.0]])
ln = LayerNorm(4)
print("   x                     :", " ".join(f"{v:.4f}" for v in x[0].tolist()))
print(f"   평균 {x.mean():.4f}, 표준편차 x.std() {x.std():.4f} (n-1로 나눔)"
      f", x.std(unbiased=False) {x.std(unbiased=False):.4f} (n으로 나눔)")
print("   LayerNorm(4)(x)       :", " ".join(f"{v:.4f}" for v in ln(x)[0].tolist()))
print("   nn.LayerNorm(4)(x)    :", " ".join(f"{v:.4f}" for v in torch.nn.LayerNorm(4)(x)[0].tolist()))
print("   → 두 결과의 비 =", f"{(ln(x) / torch.nn.LayerNorm(4)(x))[0, 0]:.4f} = √(3/4)")
print()

print("2) a_2, b_2 — 처음에는 1과 0이라 정규화 결과 그대로")
print("   a_2:", ln.a_2.tolist(), "  b_2:", ln.b_2.tolist())
with torch.no_grad():
    ln.a_2.fill_(2.0)
    ln.b_2.fill_(0.5)
print("   a_2=2, b_2=0.5이면:", " ".join(f"{v:.4f}" for v in ln(x)[0].tolist()))
print()

print("3) eps — 표준편차에 더한다. 값이 거의 같은 입력에서만 차이가 보인다")
flat = torch.tensor([[1.0, 1.001, 1.002, 1.003]])
for eps in (1e-6, 1e-3):
    ours = LayerNorm(4, eps=eps)(flat)[0]
    inside = (flat - flat.mean()) / (flat.var() + eps).sqrt()
    print(f"   eps={eps:g}, 마지막 성분: 표준편차에 더하기 {ours[-1]:.4f}   제곱근 안에 더하기 {inside[0, -1]:.4f}")
print()

print("4) SublayerConnection — x + dropout(sublayer(norm(x)))")
sub = SublayerConnection(4, dropout=0.1)
sub.eval()
h = torch.randn(2, 3, 4)
zero = sub(h, lambda y: torch.zeros_like(y))
print("   sublayer가 0을 돌려주면 출력 == 입력:", torch.equal(zero, h))
double = sub(h, lambda y: 2 * y)
print("   sublayer = 2·y이면 출력 - 입력 == 2·norm(x):", torch.allclose(double - h, 2 * sub.norm(h)))
print("   출력 모양:", tuple(double.shape), " 입력과 같다")
print()

print("5) post-norm(원 논문의 norm(x + sublayer(x)))과 비교")
post = sub.norm(h + torch.zeros_like(h))
print("   sublayer가 0일 때 post-norm 출력 == 입력:", torch.equal(post, h))
print(f"   post-norm 출력의 토큰마다 평균 {post.mean(-1).abs().max():.4f}, 입력의 토큰마다 평균 최대 {h.mean(-1).abs().max():.4f}")
