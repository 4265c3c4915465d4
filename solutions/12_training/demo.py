import torch

from transformer import Batch, LabelSmoothing, SimpleLossCompute, data_gen, make_model, rate, run_epoch

torch.manual_seed(0)
torch.set_num_threads(1)  # 같은 시드면 같은 손실: 스레드 수에 따라 합의 순서가 달라지지 않게

print("1) data_gen — 복사 과제의 batch")
batch = next(data_gen(11, 2, 1))
print("   src      :", batch.src[0].tolist())
print("   tgt      :", batch.tgt[0].tolist(), " (decoder 입력: 마지막 토큰 제외)")
print("   tgt_y    :", batch.tgt_y[0].tolist(), " (맞힐 답: 한 칸 민 것)")
print("   ntokens  :", int(batch.ntokens), "(= 2문장 × 9토큰, padding 0이 없으므로)")
print()

print("2) SimpleLossCompute — (합계 손실, 토큰당 손실)")
V = 11
criterion = LabelSmoothing(size=V, padding_idx=0, smoothing=0.0)
model = make_model(V, V, N=1, d_model=32, d_ff=64, h=4, dropout=0.0)
out = model(batch.src, batch.tgt, batch.src_mask, batch.tgt_mask)
total, per_token = SimpleLossCompute(model.generator, criterion)(out, batch.tgt_y, batch.ntokens)
print(f"   합계 {total.item():.4f} / 토큰 {int(batch.ntokens)}개 = 토큰당 {per_token.item():.4f}")
print("   합계는 그래프 없음:", not total.requires_grad, "  토큰당 손실은 backward 가능:", per_token.requires_grad)
print()

print("3) run_epoch — 복사 과제를 에포크마다 학습")
optimizer = torch.optim.Adam(model.parameters(), lr=0.5, betas=(0.9, 0.98), eps=1e-9)
scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda=lambda step: rate(step, 32, factor=1.0, warmup=20))
for epoch in range(10):
    model.train()
    run_epoch(data_gen(V, 30, 10), model, SimpleLossCompute(model.generator, criterion), optimizer, scheduler,
              mode="train")
    model.eval()
    with torch.no_grad():
        loss, _ = run_epoch(data_gen(V, 30, 3), model, SimpleLossCompute(model.generator, criterion), optimizer,
                            scheduler, mode="eval")
    print(f"   에포크 {epoch + 1}: 평가 손실 {float(loss):.2f}")
