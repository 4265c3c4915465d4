import torch

from transformer import LabelSmoothing, rate

torch.manual_seed(0)

print("1) rate — warmup 동안 커지고, 그 뒤로 1/√step에 비례해 줄어든다 (model_size=512, factor=1, warmup=4000)")
for step in (0, 1, 1000, 4000, 8000, 20000):
    print(f"   step {step:>5}: {rate(step, 512, 1.0, 4000):.6e}")
print("   step 0과 step 1이 같다:", rate(0, 512, 1.0, 4000) == rate(1, 512, 1.0, 4000))
peak = max(range(1, 20001), key=lambda step: rate(step, 512, 1.0, 4000))
print("   가장 큰 학습률의 step:", peak)
print(f"   rate(4000) / rate(1) = {rate(4000, 512, 1.0, 4000) / rate(1, 512, 1.0, 4000):.1f}"
      f", rate(4000) / rate(16000) = {rate(4000, 512, 1.0, 4000) / rate(16000, 512, 1.0, 4000):.1f}")
print()

print("2) LabelSmoothing(5, 0, 0.4) — target [2, 1, 0, 3, 3]의 목표 분포 true_dist")
crit = LabelSmoothing(5, 0, 0.4)
x = torch.randn(5, 5).log_softmax(-1)  # 모델이 낸 로그 확률이라고 생각한다
target = torch.tensor([2, 1, 0, 3, 3])
loss = crit(x, target)
print(f"   confidence = {crit.confidence:.1f}, 나머지 칸 = smoothing / (size - 2) = {0.4 / 3:.4f}")
for token, row in zip(target.tolist(), crit.true_dist):
    print(f"   target {token}:", " ".join(f"{v:.4f}" for v in row.tolist()), f"  합 {row.sum():.4f}")
print("   true_dist 모양:", tuple(crit.true_dist.shape), " x와 같다")
print()

print("3) loss — KLDivLoss(reduction=\"sum\")(x, true_dist): padding 행과 열은 더해지지 않는다")
print(f"   loss = {loss.item():.4f}")
kept = crit.true_dist > 0
by_hand = (crit.true_dist[kept] * (crit.true_dist[kept].log() - x[kept])).sum()
print(f"   Σ true_dist · (log true_dist - x) = {by_hand.item():.4f}")
print(f"   padding 행을 뺀 토큰 {int((target != 0).sum())}개의 평균 = {loss.item() / int((target != 0).sum()):.4f}")
