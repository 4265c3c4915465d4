"""Back the warm worker's large anonymous memory with transparent huge pages, so each fork and exit costs less.

Every submission costs two forks and two exits of the worker's torch process (its runner, then the runner's child).
Both copy or tear down one page-table entry per 4 KiB page of the ~150 MB of anonymous memory torch and the probe
leave (the malloc heap, the CPU allocator): about 2 ms each. Collapsed into 2 MiB pages (`MADV_COLLAPSE`, Linux 6.1
and later), the same memory is one entry per 2 MiB, and a fork and an exit cost about 1 ms less each (measured on
chapter 01: fork + exit 4.3 → 2.5 ms). Writing to a shared huge page in a child splits it and copies only the 4 KiB
page written, as before (the child's private memory stays the same).

Collapsing ~120 MB takes 75 ms here (up to 0.4 s when the kernel must first compact memory), once per warm process,
before it forks. Where the kernel has no transparent huge pages or no `MADV_COLLAPSE` (older kernels, macOS), nothing
happens.
"""
import ctypes

MADV_COLLAPSE = 25
HUGE_PAGE = 2 << 20
SMALLEST_REGION = 4 << 20  # below this, a region holds at most one aligned huge page: not worth a call


def _regions():
    """(start, end) of every writable private anonymous mapping (and the heap) of at least SMALLEST_REGION bytes."""
    regions = []
    with open("/proc/self/maps", encoding="ascii", errors="replace") as maps:
        for line in maps:
            fields = line.split()
            start, end = (int(value, 16) for value in fields[0].split("-"))
            anonymous = len(fields) < 6 or fields[5] == "[heap]"
            if fields[1].startswith("rw") and fields[1].endswith("p") and anonymous and end - start >= SMALLEST_REGION:
                regions.append((start, end))
    return regions


def collapse():
    """Ask the kernel to back this process's large anonymous regions with huge pages now; return the bytes it collapsed
    (0 where it cannot: no /proc, no libc, no transparent huge pages)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)  # the interpreter's own symbols, libc's among them
        madvise = libc.madvise
        madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        regions = _regions()
    except (OSError, AttributeError, ValueError):
        return 0
    asked = 0
    for start, end in regions:
        start, end = -(-start // HUGE_PAGE) * HUGE_PAGE, end // HUGE_PAGE * HUGE_PAGE
        if end <= start:
            continue
        # MADV_COLLAPSE alone (not MADV_HUGEPAGE): the regions keep the system's setting, so what a child allocates
        # later in them gets huge pages only where the system already gives them.
        if madvise(start, end - start, MADV_COLLAPSE) == 0:
            asked += end - start
    return asked
