"""Chapter-check tests run many tiny tensor operations: one torch thread is faster and steadier for them."""
import pytest


@pytest.fixture(autouse=True, scope="module")
def _one_torch_thread():
    """Run this directory's tests with one intra-op thread (OpenMP spinning on a busy 2-CPU box costs 10×)."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
