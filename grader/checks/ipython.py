"""IPython syntax in a notebook cell: translated with IPython's own transformer; magics stand in, noted, not run.

Jupyter runs `files = !ls` or an indented `%timeit f(x)` because IPython rewrites the cell into plain Python
(`get_ipython().getoutput('ls')`) before running it. `translate` does the same rewrite with IPython's
`TransformerManager`; `SkippingShell` is the `get_ipython()` the rewritten code then calls: outside Jupyter
(in the grading sandbox, in the self-check) shell commands and magics are not run, and each one is noted.
"""
# Cell magics whose body is ordinary Python that defines things: the body runs, only the magic is skipped.
RUN_BODY = {"time", "timeit", "capture", "prun"}
# Line magics that run their line in the notebook's namespace (`%time x = f()` defines x); `%timeit` does not.
RUN_LINE = {"time", "prun"}


def display(*objects, **_options):
    """Jupyter's `display`, which a notebook's cells call without importing it: outside a kernel IPython's own prints
    the objects, and so does this one (the sandbox and the self-check run no kernel)."""
    print(*objects)


class IPythonMissing(Exception):
    """A cell needs IPython's rewrite but IPython is not installed; the message is Korean, for the student."""


def translate(source):
    """The cell as plain Python, rewritten by IPython's TransformerManager (unchanged if IPython is absent and
    the cell is plain Python already); raise IPythonMissing when it is not."""
    try:
        from IPython.core.inputtransformer2 import TransformerManager
    except ImportError:
        try:
            compile(source, "<cell>", "exec")
        except SyntaxError:
            raise IPythonMissing(
                "노트북 셀에 IPython 문법(%, !)이 있어 IPython이 필요합니다: `pip install ipython` 후 다시 실행하세요."
            ) from None
        return source
    return TransformerManager().transform_cell(source)


class SkippingShell:
    """What `get_ipython()` returns to translated cells: records each magic or shell command instead of running it."""

    def __init__(self, namespace, notes):
        self.user_ns = namespace
        self.notes = notes

    def _skip(self, what, body_runs=False):
        done = "명령만 건너뛰고 셀의 코드는 실행합니다" if body_runs else "실행하지 않고 건너뜁니다"
        note = f"`{what.strip()}`: IPython 명령은 채점과 자가 점검에서 {done} (점수에는 영향이 없습니다)."
        if note not in self.notes:
            self.notes.append(note)

    def run_line_magic(self, name, line, _stack_depth=1):
        name = name.lstrip("%")
        self._skip(f"%{name} {line}", body_runs=name in RUN_LINE)
        if name in RUN_LINE:
            exec(compile(line, f"<%{name}>", "exec"), self.user_ns)  # `%time x = f()` defines x, as in Jupyter

    def run_cell_magic(self, name, line, cell):
        self._skip(f"%%{name} {line}", body_runs=name in RUN_BODY)
        if name in RUN_BODY:
            exec(compile("\n" + cell, f"<%%{name}>", "exec"), self.user_ns)  # line numbers as in the cell

    def system(self, command):
        self._skip(f"!{command}")

    def getoutput(self, command, split=True, depth=0):
        self._skip(f"!{command}")
        return []
