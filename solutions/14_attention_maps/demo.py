import contextlib
import io
from pathlib import Path

import matplotlib
import torch
from matplotlib import font_manager

from transformer import (LabelSmoothing, SimpleLossCompute, data_gen, fill_attention, get_decoder_self,
                         get_decoder_src, get_encoder, greedy_decode, make_model, rate, run_epoch, visualize_layer)

torch.set_default_dtype(torch.float64)  # float64로 학습: 어느 CPU에서나 같은 숫자가 나오도록
torch.set_num_threads(1)
torch.manual_seed(0)

print("1) 복사 과제 학습: make_model(11, 11, N=1, d_model=32, d_ff=64, h=4), batch 30개씩 50 step × 4 에포크")
V = 11
model = make_model(V, V, N=1, d_model=32, d_ff=64, h=4)
criterion = LabelSmoothing(size=V, padding_idx=0, smoothing=0.0)
optimizer = torch.optim.Adam(model.parameters(), lr=1.0, betas=(0.9, 0.98), eps=1e-9)
scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda=lambda step: rate(step, 32, factor=1.0, warmup=60))
model.train()
for epoch in range(4):
    with contextlib.redirect_stdout(io.StringIO()):  # 학습 단계 줄은 감춘다 (초당 토큰은 컴퓨터마다 다르다)
        loss, _ = run_epoch(data_gen(V, 30, 50), model, SimpleLossCompute(model.generator, criterion), optimizer,
                            scheduler)
    print(f"   에포크 {epoch + 1}: 학습 손실 {float(loss):.3f}")
print()

print("2) train 모드로 디코딩하면 (흔한 실수): dropout이 가중치를 바꾼다")
src = torch.tensor([[1, 7, 3, 9, 2, 5, 10, 4, 8, 6]])
src_mask = torch.ones(1, 1, src.size(1), dtype=torch.bool)
greedy_decode(model, src, src_mask, max_len=10, start_symbol=1)  # 학습이 끝난 모델은 train 모드 그대로다
noisy = get_decoder_src(model, 0).detach()
print(f"   source-attention에서 0이 된 칸 {int((noisy == 0).sum())}개, 가장 큰 값 {float(noisy.max()):.3f}"
      " (1/(1-0.1)배로 커진 칸이 있다)")
print()

print("3) fill_attention: model.eval() 다음 greedy 디코딩, 가중치는 마지막 디코딩 단계의 것")
ys = fill_attention(model, src, src_mask, max_len=10, start_symbol=1)
print("   source  :", src[0].tolist())
print("   디코딩  :", ys[0].tolist(), " 복사 성공:", torch.equal(ys, src))
for name, getter in (("get_encoder", get_encoder), ("get_decoder_self", get_decoder_self),
                     ("get_decoder_src", get_decoder_src)):
    print(f"   {name + '(model, 0)':26s}: {tuple(getter(model, 0).shape)}  (batch, head, query, key)")
print()

print("4) 그림을 숫자로: decoder source-attention, i행(target 위치 i)의 가중치")
attn = get_decoder_src(model, 0)[0]
rows = torch.arange(attn.size(1))
for head in range(attn.size(0)):
    shifted, diagonal = attn[head, rows, rows + 1].mean(), attn[head, rows, rows].mean()
    best = int((attn[head].argmax(-1) == rows + 1).sum())
    print(f"   head {head}: i+1열 평균 {shifted:.2f}, i열 평균 {diagonal:.2f}, 가장 큰 칸이 i+1열인 행 {best}/{len(rows)}")
upper = get_decoder_self(model, 0)[0].triu(diagonal=1).sum()
print(f"   decoder self-attention: 대각선 위(미래 위치) 칸의 합 {float(upper):.4f}, 그래서 아래 삼각형")
print()

print("5) 그림 파일 (PNG)")
names = {font.name for font in font_manager.fontManager.ttflist}
if "NanumGothic" not in names:  # 글꼴 캐시를 만든 뒤에 설치했으면 파일을 직접 찾아 넣는다
    for path in font_manager.findSystemFonts():
        if Path(path).name == "NanumGothic.ttf":
            font_manager.fontManager.addfont(path)
            names.add("NanumGothic")
if "NanumGothic" in names:
    matplotlib.rcParams["font.family"] = "NanumGothic"
else:
    print("   참고: 한글 글꼴 NanumGothic을 찾지 못했습니다. 그림의 한글이 네모로 보이면 fonts-nanum을 설치하세요.")
folder = Path("attention_pictures")
folder.mkdir(exist_ok=True)
src_tokens, tgt_tokens = [str(t) for t in src[0].tolist()], [str(t) for t in ys[0, :-1].tolist()]
for file, getter, rows_, cols, title in (
    ("encoder_self.png", get_encoder, src_tokens, src_tokens, "인코더 self-attention"),
    ("decoder_self.png", get_decoder_self, tgt_tokens, tgt_tokens, "디코더 self-attention"),
    ("decoder_src.png", get_decoder_src, tgt_tokens, src_tokens, "디코더 source-attention"),
):
    fig = visualize_layer(model, 0, getter, 10, rows_, cols)
    fig.suptitle(f"{title} (0번 층): 행 = query 토큰, 열 = key 토큰")
    fig.savefig(folder / file, dpi=80, bbox_inches="tight")
    print(f"   {folder / file}: head {len(fig.axes)}개")
