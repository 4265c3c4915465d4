"""Run untrusted student code: warm, sandboxed workers (bubblewrap when available) under strict limits.

    with SandboxPool("grader.checks.ch01_probe", jobs=2, limits=Limits()) as pool:
        for run in pool.run((sid, source, case_names) for sid, source in submissions):
            ...  # run.status: ok | timeout | memory | output_limit | crashed | no_result

Process tree under bubblewrap as root: pool -> bwrap -> zygote (pid 1 of the pool's one sandbox,
imports torch once) -> one forked worker per slot (its own network, IPC and mount namespaces with a
private scratch dir (/scratch = TMPDIR) and /dev/shm; root with only CAP_SETUID/CAP_SETGID/CAP_KILL) -> one throwaway runner per
job, under the worker's own unprivileged uid (so kill(-1) or a fork bomb reaches that worker's jobs
only) -> the child that runs `grader.checks.execute.execute` on the student's source. Without root,
each worker has a bubblewrap sandbox of its own (pid 1 of it, as its own unprivileged uid); without
bubblewrap, each worker is a plain process. Only plain JSON crosses process boundaries.

Protected: the repository, solutions, reference data and judges are not mounted; nothing on the host
is writable; no network; the student's processes (including setsid'd and forked ones) are all
killed before the result is reported; wall, CPU, memory, process, file-size and output limits; the
worker never holds a submission's data, so a child cannot find another student's code or outputs in
its memory; patches to json/torch die with the child. Not protected: everything inside the child
(student code shares the interpreter with the probe and `execute`, so it can shape its own result,
e.g. write any traces it likes, but it never sees reference outputs); the probe's hidden case
definitions are readable; kernel attack surface (no seccomp filter). Without bubblewrap (fallback)
only the limits and the process clean-up apply, plus, with `run_as` (as root), the unprivileged uid
the workers switch to and an empty network namespace where `unshare --net` works (the Gradescope autograder).

Where things are: `pool.py` schedules jobs over `handles.py`'s worker processes; `modes.py` chooses the launcher, one
module per mode (`launch_shared.py`, `launch_userns.py`, `launch_contained.py`, `launch_plain.py`), each stating what
the student's code can and cannot reach; inside, `worker.py` forks `job_runner.py` per job, which forks `child.py`.
"""
import importlib

# The public face, imported when first asked for: the worker inside the sandbox imports this package too, and the
# pool's side of it (bubblewrap, launchers, staging) cost each batch's start 40-50 ms there for nothing.
_PUBLIC = {"Limits": ".limits", "RunResult": ".status", "SandboxError": ".launch", "SandboxPool": ".pool",
           "bubblewrap_available": ".bwrap", "status": None}

__all__ = sorted(_PUBLIC)


def __getattr__(name):
    if name not in _PUBLIC:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = importlib.import_module(_PUBLIC[name] or f".{name}", __name__)
    value = module if _PUBLIC[name] is None else getattr(module, name)
    globals()[name] = value
    return value
