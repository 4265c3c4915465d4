"""IPython syntax in a notebook cell: translated with IPython's own transformer; magics stand in, noted, not run.

Jupyter runs `files = !ls` or an indented `%timeit f(x)` because IPython rewrites the cell into plain Python
(`get_ipython().getoutput('ls')`) before running it. `translate` does the same rewrite with IPython's
`TransformerManager`, its passes bounded (it runs before the sandbox does); `SkippingShell` is the `get_ipython()` the
rewritten code then calls: outside Jupyter (in the grading sandbox, in the self-check) shell commands and magics are not
run, and each one is noted.
"""
# Cell magics whose body is ordinary Python that defines things: the body runs, only the magic is skipped.
RUN_BODY = {"time", "timeit", "capture", "prun"}
# Line magics that run their line in the notebook's namespace (`%time x = f()` defines x); `%timeit` does not.
RUN_LINE = {"time", "prun"}
# Cell magics that keep the cell as a file (Jupyter runs none of it as Python either).
SAVE_BODY = {"writefile", "file"}


def _definitions(cell):
    """The functions and classes the top level of `cell` defines, in order (read as IPython would rewrite it, not run;
    none if it does not parse)."""
    import ast

    try:
        tree = ast.parse(translate(cell))
    except (SyntaxError, ValueError, RecursionError, MemoryError, IPythonMissing):
        return []
    return [node.name for node in tree.body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]


def unrun_body(name, line, defined):
    """The note for a cell magic whose body Jupyter does not run as Python (`%%writefile`, `%%bash`, …) when that body
    defines functions or classes: they do not exist afterwards, here as in Jupyter (the score shows it)."""
    names = ", ".join(f"`{each}`" for each in defined[:5]) + (" 등" if len(defined) > 5 else "")
    does = ("셀을 파일로 저장할 뿐 셀의 코드를 실행하지 않습니다" if name in SAVE_BODY
            else "셀을 파이썬 코드로 실행하지 않습니다")
    what = f"%%{name} {line}".strip()
    return (f"`{what}`: 셀 매직 `%%{name}`은 {does}(Jupyter에서도 같습니다). 그래서 이 셀의 "
            f"{names}이(가) 만들어지지 않았습니다. 셀의 코드를 실행하려면 셀 맨 윗줄의 `%%{name}` 줄을 지우세요.")


def run_elsewhere(line):
    """The note for `%run FILE`: the file is not part of the submission, so what it defines does not exist here."""
    return (f"`%run {line.strip()}`: 다른 파일을 실행하는 `%run`은 채점과 자가 점검에서 실행하지 않습니다. 채점은 이 노트북 "
            "하나만 받으므로 그 파일이 만드는 함수와 클래스는 없습니다. 필요한 코드는 노트북의 코드 셀에 직접 쓰세요.")


def display(*objects, **_options):
    """Jupyter's `display`, which a notebook's cells call without importing it: outside a kernel IPython's own prints
    the objects, and so does this one (the sandbox and the self-check run no kernel)."""
    print(*objects)


class IPythonMissing(Exception):
    """A cell needs IPython's rewrite but IPython is not installed; the message is Korean, for the student."""


# IPython's TransformerManager tokenizes the whole cell again for each command it rewrites (one per pass): unbounded, a
# cell of 200 `!ls` lines in 240 KB took minutes. The rewrite runs before the sandbox, so it is bounded: a cell it
# rewrites may hold MAX_TRANSLATED_CHARS, it takes at most MAX_PASSES passes (IPython's own limit is 500), and a
# submission's passes scan at most MAX_SCANNED_CHARS in all (`Budget`).
MAX_TRANSLATED_CHARS = 64 * 1024
MAX_PASSES = 100
MAX_SCANNED_CHARS = 2_000_000
TOO_MUCH = ("IPython 명령(`!`, `%`)이 너무 많거나 IPython 명령이 든 셀이 너무 커서 채점할 코드로 바꾸지 못했습니다. "
            f"IPython 명령은 한 셀에 {MAX_PASSES - 1}개까지, 명령이 든 셀은 {MAX_TRANSLATED_CHARS:,}자까지, 제출물 전체에서 "
            f"명령을 찾으며 읽는 코드는 {MAX_SCANNED_CHARS:,}자까지입니다. 채점에 필요 없는 `!`·`%` 줄(설치, 출력 확인)을 "
            "지우거나 큰 셀을 나눈 뒤 다시 제출해 주세요.")


class TooMuchIPython(IPythonMissing):
    """A cell (or a submission's cells together) over the rewrite's bounds; the message is Korean, for the student."""


class Budget:
    """What one submission's IPython rewrites may still scan, in characters, summed over every pass of every cell."""

    def __init__(self, limit=MAX_SCANNED_CHARS):
        self.left = limit

    def spend(self, chars):
        self.left -= chars
        if self.left < 0:
            raise TooMuchIPython(TOO_MUCH)


def normalised(source):
    """`source` as IPython's TransformerManager cleans a cell up before it looks for IPython syntax: leading blank lines
    dropped, the common indentation removed (`textwrap.dedent`), a final newline ensured (where IPython is absent)."""
    import textwrap

    lines = _lines(source)
    first = next((index for index, line in enumerate(lines) if not line.isspace()), len(lines))
    return textwrap.dedent("".join(lines[first:]))


def _lines(source):
    return (source if source.endswith("\n") else source + "\n").splitlines(keepends=True)


def _compiles(source):
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # an invalid escape warns again when the cell is run
            compile(source, "<cell>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return False
    return True


def translate(source, budget=None):
    """The cell as plain Python, as IPython's TransformerManager rewrites it (`transform_cell`): its clean-up steps
    (blank lines, indentation, pasted prompts; each one pass over the cell), then, unless that is plain Python already,
    its passes, each rewriting one command, bounded: a cell being rewritten holds at most MAX_TRANSLATED_CHARS, takes
    at most MAX_PASSES passes, and every pass is paid for from `budget` (a fresh `Budget` when None).

    Without IPython a plain cell is `normalised` and any other raises IPythonMissing; over a bound, TooMuchIPython. A
    cell IPython's tokenizer refuses (IndentationError) is returned as it stands, to raise its error when it runs."""
    try:
        from IPython.core.inputtransformer2 import TransformerManager
    except ImportError:
        plain = normalised(source)
        if _compiles(plain):
            return plain
        raise IPythonMissing(
            "노트북 셀에 IPython 문법(%, !)이 있어 IPython이 필요합니다: `pip install ipython` 후 다시 실행하세요."
        ) from None
    manager = TransformerManager()
    lines = _lines(source)
    for transform in manager.cleanup_transforms + manager.line_transforms:
        lines = transform(lines)
    text = "".join(lines)
    if _compiles(text):  # no IPython syntax left: its passes would find nothing (each one tokenizes the whole cell)
        return text
    budget = budget if budget is not None else Budget()
    for _ in range(MAX_PASSES):  # TransformerManager.do_token_transforms, bounded
        budget.spend(len(text))
        try:
            changed, lines = manager.do_one_token_transform(lines)
        except SyntaxError:  # IPython's tokenizer refused the cell (an unindent that matches no level): Jupyter stops
            return text  # at this cell with the error, and so does compiling what is left here
        if not changed:
            return "".join(lines)
        text = "".join(lines)
        if len(text) > MAX_TRANSLATED_CHARS:
            break
    raise TooMuchIPython(TOO_MUCH)


class SkippingShell:
    """What `get_ipython()` returns to translated cells: records each magic or shell command instead of running it."""

    def __init__(self, namespace, notes):
        self.user_ns = namespace
        self.notes = notes

    def _skip(self, what, body_runs=False, note=None):
        done = "명령만 건너뛰고 셀의 코드는 실행합니다" if body_runs else "실행하지 않고 건너뜁니다"
        note = note or f"`{what.strip()}`: IPython 명령은 채점과 자가 점검에서 {done} (점수에는 영향이 없습니다)."
        if note not in self.notes:
            self.notes.append(note)

    def run_line_magic(self, name, line, _stack_depth=1):
        name = name.lstrip("%")
        self._skip(f"%{name} {line}", body_runs=name in RUN_LINE, note=run_elsewhere(line) if name == "run" else None)
        if name in RUN_LINE:
            exec(compile(line, f"<%{name}>", "exec"), self.user_ns)  # `%time x = f()` defines x, as in Jupyter

    def run_cell_magic(self, name, line, cell):
        defined = [] if name in RUN_BODY else _definitions(cell)
        self._skip(f"%%{name} {line}", body_runs=name in RUN_BODY,
                   note=unrun_body(name, line, defined) if defined else None)
        if name in RUN_BODY:
            exec(compile("\n" + cell, f"<%%{name}>", "exec"), self.user_ns)  # line numbers as in the cell

    def system(self, command):
        self._skip(f"!{command}")

    def getoutput(self, command, split=True, depth=0):
        self._skip(f"!{command}")
        return []
