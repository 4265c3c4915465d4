"""Turn whatever a student's function returned into plain data (dicts, lists, floats).

This runs next to student code (in the sandbox, or in the self-check); it only describes values,
it never judges them. The judge rebuilds tensors from this description (`compare.decode`).
"""
import math

MAX_ELEMENTS = 200_000
MAX_DEPTH = 4


def encode(value, depth=0):
    """Describe `value` as JSON-safe plain data.

    A subclass (of a tensor, a tuple, a number) is read through its base class's own methods, never its overrides:
    a returned value's `tolist`, `__iter__` or `__float__` is the student's code and may lie, loop or never end."""
    import torch

    if isinstance(value, torch.Tensor):
        return _encode_tensor(value)
    if value is None:
        return {"kind": "none"}
    if isinstance(value, (tuple, list)) and depth < MAX_DEPTH:
        base = tuple if isinstance(value, tuple) else list  # a namedtuple is a tuple
        return {"kind": type(value).__name__ if type(value) in (tuple, list) else "tuple",
                "items": [encode(item, depth + 1) for item in base.__getitem__(value, slice(0, 16))],
                "length": base.__len__(value)}
    if type(value).__module__ == "numpy" and hasattr(value, "shape"):
        return {"kind": "ndarray", "shape": [int(n) for n in value.shape], "dtype": str(value.dtype)}
    if isinstance(value, (bool, int, float)):
        return {"kind": "number", "value": float.__float__(value) if isinstance(value, float) else int.__float__(value)}
    return {"kind": "other", "type": type(value).__name__}


def _encode_tensor(tensor):
    import torch

    if type(tensor) is not torch.Tensor:  # a subclass's methods (and __torch_function__) are not called from here on
        tensor = torch._C.TensorBase.as_subclass(tensor, torch.Tensor)
    detached = tensor.detach().cpu()  # a GPU runtime's tensor is described like a CPU one
    description = {
        "kind": "tensor",
        "dtype": str(detached.dtype).replace("torch.", ""),
        "shape": [int(n) for n in detached.shape],
        "requires_grad": bool(tensor.requires_grad),
        "has_grad_fn": tensor.grad_fn is not None,
    }
    if detached.numel() > MAX_ELEMENTS or detached.is_complex():
        description["data"] = None
        return description
    floating = detached.is_floating_point() or detached.dtype is torch.bool  # booleans are described as 0.0 and 1.0
    flat = detached.reshape(-1).to(torch.float64) if floating else detached.reshape(-1)
    values = flat.tolist()
    if floating and not bool(torch.isfinite(flat).all()):
        values = [_plain_number(x) for x in values]
    description["data"] = values
    return description


def _plain_number(x):
    """JSON has no NaN or infinity: spell them as strings."""
    if isinstance(x, bool):
        return float(x)
    if isinstance(x, float) and not math.isfinite(x):
        return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    return x


def portable_randn(shape, generator, dtype=None):
    """Normal samples that are the same on every CPU: drawn in float64, then cast.

    torch draws float32 normals of 16+ values with vectorised kernels that differ in the last bits between
    CPUs (AVX-512, AVX2, `ATEN_CPU_CAPABILITY=default`); its float64 draw is the same everywhere.
    """
    import torch

    return torch.randn(*shape, generator=generator, dtype=torch.float64).to(dtype or torch.float32)


def describe_exception(error):
    """The exception's type and first line, shortened: enough for a diagnosis, no traceback; `where`: the
    student's own line it happened on, when it did (see `loading.student_line`)."""
    from .loading import student_line

    message = str(error).strip().splitlines()[0] if str(error).strip() else ""
    if isinstance(error, SyntaxError):
        message = str(error.msg or "")
    described = {"type": type(error).__name__, "message": message[:300]}
    where = student_line(error)
    if where:
        described["where"] = where
    return described
