import torch

from transformer import PositionwiseFeedForward

torch.manual_seed(0)

d_model, d_ff = 8, 32
ff = PositionwiseFeedForward(d_model, d_ff)
ff.eval()  # 값을 비교할 때는 dropout을 끈다

print("1) 모양 — 토큰마다 d_model → d_ff → d_model")
x = torch.randn(1, 5, d_model)
print("   입력 x           :", tuple(x.shape), " (batch, 토큰 수, d_model)")
print("   w_1 뒤 (넓힌 값) :", tuple(ff.w_1(x).shape), " (batch, 토큰 수, d_ff)")
print("   출력             :", tuple(ff(x).shape), " (batch, 토큰 수, d_model)")
count = sum(p.numel() for p in ff.parameters())
print(f"   parameter 수: {count} = 2 × {d_model} × {d_ff} + {d_ff} + {d_model}")
print()

print("2) 위치 j만 바꾸면 출력도 j만 바뀐다")
j = 2
changed = x.clone()
changed[0, j] = torch.randn(d_model)
difference = (ff(changed) - ff(x)).abs().amax(-1)[0]
print(f"   {j}번 위치의 입력만 바꿨을 때, 위치마다 출력이 바뀐 크기(최댓값):")
print("  ", " ".join(f"{v:.4f}" for v in difference.tolist()))
print("   출력이 바뀐 위치:", [i for i, v in enumerate(difference.tolist()) if v > 0])
print()

print("3) ReLU — 넓힌 값 가운데 음수는 0이 된다")
wide = ff.w_1(x)
print(f"   w_1 뒤 음수 비율: {(wide < 0).float().mean():.3f}   ReLU 뒤 0 비율: {(wide.relu() == 0).float().mean():.3f}")
print()

print("4) dropout은 ReLU 뒤, w_2 앞 — train 모드에서만 켜진다")
ff.train()
torch.manual_seed(1)
first = ff(x)
torch.manual_seed(1)
second = ff(x)
ff.eval()
print("   train 모드, 같은 시드로 두 번: 같은 결과인가", torch.equal(first, second))
print("   train 모드 결과 == eval 결과:", torch.allclose(first, ff(x)))
