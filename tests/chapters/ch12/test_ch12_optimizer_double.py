"""Chapter 12's probe trains with its own Adam and LambdaLR (`AdamDouble`, `LambdaLRDouble`), not torch.optim's,
whose first step imports torch._dynamo (about 1 s) in every self-check: the doubles must do what torch's do, number
for number, and the self-check must then not import torch._dynamo at all."""
import re

import pytest
import torch

from grader.checks import ch12_probe
from tests.checks.chapters import ChapterUnderTest
from tests.checks.support import PYTHON, copy_folder, finish, start

pytestmark = [pytest.mark.checks, pytest.mark.ch12]


def rate(step, model_size=16, factor=1.0, warmup=4):
    """The chapter's learning-rate schedule (its solution's formula), as the probe's cases use it."""
    step = max(step, 1)
    return factor * (model_size ** (-0.5) * min(step ** (-0.5), step * warmup ** (-1.5)))


def train(make_optimizer, make_scheduler, set_to_none):
    """Seven steps of a small seeded model (one parameter never gets a gradient); its parameters, lrs and epoch."""
    torch.manual_seed(12)
    model = torch.nn.Sequential(torch.nn.Linear(6, 5), torch.nn.ReLU(), torch.nn.Linear(5, 3))
    unused = torch.nn.Parameter(torch.ones(2))
    optimizer = make_optimizer([*model.parameters(), unused], lr=1.0, betas=(0.9, 0.98), eps=1e-4)
    scheduler = make_scheduler(optimizer, lr_lambda=lambda step: rate(step))
    lrs = [optimizer.param_groups[0]["lr"]]
    for step in range(7):
        x = torch.randn(4, 6)
        model(x).pow(2).sum().backward()
        if step % 2 == 0:  # accumulate every other step, as accum_iter=2 does
            optimizer.step()
            optimizer.zero_grad(set_to_none=set_to_none)
        scheduler.step()
        lrs.append(scheduler.get_last_lr()[0])
    return [p.detach().clone() for p in model.parameters()] + [unused.detach().clone()], lrs, scheduler.last_epoch


@pytest.mark.parametrize("set_to_none", [True, False])
def test_doubles_train_exactly_as_torch_optim(set_to_none):
    """Adam + LambdaLR and the probe's doubles leave bit-identical parameters, learning rates and step counts."""
    theirs = train(torch.optim.Adam, torch.optim.lr_scheduler.LambdaLR, set_to_none)
    ours = train(ch12_probe.AdamDouble, ch12_probe.LambdaLRDouble, set_to_none)
    assert ours[1] == theirs[1] and ours[2] == theirs[2] == 7
    for mine, expected in zip(ours[0], theirs[0], strict=True):
        assert torch.equal(mine, expected)
    torch.manual_seed(12)
    assert not torch.equal(ours[0][0], torch.nn.Linear(6, 5).weight)  # training moved the weights
    assert torch.equal(ours[0][-1], torch.ones(2))  # and left the parameter without a gradient alone


def test_selfcheck_of_chapter_12_does_not_import_dynamo(tmp_path):
    """The solved chapter-12 folder self-checks to full marks without importing torch._dynamo (or sympy)."""
    chapter = ChapterUnderTest("12_training")
    folder = copy_folder(chapter.exercise_dir, tmp_path / "12_training")
    folder.joinpath("transformer.py").write_bytes(chapter.solution.read_bytes())
    status, out, err = finish(start([PYTHON, "-X", "importtime", "-m", "selfcheck"], cwd=folder))
    assert status == 0 and re.search(r"합계\s+(\d+)/\1\b", out), out + err[-2000:]
    imported = {line.rsplit("|", 1)[-1].strip() for line in err.splitlines() if line.startswith("import time:")}
    assert "selfcheck" in imported
    assert not {"torch._dynamo", "sympy"} & imported
