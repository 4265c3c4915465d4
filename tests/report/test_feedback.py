"""Per-student feedback pages: files, content, the heatmap, and nothing hidden."""
import json
import re
from functools import lru_cache

import pytest

from grader import paths
from grader.publish import regions
from grader.checks import judge_module, references
from grader.report import page, picture
from grader.report.result_files import diagnosis

from .conftest import BROKEN, CHAPTER, GRADED, INJECTION
from tests.conftest import floats_in

pytestmark = pytest.mark.report
STUDENTS = sorted(GRADED) + sorted(BROKEN)
NUMBER = re.compile(r"-?\d+\.\d+")
MISSING_PICTURE = ["only_output", "stub", "looper", "crasher", "garbled"]


def _folder(graded, student):
    return graded[0] / "feedback" / student


def _texts(folder):
    """The feedback's Markdown and HTML."""
    return (folder / "feedback.md").read_text(encoding="utf-8"), (folder / "feedback.html").read_text(encoding="utf-8")


def _md(text):
    """`text` as the Markdown page writes it (a backslash only where a renderer would read HTML)."""
    return page.md_text(text)


def _heatmaps(html):
    """[(caption, [[cell value text, …], …])] of the page's heatmap tables."""
    found = []
    for caption, table in re.findall(r"<figcaption>(.*?)</figcaption><table class=\"heatmap\"(.*?)</table>", html):
        rows = [re.findall(r'data-value="([^"]*)"', row) for row in table.split("</tr>")]
        found.append((caption, [row for row in rows if row]))
    return found


@pytest.mark.parametrize("student", STUDENTS)
def test_every_student_gets_markdown_html_and_a_heatmap(graded, student):
    """feedback.md and feedback.html exist for each results.json; the HTML draws the reference heatmap as coloured
    cells (3 × 3 for the seed input), and the student's beside it when there is one; only the two files are written."""
    folder = _folder(graded, student)
    assert (folder / "feedback.md").stat().st_size > 0
    assert sorted(p.name for p in folder.iterdir()) == ["feedback.html", "feedback.md"]
    maps = _heatmaps((folder / "feedback.html").read_text(encoding="utf-8"))
    assert maps[-1][0] == "기준 p_attn" and len(maps[-1][1]) == 3 and all(len(row) == 3 for row in maps[-1][1])
    assert len(maps) == (1 if student in MISSING_PICTURE else 2)
    assert graded[1]["results"] == len(STUDENTS)


def test_heatmap_cells_hold_the_students_and_the_reference_values(graded, documents):
    """The cells are the student's seed p_attn and the reference, to 3 decimals, in row order, coloured by value."""
    html = (_folder(graded, "no_scale") / "feedback.html").read_text(encoding="utf-8")
    (mine, student), (_, reference) = _heatmaps(html)
    assert mine == "내 p_attn"
    assert student == [[f"{x:.3f}" for x in row] for row in documents["no_scale"]["picture"]["student"]]
    assert reference == [[f"{x:.3f}" for x in row] for row in picture.reference(CHAPTER)]
    assert student != reference
    assert re.search(r'<td style="background:#[0-9a-f]{6};color:#fff" title="0\.999"', html)  # the darkest cell


def test_html_is_self_contained(graded):
    """The page draws inline (nbgrader releases the .html file alone) and loads nothing: no src, href or url()."""
    html = (_folder(graded, "no_scale") / "feedback.html").read_text(encoding="utf-8")
    assert '<table class="heatmap"' in html
    assert not re.search(r"(src|href)=|url\(|@import|<link|<img", html)


@pytest.mark.parametrize("student", STUDENTS)
def test_score_and_every_failed_diagnosis_are_shown(graded, documents, student):
    """The page states the score of results.json and every failed check's diagnosis, line by line."""
    markdown, html = _texts(_folder(graded, student))
    document = documents[student]
    assert f"점수: {round(document['score'], 2):g} / {document['max_score']:g}점" in markdown
    for test in document["tests"]:
        if test["status"] == "failed":
            for line in diagnosis(test).splitlines():
                assert _md(line) in markdown
    assert "통과" in markdown and "검사별 점수" in html


def test_a_correct_submission_is_congratulated(graded):
    """A full score says so and lists no diagnosis."""
    markdown, _ = _texts(_folder(graded, "solution"))
    assert "모든 검사를 통과했습니다" in markdown
    assert "실패한 검사의 진단" not in markdown


@pytest.mark.parametrize("student", MISSING_PICTURE)
def test_missing_student_picture_gets_a_korean_note(graded, documents, student):
    """No p_attn from the student (error, wrong return, no run) → a Korean note instead of the student's heatmap."""
    assert picture.student(_result(documents, student)) is None
    markdown, _ = _texts(_folder(graded, student))
    assert "제출한 코드의 그림은 그릴 수 없습니다" in markdown


def test_run_status_is_explained(graded):
    """A timed-out run's page says in Korean that the run was stopped."""
    markdown, _ = _texts(_folder(graded, "looper"))
    assert "시간 제한을 넘어 실행을 중단했습니다" in markdown


def test_unreadable_banner_says_why(graded):
    """An unreadable file's banner, the first thing after the score, names the reason (here: cut short), not a
    generic hint about formats and encodings."""
    markdown, _ = _texts(_folder(graded, "garbled"))
    banner = next(line for line in markdown.splitlines() if line.startswith("> "))
    assert banner.startswith("> 제출 파일을 읽지 못했습니다: ") and BROKEN["garbled"][2] in banner
    assert "인코딩" not in markdown


def test_student_text_is_escaped_in_html(graded):
    """Text that came from a submission (error messages) cannot inject markup into the page."""
    _, html = _texts(_folder(graded, "crasher"))
    assert "<script>" not in html
    assert "&lt;script&gt;" in html and INJECTION.split(" | ")[0] not in html


def test_the_heatmap_shows_the_public_seed_picture():
    """The reference heatmap is the seed case's p_attn (a visible case, printed by the chapter's demo)."""
    seed = references.load(CHAPTER)["cases"]["seed"]["result"]["items"][1]
    rows = picture.reference(CHAPTER)
    assert [len(rows), len(rows[0])] == seed["shape"][-2:]
    assert [x for row in rows for x in row] == seed["data"]
    assert judge_module(CHAPTER).probe.CASES["seed"].visible


def _result(documents, student):
    from grader.report.result_files import Result

    return Result(paths.ROOT / f"{student}.json", documents[student])


def _spellings(values):
    """How a hidden number could be written: as stored, and to 4 or 7 significant places."""
    return {text for v in values for text in (repr(v), f"{v:.4f}", f"{v:.7g}") if len(text.lstrip("-")) >= 6}


@lru_cache(maxsize=1)
def _hidden_numbers():
    """Spellings of every number of a hidden case (reference outputs and inputs) that no visible case shares."""
    probe = judge_module(CHAPTER).probe
    cases = references.load(CHAPTER)["cases"]
    hidden = [name for name in probe.case_names() if not probe.CASES[name].visible]
    visible = [name for name in probe.case_names(visible_only=True)]
    secret = set(floats_in([cases[name] for name in hidden]))
    for name in hidden:
        secret |= {float(x) for t in probe.make_inputs(name) for x in t.reshape(-1).tolist()}
    public = set(floats_in([cases[name] for name in visible]))
    seeds = {form.format(probe.CASES[name].seed) for name in hidden for form in ("{}", "{:_}", "{:,}")}
    return _spellings(secret) - _spellings(public), seeds


def _hidden_code_lines():
    lines = set()
    for path in paths.check_modules():
        text = path.read_text(encoding="utf-8")
        lines |= {line.strip() for line in regions.region_lines(text, "hidden") if len(line.strip()) > 12}
    return lines


def test_leak_detector_has_something_to_find():
    """The detector is armed: it flags a dump of a hidden case, and finds hidden-test code to look for."""
    numbers, seeds = _hidden_numbers()
    assert len(numbers) > 100 and seeds
    assert _hidden_code_lines()
    dump = json.dumps(references.load(CHAPTER)["cases"]["batched_4d"])
    assert set(NUMBER.findall(dump)) & numbers
    output = references.load(CHAPTER)["cases"]["large"]["result"]["items"][0]["data"]  # p_attn is saturated: 0s and 1s
    rounded = " ".join(f"{x:.4f}" for x in output)
    assert set(NUMBER.findall(rounded)) & numbers


@pytest.mark.parametrize("student", STUDENTS)
def test_feedback_reveals_no_hidden_value_or_test_code(graded, student):
    """No number of a hidden case (reference output or input), no hidden seed, no hidden-test code or marker."""
    numbers, seeds = _hidden_numbers()
    code = _hidden_code_lines()
    for text in _texts(_folder(graded, student)):
        assert not set(NUMBER.findall(text)) & numbers
        assert not any(seed in text for seed in seeds)
        assert "BEGIN HIDDEN" not in text and "END HIDDEN" not in text
        assert not {line for line in code if line in text}


def test_a_students_best_submission_gets_the_plain_folder(tmp_path, documents):
    """Two submissions of one student: feedback/<student>/ shows the best one (as the gradebook records), the other
    gets feedback/<student>__<submission>/; Korean student ids are kept as folder names."""
    import json

    from grader.report import write_all

    (tmp_path / "results").mkdir()
    low, high = dict(documents["no_scale"]), dict(documents["solution"])
    low.update(submission="a-first", student_id="김민지")
    high.update(submission="b-second", student_id="김민지")
    for document in (low, high):
        (tmp_path / "results" / f"{document['submission']}.json").write_text(json.dumps(document, ensure_ascii=False))
    write_all(tmp_path, "01")
    assert "모든 검사를 통과했습니다" in (tmp_path / "feedback" / "김민지" / "feedback.md").read_text(encoding="utf-8")
    assert (tmp_path / "feedback" / "김민지__a-first" / "feedback.md").is_file()
