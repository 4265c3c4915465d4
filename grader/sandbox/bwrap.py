"""Build the bubblewrap command line that confines a worker, and check that bubblewrap works here.

Inside: read-only /usr (+ the /lib*, /bin symlinks), the Python installation(s) and nothing else
of the host file system; the staged worker code at CODE_MOUNT; a private /proc, /dev and a small
tmpfs /scratch (TMPDIR; /tmp links to it); fresh pid, network, IPC and UTS namespaces. Run as root, bubblewrap
keeps only CAP_SETUID/CAP_SETGID so the worker can switch to an unprivileged uid before importing
anything; run as another user, a user namespace keeps that (non-root) uid.
"""
import functools
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from .limits import Limits
from .staging import REPO_ROOT, environment

CODE_MOUNT = "/grader-code"
# The private writable directory (TMPDIR and HOME). Not /tmp itself: the interpreter or the venv may live
# under /tmp (a CI clone), and a tmpfs there would hide them; /tmp is a link to it when nothing lives there.
SCRATCH = "/scratch"
_SYSTEM_LINKS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
_SYSTEM_FILES = ("/etc/ld.so.cache", "/etc/localtime")


def bubblewrap_path():
    """The bwrap executable, or None."""
    return shutil.which("bwrap")


def _inside(path, tree):
    """Whether `path` is `tree` or lies below it."""
    return path == tree or tree == "/" or path.startswith(tree.rstrip("/") + "/")


def python_trees():
    """The directories the interpreter and its packages live in (real paths, outermost only, outside /usr)."""
    candidates = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
                  str(Path(os.path.realpath(sys.executable)).parent.parent)}
    real = sorted({os.path.realpath(path) for path in candidates} | candidates, key=len)
    trees = []
    for path in real:
        if os.path.isdir(path) and not _inside(path, "/usr") and not any(_inside(path, tree) for tree in trees):
            trees.append(path)
    return trees


def _ancestor_dirs(paths):
    """`--dir` arguments creating every ancestor of `paths` world-traversable (bubblewrap would make them 0700)."""
    ancestors = sorted({str(parent) for path in paths for parent in Path(path).parents if str(parent) != "/"},
                       key=lambda p: (p.count("/"), p))
    arguments = []
    for directory in ancestors:
        arguments += ["--perms", "0755", "--dir", directory]
    return arguments


def _system_binds():
    """Read-only /usr, the /bin and /lib* links or directories, and the dynamic linker's cache."""
    arguments = ["--ro-bind", "/usr", "/usr"]
    for name in _SYSTEM_LINKS:
        path = f"/{name}"
        if os.path.islink(path):
            arguments += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            arguments += ["--ro-bind", path, path]
    for path in _SYSTEM_FILES:
        arguments += ["--ro-bind-try", path, path]
    return arguments


def _check_repo_hidden(sources):
    """Refuse to build a sandbox in which a bound directory would contain the repository."""
    repo = str(REPO_ROOT)
    for source in sources:
        if _inside(repo, source):
            raise RuntimeError(f"refusing to sandbox: the repository {repo} lies inside {source}, which would be visible")


def command(program, code_dir, limits=Limits(), extra_capabilities=()):
    """The full bwrap argv that runs `program` (argv list, interpreter first) confined.

    `extra_capabilities` (as root only) are kept besides CAP_SETUID/CAP_SETGID, e.g. CAP_KILL for a
    zygote whose root workers must signal the unprivileged runners of their own uid.
    """
    bwrap = bubblewrap_path()
    if bwrap is None:
        raise FileNotFoundError("bwrap")
    trees = python_trees()
    _check_repo_hidden(["/usr", *trees])
    if os.geteuid() == 0:
        namespaces = ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try",
                      "--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
        for capability in extra_capabilities:
            namespaces += ["--cap-add", capability]
    else:
        namespaces = ["--unshare-all", "--unshare-user"]
    arguments = [bwrap, *namespaces, "--die-with-parent", "--new-session", "--as-pid-1", "--hostname", "sandbox"]
    arguments += _system_binds()
    arguments += _ancestor_dirs([*trees, CODE_MOUNT])
    for tree in trees:
        arguments += ["--ro-bind", tree, tree]
    arguments += ["--ro-bind", str(code_dir), CODE_MOUNT]
    arguments += ["--proc", "/proc", "--dev", "/dev",
                  "--perms", "1777", "--size", str(int(limits.tmp_bytes)), "--tmpfs", SCRATCH,
                  "--chdir", "/", "--clearenv"]
    if not any(_inside(tree, "/tmp") for tree in trees):
        arguments += ["--symlink", SCRATCH, "/tmp"]
    for name, value in environment(CODE_MOUNT, SCRATCH, limits.threads).items():
        arguments += ["--setenv", name, value]
    return [*arguments, "--", *program]


@functools.lru_cache(maxsize=None)
def bubblewrap_available():
    """Whether bwrap exists and can start this interpreter in the sandbox described above (checked once)."""
    if bubblewrap_path() is None:
        return False
    probe = [sys.executable, "-I", "-S", "-c", "import os; print(os.getpid())"]
    try:
        with tempfile.TemporaryDirectory() as code_dir:
            os.chmod(code_dir, 0o755)
            done = subprocess.run(command(probe, code_dir), capture_output=True, timeout=30, stdin=subprocess.DEVNULL)
    except (OSError, RuntimeError, subprocess.SubprocessError):
        return False
    return done.returncode == 0 and done.stdout.strip() == b"1"
