"""Find and kill process trees; the Linux process controls (prctl) the sandbox needs."""
import ctypes
import errno
import os
import signal
import time

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36
PR_SET_NO_NEW_PRIVS = 38

_libc = ctypes.CDLL(None, use_errno=True)


def _prctl(option, value):
    """Call prctl(2) with one argument, raising OSError on failure."""
    if _libc.prctl(option, ctypes.c_ulong(value), ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0)) != 0:
        error = ctypes.get_errno()
        raise OSError(error, os.strerror(error))


def set_subreaper():
    """Make orphaned descendants of this process become its children (instead of init's)."""
    _prctl(PR_SET_CHILD_SUBREAPER, 1)


def set_parent_death_signal(signum=signal.SIGKILL):
    """Have the kernel send `signum` to this process when its parent dies."""
    _prctl(PR_SET_PDEATHSIG, int(signum))


def set_no_new_privileges():
    """Forbid gaining privileges through exec (setuid binaries, file capabilities)."""
    _prctl(PR_SET_NO_NEW_PRIVS, 1)


# Key management (add_key, request_key, keyctl; x86-64 and arm64 numbers) and the architecture's audit id.
_KEY_SYSCALLS = {"x86_64": (0xC000003E, (248, 249, 250)), "aarch64": (0xC00000B7, (217, 218, 219))}
_X32_BIT = 0x40000000  # x86-64's x32 syscalls: their numbers have this bit set
_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 22, 2
_SECCOMP_RET_ALLOW, _SECCOMP_RET_ERRNO = 0x7FFF0000, 0x00050000
_BPF_LD_W_ABS, _BPF_JEQ_K, _BPF_JGE_K, _BPF_RET_K = 0x20, 0x15, 0x35, 0x06


class _SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter))]


def deny_keyrings():
    """Refuse the kernel's key management to this process and everything it starts (a seccomp filter; needs
    PR_SET_NO_NEW_PRIVS first); so are system calls of another architecture (x32, i386), which could reach it too.

    Keys outlive their processes: a uid's user keyrings live as long as the kernel, so one job's key would reach its
    uid's next jobs, and their owner can make them impossible to remove (no write, search or setattr permission left).
    Returns False, changing nothing, on an architecture this does not know or where the kernel refuses filters (no
    seccomp, or a container that forbids it): keyrings are then one more thing a job can leave to the next of its uid,
    as they were before; grading goes on."""
    known = _KEY_SYSCALLS.get(os.uname().machine)
    if known is None:
        return False
    arch, numbers = known
    deny = 5 + len(numbers)  # the index of the last instruction (after the checks and the ALLOW)
    program = [(_BPF_LD_W_ABS, 0, 0, 4),  # seccomp_data.arch
               (_BPF_JEQ_K, 0, deny - 2, arch),
               (_BPF_LD_W_ABS, 0, 0, 0),  # seccomp_data.nr
               (_BPF_JGE_K, deny - 4, 0, _X32_BIT)]
    program += [(_BPF_JEQ_K, deny - 5 - at, 0, number) for at, number in enumerate(numbers)]
    program += [(_BPF_RET_K, 0, 0, _SECCOMP_RET_ALLOW), (_BPF_RET_K, 0, 0, _SECCOMP_RET_ERRNO | errno.EPERM)]
    filters = (_SockFilter * len(program))(*(_SockFilter(*instruction) for instruction in program))
    fprog = _SockFprog(len(program), filters)
    return _libc.prctl(_PR_SET_SECCOMP, ctypes.c_ulong(_SECCOMP_MODE_FILTER), ctypes.byref(fprog),
                       ctypes.c_ulong(0), ctypes.c_ulong(0)) == 0


def set_not_dumpable():
    """Keep processes of the same uid out of our /proc entries (fds, memory) and from ptrace; inherited by fork."""
    _prctl(PR_SET_DUMPABLE, 0)


def process_table():
    """Map pid -> parent pid for every process visible in /proc."""
    table = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        table[int(entry.name)] = int(fields[1])
    return table


def _ended(state, threads):
    """Whether a process in `state` ("Z", "R", ...) whose thread group counts `threads` has ended. A zombie leader whose
    other threads live on has not: its main thread alone exited (SYS_exit, pthread_exit), and the process still runs
    (its /proc entry says "Z" and its statm 0, its other threads' entries under task/ what they do)."""
    return state in (b"Z", b"X") and threads <= 1


def is_zombie(pid):
    """Whether `pid` has exited and only waits to be reaped (or is gone altogether)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
        return _ended(fields[0], int(fields[17]))  # state, num_threads
    except (OSError, IndexError, ValueError):
        return True


def descendants(root):
    """Pids of every living descendant of `root` (not `root` itself)."""
    children = {}
    for pid, parent in process_table().items():
        children.setdefault(parent, []).append(pid)
    found, stack = [], list(children.get(root, ()))
    while stack:
        pid = stack.pop()
        found.append(pid)
        stack.extend(children.get(pid, ()))
    return found


def _signal_all(pids, signum):
    """Send `signum` to each pid, ignoring those already gone."""
    for pid in pids:
        try:
            os.kill(pid, signum)
        except OSError:
            pass


def kill_tree(root, include_root=False, rounds=100):
    """SIGKILL every descendant of `root` (and `root` if asked), freezing them first so none escapes by forking."""
    stopped = set()
    for _ in range(rounds):
        found = set(descendants(root))
        if include_root:
            found.add(root)
        fresh = found - stopped
        if not fresh:
            break
        _signal_all(fresh, signal.SIGSTOP)
        stopped |= fresh
    _signal_all(stopped, signal.SIGKILL)


def kill_group(pgid):
    """SIGKILL a process group, ignoring one that is already gone."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except OSError:
        pass


def kill_everything_else():
    """SIGKILL every process this one may signal except itself and pid 1 (use only inside a private pid namespace)."""
    try:
        os.kill(-1, signal.SIGKILL)
    except OSError:
        pass


def _until_gone(kill, survivors, timeout, reap=None):
    """Repeat `kill` and reap our zombies (`reap()`, default `reap_zombies`) until `survivors()` is empty (or `timeout`
    passes); return what is left."""
    deadline = time.monotonic() + timeout
    pause = 0.001
    while True:
        kill()
        (reap or reap_zombies)()
        left = survivors()
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(pause)
        pause = min(pause * 2, 0.05)


def clear_namespace(timeout=5.0):
    """Inside a private pid namespace: kill all but pid 1 and ourselves, and wait until they are gone."""
    me = os.getpid()
    if _none_to_signal():
        return []
    return _until_gone(kill_everything_else, lambda: [pid for pid in process_table() if pid not in (1, me)], timeout)


def clear_descendants(timeout=5.0):
    """Kill every descendant of this process and wait until they are gone (it must be their subreaper)."""
    me = os.getpid()
    return _until_gone(lambda: kill_tree(me), lambda: descendants(me), timeout)


def reap_zombies():
    """Collect the exit status of every child that has ended, without blocking."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _owner(pid, zombies=False):
    """The real uid of living process `pid` (not a zombie, unless `zombies`; a zombie leader whose other threads run is
    living), or None."""
    try:
        with open(f"/proc/{pid}/status", "rb") as status:
            fields = {}
            for line in status:
                key, _, value = line.partition(b":")
                fields[key] = value.split()
    except OSError:
        return None
    try:
        if not zombies and _ended(fields.get(b"State", [b"Z"])[0], int(fields.get(b"Threads", [b"1"])[0])):
            return None
    except ValueError:
        return None
    return int(fields[b"Uid"][0]) if b"Uid" in fields else None


def processes_of(uid, exclude=(), zombies=False):
    """Pids of living processes (and, if asked, zombies) whose real uid is `uid` (visible in /proc), except `exclude`."""
    return [pid for pid in process_table() if pid not in exclude and _owner(pid, zombies) == uid]


def clear_uid(timeout=5.0):
    """Kill every other process of our own uid (kill(-1) reaches exactly those) and wait until they are gone."""
    me, uid = os.getpid(), os.getuid()
    if _none_to_signal():
        return []
    return _until_gone(kill_everything_else, lambda: processes_of(uid, (me, 1)), timeout)


def _none_to_signal():
    """Whether kill(-1) reaches no process at all (not even a zombie): then there is nothing to kill or wait for, and
    no need to read every process's /proc entry (about 1.6 ms a walk)."""
    try:
        os.kill(-1, 0)
    except ProcessLookupError:
        return True
    except OSError:
        pass
    return False


def kill_uid(uid, timeout=5.0, rounds=100, reap=None):
    """With CAP_KILL: freeze, then SIGKILL every process of `uid` (not ourselves); wait until they are gone. `reap`
    (default `reap_zombies`, which drops their wait statuses) reaps our children meanwhile: a worker whose other
    runner may have ended by then passes one that keeps its status."""
    me = os.getpid()

    def kill():
        stopped = set()
        for _ in range(rounds):
            fresh = set(processes_of(uid, (me, 1))) - stopped
            if not fresh:
                break
            _signal_all(fresh, signal.SIGSTOP)
            stopped |= fresh
        _signal_all(stopped, signal.SIGKILL)

    return _until_gone(kill, lambda: processes_of(uid, (me, 1)), timeout, reap)


_IPC_RMID = 0
_SYSV_IPC = (("shm", "shmctl"), ("msg", "msgctl"), ("sem", "semctl"))


def remove_ipc():
    """Remove every System V shared memory segment, message queue and semaphore set our uid created or owns; return how
    many. They outlive the processes that made them, and a worker's jobs share its IPC namespace: one left behind would
    carry a message from one submission to the next (POSIX message queues are refused outright, `child._apply_limits`)."""
    uid, removed = os.getuid(), 0
    for kind, control in _SYSV_IPC:
        for ident in _ipc_objects(kind, uid):
            arguments = (ident, 0, _IPC_RMID) if kind == "sem" else (ident, _IPC_RMID, None)
            if getattr(_libc, control)(*arguments) == 0:
                removed += 1
    return removed


def _ipc_objects(kind, uid):
    """Ids of the System V IPC objects of `kind` ("shm", "msg", "sem") whose owner or creator is `uid`."""
    try:
        with open(f"/proc/sysvipc/{kind}", encoding="ascii") as table:
            header = table.readline().split()
            rows = [line.split() for line in table]
    except OSError:
        return []
    try:
        ident, owner, creator = header.index(f"{kind if kind != 'msg' else 'msq'}id"), header.index("uid"), header.index("cuid")
    except ValueError:
        return []
    return [int(row[ident]) for row in rows
            if len(row) == len(header) and uid in (int(row[owner]), int(row[creator]))]


CLONE_NEWNS = 0x00020000
CLONE_NEWIPC = 0x08000000
CLONE_NEWNET = 0x40000000
_MS_NOSUID, _MS_NODEV, _MS_REC, _MS_PRIVATE = 0x2, 0x4, 0x4000, 0x40000
CAP_KILL, CAP_SETGID, CAP_SETUID = 5, 6, 7
_CAPABILITY_VERSION_3 = 0x20080522


def _check(returned):
    """Raise OSError for a libc call that returned -1."""
    if returned != 0:
        error = ctypes.get_errno()
        raise OSError(error, os.strerror(error))


def isolate_worker(tmp_bytes, scratch):
    """As root with CAP_SYS_ADMIN: private network (no interface up), IPC and mount namespaces, with
    fresh tmpfs on `scratch` and /dev/shm, so workers sharing one sandbox cannot reach each other."""
    _check(_libc.unshare(CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWNET))
    _check(_libc.mount(b"none", b"/", None, _MS_REC | _MS_PRIVATE, None))
    options = f"size={int(tmp_bytes)},mode=1777".encode()
    for target in (scratch, "/dev/shm"):
        if os.path.isdir(target):
            _check(_libc.mount(b"tmpfs", target.encode(), b"tmpfs", _MS_NOSUID | _MS_NODEV, options))


def keep_capabilities(*capabilities):
    """Reduce this process's effective and permitted capabilities to `capabilities` (none inheritable)."""
    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]

    mask = 0
    for capability in capabilities:
        mask |= 1 << capability
    data = (Data * 2)(Data(mask, mask, 0), Data(0, 0, 0))
    _check(_libc.capset(ctypes.byref(Header(_CAPABILITY_VERSION_3, 0)), data))
