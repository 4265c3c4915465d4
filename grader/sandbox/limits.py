"""Resource limits applied to every submission's sandboxed child process."""
from dataclasses import dataclass

KIB = 1024
MIB = 1024 * KIB
GIB = 1024 * MIB
CPU_CLOCK_BACKSTOP = 3  # timeouts count CPU time; the wall time may reach this many times wall_seconds


@dataclass(frozen=True)
class Limits:
    """Per-submission limits; every field is checked when the pool starts.

    wall_seconds: real time from fork to the end of the child; after it the child's whole process
        group (and, under bubblewrap, every process of the sandbox but the worker) is SIGKILLed.
    cpu_seconds: RLIMIT_CPU of the child (soft; the hard limit is `child.HARD_CPU_MARGIN` seconds more).
    memory_bytes: RLIMIT_AS of the child. The child is forked from a worker that has imported
        torch, which already maps ~0.65 GB of address space (measured: VmSize 639 MB with
        torch 2.13 CPU and one thread); a correct chapter-01 submission runs with 1 GiB, so 2 GiB
        leaves room for honest work and still stops a memory bomb long before the host suffers.
    max_processes: RLIMIT_NPROC of the child (threads count too). The kernel ignores it for uid 0,
        so under bubblewrap a root pool gives each worker its own unprivileged uid, which it
        switches to before any student code runs; the count then covers the worker's own two or
        three tasks plus the student's, and one sandbox's fork bomb cannot starve another's.
    file_size_bytes: RLIMIT_FSIZE (largest file the child may write), and also the most the child
        may write to stdout+stderr together before it is killed with status "output_limit".
    output_bytes: how much of the end of stdout and of stderr is kept and returned.
    result_bytes: largest JSON result the child may send back; more is "output_limit".
    open_files: RLIMIT_NOFILE of the child.
    tmp_bytes: size of the sandbox's private scratch dir /scratch = TMPDIR (bubblewrap only; a tmpfs lives in RAM).
    threads: torch's intra-op threads in the worker and the child (torch.set_num_threads), and
        OMP_NUM_THREADS / MKL_NUM_THREADS / OPENBLAS_NUM_THREADS in their environment.
    """

    wall_seconds: float = 20.0
    cpu_seconds: int = 20
    memory_bytes: int = 2 * GIB
    max_processes: int = 64
    file_size_bytes: int = 16 * MIB
    output_bytes: int = 64 * KIB
    result_bytes: int = 8 * MIB
    open_files: int = 256
    tmp_bytes: int = 64 * MIB
    threads: int = 1

    def __post_init__(self):
        """Refuse limits that are not positive numbers."""
        for name, value in vars(self).items():
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                raise ValueError(f"Limits.{name} must be a positive number, not {value!r}")

    def to_json(self):
        """The limits as a plain dict (what crosses into the worker)."""
        return dict(vars(self))

    @classmethod
    def from_json(cls, data):
        """Rebuild limits from `to_json` output."""
        return cls(**data)


def for_budget(budget, timeout=None):
    """The limits of a chapter's `contract.Budget`; an instructor's `timeout` (seconds) replaces its wall and CPU
    times, as `--timeout` always did (wall = timeout, CPU = its whole seconds, at least 1); threads stay the chapter's."""
    if timeout is None:
        return Limits(wall_seconds=float(budget.wall_seconds), cpu_seconds=int(budget.cpu_seconds),
                      threads=int(budget.threads))
    return Limits(wall_seconds=timeout, cpu_seconds=max(1, int(timeout)), threads=int(budget.threads))
