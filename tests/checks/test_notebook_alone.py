"""The notebook alone is enough (Colab, an empty folder): its setup cell unpacks the embedded `selfcheck` package and
the check cells give the same verdicts and Korean messages as in the chapter's exercise folder (whose `selfcheck/` joins
`exercises/_selfcheck/`), offline."""
import json

import pytest

from grader import chapters, paths
from grader.publish import embedded, shipping
from tests import fixtures
from tests.checks.support import carried_package, copy_folder
from tests.grading.helpers import filled_notebook

pytestmark = [pytest.mark.checks, pytest.mark.ch01, pytest.mark.slow]

CHAPTER = "01_attention"
RELEASE = paths.RELEASE / CHAPTER


def executed(folder, source):
    """Run the released notebook filled with `source` in `folder` with a real kernel (errors kept as outputs);
    return {check cell id: its outputs as text}."""
    import nbclient
    import nbformat

    path = folder / f"{CHAPTER}.ipynb"
    path.write_text(filled_notebook(source, RELEASE / f"{CHAPTER}.ipynb"), encoding="utf-8")
    notebook = nbformat.read(str(path), as_version=4)
    nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3", allow_errors=True,
                            resources={"metadata": {"path": str(folder)}}).execute()
    return {cell["id"]: _text(cell["outputs"]) for cell in notebook.cells
            if cell.get("metadata", {}).get("nbgrader", {}).get("grade") and "verify(" in cell["source"]}


def _text(outputs):
    parts = []
    for output in outputs:
        if output.get("output_type") == "stream":
            parts.append(output["text"])
        elif output.get("output_type") == "error":
            parts.append(f"{output['ename']}: {output['evalue']}")
    return "".join(parts)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """{(answer, where): check outputs} for the solution and one mutant, alone and beside `selfcheck/`."""
    import os

    saved = os.environ.pop("PYTHONPATH", None)  # the kernel finds no selfcheck but the one the notebook carries
    try:
        out = {}
        for answer, source in (("solution", paths.SOLUTIONS / CHAPTER / "transformer.py"),
                               ("no_scale", fixtures.path("ch01", "no_scale"))):
            text = source.read_text(encoding="utf-8")
            alone = tmp_path_factory.mktemp(f"alone-{answer}")
            out[answer, "alone"] = executed(alone, text)
            assert sorted(p.name for p in alone.iterdir()) == [f"{CHAPTER}.ipynb"]  # nothing written beside it
            beside = copy_folder(paths.EXERCISES / CHAPTER, tmp_path_factory.mktemp(f"beside-{answer}") / CHAPTER)
            out[answer, "beside"] = executed(beside, text)
        return out
    finally:
        if saved is not None:
            os.environ["PYTHONPATH"] = saved


def test_the_solution_passes_every_visible_check_alone(runs):
    outputs = runs["solution", "alone"]
    assert outputs and all(text.startswith("통과:") for text in outputs.values()), outputs
    assert "ModuleNotFoundError" not in json.dumps(outputs, ensure_ascii=False)


def test_a_mutant_gets_the_same_korean_verdicts_alone_as_beside_selfcheck(runs):
    alone, beside = runs["no_scale", "alone"], runs["no_scale", "beside"]
    assert alone == beside
    failed = [text for text in alone.values() if text.startswith("AssertionError")]
    assert failed and any("√d_k" in text for text in failed)
    assert runs["solution", "alone"] == runs["solution", "beside"]


def test_the_setup_cell_is_locked_ungraded_and_carries_visible_checks_only():
    """The setup cell is read-only and not graded (so the grader never runs it as student code); its package is
    exactly the chapter's shipped files: its own `selfcheck/` (references of the visible cases only) and the shared
    framework files it uses, byte for byte as in `exercises/`."""
    notebook = json.loads((RELEASE / f"{CHAPTER}.ipynb").read_text(encoding="utf-8"))
    (cell,) = [c for c in notebook["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == embedded.CELL_ID]
    assert cell["metadata"]["nbgrader"]["locked"] and not cell["metadata"]["nbgrader"]["grade"]
    carried = carried_package(RELEASE / f"{CHAPTER}.ipynb")
    chapter = chapters.find(CHAPTER)
    shipped = {name: (paths.EXERCISES / shipping.exercise_path(chapter, name)).read_bytes() for name in carried}
    assert carried == shipped
    own = {f"selfcheck/{p.name}" for p in (paths.EXERCISES / CHAPTER / "selfcheck").iterdir() if p.is_file()}
    assert own <= carried.keys() and {"selfcheck/ch01_probe.py", "selfcheck/reference.json"} <= own
