"""Which way the pool runs workers, decided here and nowhere else; refuse where nothing can contain the code.

| launcher | when | student's code can reach |
| --- | --- | --- |
| `launch_shared.SharedBubblewrap` | bubblewrap works, grader is root | /usr, Python, the staged code; its own uid |
| `launch_userns.UserNamespaceBubblewrap` | bubblewrap works, grader is not root | the same; the grader's uid mapped |
| `launch_contained.Contained` | no bubblewrap, root can make namespaces | the system directories too; its own uid |
| `launch_plain.Plain` | `use_bwrap=False`, `trusted`, or `run_as` (Gradescope) | whatever its account can read |

Otherwise the pool refuses with REFUSAL (SECURITY.md, "Refusing rather than grading unprotected").
"""
import os
import sys

from . import bwrap, confine
from .launch import SandboxError
from .launch_contained import Contained
from .launch_plain import Plain
from .launch_shared import SharedBubblewrap
from .launch_userns import UserNamespaceBubblewrap

REFUSAL = (
    "학생 코드를 격리할 수 없어 채점하지 않습니다: bubblewrap(bwrap)이 없거나 동작하지 않고, 루트 권한으로 네임스페이스를 "
    "만들 수도 없습니다. 해결 방법: (1) bubblewrap을 설치하세요 (Debian/Ubuntu: apt-get install bubblewrap, "
    "Fedora: dnf install bubblewrap). (2) Gradescope 또는 컨테이너 이미지 안에서 채점하세요 (macOS·Windows에서는 "
    "Docker로; README의 'Grading on macOS and Windows' 참고). 믿을 수 있는 코드만 격리 없이 채점하려면 --trusted를 주세요.\n"
    "Refusing to grade: student code cannot be contained here (bubblewrap is missing or does not work, and this "
    "process cannot create namespaces as root). Ways out: (1) install bubblewrap; (2) grade inside the Gradescope or "
    "container image (on macOS and Windows, with Docker; see README, 'Grading on macOS and Windows'). For code you "
    "trust, --trusted grades without isolation."
)
_warned = False


def warn_once(reason):
    """Say once per process, on stderr, that submissions run without bubblewrap."""
    global _warned
    if not _warned:
        _warned = True
        print(f"grader.sandbox: WARNING: {reason}; running submissions as plain subprocesses with rlimits "
              "and process-group kill only (no file-system, network or pid isolation).", file=sys.stderr, flush=True)


def _bubblewrap():
    """The bubblewrap launcher for this process: the shared zygote as root, else a sandbox per worker."""
    return SharedBubblewrap if os.geteuid() == 0 else UserNamespaceBubblewrap


def choose(use_bwrap=None, run_as=None, trusted=False):
    """The Launcher class to run workers with (see the table above); raise SandboxError where none may."""
    if use_bwrap is None:
        return _default(run_as, trusted)
    if use_bwrap:
        if not bwrap.bubblewrap_available():
            raise SandboxError("use_bwrap=True but bubblewrap is missing or does not work here")
        return _bubblewrap()
    warn_once("use_bwrap=False")
    return Plain


def _default(run_as, trusted):
    """Bubblewrap where it works; else root's namespaces and another uid (`confine.py`); else plain subprocesses
    only for code the caller trusts, or (Gradescope) with `run_as`; else refuse with the ways out."""
    if bwrap.bubblewrap_available():
        return _bubblewrap()
    if run_as is None and not trusted:
        if confine.available():
            return Contained
        raise SandboxError(REFUSAL)
    warn_once("bubblewrap (bwrap) is missing or does not work here")
    return Plain
