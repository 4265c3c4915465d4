"""Read a student's code from a `.py` file or a filled-in notebook, and run it as a module.

Shipped to students as part of `selfcheck/` and used inside the grading sandbox; it never sees
reference data. Every failure is a `SubmissionError` with a Korean message for the student.

A notebook is read as Jupyter runs it: every code cell the student wrote or added (nbgrader's answer
cells and cells without nbgrader metadata), in order, each translated from IPython syntax; the
read-only demo and test cells are left out. Each cell is compiled on its own, so an error names the
cell and the line the student sees.

A notebook exported as a `.py` file (Colab's "Download .py", `jupyter nbconvert --to python`, a `# %%` script) is read
the same way (`script_source`): its cells, the course's left out, each under a header naming its first line in the file.
"""
import contextlib
import contextvars
import functools
import hashlib
import io
import json
import linecache
import re
import sys
import tokenize
import types
from pathlib import Path

from . import colab, ipython

MAX_SUBMISSION_BYTES = 5 * 1024 * 1024  # a `.py` file, or the code of a notebook's cells
MAX_NOTEBOOK_BYTES = 64 * 1024 * 1024  # a whole `.ipynb`: Jupyter and Colab save every cell's output (plots) in it
PY_FILE = "transformer.py"
CELL_HEADER = "# %% [selfcheck: 코드 셀 {number}]"
SCRIPT_CELL_HEADER = "# %% [selfcheck: transformer.py:{line}]"  # a cell of an exported notebook, from its line {line}
EXPORT_FILE = "제출한 .py 파일"  # what an exported notebook's cells run as: errors name its lines (`place`)
CELL_LINE = re.compile(r"^# %% \[selfcheck: (코드 셀 \d+|transformer\.py:\d+)\]$", re.MULTILINE)
MAX_CELLS = 2000  # code cells of a notebook, cells of an exported notebook
TOO_MANY_CELLS = (f"노트북의 셀이 너무 많습니다 (최대 {MAX_CELLS:,}개). 쓰지 않는 셀을 지우거나 합친 뒤 다시 "
                  "저장해 제출해 주세요.")
EXPORTED = ("이 .py 파일은 노트북을 내보낸 파일(Colab의 .py 다운로드, nbconvert, `# %%` 스크립트)로 알아보고 노트북과 "
            "똑같이 채점했습니다: 코드 셀을 위에서부터 차례로 실행하고, 강의가 넣은 데모 셀, 자가 점검 준비 셀, 검사 "
            "셀은 실행하지 않았습니다. 오류 위치는 `제출한 .py 파일의 12번째 줄`처럼 제출한 .py 파일의 줄 번호로 "
            "알려 줍니다.")
# The course's functions and classes by the chapter whose TODOs ask for them; a later chapter ships them written
# (given code), so an error inside one is located at the student's line that called it.
WRITTEN_IN = {
    "01": ("attention",), "02": ("attention", "subsequent_mask"), "03": ("clones", "MultiHeadedAttention"),
    "04": ("PositionwiseFeedForward",), "05": ("Embeddings", "PositionalEncoding"),
    "06": ("LayerNorm", "SublayerConnection"), "07": ("EncoderLayer", "Encoder"), "08": ("DecoderLayer", "Decoder"),
    "09": ("EncoderDecoder", "Generator", "make_model"), "10": ("Batch",), "11": ("rate", "LabelSmoothing"),
    "12": ("data_gen", "SimpleLossCompute", "run_epoch"), "13": ("greedy_decode",),
    "14": ("fill_attention", "get_encoder", "get_decoder_self", "get_decoder_src", "attn_map", "visualize_layer"),
}
ALWAYS_GIVEN = ("TrainState",)  # shipped written in chapter 12, where it is first used
# The first line of every code cell the course writes into a notebook (read-only: the demo, the self-check's setup, the
# checks). nbgrader's metadata marks those cells too; a notebook that lost it (its cells copied into a new notebook,
# saved by an editor that drops cell metadata) is still read as the student ran it.
DEMO_MARK = "# [데모] 실행만 하고 고치지 마세요 (위 답안 셀의 코드를 부릅니다)"
# The course's cells that Colab's download (which marks no cells) cannot be read without, by their line counts and hashes
# (`fingerprint`), written by `python -m grader build`: every chapter's demo cell (it ends at its own last line, and a
# cell the student added right below it is theirs) and the text cells holding a `"""` (Colab writes each text cell
# inside `"""`: the course's diffs would end it early). Copied next to this module wherever it goes (sandbox staging,
# selfcheck/, Gradescope); without it a demo runs to the next text cell.
DATA_FILES = ("course_cells.json",)
COURSE_FILE = DATA_FILES[0]
COURSE_CELL = re.compile(r"# (@title 자가 점검 준비|\[데모\]|\[\d+(\.\d+)?점, (공개|숨겨진) 검사)")
COURSE_CELL_LINE = re.compile("^" + COURSE_CELL.pattern, re.MULTILINE)  # in an exported notebook, a course cell's start
# Where an exporter starts a cell: nbconvert's `# In[ ]:` / `# In[12]:`, a percent script's `# %%` (Jupytext, VS Code,
# Spyder; `# %% [markdown]` starts a text cell).
EXPORT_MARKER = re.compile(r"^(# In\[[ \d]*\]:|# ?%%(?![^ \t\n\[]).*)[ \t]*$", re.MULTILINE)
TEXT_MARKER = re.compile(r"^# ?%%.*\[(markdown|md|raw)\]")
_GIVEN = contextvars.ContextVar("given", default=frozenset())


class SubmissionError(Exception):
    """A submission that cannot be read; the message is Korean and meant for the student."""


def read_source(path):
    """Return the Python source of a `.py` file or of a notebook's student cells."""
    path = Path(path)
    try:
        size = path.stat().st_size
    except OSError:
        raise SubmissionError(f"제출 파일을 찾을 수 없습니다: {path.name}") from None
    if size > max_bytes(path):
        raise SubmissionError(too_big(path, size))
    try:
        text = _decoded(path.read_bytes(), notebook=path.suffix == ".ipynb")
    except (UnicodeDecodeError, LookupError):
        raise SubmissionError("제출 파일이 UTF-8 텍스트가 아닙니다. 파일을 UTF-8로 다시 저장해 주세요.") from None
    if not text.strip():
        raise SubmissionError("제출 파일이 비어 있습니다(내용이 없거나 공백뿐입니다). 코드를 저장한 뒤 다시 제출해 주세요.")
    budget = ipython.Budget()  # one per submission, over all of its cells
    try:
        if path.suffix == ".ipynb":
            source = notebook_source(text, budget)
        elif COURSE_CELL_LINE.search(text):
            source = script_source(text, budget)
        else:
            return text
    except ipython.IPythonMissing as error:  # TooMuchIPython too
        raise SubmissionError(str(error)) from None
    if len(source.encode("utf-8")) > MAX_SUBMISSION_BYTES:
        raise SubmissionError(f"노트북의 코드 셀이 너무 깁니다 (최대 {MAX_SUBMISSION_BYTES:,} 바이트).")
    return source


def _decoded(data, notebook):
    """A submission's text: a `.py` file as Python reads one (a byte-order mark skipped, a `# -*- coding: euc-kr -*-`
    line honoured, else UTF-8), a notebook as UTF-8 JSON (a byte-order mark, left by Windows Notepad, skipped)."""
    if notebook:
        return data.decode("utf-8-sig")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:  # a coding line Python does not know, or one that contradicts a byte-order mark
        raise LookupError from None
    return data.decode(encoding)


def max_bytes(name):
    """The largest submission file named `name` that is read: a notebook may carry its outputs, only its code counts."""
    return MAX_NOTEBOOK_BYTES if Path(name).suffix.lower() == ".ipynb" else MAX_SUBMISSION_BYTES


def too_big(name, size):
    """The Korean message for a submission file of `size` bytes over `max_bytes(name)`."""
    limit = max_bytes(name)
    if Path(name).suffix.lower() == ".ipynb":
        return (f"노트북 파일이 너무 큽니다 ({size:,} 바이트, 최대 {limit:,}). 셀 출력을 지우고(Jupyter: Edit → Clear "
                "Outputs of All Cells, Colab: 수정 → 모든 출력 지우기) 다시 저장해 제출해 주세요.")
    return f"제출 파일이 너무 큽니다 ({size:,} 바이트, 최대 {limit:,})."


def notebook_source(text, budget=None):
    """The student's code cells as one source: each cell under a `# %% [selfcheck: 코드 셀 N]` header, where N
    counts the notebook's code cells from the top (read-only demo and test cells count but are left out). `budget`
    bounds the IPython rewrites (`ipython.Budget`, one per submission)."""
    try:
        notebook = json.loads(text)
    except json.JSONDecodeError as error:
        raise SubmissionError(_json_problem(text, error)) from None
    try:
        cells = [cell for cell in notebook["cells"] if cell.get("cell_type") == "code"]
    except (KeyError, TypeError, AttributeError):
        raise SubmissionError(NOT_NOTEBOOK.format(why="Jupyter 노트북의 셀 목록(cells)이 없습니다")) from None
    if len(cells) > MAX_CELLS:
        raise SubmissionError(TOO_MANY_CELLS)
    written = [(number, cell) for number, cell in enumerate(cells, 1) if _written_by_student(cell)]
    if not written:
        raise SubmissionError("노트북에 코드 셀이 없습니다.")
    budget = budget if budget is not None else ipython.Budget()
    return "\n".join(f"{CELL_HEADER.format(number=number)}\n{ipython.translate(_cell_text(cell), budget)}".rstrip("\n")
                     + "\n" for number, cell in written)


def script_source(text, budget=None):
    """A notebook exported as a `.py` file, read as the notebook is: its cells the student wrote, in order, each under
    a `# %% [selfcheck: transformer.py:L]` header (L: the cell's first line in the file) and translated from IPython
    syntax; the course's cells left out. `text` as it is when no cell is the course's (a plain `.py` file).

    Cells start at the exporter's markers (`EXPORT_MARKER`) when every course cell starts at one. Colab's download
    has none: there a cell starts at a course cell's first line (`COURSE_CELL_LINE`), at a cell magic (`%%`) and after
    a text cell (Colab writes each markdown cell as a string on its own, `_text_cells`), and a course cell ends at its
    last line (`_course_end`; a demo, at the last line of the course's demo it matches, `_known_end`)."""
    lines = _file_lines(text)
    cells = _marked_cells(lines) if _marked(lines) else _colab_cells(lines)
    if len(cells) > MAX_CELLS:
        raise SubmissionError(TOO_MANY_CELLS)
    if not any(course for _, _, course in cells):
        return text
    budget = budget if budget is not None else ipython.Budget()
    written = []
    for first, cell, course in cells:
        skipped = next((index for index, line in enumerate(cell) if not line.isspace()), len(cell))
        code = "".join(cell[skipped:])
        if course or all(not line.strip() or line.lstrip().startswith("#") for line in cell):
            continue  # the course's, or comments only (an exporter's header, a text cell written as comments)
        written.append(f"{SCRIPT_CELL_HEADER.format(line=first + skipped)}\n{ipython.translate(code, budget)}"
                       .rstrip("\n") + "\n")
    if not written:
        raise SubmissionError("노트북에 코드 셀이 없습니다.")
    return "\n".join(written)


def _file_lines(text):
    """The lines of `text` as Python counts them (`\\n`, `\\r\\n`, `\\r`; not the other breaks `splitlines` knows),
    each ending in `\\n` but perhaps the last."""
    parts = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return [part + "\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def _marked(lines):
    """Whether the file has exporter's markers and every course cell's first line comes right after one (a `# %%`
    line the student wrote in a Colab notebook marks nothing)."""
    marked = after_marker = False
    for line in lines:
        if EXPORT_MARKER.match(line):
            marked = after_marker = True
        elif COURSE_CELL.match(line) and not after_marker:
            return False
        elif line.strip():
            after_marker = False
    return marked


def _marked_cells(lines):
    """[(first line number, lines, is the course's)]: the cells of an export with markers (nbconvert, `# %%`); what
    comes before the first marker is a cell too, a percent script's text cells are left out."""
    cells, first, current, text = [], 1, [], False
    for number, line in enumerate(lines, 1):
        if EXPORT_MARKER.match(line):
            if not text:
                cells.append((first, current))
            first, current, text = number + 1, [], bool(TEXT_MARKER.match(line))
        else:
            current.append(line)
    if not text:
        cells.append((first, current))
    return [(first, cell, bool(COURSE_CELL.match("".join(cell).lstrip()))) for first, cell in cells]


def _colab_cells(lines):
    """[(first line number, lines, is the course's)]: the cells of Colab's download, which marks none (see
    `script_source`)."""
    known = _known_cells()
    texts, inside = _text_cells(lines, known["texts"])
    cells, current, course, last = [], None, None, None
    number = 1
    while number <= len(lines):
        if number in texts:  # a text cell: left out, the code after it is a cell of its own
            current, number = None, texts[number] + 1
            continue
        line = lines[number - 1]
        starts = number not in inside and (COURSE_CELL.match(line) or line.startswith("%%"))
        if starts or current is None:
            course = COURSE_CELL.match(line) if number not in inside else None
            current = (number, [], bool(course))
            cells.append(current)
            last = _known_end(lines, number, known["demos"]) if course and course.group(1) == "[데모]" else None
        current[1].append(line)
        if course and (number == last or _course_end(course, line)):
            current, course, last = None, None, None
        number += 1
    return cells


def fingerprint(lines):
    """The hash the course's cell is known by in `COURSE_FILE`: its lines joined, each without its line break and
    trailing blanks (an exporter's or an editor's)."""
    return hashlib.sha256("\n".join(line.rstrip() for line in lines).encode("utf-8")).hexdigest()


@functools.lru_cache(maxsize=1)
def _known_cells():
    """{"demos": {line count: {hash}}, "texts": {"counts": {line count: {hash}}, "firsts": {first line's hash: {line
    count}}}} of the course's cells (`COURSE_FILE` beside this module); empty without the file. Read once per process
    (callers only read it)."""
    demos, counts, firsts = {}, {}, {}
    try:
        document = json.loads(Path(__file__).with_name(COURSE_FILE).read_text(encoding="utf-8"))
        for cell in document["demos"]:
            demos.setdefault(int(cell["lines"]), set()).add(str(cell["sha256"]))
        for cell in document["texts"]:
            counts.setdefault(int(cell["lines"]), set()).add(str(cell["sha256"]))
            firsts.setdefault(str(cell["first"]), set()).add(int(cell["lines"]))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        demos, counts, firsts = {}, {}, {}
    return {"demos": demos, "texts": {"counts": counts, "firsts": firsts}}


def _known_end(lines, first, demos):
    """The number of the last line of the course's demo starting at line `first`, when its lines are those of one
    (`demos`: {line count: {hash}}); else None (it runs to the next text cell)."""
    for count in sorted(demos, reverse=True):
        if first - 1 + count <= len(lines) and fingerprint(lines[first - 1:first - 1 + count]) in demos[count]:
            return first - 1 + count
    return None


def _without_course_texts(lines, texts):
    """`lines` with the course's own text cells that `texts` knows (from `_known_cells`) blanked, their opening triple
    quote kept: Colab writes a text cell's lines inside triple quotes (its first line on the opening quote's line, or on
    its own line in the file's docstring), and a triple quote they hold would end the string early."""
    if not texts["counts"]:
        return lines
    lines, number = list(lines), 0
    while number < len(lines):
        line = lines[number]
        quoted = line.startswith('"""')
        body = line[3:] if quoted else line
        found = next((count for count in sorted(texts["firsts"].get(fingerprint([body]), ()), reverse=True)
                      if fingerprint([body, *lines[number + 1:number + count]]) in texts["counts"].get(count, ())),
                     None)
        if found is None:
            number += 1
            continue
        lines[number:number + found] = ['"""\n' if quoted else "\n"] + ["\n"] * (found - 1)
        number += found
    return lines


def _course_end(course, line):
    """Whether `line` is the last of a course cell that starts with `course` (a COURSE_CELL match): a hidden check
    cell is its first line, a visible one ends at its `verify(...)`, the self-check's setup at `del _prepare_selfcheck`;
    a demo is ended by `_known_end` or else runs to the next text cell."""
    kind = course.group(1)
    if "숨겨진 검사" in kind:
        return True
    if "공개 검사" in kind:
        return line.startswith("verify(")
    return kind.startswith("@title") and line.startswith("del _prepare_selfcheck")


def _text_cells(lines, texts=None):
    """({first line: last line} of each top-level statement that is a string alone, as Colab writes a text cell;
    the line numbers inside multi-line strings), read with `tokenize`. The course's text cells `texts` knows (from
    `_known_cells`) read as blank strings, a line of IPython syntax (`!pip install`, `%time`) as `pass`; a file that
    stops tokenizing is read up to there."""
    if texts:
        lines = _without_course_texts(lines, texts)
    masked = (line if line.count('"""') or line.count("'''") or not line.lstrip().startswith(("!", "%"))
              else line[:len(line) - len(line.lstrip())] + "pass\n" for line in lines)
    texts, inside, statement, previous = {}, set(), None, tokenize.NEWLINE
    try:
        for token in tokenize.generate_tokens(iter(masked).__next__):
            kind, (row, column), (end_row, _) = token.type, token.start, token.end
            if kind == tokenize.STRING:
                inside.update(range(row + 1, end_row + 1))
            if kind in (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT):
                continue
            if previous in (tokenize.NEWLINE, tokenize.ENDMARKER) or statement is not None:
                if kind == tokenize.STRING and (statement is not None or column == 0):
                    statement = statement or row
                elif kind == tokenize.NEWLINE and statement is not None:
                    texts[statement] = end_row
                    statement = None
                else:
                    statement = None
            previous = kind
    except (tokenize.TokenError, SyntaxError):  # IndentationError too: what was read stands
        pass
    return texts, inside


CUT_SHORT = ("노트북 파일(.ipynb)이 중간에서 잘려 있습니다(저장이나 업로드가 끝나기 전에 멈춘 것 같습니다). "
             "Jupyter에서 노트북을 열어 다시 저장한 뒤 제출해 주세요.")
NOT_NOTEBOOK = ("이 파일은 이름만 .ipynb이고 Jupyter 노트북이 아닙니다({why}). Jupyter에서 노트북을 열어 "
                "저장한 .ipynb 파일을 그대로 제출해 주세요.")


def _json_problem(text, error):
    """Why a notebook's text is not JSON, in Korean: cut short (the text ends before the JSON does) or not JSON."""
    if error.pos >= len(text.rstrip()) - 1 or "Unterminated string" in error.msg:
        return CUT_SHORT
    return NOT_NOTEBOOK.format(why=f"JSON 형식이 아닙니다: {error.lineno}번째 줄")


def _written_by_student(cell):
    """An answer cell, or a cell the student added; not a read-only (locked) demo or a graded test cell (by nbgrader's
    metadata, or without it by the course's first line, `COURSE_CELL`)."""
    nbgrader = _nbgrader(cell)
    if nbgrader:
        return bool(nbgrader.get("solution")) or not (nbgrader.get("grade") or nbgrader.get("locked"))
    return not COURSE_CELL.match(_cell_text(cell).lstrip())


def _nbgrader(cell):
    metadata = cell.get("metadata")
    nbgrader = metadata.get("nbgrader") if isinstance(metadata, dict) else None
    return nbgrader if isinstance(nbgrader, dict) else {}


def _cell_text(cell):
    source = cell.get("source", "")
    if isinstance(source, list):
        source = "".join(str(part) for part in source)
    if not isinstance(source, str):
        raise SubmissionError("노트북 셀의 내용이 올바른 형식이 아닙니다.")
    return source


def units(source):
    """[(file name, code)]: a notebook source's cells (named `코드 셀 N`), an exported notebook's cells (each named
    `EXPORT_FILE`, its code pushed down to its own lines of the file), or the whole `.py` source."""
    pieces = CELL_LINE.split(source)
    if len(pieces) == 1:
        return [(PY_FILE, source)]
    cells = []
    for name, code in zip(pieces[1::2], pieces[2::2]):
        code = code.removeprefix("\n")
        if name.startswith(f"{PY_FILE}:"):
            name, code = EXPORT_FILE, "\n" * (int(name.partition(":")[2]) - 1) + code
        cells.append((name, code))
    return cells


def module_from_source(source, name="submission", notes=None, stops=None):
    """Execute `source` (cell by cell for a notebook) as a fresh module named `name` and return it.

    Exceptions propagate, except that with a `stops` list a notebook runs as Jupyter's Run All does: the cell that
    raises ends the run, (its exception, the names that cell and the ones below define, the cell) is appended to `stops`, and
    the module keeps what the cells before it (and the cell itself, up to the error) defined. The cells' `get_ipython()` is a `SkippingShell` that appends to `notes`, and
    so do the calls of Colab's own functions where `google.colab` does not exist (`colab.install`); a notebook's cells
    also have Jupyter's `display` without an import. An exported notebook (`script_source`) runs as a notebook does,
    its cells all named `EXPORT_FILE` (each on its own lines of the file), and the note `EXPORTED` comes first.
    """
    module = types.ModuleType(name)
    module.__file__ = f"<{name}>"
    notes = notes if notes is not None else []
    colab.install(notes)
    shell = ipython.SkippingShell(module.__dict__, notes)
    module.get_ipython = lambda: shell
    cells = units(source)
    notebook = bool(CELL_LINE.search(source))
    if notebook:
        module.display = ipython.display  # a builtin of every notebook; a `.py` file must import it, as in Python
    if notebook and cells[0][0] == EXPORT_FILE:
        notes.append(EXPORTED)
    shown = {}
    for index, (filename, code) in enumerate(cells):
        shown[filename] = _merged(shown.get(filename, []), code.splitlines(keepends=True))
        linecache.cache[filename] = (len(code), None, shown[filename], filename)
        try:
            exec(compile(code, filename, "exec"), module.__dict__)
        except BaseException as error:  # SystemExit and KeyboardInterrupt stop a cell too
            if stops is None or not notebook:
                raise
            stops.append((error, defined_names(code for _, code in cells[index:]), filename))
            break
    return module


def _merged(shown, lines):
    """The lines a traceback shows for a file whose cells run one after another (an exported notebook's, each on its
    own lines): those of `lines`, and where it has a blank line, the line shown so far."""
    merged = [line if line.strip() or index >= len(shown) else shown[index] for index, line in enumerate(lines)]
    return merged + shown[len(lines):]


def top_level_line(error, filename):
    """{"file", "line", "text"}: the line of cell `filename`'s own top level that `error` passed through (the call that
    stopped the cell, however deep the error happened), or None."""
    traceback, found = error.__traceback__, None
    while traceback is not None:
        code = traceback.tb_frame.f_code
        if code.co_filename == filename and code.co_name == "<module>":
            found = traceback.tb_lineno
        traceback = traceback.tb_next
    if isinstance(error, SyntaxError) and error.filename == filename:
        found = error.lineno or 0
    if found is None:
        return None
    return {"file": filename, "line": found, "text": linecache.getline(filename, found).strip()[:200]}


def defined_names(codes):
    """The names the top level of these cells defines (functions, classes, assignments, imports), read, not run."""
    import ast

    names = set()
    for code in codes:
        try:
            tree = ast.parse(code)
        except (SyntaxError, ValueError, RecursionError, MemoryError):  # a cell nested too deep to parse defines nothing
            continue
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names.update(leaf.id for target in targets for leaf in ast.walk(target) if isinstance(leaf, ast.Name))
    return frozenset(names)


def given_names(number):
    """The course's names a chapter (`"03"`) ships written: those of the chapters before it that it does not ask for."""
    earlier = [name for chapter, names in WRITTEN_IN.items() if chapter < number for name in names]
    return (frozenset(earlier) | frozenset(ALWAYS_GIVEN)) - frozenset(WRITTEN_IN.get(number, ()))


@contextlib.contextmanager
def given_code(probe):
    """Inside the block, errors are located outside the code the probe's chapter ships written (`given_names`)."""
    found = re.search(r"ch(\d\d)_probe", getattr(probe, "__name__", ""))
    token = _GIVEN.set(given_names(found.group(1)) if found else frozenset())
    try:
        yield
    finally:
        _GIVEN.reset(token)


def student_line(error):
    """{"file", "line", "text"}: where in the student's own code `error` happened (the deepest such frame), or None.

    Frames inside code the chapter ships written (`given_code`) are passed over for the student's line that called it,
    unless no other student frame is left."""
    if isinstance(error, SyntaxError) and _is_student_file(error.filename):
        return {"file": _shown(error.filename), "line": error.lineno or 0, "text": (error.text or "").strip()[:200]}
    found, own = None, None
    given = _GIVEN.get()
    traceback = error.__traceback__
    while traceback is not None:
        code = traceback.tb_frame.f_code
        if _is_student_file(code.co_filename) or _jupyter_cell(code.co_filename):
            found = (code.co_filename, traceback.tb_lineno)
            if getattr(code, "co_qualname", code.co_name).split(".")[0] not in given:
                own = found
        traceback = traceback.tb_next
    if found is None:
        return None
    filename, line = own or found
    return {"file": _jupyter_cell(filename) or _shown(filename), "line": line,
            "text": linecache.getline(filename, line).strip()[:200]}


def _jupyter_cell(filename):
    """`In[5]` when `filename` is a cell this Jupyter kernel ran (the notebook's check cells run there), else None."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    try:
        named = shell.compile.format_code_name(filename)
    except (AttributeError, TypeError):
        return None
    return named[1] if named else None


def _shown(filename):
    return PY_FILE if Path(filename).name == PY_FILE else filename


def _is_student_file(filename):
    """The student's file (`transformer.py`, wherever it was imported from) or one of their notebook cells (an exported
    notebook's too)."""
    return Path(filename or "").name == PY_FILE or filename == EXPORT_FILE or bool(re.fullmatch(r"코드 셀 \d+", filename or ""))


def place(where):
    """Korean for a `student_line` result: `위에서 3번째 코드 셀의 5번째 줄`, `제출한 .py 파일의 12번째 줄` (an exported
    notebook's) or `transformer.py 12번째 줄` (+ the line)."""
    if not where:
        return ""
    file, line = where["file"], where["line"]
    cell = re.fullmatch(r"코드 셀 (\d+)", file)
    jupyter = re.fullmatch(r"In\[(\d+)\]", file)
    if cell:
        text = f"위에서 {cell.group(1)}번째 코드 셀의 {line}번째 줄"
    elif jupyter:
        text = f"실행 번호 [{jupyter.group(1)}]인 셀의 {line}번째 줄"
    elif file == EXPORT_FILE:
        text = f"{file}의 {line}번째 줄"
    else:
        text = f"{file} {line}번째 줄"
    return text + (f": `{where['text']}`" if where.get("text") else "")

