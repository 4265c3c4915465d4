"""Keep the memory a submission frees for its next tensors, instead of handing it back to the kernel at once.

glibc's malloc gives large blocks their own `mmap` (from 128 KiB, a threshold that grows with what is freed) and
returns the top of the heap to the kernel once 128 KiB or more of it is free. A submission of the model chapters
allocates and frees tensors of a few hundred KiB to a few MiB thousands of times: each time, fresh pages from the
kernel, each page a fault that zeroes it (about 3 µs here). Measured in a forked child of the warm worker, chapter
09's solution over every case: 14,000–17,000 faults and 216–248 ms by default, 5,800 faults and 192–215 ms with the
settings below; chapter 12 239 → 233 ms, chapter 14 212 → 209 ms; chapters 01–08 the same within noise.

Set once in the warm worker before it forks (`mallopt`), so every runner and child inherits them. Peak memory is
what the submission holds at once either way: the memory limits (`RLIMIT_AS`, the control group, the runner's
meter) see the same peak; memory freed and kept is reused by the same process, and all of it goes when the child
exits. Where the C library is not glibc (musl, macOS), nothing happens.
"""
import ctypes

M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 32 << 20  # blocks below this come from the heap, which reuses freed memory (glibc's dynamic maximum)
TRIM_THRESHOLD = 128 << 20  # free memory at the heap's top kept up to this much


def keep_freed_memory():
    """Set malloc's thresholds in this process (and the processes it forks); return whether the C library took them."""
    try:
        mallopt = ctypes.CDLL(None).mallopt  # glibc's; an AttributeError elsewhere
        mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    except (OSError, AttributeError):
        return False
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))
