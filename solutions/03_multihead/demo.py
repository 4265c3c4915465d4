import torch

from transformer import MultiHeadedAttention, clones

torch.manual_seed(0)

h, d_model = 4, 32
mha = MultiHeadedAttention(h, d_model)
mha.eval()  # 모양과 값만 본다: dropout은 끈다

print("1) 모양 따라가기 — h=4, d_model=32, d_k = d_model // h =", mha.d_k)
x = torch.randn(2, 6, d_model)
print("   입력 x                      :", tuple(x.shape), " (batch, 토큰 수, d_model)")
nbatches = x.size(0)
per_head = mha.linears[0](x).view(nbatches, -1, h, mha.d_k).transpose(1, 2)
print("   투영 → view → transpose(1, 2):", tuple(per_head.shape), " (batch, head, 토큰 수, d_k)")
out = mha(x, x, x)
print("   mha.attn (head마다 가중치)   :", tuple(mha.attn.shape), " (batch, head, query 토큰, key 토큰)")
print("   출력                         :", tuple(out.shape), " (batch, 토큰 수, d_model)")
print("   head마다 행 합:", [f"{v:.3f}" for v in mha.attn[0, :, 0].sum(-1).tolist()])
print()

print("2) head마다 다른 곳을 본다 — 0번 문장, 0번 토큰의 가중치")
for head in range(h):
    print(f"   head {head}:", " ".join(f"{v:.3f}" for v in mha.attn[0, head, 0].tolist()))
print()

print("3) parameter 수 = 4 × (d_model² + d_model)")
count = sum(p.numel() for p in mha.parameters())
print(f"   parameters() 합: {count}  공식: 4 × ({d_model * d_model} + {d_model}) = {4 * (d_model * d_model + d_model)}")
for name, p in mha.named_parameters():
    print(f"   {name:18s} {tuple(p.shape)}")
print()

print("4) clones는 깊은 복사 — 처음 값은 같지만 서로 다른 parameter")
layers = clones(torch.nn.Linear(3, 2), 4)
print("   nn.ModuleList인가:", isinstance(layers, torch.nn.ModuleList), " 길이:", len(layers))
print("   0번과 1번의 처음 weight가 같은가:", torch.equal(layers[0].weight, layers[1].weight))
print("   0번과 1번이 같은 parameter 객체인가:", layers[0].weight is layers[1].weight)
shared = torch.nn.ModuleList([torch.nn.Linear(3, 2)] * 4)
print("   [nn.Linear(3, 2)] * 4의 parameter 수:", sum(p.numel() for p in shared.parameters()),
      " (깊은 복사 4개:", sum(p.numel() for p in layers.parameters()), ")")
