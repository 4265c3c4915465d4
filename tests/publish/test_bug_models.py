"""Bug models are grader-only: students get their results on the visible cases, never their code.

The build runs each chapter's `ModelCode` (the judge's `### BEGIN BUG MODELS` region) and stores the results in
the references; a student's `selfcheck/` judge has `MODEL_CODE = None` instead of the region. Grading reads the
stored results only, so missing or damaged ones must fail loudly (build --check, or an error while judging).
"""
import ast
import json
import subprocess

import pytest

from grader import chapters, paths
from grader.publish import drift, regions
from grader.checks import chapter as load_chapter
from grader.checks import references
from grader.checks.bugmodels import KEY, MissingModelResults
from grader.checks.execute import execute
from grader.checks.framework import judge
from tests import fixtures
from tests.publish.test_leaks import _lines_of, _meaningful, _student_files
from tests.conftest import PYTHON

pytestmark = pytest.mark.build

CHAPTER_IDS = [c.id for c in chapters.all_chapters()]
WITH_MODELS = [c.id for c in chapters.all_chapters() if load_chapter(c.id).model_code is not None]


def _judge_text(chapter_id):
    return chapters.find(chapter_id).judge_file.read_text(encoding="utf-8")


def _region_names(text):
    """The top-level names the bug-model region defines (functions, classes, assigned names), MODEL_CODE aside."""
    lines = text.splitlines()
    names = set()
    for start, stop in regions._regions(text, regions.BEGIN_MODELS, regions.END_MODELS):
        for node in ast.parse("\n".join(lines[start + 1:stop])).body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                names.add(node.name)
            for target in getattr(node, "targets", [getattr(node, "target", None)]):
                if isinstance(target, ast.Name):
                    names.add(target.id)
    return names - {"MODEL_CODE"}


def _defined(tree):
    """Every name a module defines at its top level, and MODEL_CODE's assigned value."""
    names, model_code = set(), "missing"
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        for target in getattr(node, "targets", [getattr(node, "target", None)]):
            if isinstance(target, ast.Name):
                names.add(target.id)
                if target.id == "MODEL_CODE":
                    model_code = ast.unparse(node.value)
    return names, model_code


def _shipped_judges(chapter_id):
    return [p for p in _student_files(chapter_id) if p.name == f"ch{chapter_id[:2]}_judge.py"]


@pytest.mark.parametrize("chapter_id", WITH_MODELS)
def test_model_code_lives_in_the_grader_only_region(chapter_id):
    """The chapter's ModelCode (its `models` and `call`) is defined inside the judge's bug-model region."""
    text = _judge_text(chapter_id)
    spans = [(start + 1, stop + 1) for start, stop in regions._regions(text, regions.BEGIN_MODELS, regions.END_MODELS)]
    assert len(spans) == 1, "one contiguous bug-model region per judge"
    code = load_chapter(chapter_id).model_code
    for function in (code.models, code.call):
        assert any(start < function.__code__.co_firstlineno < stop for start, stop in spans), function


@pytest.mark.parametrize("chapter_id", CHAPTER_IDS)
def test_no_bug_model_code_reaches_students(chapter_id):
    """The shipped judge (exercises/NN/selfcheck/; the notebooks carry the same bytes, test_student_material) defines
    none of the region's names, and MODEL_CODE = None."""
    secret = _region_names(_judge_text(chapter_id))
    shipped = _shipped_judges(chapter_id)
    assert len(shipped) == 1
    for path in shipped:
        text = path.read_text(encoding="utf-8")
        assert regions.BEGIN_MODELS not in text and regions.END_MODELS not in text
        names, model_code = _defined(ast.parse(text))
        assert not names & secret, (path, names & secret)
        assert model_code == ("None" if chapter_id in WITH_MODELS else "missing"), path


@pytest.mark.parametrize("chapter_id", WITH_MODELS)
def test_no_bug_model_line_reaches_students(chapter_id):
    """No code line of the bug-model region stands in any student file (line by line, like the hidden tests). No
    secret: a line that also stands in the public code of a checks module (e.g. `return []`), or in the chapter's
    stub module (earlier chapters ship solved, e.g. chapter 02's `attention` in chapter 03's models)."""
    text = _judge_text(chapter_id)
    stub = (paths.EXERCISES / chapter_id / "transformer.py").read_text(encoding="utf-8")
    public = {line.strip() for path in paths.check_modules()
              for line in regions.remove_models(regions.remove_hidden(path.read_text(encoding="utf-8"))).splitlines()}
    public |= {line.strip() for line in stub.splitlines()}
    secret = _meaningful(regions.region_lines(text, "models")) - public
    assert secret
    leaks = {(str(p.relative_to(paths.ROOT)), line) for p in _student_files(chapter_id) for line in _lines_of(p) & secret}
    assert not leaks


SHIPPED_PROBE = r"""
import json, sys, traceback, torch


def probe(folder, chapter_id):
    import selfcheck
    from selfcheck import bugmodels, compare
    chapter = selfcheck.chapter(chapter_id)
    judge = selfcheck.judge_module(chapter_id)
    assert chapter.model_code is None
    modules = [m for name, m in list(sys.modules.items()) if name.startswith("selfcheck")]
    assert not [m for m in modules for v in vars(m).values() if isinstance(v, bugmodels.ModelCode)]
    for value in vars(judge).values():
        if isinstance(value, bugmodels.BugModels):
            assert set(vars(value)) == {"name", "same", "bugs", "student", "tie_break"}, vars(value)
    references = json.load(open(f"{folder}/selfcheck/reference.json"))

    def close(found, expected):
        found = found[0] if isinstance(found, tuple) and found else found
        if not isinstance(found, torch.Tensor) or expected.get("kind") != "tensor":
            return False
        return compare.close(found.detach().to(torch.float64), compare.decode(expected))

    reproduced = []
    for case, reference in references["cases"].items():
        result = reference.get("result")
        if not isinstance(result, dict) or not reference["bug_models"]["order"]:
            continue
        inputs, spec = chapter.probe.make_inputs(case), chapter.probe.CASES[case]
        expected = result["items"][0] if result.get("kind") == "tuple" else result
        for name, function in list(vars(judge).items()):
            if not callable(function) or isinstance(function, type):
                continue
            for arguments in (inputs, (spec, *inputs), (case, inputs), (spec, inputs)):
                try:
                    if close(function(*arguments), expected):
                        reproduced.append((name, case))
                except Exception:
                    pass
    assert not reproduced, reproduced


for folder, chapter_id in zip(sys.argv[1::2], sys.argv[2::2]):
    for name in [name for name in sys.modules if name == "selfcheck" or name.startswith("selfcheck.")]:
        del sys.modules[name]  # each chapter's package imported afresh, from its own folder only
    sys.path.insert(0, folder)
    try:
        probe(folder, chapter_id)
        print(json.dumps([chapter_id, "ok"]), flush=True)
    except BaseException:
        print(json.dumps([chapter_id, traceback.format_exc()]), flush=True)
    finally:
        sys.path.remove(folder)
"""


def _probe_outcomes(chapter_ids):
    """{chapter: "ok" or the traceback} of SHIPPED_PROBE on each chapter, one after another in one process (one
    torch import, not one per chapter; each chapter's `selfcheck` package is imported afresh from its own folder)."""
    if not chapter_ids:
        return {}
    arguments = [argument for chapter_id in chapter_ids for argument in (str(paths.EXERCISES / chapter_id), chapter_id)]
    done = subprocess.run([PYTHON, "-c", SHIPPED_PROBE, *arguments], capture_output=True, text=True, timeout=600)
    outcomes = dict(json.loads(line) for line in done.stdout.splitlines() if line.startswith("["))
    missing = set(chapter_ids) - set(outcomes)
    assert not missing, f"the probe stopped (exit {done.returncode}) before {sorted(missing)}: {done.stderr[-3000:]}"
    return outcomes


@pytest.fixture(scope="module")
def shipped_probes(request):
    """The probe's outcome for every chapter whose test below was collected (`-m ch05` probes chapter 05 only)."""
    return _probe_outcomes([item.callspec.params["chapter_id"] for item in request.session.items
                            if getattr(item, "originalname", None) == "test_the_shipped_judge_cannot_compute_the_answer"])


@pytest.mark.parametrize("chapter_id", WITH_MODELS)
def test_the_shipped_judge_cannot_compute_the_answer(chapter_id, shipped_probes):
    """Imported as a student imports it: the chapter has no ModelCode, MODELS holds no model callables, and no
    function of the judge turns a visible case's inputs into the reference result."""
    assert shipped_probes[chapter_id] == "ok"


@pytest.mark.parametrize("chapter_id", WITH_MODELS)
def test_every_case_stores_its_model_results(chapter_id):
    """Each case of the references has `bug_models` (empty where no model applies), visible ones shipped too."""
    for document in (references.load(chapter_id),
                     json.loads((paths.EXERCISES / chapter_id / "selfcheck/reference.json").read_text(encoding="utf-8"))):
        assert all(KEY in case for case in document["cases"].values())
        assert any(case[KEY]["order"] for case in document["cases"].values())


def _failing_fixture(chapter_id):
    """(case, outcome) of a fixture whose failed check consults the models on a visible case."""
    fixture = {"01_attention": "no_scale", "03_multihead": "no_unsqueeze", "06_sublayer": "post_norm"}[chapter_id]
    contract = load_chapter(chapter_id)
    source = fixtures.path(f"ch{chapter_id[:2]}", fixture).read_text(encoding="utf-8")
    return contract, execute(source, contract.probe, contract.probe.case_names())


@pytest.mark.parametrize("chapter_id", ["01_attention", "03_multihead", "06_sublayer"])
def test_missing_model_results_fail_loudly_while_judging(chapter_id):
    """Without the stored results the judge raises (the grader reports an internal error): no silent verdict."""
    contract, outcome = _failing_fixture(chapter_id)
    damaged = references.load(chapter_id)
    for case in damaged["cases"].values():
        case.pop(KEY)
    with pytest.raises(MissingModelResults):
        judge(contract.checks, contract.probe, outcome, damaged)
    intact = judge(contract.checks, contract.probe, outcome, references.load(chapter_id))
    assert not all(result.passed for result in intact)


def _edits(document):
    """Ways a reference's model results can be missing or damaged: name → edit(document)."""
    case = next(name for name, c in document["cases"].items() if c[KEY]["order"])

    def tensor_data(result):
        """The first stored tensor's numbers in a result: a tensor, a tuple's items, a dict's values (a tensor whose
        first value is not a finite number, e.g. a bug model's "nan" loss, is passed over)."""
        data = result.get("data") if isinstance(result, dict) else None
        if isinstance(data, list) and data and type(data[0]) in (int, float):
            return data
        children = result.values() if isinstance(result, dict) else result if isinstance(result, list) else ()
        return next((found for child in children if (found := tensor_data(child)) is not None), None)

    def value(d):
        data = next(found for r in d["cases"][case][KEY]["results"] if r["kind"] != "error"
                    and (found := tensor_data(r)) is not None)
        data[0] = data[0] * 1.01 + 0.01

    return {
        "removed": lambda d: d["cases"][case].pop(KEY),
        "emptied": lambda d: d["cases"][case][KEY]["order"].clear(),
        "value": value,
        "label": lambda d: d["cases"][case][KEY]["order"][0].__setitem__(0, "another_bug"),
        "index": lambda d: d["cases"][case][KEY]["order"][0].__setitem__(1, 999),
        "results": lambda d: d["cases"][case][KEY].pop("results"),
    }


@pytest.mark.parametrize("chapter_id", WITH_MODELS)
def test_damaged_model_results_fail_the_build_check(chapter_id, tmp_path):
    """A reference file whose model results are missing, relabelled, re-pointed or off by 1 % is out of date."""
    built = (paths.REFERENCE / f"{chapter_id}.json").read_bytes()
    for name, edit in _edits(json.loads(built)).items():
        damaged = json.loads(built)
        edit(damaged)
        on_disk = tmp_path / "reference.json"
        on_disk.write_text(json.dumps(damaged), encoding="utf-8")
        assert not drift.unchanged(on_disk, built), name
        assert drift.differences(on_disk.read_bytes(), built), name


def test_equal_results_stored_once_compare_model_by_model():
    """The drift check compares results model by model: a result stored once for several models, or once per
    model, is the same reference."""
    document = references.load("02_masking")
    assert any(len(c[KEY]["results"]) < len(c[KEY]["order"]) for c in document["cases"].values())
    copied = json.loads(json.dumps(document))
    for case in copied["cases"].values():
        stored = case[KEY]
        for entry in stored["order"]:
            stored["results"].append(stored["results"][entry[1]])
            entry[1] = len(stored["results"]) - 1
    assert drift.differences(json.dumps(document).encode(), json.dumps(copied).encode()) == []
