"""One student's Korean feedback page: score table, diagnoses of failed checks, the chapter's declared picture."""
from pathlib import Path

from grader.checks.korean import attach
from grader.checks.scoresheet import number

from . import diagnoses, heatmap, page, picture, texts
from .result_files import OK, diagnosis, title


def _status_banner(result):
    """The banner of a run that did not end well; for an unreadable file the reason itself (empty, not UTF-8,
    not a notebook, cut short) comes first."""
    if result.file_problem and result.reason:
        return f"제출 파일을 읽지 못했습니다: {result.reason}"
    return f"실행 상태: {texts.student(result.status)}"


def _points(value):
    return number(value)


def blocks(result, chapter_id):
    """The page's blocks."""
    out = [page.Text(f"점수: {_points(result.score)} / {_points(result.max_score)}점 ({_split(result)})")]
    out += [page.Text(f"※ {note}", quote=True) for note in result.data.get("notes") or () if isinstance(note, str)]
    if result.status != OK:
        out.append(page.Text(_status_banner(result), quote=True))
    out += [page.Heading("검사별 점수"), _table(result)]
    out += _causes(result, chapter_id)
    out += _diagnoses(result)
    out += _picture(result, chapter_id)
    intro, steps = texts.self_check(result.data.get("track"), chapter_id)
    out += [page.Heading(texts.SELF_CHECK_HEADING), page.Text(intro), page.Bullets(steps), page.Text(texts.HIDDEN_CHECKS)]
    return out


def _split(result):
    visible = [t for t in result.tests if t.get("visibility") == "visible"]
    hidden = [t for t in result.tests if t.get("visibility") != "visible"]

    def part(name, tests):
        return f"{name} {_points(sum(t.get('score', 0) for t in tests))}/{_points(sum(t.get('max_score', 0) for t in tests))}"

    return ", ".join(part(n, ts) for n, ts in (("공개 검사", visible), ("숨겨진 검사", hidden)) if ts)


def _mark(test):
    if test.get("status") == "passed":
        return "통과"
    return "부분 점수" if test.get("score", 0) > 0 else "실패"


def _table(result):
    rows = tuple(
        (title(t), "공개" if t.get("visibility") == "visible" else "숨겨진 검사",
         f"{_points(t.get('score', 0))} / {_points(t.get('max_score', 0))}", _mark(t))
        for t in result.tests
    )
    rows += (("합계", "", f"{_points(result.score)} / {_points(result.max_score)}", ""),)
    return page.Table(("검사", "구분", "점수", "결과"), rows)


def _causes(result, chapter_id):
    """The distinct likely causes across all failed checks, most important check first."""
    if not result.failed:
        return [page.Heading("고칠 점"), page.Text("모든 검사를 통과했습니다. 잘했습니다!")]
    found = diagnoses.topics(result, *diagnoses.vocabulary(chapter_id))
    out = [page.Heading("고칠 점")]
    if found:
        out += [page.Text("채점기가 찾은 가장 그럴듯한 원인입니다. 위에 있는 것부터 고쳐 보세요."), page.Bullets(tuple(found[:5]))]
    return out


def _diagnoses(result):
    """One section per distinct diagnosis, naming every failed check that gave it."""
    failed = result.failed
    if not failed:
        return []
    groups = {}
    for test in failed:
        groups.setdefault(diagnosis(test) or "자세한 진단이 없습니다.", []).append(test)
    out = [page.Heading("실패한 검사의 진단"), page.Text("검사마다 어떤 입력에서 무엇이 달랐는지 적었습니다.")]
    for text, tests in groups.items():
        names = ", ".join(f"{title(t)} ({_points(t.get('score', 0))}/{_points(t.get('max_score', 0))}점)" for t in tests)
        if len(tests) > 3 and len(tests) == len(result.tests):
            names = f"모든 검사 ({len(tests)}개)"
        out += [page.Heading(names, 3), page.Text(text, quote=True)]
    return out


def _picture(result, chapter_id):
    """The declared picture: the student's matrix beside the public reference, as coloured cells with values."""
    declaration = picture.declared(chapter_id)
    reference = None if declaration is None else picture.reference(chapter_id, declaration)
    if reference is None:
        return []
    words = declaration.wording
    student = picture.student(result)
    where = diagnoses.case_text(chapter_id, declaration.case)
    out = [page.Heading(f"{words['title']} ({where})"),
           page.Text(f"{where}에서 {words['what']}입니다. "
                     f"행은 {words['rows']}, 열은 {words['columns']}이고, {words['note']}"
                     + (f" '내 {declaration.label}' 표가 제출한 코드의 결과, '기준 {declaration.label}' 표가 기준 결과입니다."
                        if student is not None else ""))]
    panels = [(f"기준 {declaration.label}", reference)]
    if student is None:
        out.append(page.Text(_missing_note(result, declaration), quote=True))
    else:
        panels.insert(0, (f"내 {declaration.label}", student))
    out.append(heatmap.figure(panels, words["rows"], words["columns"]))
    return out


def _missing_note(result, declaration):
    label, words = declaration.label, declaration.wording
    if result.picture.get("student") is None:
        why = f"이 입력에서 {attach(label, '을')} 얻지 못했습니다({words['missing']})"
    else:
        why = f"돌려준 {attach(label, '이')} ({words['rows']} × {words['columns']}) 2차원 표로 읽히지 않습니다"
    return f"제출한 코드의 그림은 그릴 수 없습니다: {why}. 아래에는 기준 그림만 보여 줍니다."


def write(result, chapter_id, folder):
    """Write `feedback.md` and `feedback.html` into `folder`; return the HTML path."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    heading = f"{chapter_id} 채점 결과 — {result.student}"
    _, html_path = page.write(folder, "feedback", heading, blocks(result, chapter_id))
    return html_path
