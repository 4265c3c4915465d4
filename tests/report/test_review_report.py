"""End to end: `grade` keeps the graded sources, and the class report lists code that reaches into the grader and
pairs of similar submissions, with the threshold the instructor gives."""
import subprocess
import sys

import pytest

from tests.grading.helpers import ROOT, grade

from .test_review import CHAPTER, SHARED_DEVIATION

pytestmark = [pytest.mark.report, pytest.mark.slow]


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """Chapter 03: two students sharing a helper, one that walks sys.modules, one plain solution."""
    folder = tmp_path_factory.mktemp("review")
    lines = (ROOT / "solutions" / CHAPTER / "transformer.py").read_text(encoding="utf-8").splitlines(keepends=True)
    solution = "".join(line for line in lines if "SOLUTION" not in line)
    sources = {"kim": solution + SHARED_DEVIATION, "lee": solution + SHARED_DEVIATION,
               "park": "import sys\nprobes = [m for m in sys.modules if 'probe' in m]\n" + solution, "choi": solution}
    for name, source in sources.items():
        (folder / f"{name}.py").write_text(source, encoding="utf-8")
    out = folder / "out"
    done = grade(["03", *(folder / f"{name}.py" for name in sources), "--out", out, "--similarity", "0.5"])
    assert done.returncode == 0, done.stderr
    return out, sources


def test_graded_sources_are_kept(graded):
    """sources/<submission>.py holds exactly what was graded."""
    out, sources = graded
    assert {path.stem: path.read_text(encoding="utf-8") for path in (out / "sources").glob("*.py")} == sources


def test_report_lists_reaching_code_with_its_line(graded):
    """park's line 2 (sys.modules) is on the review list; nobody else is."""
    out, _ = graded
    report = (out / "report.md").read_text(encoding="utf-8")
    section = report.split("## 검토 목록", 1)[1].split("\n## ", 1)[0]
    assert "| park | park | 2 |" in section and "sys.modules" in section
    assert "kim" not in section and "choi" not in section


def test_report_shows_the_similar_pair_side_by_side(graded):
    """kim and lee are the one similar pair; report.html shows both sources with the shared code marked."""
    out, _ = graded
    section = (out / "report.md").read_text(encoding="utf-8").split("## 서로 비슷한 제출", 1)[1].split("\n## ", 1)[0]
    assert "| kim | lee |" in section and "park" not in section and "choi" not in section
    html = (out / "report.html").read_text(encoding="utf-8")
    assert 'class="side-by-side"' in html and "<mark>" in html


def test_threshold_is_an_option_of_the_report_too(graded):
    """`python -m grader.report --similarity 1.01` rewrites the report without the pair."""
    out, _ = graded
    done = subprocess.run([sys.executable, "-m", "grader.report", str(out), "--chapter", "03", "--similarity", "1.01"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    section = (out / "report.md").read_text(encoding="utf-8").split("## 서로 비슷한 제출", 1)[1].split("\n## ", 1)[0]
    assert "없음" in section and "| kim | lee |" not in section
