"""The Gradescope autograder end to end: the zip, setup.sh and run_autograder in a private /autograder.

Real torch, real sandbox, no Gradescope: bubblewrap binds a test folder over /autograder (and a copy of
/etc, so setup.sh can add its user). Every submission is graded by `python -m grader grade` too, and the
scores must agree; then once more with bubblewrap forced off (GRADER_BUBBLEWRAP=0).
"""
import json
import os
import re
import shutil
import socket
import stat
import zipfile
from pathlib import Path

import pytest

from tests.conftest import PYTHON, ROOT, run

from .private_root import PrivateRoot

pytestmark = [
    pytest.mark.grading, pytest.mark.slow,
    pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("bwrap"), reason="needs root and bubblewrap"),
]

SLEEP_MARK = "4321.5"
# submission id → (where it goes in /autograder/submission, where its code comes from)
SUBMISSIONS = {
    "correct": ("01_attention/transformer.py", ROOT / "solutions/01_attention/transformer.py"),
    "wrong": ("wrong.py", ROOT / "grader/demo_class/answers/hyunwoo.py"),
    "malicious": ("transformer.py", None),
    "unreadable": ("01_attention.ipynb", ROOT / "tests/fixtures/submissions/corrupt.ipynb"),
}
MODES = {"auto": "", "no-bubblewrap": "0"}
TOP_KEYS = {"score", "execution_time", "output", "output_format", "test_output_format", "test_name_format",
            "visibility", "stdout_visibility", "extra_data", "tests", "leaderboard"}
TEST_KEYS = {"score", "max_score", "status", "name", "name_format", "number", "output", "output_format", "tags",
             "visibility", "extra_data"}
FORMATS = {"text", "html", "simple_format", "md", "ansi"}
VISIBILITIES = {"hidden", "after_due_date", "after_published", "visible"}


@pytest.fixture(scope="module")
def listener():
    """A TCP port on the host's loopback that the malicious submission tries to reach."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        yield server.getsockname()[1]


@pytest.fixture(scope="module")
def sources(tmp_path_factory, listener):
    """Each submission's file, named by its id (so `grade` calls it the same)."""
    folder = tmp_path_factory.mktemp("sources")
    found = {}
    for name, (target, origin) in SUBMISSIONS.items():
        path = folder / (name + Path(target).suffix)
        if origin is None:
            text = (Path(__file__).parent / "malicious.py").read_text(encoding="utf-8")
            path.write_text(text.replace("__PORT__", str(listener)).replace("__SLEEP__", SLEEP_MARK), encoding="utf-8")
        else:
            shutil.copy(origin, path)
        found[name] = path
    return found


@pytest.fixture(scope="module")
def autograder_zip(tmp_path_factory):
    out = tmp_path_factory.mktemp("zip") / "autograder-01.zip"
    done = run([PYTHON, "-m", "grader", "gradescope", "01", "--out", str(out)])
    assert done.returncode == 0, done.stderr
    return out


@pytest.fixture(scope="module")
def graded(sources, tmp_path_factory):
    """`python -m grader grade` on the same files: {submission id: its results document}."""
    out = tmp_path_factory.mktemp("graded")
    done = run([PYTHON, "-m", "grader", "grade", "01", *map(str, sources.values()), "--out", str(out), "--jobs", "1",
                "--json", "--no-feedback"])
    assert done.returncode == 0, done.stderr
    return {document["submission"]: document for document in json.loads(done.stdout)}


def _sleepers():
    """Pids of the malicious submission's daemon, if it is still alive anywhere on the host."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if Path(f"/proc/{pid}/cmdline").read_bytes() == f"sleep\0{SLEEP_MARK}\0".encode():
                found.append(int(pid))
        except OSError:
            pass
    return found


def _install(root, autograder_zip):
    """Unpack the zip into /autograder/source and run setup.sh against this venv (nothing is downloaded)."""
    with zipfile.ZipFile(autograder_zip) as archive:
        archive.extractall(root.source)
        for info in archive.infolist():
            os.chmod(root.source / info.filename, (info.external_attr >> 16) & 0o777)
    env = {"PATH": os.defpath, "GRADER_VENV": str(Path(PYTHON).parent.parent)}
    done = root.run(["/autograder/source/setup.sh"], env=env)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture(scope="module", params=list(MODES))
def autograded(request, sources, autograder_zip, tmp_path_factory):
    """(mode, root, {submission id: results.json}) after run_autograder on each submission."""
    root = PrivateRoot(tmp_path_factory.mktemp(request.param))
    _install(root, autograder_zip)
    results = {}
    for name, (target, _) in SUBMISSIONS.items():
        shutil.rmtree(root.submission)
        (root.submission / target).parent.mkdir(parents=True)
        shutil.copy(sources[name], root.submission / target)
        done = root.run(["/autograder/source/run_autograder"],
                        env={"PATH": os.defpath, "GRADER_BUBBLEWRAP": MODES[request.param]})
        assert done.returncode == 0, done.stderr
        results[name] = json.loads(root.results.read_text(encoding="utf-8"))
        results[name]["_left"] = sorted(p.name for p in root.results.parent.iterdir())
        results[name]["_sleepers"] = _sleepers()
    return request.param, root, results


def test_zip_has_the_scripts_at_its_root_and_only_this_chapter(autograder_zip):
    """setup.sh and run_autograder are executable at the top; chapter 02's checks and all solutions stay out."""
    with zipfile.ZipFile(autograder_zip) as archive:
        infos = {info.filename: info for info in archive.infolist()}
    for script in ("setup.sh", "run_autograder"):
        assert (infos[script].external_attr >> 16) & 0o111
    assert "grader/reference/01_attention.json" in infos and "config.json" in infos
    assert "grader/chapters/01_attention/ch01_judge.py" in infos and "grader/gradescope/autograder.py" in infos
    assert not [name for name in infos if "ch02" in name or "02_masking" in name or name.startswith("solutions")]
    setup = (ROOT / "grader/gradescope/setup.sh").read_text(encoding="utf-8")
    assert "torch==$TORCH" in setup and "TORCH=2.13.0" in setup and "download.pytorch.org/whl/cpu" in setup
    assert "matplotlib==$MATPLOTLIB" in setup  # chapter 14's probe reads the students' figures
    pinned = re.search(r'"matplotlib==([\d.]+)"', (ROOT / "pyproject.toml").read_text(encoding="utf-8"))[1]
    assert f"MATPLOTLIB={pinned}" in setup
    assert "nbgrader" not in setup and "jupyter" not in setup


def test_setup_locks_the_grader_files_away(autograded):
    """After setup.sh and grading: /autograder/source is root's alone; the student account exists."""
    _, root, _ = autograded
    assert stat.S_IMODE(root.source.stat().st_mode) == 0o700
    for path in root.source.rglob("*"):
        assert stat.S_IMODE(path.lstat().st_mode) & 0o077 == 0, path
        assert path.lstat().st_uid == 0
    assert re.search(r"^grader-student:", (root.etc / "passwd").read_text(), re.MULTILINE)


def test_results_follow_gradescopes_schema(autograded):
    mode, _, results = autograded
    for name, data in results.items():
        data = {key: value for key, value in data.items() if not key.startswith("_")}
        assert set(data) <= TOP_KEYS, name
        assert isinstance(data["score"], float) and isinstance(data["execution_time"], (int, float))
        assert data["output_format"] in FORMATS and data["stdout_visibility"] in VISIBILITIES
        assert isinstance(data["output"], str) and data["output"]
        assert data["tests"], name
        for test in data["tests"]:
            assert set(test) <= TEST_KEYS and {"score", "max_score", "name", "output", "visibility"} <= set(test)
            assert test["status"] in ("passed", "failed") and test["output_format"] in FORMATS
            assert test["visibility"] in VISIBILITIES and 0 <= test["score"] <= test["max_score"]
        assert abs(data["score"] - sum(test["score"] for test in data["tests"])) < 1e-6
        assert data["extra_data"]["sandbox"] == ({"auto": "bubblewrap", "no-bubblewrap": "subprocess"}[mode]
                                                 if name != "unreadable" else None)


def test_scores_match_python_m_grader_grade(autograded, graded):
    """Same files, same total and same score per check as `python -m grader grade`."""
    _, _, results = autograded
    for name, data in results.items():
        expected = graded[name]
        assert data["score"] == expected["score"], name
        mine = {test["extra_data"]["check"]: test["score"] for test in data["tests"]}
        assert mine == {test["name"]: test["score"] for test in expected["tests"]}, name
    assert results["correct"]["score"] == 100.0
    assert 0 < results["wrong"]["score"] < 100.0
    assert results["unreadable"]["score"] == 0.0


def test_malicious_submission_is_contained(autograded):
    """It cannot read the references, write results, reach the network, or leave a process behind."""
    _, _, results = autograded
    data = results["malicious"]
    assert data["score"] == 100.0, [test["output"] for test in data["tests"] if test["status"] == "failed"]
    assert data["_left"] == ["results.json"]
    assert "pwned" not in json.dumps(data)
    assert data["_sleepers"] == []


def test_malicious_attacks_work_without_the_sandbox(autograded, sources):
    """Control: the same attacks, run as root in the same container, do succeed (so the test above means something)."""
    _, root, _ = autograded
    code = ("import runpy, sys; namespace = runpy.run_path(sys.argv[1]); print('|'.join(namespace['BROKEN_IN']))")
    shutil.copy(sources["malicious"], root.submission / "control.py")
    done = root.run([PYTHON, "-c", code, "/autograder/submission/control.py"], env={"PATH": os.defpath})
    try:
        assert done.returncode == 0, done.stderr
        broken = done.stdout.split("\n")[-2].split("|")
        assert "read /autograder/source/grader/reference/01_attention.json" in broken
        assert "wrote /autograder/results/pwned" in broken and "network" in broken
        assert _sleepers()
    finally:
        for pid in _sleepers():
            os.kill(pid, 9)
        (root.results.parent / "pwned").unlink(missing_ok=True)


def test_korean_messages_and_hidden_checks(autograded):
    """Unreadable → a Korean reason; hidden checks after_published; no hidden value in anything shown."""
    _, _, results = autograded
    assert "노트북" in results["unreadable"]["output"]
    reference = json.loads((ROOT / "grader/reference/01_attention.json").read_text(encoding="utf-8"))
    hidden_cases = [name for name in reference["cases"] if not name.startswith(("seed", "scaling", "saturation"))]
    hidden_numbers = set()
    for case in hidden_cases:
        _collect_floats(reference["cases"][case], hidden_numbers)
    for name, data in results.items():
        visibilities = {test["visibility"] for test in data["tests"]}
        assert visibilities == {"visible", "after_published"}, name
        text = json.dumps(data, ensure_ascii=False)
        leaked = [number for number in hidden_numbers if number in text]
        assert not leaked, (name, leaked[:5])
    wrong = results["wrong"]
    assert any(test["status"] == "failed" and re.search("[가-힣]", test["output"]) for test in wrong["tests"])
    assert "<table" in results["correct"]["output"]  # the student's seed-input heatmap


def _collect_floats(value, found):
    """Every float of the hidden references written as the results would show it (4 decimals, not 0 or 1)."""
    if isinstance(value, dict):
        for item in value.values():
            _collect_floats(item, found)
    elif isinstance(value, list):
        for item in value:
            _collect_floats(item, found)
    elif isinstance(value, float) and 1e-3 < abs(value) and abs(abs(value) - 1) > 1e-3:
        found.add(f"{value:.4f}")


@pytest.fixture(scope="module")
def fallback_root(tmp_path_factory):
    """An autograder with a 3 s limit, installed in a private /autograder, bubblewrap forced off."""
    folder = tmp_path_factory.mktemp("limits")
    archive = folder / "autograder-01.zip"
    done = run([PYTHON, "-m", "grader", "gradescope", "01", "--out", str(archive), "--timeout", "3",
                "--hidden-visibility", "hidden"])
    assert done.returncode == 0, done.stderr
    root = PrivateRoot(folder / "root")
    _install(root, archive)
    return root


def _grade_text(root, code, name="transformer.py"):
    shutil.rmtree(root.submission)
    root.submission.mkdir()
    (root.submission / name).write_text(code, encoding="utf-8")
    done = root.run(["/autograder/source/run_autograder"], env={"PATH": os.defpath, "GRADER_BUBBLEWRAP": "0"})
    assert done.returncode == 0, done.stderr
    return json.loads(root.results.read_text(encoding="utf-8"))


@pytest.mark.parametrize("code, status, words", [
    ("while True:\n    pass\n", "timeout", "시간 제한(3초)"),
    ("while True:\n    print('x' * 10000)\n", "output_limit", "출력이나 돌려준 값이 너무 커서"),
    ("import os\nos.kill(os.getpid(), 9)\n", "crashed", "비정상"),
])
def test_hangs_floods_and_crashes_still_get_results(fallback_root, code, status, words):
    """Whatever the student's code does, results.json says why it scored 0; hidden checks as configured."""
    data = _grade_text(fallback_root, code)
    assert data["score"] == 0.0 and data["extra_data"]["status"] == status
    assert words in data["output"]
    assert {test["visibility"] for test in data["tests"]} == {"visible", "hidden"}


def test_a_wrong_upload_gets_a_korean_message(fallback_root):
    data = _grade_text(fallback_root, "%PDF-1.4", name="report.pdf")
    assert data["score"] == 0.0 and "report.pdf" in data["output"] and "transformer.py 하나를 제출하세요" in data["output"]


def test_results_are_written_even_if_the_grader_dies(fallback_root):
    """run_autograder's own last resort: the grader's interpreter fails to start at all."""
    python_path = fallback_root.source / "python-path"
    saved = python_path.read_text()
    python_path.write_text("/bin/false\n")
    try:
        data = _grade_text(fallback_root, "x = 1\n")
    finally:
        python_path.write_text(saved)
    assert data["score"] == 0.0 and data["extra_data"]["status"] == "grader_error" and "조교" in data["output"]
