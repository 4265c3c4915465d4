"""Judge-side helpers: rebuild tensors from plain data and compare them with tolerances."""
import torch

from . import messages
from .framework import Finding

TOLERANCES = {"float64": (1e-7, 1e-9)}  # dtype -> (rtol, atol)
DEFAULT_TOLERANCE = (1e-4, 1e-5)  # fits float32 and float16-free variants (einsum, @, .mT, F.softmax)


def decode(description):
    """A float64 tensor from an encoded tensor description (NaN/inf restored)."""
    data = description.get("data")
    if data is None:
        raise Finding(messages.TOO_LARGE)
    values = [float(x) if not isinstance(x, str) else float(x) for x in data]
    return torch.tensor(values, dtype=torch.float64).reshape(description["shape"])


def tolerance(dtype):
    """(rtol, atol) for values computed in `dtype`."""
    return TOLERANCES.get(dtype, DEFAULT_TOLERANCE)


def close(actual, expected, dtype="float32", equal_nan=False):
    """True when two tensors agree within the tolerance of `dtype` (same shape; NaN equal only if `equal_nan`)."""
    if actual.shape != expected.shape:
        return False
    rtol, atol = tolerance(dtype)
    return bool(torch.allclose(actual, expected.to(actual.dtype), rtol=rtol, atol=atol, equal_nan=equal_nan))


def shape_text(shape):
    return "(" + ", ".join(str(n) for n in shape) + ")"
