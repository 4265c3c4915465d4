"""Contain a worker without bubblewrap, by what Linux offers root: namespaces, a hidden file system, another uid.

The pool starts the worker through `unshare` (new mount, network, pid and IPC namespaces, a fresh /proc). Still
root in there, the worker calls `hide_host` before it imports anything of the student's: every directory of the host
but the system ones (/usr, /etc, the /lib*, /bin links, /dev, /proc), the Python installation and its own code is
covered by an empty tmpfs, every file there by /dev/null; then every mount is made read-only, and its scratch
directory and /dev/shm get fresh, private tmpfs. It then drops to an unprivileged uid of its own (see
`privileges.py`), so the kernel's per-user process limit applies. No network interface is up in the new network
namespace, not even loopback.
"""
import ctypes
import functools
import os
import shutil
import subprocess
import sys

from .processes import _check, _libc

SYSTEM_KEEPS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/dev", "/proc")
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_REMOUNT = 0x1, 0x2, 0x4, 0x20
_MS_BIND, _MS_MOVE, _MS_REC, _MS_PRIVATE = 0x1000, 0x2000, 0x4000, 0x40000
_SEARCH_PATH = "/usr/bin:/bin:/usr/sbin:/sbin"


def unshare_path():
    """The `unshare` program (also where PATH does not list the system directories), or None."""
    return shutil.which("unshare") or shutil.which("unshare", path=_SEARCH_PATH)


def prefix():
    """The argv prefix that starts a program in fresh mount, network, pid and IPC namespaces with its own /proc."""
    return [unshare_path(), "--mount", "--net", "--ipc", "--pid", "--fork", "--kill-child", "--mount-proc", "--propagation", "private",
            "--"]


@functools.lru_cache(maxsize=None)
def available():
    """Whether this process may contain workers this way: root, and `unshare` can make every namespace above."""
    if os.geteuid() != 0 or unshare_path() is None:
        return False
    try:
        done = subprocess.run([*prefix(), sys.executable, "-I", "-S", "-c", ""], capture_output=True, timeout=30,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def _mount(source, target, fstype, flags, options=None):
    """mount(2), raising OSError."""
    _check(_libc.mount(source.encode(), target.encode(), fstype and fstype.encode(), ctypes.c_ulong(flags),
                       options and options.encode()))


def _inside(path, tree):
    """Whether `path` is `tree` or lies below it."""
    return path == tree or tree == "/" or path.startswith(tree.rstrip("/") + "/")


def _reroot(directory, keeps, stash, writable):
    """Replace `directory` by an empty tmpfs that holds only the kept trees below it (moved back there through
    `stash`) and the kept symbolic links; everything else below it, even its names, is gone. Only `writable` stays
    writable."""
    inside = sorted({keep for keep in keeps if keep != directory and _inside(keep, directory)})
    links = {keep: os.readlink(keep) for keep in inside if os.path.islink(keep)}
    trees = [keep for keep in inside if keep not in links and os.path.isdir(keep) and os.path.realpath(keep) == keep]
    outermost = [keep for keep in trees if not any(other != keep and _inside(keep, other) for other in trees)]
    held = []
    for number, keep in enumerate(outermost):
        spot = os.path.join(stash, f".keep-{number}")
        os.mkdir(spot, 0o700)
        _mount(keep, spot, None, _MS_BIND | _MS_REC)
        held.append((spot, keep))
    _mount("tmpfs", directory, "tmpfs", _MS_NOSUID | _MS_NODEV, "size=64k,mode=0755")
    for spot, keep in held:
        os.makedirs(keep, exist_ok=True)
        _mount(spot, keep, None, _MS_MOVE)
        if keep != writable:
            _mount("none", keep, None, _MS_REMOUNT | _MS_BIND | _MS_RDONLY)
        os.rmdir(spot)
    for link, target in links.items():
        if not os.path.lexists(link):
            os.makedirs(os.path.dirname(link), exist_ok=True)
            os.symlink(target, link)
    for parent, directories, _ in os.walk(directory):
        os.chmod(parent, 0o755)
        directories[:] = [name for name in directories if os.path.join(parent, name) not in outermost]
    _mount("none", directory, None, _MS_REMOUNT | _MS_BIND | _MS_RDONLY | _MS_NOSUID | _MS_NODEV)


def _cover(keeps, stash, writable):
    """Cover every entry of / that is not kept: a directory holding something kept is rerooted (`_reroot`), any
    other directory gets an empty read-only tmpfs, a file /dev/null. Symbolic links stay (their targets are covered
    or kept in their own place)."""
    for entry in os.scandir("/"):
        path = entry.path
        if any(_inside(path, keep) for keep in keeps) or entry.is_symlink():
            continue
        if any(_inside(keep, path) for keep in keeps):
            _reroot(path, keeps, stash, writable)
        elif entry.is_dir(follow_symlinks=False):
            _mount("tmpfs", path, "tmpfs", _MS_NOSUID | _MS_NODEV | _MS_RDONLY, "size=4k,mode=0755")
        else:
            _mount("/dev/null", path, None, _MS_BIND)


def _mount_points():
    """Mount points of this mount namespace, outermost first."""
    with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as lines:
        points = [line.split()[4].encode().decode("unicode_escape") for line in lines]
    return sorted(set(points), key=len)


def _read_only_everywhere():
    """Make every mount read-only except /proc, /dev, /sys and what lies below them."""
    for point in _mount_points():
        if any(_inside(point, tree) for tree in ("/proc", "/dev", "/sys")):
            continue
        try:
            _mount("none", point, None, _MS_REMOUNT | _MS_BIND | _MS_RDONLY)
        except FileNotFoundError:  # below a mount made over it: not reachable at all
            continue


def hide_host(keeps, scratch, tmp_bytes):
    """As root in a private mount namespace: show only the system, `keeps` (read-only) and a fresh `scratch`."""
    _mount("none", "/", None, _MS_REC | _MS_PRIVATE)
    _read_only_everywhere()
    options = f"size={int(tmp_bytes)},mode=1777"
    for target in (scratch, "/dev/shm"):  # /dev/shm, private now, is also where kept trees wait while moved
        _mount("tmpfs", target, "tmpfs", _MS_NOSUID | _MS_NODEV, options)
    kept = [*SYSTEM_KEEPS, *keeps, scratch]
    _cover(sorted({*kept, *map(os.path.realpath, kept)}), "/dev/shm", scratch)
