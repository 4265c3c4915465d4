"""The Korean sentence for an exception the student's code raised, shared by every chapter's judge."""
from .loading import place

# What torch says when code asks for a GPU that is not there (the grader's CPU), or mixes a GPU tensor with the
# CPU tensors the checks pass in (a student's Colab GPU runtime).
CUDA_WORDS = ("not compiled with CUDA", "NVIDIA driver", "No CUDA GPUs", "CUDA error", "CUDA driver",
              "on the same device", "cuda:0", "device type cuda", "CUDA_VISIBLE_DEVICES")
CUDA = ("GPU(CUDA)를 쓰는 코드입니다{detail}. 채점은 GPU가 없는 CPU에서 실행되므로 `.cuda()`나 `device=\"cuda\"`는 "
        "오류가 나고, GPU가 있는 런타임에서도 CPU로 들어온 입력과 섞이면 오류가 납니다. 장치를 직접 정하지 말고 입력을 "
        "따라가게 쓰세요: 새 텐서는 `torch.zeros(..., device=x.device)`나 `torch.ones_like(x)`로 만들고, 옮길 때는 "
        "`.to(x.device)`를 쓰세요 (x는 함수가 받은 입력 텐서).")


# What torch says when one operation gets tensors of two dtypes (float32 made inside the code meeting float64 inputs).
DTYPE_WORDS = ("same dtype", "but found Float", "but found Double", "dtypes match", "mixed dtype", "to be equal to src.dtype",
               "must have the same dtype")
DTYPE = ("한 연산에 dtype이 다른 텐서가 섞여 오류가 났습니다 ({detail}). 입력이 float64일 때 `.float()`나 `torch.tensor(…)`, "
         "`torch.zeros(…)`로 새로 만든 텐서는 float32입니다. dtype을 바꾸지 말고, 새 텐서는 입력을 따라 만드세요 "
         "(`dtype=x.dtype`, `torch.zeros_like(x)`, `x.new_zeros(…)`).")


def cuda_problem(error):
    """The Korean explanation when the exception `error` (a described exception) came from asking for a GPU, else None."""
    message = f"{error.get('type', '')}: {error.get('message', '')}"
    if not any(word in message for word in CUDA_WORDS):
        return None
    where = place(error.get("where"))
    return CUDA.format(detail=f" ({where})" if where else "")


def described(error):
    """`위에서 3번째 코드 셀의 2번째 줄: `…` (ZeroDivisionError: division by zero)`: where and what (a described
    exception of the student's own code that is no hidden case's: a cell that raised while the notebook ran)."""
    detail = f"{error.get('type', '')}: {error.get('message', '')}".rstrip(": ")
    where = place(error.get("where"))
    return f"{where} ({detail})" if where else detail


def runtime_error(evidence, case, error):
    """`실행 중 오류가 났습니다 (NameError: …, 코드 셀 3의 5번째 줄: `…`).`, or for tensors of two dtypes met in one
    operation `DTYPE`, which says why.

    The exception's message is shown for a visible case, and for a hidden case only when a visible case raised
    the very same message (so one crash reads the same on every check, and nothing hidden is revealed).
    """
    gpu = cuda_problem(error)
    if gpu:
        return gpu
    detail = error["type"]
    if error.get("message") and (_visible(evidence, case) or _seen_on_visible_case(evidence, error)):
        detail += f": {error['message']}"
    where = place(error.get("where"))
    detail += f", {where}" if where else ""
    if any(word in error.get("message", "") for word in DTYPE_WORDS):
        return DTYPE.format(detail=detail)
    return f"실행 중 오류가 났습니다 ({detail})."


def _visible(evidence, case):
    return evidence.probe.CASES[case].visible


def _seen_on_visible_case(evidence, error):
    """Whether a visible case the check may read (its `cases` or `reads`) raised the same exception."""
    for case in evidence.probe.case_names(visible_only=True):
        if not evidence.may_read(case):
            continue
        seen = evidence.trace(case).get("error") or {}
        if (seen.get("type"), seen.get("message")) == (error["type"], error["message"]):
            return True
    return False
