import torch

from transformer import Batch

torch.manual_seed(0)


def row(values):
    """A row of tokens or mask entries as numbers separated by spaces (True/False as 1/0)."""
    return " ".join(str(int(v)) for v in values.tolist())


def grid(mask, indent="   "):
    """A (length, length) mask as rows of 1 (may see) and 0 (hidden)."""
    return "\n".join(f"{indent}{i}행: {row(line)}" for i, line in enumerate(mask))


print("1) 한 칸 밀기 — src = tgt = [[1, 5, 6, 0, 0]], pad=0")
tokens = torch.tensor([[1, 5, 6, 0, 0]])
batch = Batch(tokens, tokens, pad=0)
print("   tgt (디코더 입력)   :", row(batch.tgt[0]))
print("   tgt_y (맞힐 정답)   :", row(batch.tgt_y[0]))
print("   ntokens             :", int(batch.ntokens), " (tgt_y에서 pad가 아닌 토큰)")
print()

print("2) src_mask — pad인 열만 가린다")
print("   src_mask 모양:", tuple(batch.src_mask.shape), " dtype:", batch.src_mask.dtype)
print("   src_mask[0]  :", row(batch.src_mask[0, 0]))
print()

print("3) tgt_mask = padding mask & subsequent_mask")
print("   tgt_mask 모양:", tuple(batch.tgt_mask.shape), " dtype:", batch.tgt_mask.dtype)
print(grid(batch.tgt_mask[0]))
print("   3번 토큰(pad)은 어느 행에서도 보이지 않는다:", not batch.tgt_mask[0, :, 3].any().item())
print()

print("4) make_std_mask는 인스턴스 없이 부른다")
two = torch.tensor([[0, 4, 1, 2], [0, 8, 3, 1]])
both = Batch.make_std_mask(two, 2)
print("   Batch.make_std_mask(tgt, 2) 모양:", tuple(both.shape))
print(grid(both[0]))
print()

print("5) tgt 없이 — 번역할 때")
alone = Batch(torch.tensor([[0, 7, 1, 2]]))
print("   Batch(src)의 src_mask[0]:", row(alone.src_mask[0, 0]), "  (pad 기본값 2)")
print("   tgt 속성이 있는가:", hasattr(alone, "tgt"))
