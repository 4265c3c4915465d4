"""A student on a GPU runtime: `.cuda()` / `device="cuda"` get a Korean explanation (grading runs on the CPU), and
device-neutral code that follows its inputs' device (`.to(x.device)`, `device=x.device`) gets full marks on the CPU."""
import pytest

from grader import paths
from grader.checks import in_process

pytestmark = [pytest.mark.checks, pytest.mark.ch01]

SOLUTION = (paths.SOLUTIONS / "01_attention" / "transformer.py").read_text(encoding="utf-8")
RETURN = "    return torch.matmul(p_attn, value), p_attn\n"


def graded(tmp_path, source):
    path = tmp_path / "transformer.py"
    path.write_text(source, encoding="utf-8")
    return {r.name: r for r in in_process.run("01_attention", str(path))}


def test_cuda_in_a_function_is_explained_in_korean(tmp_path):
    """`.cuda()` on the output: every failed check says grading runs on the CPU and how to follow the input's device."""
    found = graded(tmp_path, SOLUTION.replace(RETURN, "    return torch.matmul(p_attn, value).cuda(), p_attn\n"))
    failed = [r for r in found.values() if not r.passed]
    assert failed
    for result in failed:
        assert "채점은 GPU가 없는 CPU에서" in result.message and "device=x.device" in result.message, result.message
        assert "transformer.py" in result.message  # where: the student's line


def test_cuda_at_import_is_explained_in_korean(tmp_path):
    """`device="cuda"` at the top of the file stops the import: the whole submission gets the same explanation."""
    source = SOLUTION.replace("import torch\n", 'import torch\n\nSCALE = torch.ones(1, device="cuda")\n', 1)
    found = graded(tmp_path, source)
    assert all(r.score == 0 and "채점은 GPU가 없는 CPU에서" in r.message for r in found.values())


def test_device_neutral_code_gets_full_marks(tmp_path):
    """Code that creates and moves tensors on its input's device (as the message advises) is the solution's equal."""
    neutral = ("    p_attn = p_attn.to(query.device) * torch.ones(1, device=query.device)\n"
               "    return torch.matmul(p_attn, value.to(query.device)), p_attn\n")
    found = graded(tmp_path, SOLUTION.replace(RETURN, neutral))
    assert all(r.passed for r in found.values()), [r.message for r in found.values() if not r.passed]
