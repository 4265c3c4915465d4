import torch

from transformer import LabelSmoothing, SimpleLossCompute, data_gen, greedy_decode, make_model, rate, run_epoch

torch.manual_seed(0)
torch.set_num_threads(1)  # 같은 시드면 같은 결과: 스레드 수에 따라 합의 순서가 달라지지 않게

print("1) 12장의 run_epoch로 복사 과제 학습 (make_model(11, 11, N=1, d_model=32, d_ff=64, h=4), 200 step)")
V = 11
criterion = LabelSmoothing(size=V, padding_idx=0, smoothing=0.0)
model = make_model(V, V, N=1, d_model=32, d_ff=64, h=4)
optimizer = torch.optim.Adam(model.parameters(), lr=1.0, betas=(0.9, 0.98), eps=1e-9)
scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda=lambda step: rate(step, 32, factor=1.0, warmup=400))
for epoch in range(10):
    model.train()
    run_epoch(data_gen(V, 80, 20), model, SimpleLossCompute(model.generator, criterion), optimizer, scheduler,
              mode="train")
model.eval()
with torch.no_grad():
    loss, _ = run_epoch(data_gen(V, 80, 5), model, SimpleLossCompute(model.generator, criterion), optimizer,
                        scheduler, mode="eval")
print(f"   학습 뒤 평가 손실: {float(loss):.2f}")
print()

print("2) greedy_decode — [1, 2, …, 10]을 복사시키기 (start_symbol=1, max_len=10)")
src = torch.LongTensor([[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]])
src_mask = torch.ones(1, 1, 10)
with torch.no_grad():
    for max_len in (1, 2, 3, 10):
        ys = greedy_decode(model, src, src_mask, max_len=max_len, start_symbol=1)
        print(f"   max_len={max_len:>2}: ys {tuple(ys.shape)}  {ys[0].tolist()}")
print("   src          :", src[0].tolist())
print("   ys의 자료형   :", ys.dtype)
print()

print("3) 무작위 source 100개의 복사 정확도 (시작 기호 뒤의 토큰 9개씩)")
generator = torch.Generator().manual_seed(13)
correct = 0
with torch.no_grad():
    for n in range(100):
        src = torch.randint(1, V, (1, 10), generator=generator)
        src[0, 0] = 1
        ys = greedy_decode(model, src, torch.ones(1, 1, 10), max_len=10, start_symbol=1)
        correct += int((ys[0, 1:] == src[0, 1:]).sum())
        if n < 3:
            print(f"   src {src[0].tolist()}\n   ys  {ys[0].tolist()}")
print(f"   맞힌 토큰 {correct} / 900 = {correct / 900:.2f}")
