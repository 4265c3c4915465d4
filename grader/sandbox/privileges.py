"""Give up root inside the sandbox, so the kernel enforces per-user limits such as RLIMIT_NPROC."""
import os

UID_BASE = 1 << 31  # far above any account; nothing on the host belongs to these ids
_PID_BITS = 22  # pid_max is at most 2**22


def sandbox_uid(serial):
    """An unprivileged uid for the `serial`-th worker of this process, distinct from every other live worker's."""
    # RLIMIT_NPROC counts processes per uid across the whole host, so workers sharing a uid would
    # share one budget: a fork bomb in one sandbox could make fork() fail in another.
    return UID_BASE + ((os.getpid() % (1 << _PID_BITS)) << 8) + serial % 256


def drop_to(uid, gid):
    """Switch all user and group ids to (uid, gid) for good; fail loudly if root would remain."""
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
    if 0 in os.getresuid() or 0 in os.getresgid():
        raise RuntimeError("could not give up root")
    try:
        os.setuid(0)
    except PermissionError:
        return
    raise RuntimeError("root could be regained after dropping privileges")
