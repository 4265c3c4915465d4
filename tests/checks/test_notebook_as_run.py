"""Notebooks are graded as they run, errors name the student's line, messages fit the track (issue 10).

Fixtures are written the way students write them: a helper function in a cell of its own, `files = !ls`,
an indented `%timeit`, a typo, an infinite loop, on chapters 01 and 02.
"""
import copy
import json
import re
import subprocess
import sys

import pytest

from grader.checks import chapter as load_chapter
from grader.checks import in_process, ipython, loading, scoresheet, tracks
from grader.checks.__main__ import FileChoiceError, default_file, main as selfcheck_main
from tests.conftest import PYTHON, ROOT

from .chapters import CHAPTERS
from .support import copy_folder, student_env

pytestmark = pytest.mark.checks

STUB_LINE = "raise NotImplementedError("

# Chapter 01's attention() as a student writes it in the answer cell, calling a helper from their own cell.
CH01_ANSWER = '''import math

import torch


def attention(query, key, value):
    "Compute 'Scaled Dot Product Attention'"
    p_attn = my_scores(query, key).softmax(dim=-1)
    if p_attn.numel() < 0:
        %timeit my_scores(query, key)
    return torch.matmul(p_attn, value), p_attn
'''
CH01_HELPER = '''files = !ls
%matplotlib inline

def my_scores(query, key):
    d_k = query.size(-1)
    return torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(d_k)
'''

# Chapter 02: the masking lines moved into a helper cell.
CH02_HELPER = '''def masked(scores, mask):
    return scores if mask is None else scores.masked_fill(mask == 0, -1e9)


def future_mask(size):
    return torch.tril(torch.ones(1, size, size, dtype=torch.bool))
'''


def ch02_answer():
    answer = _release_answer("02_masking")
    answer = answer.replace("    # TODO(02): mask", "    scores = masked(scores, mask)\n    # TODO(02): mask", 1)
    parts = answer.split(f"    {STUB_LINE}")
    assert len(parts) == 4  # mask, dropout, subsequent_mask
    mask, dropout, future = (f"    {STUB_LINE}" + rest for rest in parts[1:])
    return (parts[0] + _drop_stub(mask, "") + _drop_stub(dropout, "    if dropout is not None:\n        p_attn = dropout(p_attn)\n")
            + _drop_stub(future, "    return future_mask(size)\n"))


def _drop_stub(text, replacement):
    first, _, rest = text.partition("\n")
    assert STUB_LINE in first
    return replacement + rest


def _release(chapter):
    return json.loads((ROOT / "release" / chapter / f"{chapter}.ipynb").read_text(encoding="utf-8"))


def _release_answer(chapter):
    (answer,) = [c for c in _release(chapter)["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == "answer"]
    return "".join(answer["source"])


def student_notebook(path, chapter, answer, helper=None, edit_locked=False):
    """The released notebook with `answer` in its answer cell and, if given, a new code cell with `helper`
    right above it (no nbgrader metadata, as Jupyter adds it). `edit_locked` breaks the demo cell."""
    notebook = copy.deepcopy(_release(chapter))
    cells = notebook["cells"]
    index = next(i for i, c in enumerate(cells) if c["metadata"].get("nbgrader", {}).get("grade_id") == "answer")
    cells[index]["source"] = answer.splitlines(keepends=True)
    if helper is not None:
        cells.insert(index, {"cell_type": "code", "execution_count": None, "id": "mine", "metadata": {},
                             "outputs": [], "source": helper.splitlines(keepends=True)})
    if edit_locked:
        (demo,) = [c for c in cells if c["metadata"].get("nbgrader", {}).get("grade_id") == "demo"]
        demo["source"] = ["this is not python !!!\n"]
    path.write_text(json.dumps(notebook, ensure_ascii=False), encoding="utf-8")
    return path


def _code_cell_number(path, cell_id):
    cells = [c for c in json.loads(path.read_text(encoding="utf-8"))["cells"] if c["cell_type"] == "code"]
    return next(n for n, c in enumerate(cells, 1) if c.get("id") == cell_id)


@pytest.mark.parametrize("chapter, answer, helper", [("01_attention", CH01_ANSWER, CH01_HELPER),
                                                     ("02_masking", None, CH02_HELPER)], ids=["ch01", "ch02"])
def test_a_helper_in_a_cell_of_its_own_counts(tmp_path, chapter, answer, helper):
    """A helper function defined in the student's own cell is part of the submission: every check, hidden ones
    included, passes; the demo and test cells are not run (a broken demo cell changes nothing)."""
    answer = answer if answer is not None else ch02_answer()
    path = student_notebook(tmp_path / f"{chapter}.ipynb", chapter, answer, helper, edit_locked=True)
    checked, notes = in_process.check(chapter, path, visible_only=False)
    assert [r.name for r in checked if not r.passed] == []
    assert sum(r.score for r in checked) == 100


def test_magics_are_translated_by_ipython_and_skipped_with_a_note(tmp_path):
    """`files = !ls`, `%matplotlib inline` (run) and an indented `%timeit` (never reached) translate with IPython's
    TransformerManager; the commands that ran are skipped, each noted once, and cost nothing."""
    path = student_notebook(tmp_path / "01_attention.ipynb", "01_attention", CH01_ANSWER, CH01_HELPER)
    source = loading.read_source(path)
    assert "files = get_ipython().getoutput('ls')" in source
    assert "        get_ipython().run_line_magic('timeit', 'my_scores(query, key)')" in source
    checked, notes = in_process.check("01_attention", path)
    assert all(r.passed for r in checked)
    assert len(notes) == 2 and "`!ls`" in notes[0] and "`%matplotlib inline`" in notes[1]
    assert "건너뜁니다" in notes[0]


def test_only_student_cells_are_read(tmp_path):
    """Answer cells and added cells are read, in order, each under its code-cell number; locked cells are not."""
    path = student_notebook(tmp_path / "n.ipynb", "01_attention", CH01_ANSWER, CH01_HELPER, edit_locked=True)
    source = loading.read_source(path)
    assert [name for name, _ in loading.units(source)] == [f"코드 셀 {_code_cell_number(path, 'mine')}",
                                                           f"코드 셀 {_code_cell_number(path, 'answer')}"]
    assert "this is not python" not in source and "verify(" not in source


@pytest.mark.parametrize("chapter", ["01_attention", "02_masking"])
def test_a_typo_names_the_cell_and_line(tmp_path, chapter):
    """A NameError from a typo names the code cell, the line in that cell and the line's text, on every check,
    and reads the same on visible and hidden checks (one cause, said once)."""
    answer = (CH01_ANSWER if chapter == "01_attention" else ch02_answer()).replace(
        "p_attn, value)", "p_attn, valeu)")
    helper = CH01_HELPER if chapter == "01_attention" else CH02_HELPER
    path = student_notebook(tmp_path / f"{chapter}.ipynb", chapter, answer, helper)
    number = _code_cell_number(path, "answer")
    line = next(n for n, text in enumerate(answer.splitlines(), 1) if "valeu" in text)
    checked, _ = in_process.check(chapter, path, visible_only=False)
    messages = {r.message for r in checked if not r.passed and "NameError" in r.message}
    expected = (f"실행 중 오류가 났습니다 (NameError: name 'valeu' is not defined, 위에서 {number}번째 코드 셀의 "
                f"{line}번째 줄: `return torch.matmul(p_attn, valeu), p_attn`).")
    assert messages and all(expected in message for message in messages)
    causes = [cause for cause, _, _ in scoresheet.causes(checked, tuple(load_chapter(chapter).case_texts().values()))]
    assert sum("NameError" in cause for cause in causes) == 1


def test_a_syntax_error_names_the_cell_line_not_the_joined_source(tmp_path):
    """A SyntaxError in the answer cell counts lines in that cell, not in all student cells joined."""
    answer = CH01_ANSWER.replace("return torch.matmul(p_attn, value), p_attn", "return torch.matmul(p_attn, value), p_attn)")
    path = student_notebook(tmp_path / "01_attention.ipynb", "01_attention", answer, CH01_HELPER)
    line = next(n for n, text in enumerate(answer.splitlines(), 1) if "p_attn)" in text)
    checked, _ = in_process.check("01_attention", path)
    assert f"위에서 {_code_cell_number(path, 'answer')}번째 코드 셀의 {line}번째 줄" in checked[0].message
    assert "노트북의 코드 셀이 위에서부터 차례로 오류 없이 실행되는지" in checked[0].message


def test_py_track_errors_name_transformer_py_lines(tmp_path):
    """In a .py file the line is transformer.py's."""
    stub = (ROOT / "exercises" / "01_attention" / "transformer.py").read_text(encoding="utf-8")
    body = "    d_k = query.size(-1)\n    return torch.matmul(scores, value), scores\n"
    path = tmp_path / "transformer.py"
    path.write_text(stub.replace(f"    {STUB_LINE}\"아직 작성하지 않았습니다: 위의 TODO를 읽고 이 부분을 채워 주세요.\")\n", body),
                    encoding="utf-8")
    line = next(n for n, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if "scores, value" in text)
    checked = in_process.run("01_attention", path)
    assert f"transformer.py {line}번째 줄" in checked[0].message


def test_stub_diagnosis_fits_the_track(tmp_path):
    """The unfinished stub is told to fill transformer.py (.py) or the answer cell (notebook), once per cause."""
    notebook = student_notebook(tmp_path / "01_attention.ipynb", "01_attention", _release_answer("01_attention"))
    py = ROOT / "exercises" / "01_attention" / "transformer.py"
    as_notebook, _ = in_process.check("01_attention", notebook)
    as_py, _ = in_process.check("01_attention", py)
    assert all("답안 셀의 TODO를 채우세요" in r.message and "transformer.py" not in r.message for r in as_notebook)
    assert all("transformer.py의 TODO를 채우세요" in r.message for r in as_py)
    table = scoresheet.table(as_py, case_texts=tuple(load_chapter("01_attention").case_texts().values()))
    assert table.count("TODO를 채우세요") == 1
    assert tracks.worded("transformer.py의 TODO를 채우세요", tracks.PY) == "transformer.py의 TODO를 채우세요"


@pytest.mark.parametrize("chapter_id", [pytest.param(c.id, marks=getattr(pytest.mark, c.marker)) for c in CHAPTERS])
def test_every_chapters_stub_text_names_the_answer_cell_in_a_notebook(chapter_id):
    """Each chapter's stub diagnosis (`TODO`, `TODO(02)`, …) points a notebook student at the answer cell."""
    text = load_chapter(chapter_id).bugs["stub"]
    assert "transformer.py의 TODO" in text
    assert "답안 셀의 TODO" in tracks.worded(text, tracks.NOTEBOOK)
    assert "transformer.py" not in tracks.worded(text, tracks.NOTEBOOK)


def test_bare_selfcheck_finds_the_notebook(tmp_path):
    """In a fetched nbgrader folder (the notebook and selfcheck/) `python -m selfcheck` checks the notebook."""
    assert default_file("01_attention", ROOT / "release" / "01_attention") == "01_attention.ipynb"
    assert default_file("01_attention", ROOT / "exercises" / "01_attention") == "transformer.py"
    assert default_file("01_attention", tmp_path) == "transformer.py"


def test_selfcheck_prefers_the_notebook_named_after_the_chapter(tmp_path):
    """Jupyter's and browsers' copies (`03_multihead (1).ipynb`, `03_multihead-Copy1.ipynb`) never win over the
    notebook named after the chapter, whatever their sort order."""
    for name in ("03_multihead (1).ipynb", "03_multihead-Copy1.ipynb", "03_multihead.ipynb", "01_attention.ipynb"):
        (tmp_path / name).write_text("{}", encoding="utf-8")
    assert default_file("03_multihead", tmp_path) == "03_multihead.ipynb"
    (tmp_path / "03_multihead.ipynb").unlink()
    (tmp_path / "01_attention.ipynb").unlink()
    only = tmp_path / "only"
    only.mkdir()
    (only / "03_multihead-Copy1.ipynb").write_text("{}", encoding="utf-8")
    assert default_file("03_multihead", only) == "03_multihead-Copy1.ipynb"


def test_selfcheck_asks_by_name_when_it_cannot_tell(tmp_path, monkeypatch, capsys):
    """Two copies and no notebook with the chapter's name: the self-check lists both and asks for one, in Korean,
    without checking either."""
    for name in ("03_multihead (1).ipynb", "03_multihead-Copy1.ipynb"):
        (tmp_path / name).write_text("{}", encoding="utf-8")
    with pytest.raises(FileChoiceError, match="파일의 이름을 붙여"):
        default_file("03_multihead", tmp_path)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as stopped:
        selfcheck_main([], chapter="03_multihead")
    assert stopped.value.code == 2
    said = capsys.readouterr().err
    assert '"03_multihead (1).ipynb"' in said and '"03_multihead-Copy1.ipynb"' in said
    assert "03_multihead.ipynb가 없고" in said and "python -m selfcheck" in said


def test_selfcheck_in_a_notebook_folder_and_its_time_limit(tmp_path):
    """As a student: bare `python -m selfcheck` in a chapter folder of `exercises/` holding the released notebook (and
    no transformer.py) grades the notebook with the helper cell and notes the magics; an infinite loop is stopped at
    --timeout with a Korean explanation."""
    folder = copy_folder(ROOT / "exercises" / "01_attention", tmp_path / "01_attention")
    (folder / "transformer.py").unlink()
    student_notebook(folder / "01_attention.ipynb", "01_attention", CH01_ANSWER, CH01_HELPER)
    done = subprocess.run([PYTHON, "-m", "selfcheck"], cwd=folder, env=student_env(), capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "01_attention.ipynb" in done.stdout and "70/70" in done.stdout and "`!ls`" in done.stdout
    looping = CH01_ANSWER.replace('    "Compute \'Scaled Dot Product Attention\'"\n',
                                  '    "Compute \'Scaled Dot Product Attention\'"\n    while True:\n        pass\n')
    student_notebook(folder / "01_attention.ipynb", "01_attention", looping, CH01_HELPER)
    done = subprocess.run([PYTHON, "-m", "selfcheck", "01_attention.ipynb", "--timeout", "8"], cwd=folder,
                          env=student_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 3
    assert "자가 점검을 8초 만에 멈췄습니다" in done.stderr and "무한 루프" in done.stderr


def test_pytest_shows_the_korean_verdict_not_the_framework(tmp_path):
    """`python -m pytest test_visible.py` on a typo shows the Korean verdict with the student's line, and none of
    verify()'s own body (it hides its frame with __tracebackhide__)."""
    folder = copy_folder(ROOT / "exercises" / "01_attention", tmp_path / "01_attention")
    stub = (folder / "transformer.py").read_text(encoding="utf-8")
    body = "    p_attn = (query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))).softmax(dim=-1)\n" \
           "    return torch.matmul(p_attn, valeu), p_attn\n"
    (folder / "transformer.py").write_text(re.sub(r"    raise NotImplementedError\(.*\)\n", body, stub), encoding="utf-8")
    done = subprocess.run([PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_visible.py",
                           "-k", "return_contract"], cwd=folder, env=student_env(), capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 1
    assert "NameError: name 'valeu' is not defined, transformer.py" in done.stdout
    assert "judge_module(chapter)" not in done.stdout and "def verify" not in done.stdout


def test_check_cells_in_jupyter_name_the_cell_by_its_execution_number():
    """In the notebook's check cells (verify on the kernel's globals), an error in a cell the kernel ran is placed by
    the number Jupyter shows beside that cell."""
    from IPython.core.interactiveshell import InteractiveShell

    from grader.checks import verify

    shell = InteractiveShell.instance()
    try:
        helper = CH01_HELPER.replace("%matplotlib inline\n", "")  # a bare shell has no GUI backend to enable
        code = helper + "\n" + CH01_ANSWER.replace("p_attn, value)", "p_attn, valeu)")
        shell.run_cell(code, store_history=True)
        number = shell.execution_count - 1
        line = next(n for n, text in enumerate(shell.transform_cell(code).splitlines(), 1) if "valeu" in text)
        with pytest.raises(AssertionError) as failure:
            verify("01_attention", "return_contract", shell.user_ns)
        assert f"실행 번호 [{number}]인 셀의 {line}번째 줄: `return torch.matmul(p_attn, valeu), p_attn`" in str(failure.value)
    finally:
        InteractiveShell.clear_instance()


def test_a_timed_cell_still_defines_its_functions(tmp_path):
    """A helper cell that starts with `%%time` runs its body (the helper exists); `%%writefile` does not run, and its
    note names the function that therefore does not exist (never "no effect on the score")."""
    helper = "%%time\n" + CH01_HELPER.replace("files = !ls\n%matplotlib inline\n", "")
    path = student_notebook(tmp_path / "01_attention.ipynb", "01_attention", CH01_ANSWER, helper)
    checked, notes = in_process.check("01_attention", path)
    assert all(r.passed for r in checked)
    assert notes == ["`%%time`: IPython 명령은 채점과 자가 점검에서 명령만 건너뛰고 셀의 코드는 실행합니다 (점수에는 영향이 없습니다)."]
    helper = "%%writefile scratch.py\n" + CH01_HELPER
    path = student_notebook(tmp_path / "01_attention.ipynb", "01_attention", CH01_ANSWER, helper)
    checked, notes = in_process.check("01_attention", path)
    assert not checked[0].passed and "my_scores" in checked[0].message
    assert notes == [ipython.unrun_body("writefile", "scratch.py", ["my_scores"])]
    assert "my_scores" in notes[0] and "점수에는 영향이 없습니다" not in notes[0]


def test_a_run_magic_is_not_a_source_of_the_submission(tmp_path):
    """`%run helpers.py` is not run (the file is not part of the submission): the helper it would define is missing, and
    the note says why instead of "no effect on the score"."""
    helper = "%run helpers.py\n"
    path = student_notebook(tmp_path / "01_attention.ipynb", "01_attention", CH01_ANSWER, helper)
    checked, notes = in_process.check("01_attention", path)
    assert not checked[0].passed and "my_scores" in checked[0].message
    assert notes == [ipython.run_elsewhere("helpers.py")] and "점수에는 영향이 없습니다" not in notes[0]


def test_a_timed_line_defines_its_names(tmp_path):
    """`%time name = value` assigns in the notebook's namespace as in Jupyter (noted, the line runs); `%timeit` does
    not (Jupyter runs it in a scope of its own)."""
    helper = CH01_HELPER.replace("files = !ls\n%matplotlib inline\n", "").replace("def my_scores", "def _scores")
    helper += "\n%time my_scores = _scores\n%timeit unused = _scores\n"
    path = student_notebook(tmp_path / "01_attention.ipynb", "01_attention", CH01_ANSWER, helper)
    checked, notes = in_process.check("01_attention", path)
    assert all(r.passed for r in checked), [r.message for r in checked if not r.passed][:1]
    assert notes == ["`%time my_scores = _scores`: IPython 명령은 채점과 자가 점검에서 명령만 건너뛰고 셀의 코드는 실행합니다 "
                     "(점수에는 영향이 없습니다).",
                     "`%timeit unused = _scores`: IPython 명령은 채점과 자가 점검에서 실행하지 않고 건너뜁니다 (점수에는 영향이 없습니다)."]


def test_display_is_there_as_in_jupyter(tmp_path, capsys):
    """`display(x)` needs no import in a notebook (IPython makes it a builtin): a scratch cell that displays a tensor
    below the answer runs on, prints what it shows and stops nothing; a `.py` file has no `display`, as in Python."""
    helper = CH01_HELPER.replace("files = !ls\n%matplotlib inline\n", "")
    path = _with_cells_after_answer(student_notebook(tmp_path / "01_attention.ipynb", "01_attention", CH01_ANSWER,
                                                     helper), ["display(torch.tensor([0.25, 0.75]))\n"])
    checked, notes = in_process.check("01_attention", path)
    assert all(r.passed for r in checked) and notes == []
    assert "tensor([0.2500, 0.7500])" in "".join(capsys.readouterr())
    assert "display" not in vars(loading.module_from_source("x = 1\n"))  # (an IPython shell in this process may
    # have left one in builtins, as Jupyter's kernel does; the sandbox has none)


def test_a_file_is_read_as_python_reads_it(tmp_path):
    """A file saved as "UTF-8 with BOM" (Windows Notepad), or in EUC-KR under a `# -*- coding: euc-kr -*-` line, runs
    under `python transformer.py` (Python skips the mark and honours the line): it scores the same here; a notebook
    with the mark too."""
    answer = CH01_ANSWER.replace("%timeit my_scores(query, key)", "pass")
    helper = CH01_HELPER.replace("files = !ls\n%matplotlib inline\n", "")
    source = answer.replace("import torch\n", "import torch\n" + helper, 1)
    marked, declared = tmp_path / "marked" / "transformer.py", tmp_path / "declared" / "transformer.py"
    for path, data in ((marked, b"\xef\xbb\xbf" + source.encode()),
                       (declared, ("# -*- coding: euc-kr -*-\n# 한글 주석\n" + source).encode("euc-kr"))):
        path.parent.mkdir()
        path.write_bytes(data)
        assert subprocess.run([PYTHON, str(path)], capture_output=True).returncode == 0
    notebook = student_notebook(tmp_path / "01_attention.ipynb", "01_attention", CH01_ANSWER, helper)
    notebook.write_bytes(b"\xef\xbb\xbf" + notebook.read_bytes())
    for submitted in (marked, declared, notebook):
        checked, _ = in_process.check("01_attention", submitted)
        assert all(r.passed for r in checked), (submitted.name, [r.message for r in checked if not r.passed][:1])


COLAB_CELL = "from google.colab import drive, files\ndrive.mount('/content/drive')\nfrom google.colab.patches import cv2_imshow\n"
COLAB_NOTE = ("`drive.mount('/content/drive')`: Colab 전용 기능(google.colab)은 채점과 자가 점검에서 실행하지 않고 건너뜁니다 "
              "(점수에는 영향이 없습니다).")


def test_a_colab_notebook_scores_as_it_does_on_colab(tmp_path):
    """A notebook written on Colab (`from google.colab import drive`, `drive.mount(...)` above the answer) passes its
    check cells there; outside Colab the same notebook scores the same, in the self-check and in the grading sandbox,
    with each Colab call noted instead of run."""
    path = student_notebook(tmp_path / "01_attention.ipynb", "01_attention", CH01_ANSWER, COLAB_CELL + CH01_HELPER)
    checked, notes = in_process.check("01_attention", path)
    assert all(r.passed for r in checked), [r.message for r in checked if not r.passed][:1]
    assert notes[0] == COLAB_NOTE
    out = tmp_path / "graded"
    done = subprocess.run([PYTHON, "-m", "grader", "grade", "01", str(path), "--out", str(out), "--no-feedback"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    graded = json.loads((out / "results" / "01_attention.json").read_text(encoding="utf-8"))
    assert graded["score"] == graded["max_score"] and graded["notes"][0] == COLAB_NOTE


def test_the_real_colab_module_wins_where_it_exists(tmp_path, monkeypatch):
    """On Colab `google.colab` is installed: the stand-in's finder is asked last, so the real module is the one
    imported (here a `google.colab` package on sys.path)."""
    package = tmp_path / "site" / "google" / "colab"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("REAL = True\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    for name in ("google", "google.colab"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    notes = []
    module = loading.module_from_source("from google.colab import REAL\n", notes=notes)
    assert module.REAL is True and notes == []


def _without_metadata(path):
    """The notebook at `path` as an editor that drops cell metadata saves it (nbgrader's marks gone)."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    for cell in notebook["cells"]:
        cell["metadata"] = {}
    stripped = path.with_name("stripped_" + path.name)
    stripped.write_text(json.dumps(notebook, ensure_ascii=False), encoding="utf-8")
    return stripped


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_course_cell_carries_its_first_line(chapter):
    """Each read-only code cell of every released notebook (demo, self-check setup, checks) starts with the line
    `loading.COURSE_CELL` knows it by, and the answer cell does not: the reading never depends on the metadata."""
    for cell in _release(chapter.id)["cells"]:
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        student = cell["metadata"].get("nbgrader", {}).get("solution", False)
        assert bool(loading.COURSE_CELL.match(source)) is not student, source[:80]


def test_a_notebook_without_its_metadata_scores_the_same(tmp_path):
    """The same notebook with its cell metadata dropped: the same checks pass and fail with the same messages (the
    demo and the check cells are not run as the student's code), right and wrong answers alike."""
    wrong = CH01_ANSWER.replace("return torch.matmul(p_attn, value), p_attn", "return torch.matmul(p_attn, value), None")
    for name, answer in (("right", CH01_ANSWER), ("wrong", wrong)):
        path = student_notebook(tmp_path / f"{name}.ipynb", "01_attention", answer, CH01_HELPER)
        kept, _ = in_process.check("01_attention", path)
        dropped, _ = in_process.check("01_attention", _without_metadata(path))
        assert [(r.passed, r.message) for r in dropped] == [(r.passed, r.message) for r in kept]
        assert all(r.passed for r in kept) is (name == "right")


def _with_cells_after_answer(path, sources):
    """Insert code cells (no nbgrader metadata) right below the answer cell of the notebook at `path`."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    cells = notebook["cells"]
    index = next(i for i, c in enumerate(cells) if c["metadata"].get("nbgrader", {}).get("grade_id") == "answer")
    cells[index + 1:index + 1] = [{"cell_type": "code", "execution_count": None, "id": f"after{n}", "metadata": {},
                                   "outputs": [], "source": source} for n, source in enumerate(sources)]
    path.write_text(json.dumps(notebook, ensure_ascii=False), encoding="utf-8")
    return path


def test_a_cell_that_raises_stops_the_run_as_run_all_does(tmp_path):
    """A cell that raises ends the run there, as Jupyter's Run All does: what the cells above defined is graded (a
    failing scratch cell below a right answer costs nothing, and is noted with its own line); a function or a name
    the cells below would have defined is missing, and its check names the stopped cell first."""
    helper = CH01_HELPER.replace("files = !ls\n%matplotlib inline\n", "")
    scratch = "x = torch.ones(2, 3)\nattention(x, x.T, x)\n"
    below = _with_cells_after_answer(student_notebook(tmp_path / "below.ipynb", "01_attention", CH01_ANSWER, helper),
                                     [scratch])
    checked, notes = in_process.check("01_attention", below)
    assert all(r.passed for r in checked)
    assert notes == ["위에서 3번째 코드 셀의 2번째 줄: `attention(x, x.T, x)` (RuntimeError: mat1 and mat2 shapes cannot be "
                     "multiplied (2x3 and 2x3))에서 오류가 나 실행이 거기서 멈췄습니다. Jupyter의 Run All처럼 그 아래 코드 셀은 "
                     "실행하지 않고, 그 위에서 만든 함수와 클래스로 채점했습니다."]
    above = student_notebook(tmp_path / "above.ipynb", "01_attention", CH01_ANSWER, "raise ValueError('실험')\n" + helper)
    checked, _ = in_process.check("01_attention", above)
    assert not any(r.passed for r in checked)
    assert checked[0].message.startswith("attention 함수를 찾을 수 없습니다: 위에서 1번째 코드 셀의 1번째 줄: "
                                         "`raise ValueError('실험')` (ValueError: 실험)에서 오류가 나 실행이 거기서 멈췄고")
    helper_below = _with_cells_after_answer(student_notebook(tmp_path / "helper.ipynb", "01_attention", CH01_ANSWER),
                                            ["print(1 / 0)\n", helper])
    checked, _ = in_process.check("01_attention", helper_below)
    assert not checked[0].passed and "NameError: name 'my_scores' is not defined" in checked[0].message
    assert "이 이름은 위에서 2번째 코드 셀의 1번째 줄: `print(1 / 0)` (ZeroDivisionError: division by zero)에서" in checked[0].message


def test_a_py_file_that_raises_at_import_is_still_a_load_error(tmp_path):
    """A `.py` file runs as Python imports it: an error at its top level is a load error (nothing is defined)."""
    path = tmp_path / "transformer.py"
    path.write_text(CH01_ANSWER.replace("%timeit my_scores(query, key)", "pass") + "\nraise ValueError('실험')\n",
                    encoding="utf-8")
    checked, notes = in_process.check("01_attention", path)
    assert not any(r.passed for r in checked) and notes == []
    assert "코드를 불러오는 중 오류가 났습니다 (ValueError: 실험, transformer.py" in checked[0].message


def test_a_cell_stopped_by_a_name_defined_below_it(tmp_path):
    """The stopping cell's own error may be a NameError for a name the cells below define (a scratch cell run before
    the cell defining its input): the run still ends, once, and the checks that miss a function name the stop."""
    helper = CH01_HELPER.replace("files = !ls\n%matplotlib inline\n", "")
    path = _with_cells_after_answer(student_notebook(tmp_path / "early.ipynb", "01_attention", CH01_ANSWER),
                                    ["print(later)\n", "later = 1\n" + helper])
    checked, notes = in_process.check("01_attention", path)
    assert not checked[0].passed and "NameError: name 'my_scores' is not defined" in checked[0].message
    assert "(NameError: name 'later' is not defined)" in notes[0]
