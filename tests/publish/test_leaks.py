"""Nothing students receive contains a solution line of their chapter, or any hidden-test line."""
import json
import re

import pytest

from grader import chapters, paths
from grader.publish import codechange, regions, shipping

pytestmark = pytest.mark.build

INLINE_CODE = re.compile(r"`([^`\n]+)`")
BARE_CALL = re.compile(r"^[\w.]+\([^()]*\)$")  # `optimizer.step()`, `nn.init.xavier_uniform_(p)`: an API's name
TRIVIAL = {"", "pass", "return", "else:", "try:", "finally:", ")", "]", "}", '"""'}


def _meaningful(lines):
    """Code lines worth matching: not blank, not comments, not bare punctuation or keywords."""
    out = set()
    for line in lines:
        stripped = line.strip()
        if stripped in TRIVIAL or stripped.startswith("#") or len(stripped) < 8:
            continue
        out.add(stripped)
    return out


def _secret(text, kind):
    """Lines found only inside `kind` regions of `text` (a line that also stands in public code is no secret)."""
    public = regions.remove_hidden(text) if kind == "hidden" else regions.clear_solutions(text)
    return _meaningful(regions.region_lines(text, kind)) - {line.strip() for line in public.splitlines()}


def _hidden_lines():
    """Hidden-region lines of every checks module and source notebook, minus any line that also stands
    in public code somewhere (e.g. `def judge(evidence):` in another chapter's visible checks)."""
    texts = [path.read_text(encoding="utf-8") for path in paths.check_modules()]
    for path in sorted(paths.NBGRADER_SOURCE.glob("*/*.ipynb")):
        texts += ["".join(cell["source"]) for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]]
    public = {line.strip() for text in texts for line in regions.remove_hidden(text).splitlines()}
    return set().union(*(_secret(text, "hidden") for text in texts)) - public


def _student_files(chapter_id):
    """Everything a student of the chapter receives: its exercise folder, the shared framework, its release."""
    for root in (paths.EXERCISES / chapter_id, paths.EXERCISES / shipping.SHARED, paths.RELEASE / chapter_id):
        for path in sorted(root.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                yield path


def _lines_of(path):
    """Every line of a file (a notebook's cells, markdown included), stripped, and again without a diff's
    `+`/`-` prefix, so `+    scores = …` in a code-change section counts as `scores = …`; plus every inline code
    span of Markdown that is an assignment, so a sentence quoting `memory = model.encode(src, src_mask)` counts as
    that line."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".ipynb":
        text = "\n".join("".join(cell["source"]) for cell in json.loads(text)["cells"])
    lines = text.splitlines()
    spans = set()
    if path.suffix in (".md", ".ipynb"):  # a quoted statement (an assignment), not a name like `optimizer.step()`
        spans = {span.strip() for span in INLINE_CODE.findall(text) if " = " in span}
    return {line.strip() for line in lines} | {line[1:].strip() for line in lines if line[:1] in "+-"} | spans


def _solution_lines(index):
    """Chapter `index`'s solution lines, minus those the previous chapter's finished module already shows
    (a student of chapter N has chapter N-1 solved). No other exemption: a line of this chapter's regions
    that stands anywhere in its material is a leak, even if the same text appears in public code."""
    all_chapters = chapters.all_chapters()
    solution = _meaningful(regions.region_lines(all_chapters[index].module.read_text(encoding="utf-8"), "solution"))
    if index == 0:
        return solution
    earlier = codechange.finished_module(all_chapters[index - 1])
    return solution - {line.strip() for line in earlier.splitlines()}


def test_leak_detector_sees_the_regions():
    """The leak test has something to look for: solution and hidden regions are found and non-empty."""
    assert _hidden_lines()
    for chapter in chapters.all_chapters():
        assert _secret(chapter.module.read_text(encoding="utf-8"), "solution")


@pytest.mark.parametrize("chapter", [c.id for c in chapters.all_chapters()])
def test_no_hidden_test_line_reaches_students(chapter):
    """No line from a hidden-test region (checks modules, source notebooks) appears in exercises/ or release/."""
    hidden = _hidden_lines()
    leaks = {(str(p.relative_to(paths.ROOT)), line) for p in _student_files(chapter) for line in _lines_of(p) & hidden}
    assert not leaks


@pytest.mark.parametrize("chapter", [c.id for c in chapters.all_chapters()])
def test_no_solution_line_reaches_its_own_or_earlier_chapters(chapter):
    """A chapter's solution lines appear neither in its own student material (code, chapter text, code-change
    diff, notebook) nor in earlier chapters' (later chapters ship earlier chapters solved, by design)."""
    all_chapters = chapters.all_chapters()
    index = [c.id for c in all_chapters].index(chapter)
    solution = _solution_lines(index)
    leaks = set()
    for earlier_or_same in all_chapters[: index + 1]:
        for path in _student_files(earlier_or_same.id):
            leaks |= {(str(path.relative_to(paths.ROOT)), line) for line in _lines_of(path) & solution}
    assert not leaks


def test_leak_detector_reads_diff_lines(tmp_path):
    """A solution line shown as an added diff line (`+    scores = …`) is caught, in a README and in a notebook."""
    line = "    scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(d_k)"
    readme = tmp_path / "README.md"
    readme.write_text(f"```diff\n+{line}\n```\n", encoding="utf-8")
    notebook = tmp_path / "n.ipynb"
    notebook.write_text(json.dumps({"cells": [{"source": ["```diff\n", f"+{line}\n"]}]}), encoding="utf-8")
    for path in (readme, notebook):
        assert line.strip() in _lines_of(path) & _solution_lines(0)


def _shipped_strings(chapter_id):
    """Every string constant of the chapter's shipped self-check modules (its diagnoses, titles and hints)."""
    import ast

    found = set()
    for path in sorted((paths.EXERCISES / chapter_id / "selfcheck").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found |= {(path.name, node.value) for node in ast.walk(tree)
                  if isinstance(node, ast.Constant) and isinstance(node.value, str)}
    return found


@pytest.mark.parametrize("chapter", [c.id for c in chapters.all_chapters()])
def test_no_diagnosis_quotes_a_solution_line(chapter):
    """A diagnosis says what is wrong and what the code must do, never the solution's own line: no solution line of
    the chapter stands inside a message of its or an earlier chapter's self-check, not even within a sentence. A bare
    call (`optimizer.step()`) may be named, as the stubs' TODOs name the functions to use; a statement (an
    assignment, a return, a loop or a condition) may not."""
    all_chapters = chapters.all_chapters()
    index = [c.id for c in all_chapters].index(chapter)
    solution = {line for line in _solution_lines(index) if len(line) >= 12 and not BARE_CALL.match(line)}
    quoted = {(earlier.id, name, line) for earlier in all_chapters[: index + 1]
              for name, text in _shipped_strings(earlier.id) for line in solution if line in text}
    assert not quoted
