"""A private root for Gradescope's /autograder: bubblewrap binds a test's folders over /autograder and /etc.

Everything else of the host is bound as it is (no new pid namespace, root keeps every capability), so
run_autograder sees the real /autograder paths, can create its user in a throwaway copy of /etc and can
start bubblewrap itself, as in Gradescope's container.

/root is a world-traversable tmpfs holding only the Python installation, if it lives there (pyenv): on
Gradescope the interpreter is a system one, readable by the unprivileged account that runs student code.
"""
import os
import shutil
import subprocess
import sys
from pathlib import Path

_OWN = {"autograder", "etc", "proc", "dev", "root"}


class PrivateRoot:
    """tmp/autograder/{source,submission,results} and tmp/etc, mounted at /autograder and /etc for commands."""

    def __init__(self, tmp):
        self.tmp = Path(tmp)
        self.autograder = self.tmp / "autograder"
        for part in ("source", "submission", "results"):
            (self.autograder / part).mkdir(parents=True, exist_ok=True)
        self.etc = self.tmp / "etc"
        if not self.etc.exists():
            shutil.copytree("/etc", self.etc, symlinks=True, ignore_dangling_symlinks=True)

    @property
    def source(self):
        return self.autograder / "source"

    @property
    def submission(self):
        return self.autograder / "submission"

    @property
    def results(self):
        return self.autograder / "results" / "results.json"

    def command(self, argv):
        """`argv` run inside the private root."""
        arguments = ["bwrap", "--cap-add", "ALL", "--die-with-parent"]
        for name in sorted(os.listdir("/")):
            path = f"/{name}"
            if name in _OWN:
                continue
            if os.path.islink(path):
                arguments += ["--symlink", os.readlink(path), path]
            elif os.path.isdir(path):
                arguments += ["--bind", path, path]
        arguments += ["--perms", "0755", "--tmpfs", "/root"]
        for tree in sorted({os.path.realpath(p) for p in (sys.base_prefix, os.path.realpath(sys.executable) + "/../..")}):
            if tree.startswith("/root/"):
                for parent in reversed(Path(tree).parents[:-2]):  # bubblewrap would make them 0700
                    arguments += ["--perms", "0755", "--dir", str(parent)]
                arguments += ["--bind", tree, tree]
        arguments += ["--dev-bind", "/dev", "/dev", "--bind", "/proc", "/proc",
                      "--bind", str(self.etc), "/etc", "--bind", str(self.autograder), "/autograder"]
        return [*arguments, "--", *argv]

    def run(self, argv, env=None, timeout=600):
        return subprocess.run(self.command(argv), env=env, capture_output=True, text=True, timeout=timeout)
