"""One student's Korean feedback page: score table, diagnoses of failed checks, the p_attn heatmap."""
from pathlib import Path

from . import diagnoses, heatmap, page, picture, texts
from .results import OK, diagnosis, title

HEATMAP = "attention.png"
SELF_CHECK = (
    "`python demo.py` — 시드 입력의 가중치를 출력해 위 그림의 기준 값과 비교합니다.",
    "`python -m selfcheck` — 공개 검사를 실행하고 실패한 검사의 안내를 보여 줍니다.",
    "`python -m pytest test_visible.py` — 같은 공개 검사를 pytest로 실행합니다.",
)
SELF_CHECK_NOTEBOOK = (
    "Jupyter에서 노트북을 위에서부터 차례로 실행(Run All)합니다 — 데모 셀이 시드 입력의 가중치를 출력하고, "
    "검사 셀마다 통과 여부와 진단이 나옵니다.",
    "`python -m selfcheck {notebook}` — 노트북 폴더의 터미널에서 공개 검사 표와 진단을 한 번에 봅니다.",
)


def self_check_steps(result, chapter_id):
    """The re-check commands of the student's track (the results' `track`: "notebook" or "py")."""
    if result.data.get("track") == "notebook":
        return tuple(step.format(notebook=f"{chapter_id}.ipynb") for step in SELF_CHECK_NOTEBOOK)
    return SELF_CHECK


def _points(value):
    return f"{round(float(value), 2):g}"


def blocks(result, chapter_id, folder):
    """The page's blocks; draws the heatmap into `folder`."""
    out = [page.Text(f"점수: {_points(result.score)} / {_points(result.max_score)}점 ({_split(result)})")]
    out += [page.Text(f"※ {note}", quote=True) for note in result.data.get("notes") or () if isinstance(note, str)]
    if result.status != OK:
        out.append(page.Text(f"실행 상태: {texts.student(result.status)}", quote=True))
    out += [page.Heading("검사별 점수"), _table(result)]
    out += _causes(result, chapter_id)
    out += _diagnoses(result)
    out += _picture(result, chapter_id, Path(folder))
    out += [page.Heading("다시 점검하기"), page.Text("과제 폴더에서 다음 명령으로 고친 코드를 다시 확인할 수 있습니다."),
            page.Bullets(self_check_steps(result, chapter_id)),
            page.Text("숨겨진 검사는 채점할 때만 실행되며, 입력과 기준 값은 공개하지 않습니다. "
                      "공개 검사를 모두 통과해도 숨겨진 검사에서 실패할 수 있으니 진단 내용을 읽고 고쳐 보세요.")]
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


def _picture(result, chapter_id, folder):
    case = result.picture.get("case", picture.SEED_CASE)
    reference = picture.reference(chapter_id, case)
    if reference is None:
        return []
    student = picture.student(result)
    where = ("시드 입력(torch.manual_seed(0), x: (1, 3, 4), attention(x, x, x))" if case == picture.SEED_CASE
             else f"공개 검사 입력 '{case}'")
    out = [page.Heading(f"어텐션 가중치 그림 ({where})"),
           page.Text(f"{where}에서 돌려준 p_attn입니다. "
                     "행은 query 토큰, 열은 key 토큰이고, 칸의 숫자는 i번째 토큰이 j번째 토큰을 참고하는 비율입니다. "
                     "행마다 합이 1이어야 합니다."
                     + (" 왼쪽이 제출한 코드의 결과, 오른쪽이 기준 결과입니다." if student is not None else ""))]
    if student is None:
        out.append(page.Text(_missing_note(result), quote=True))
        heatmap.draw(folder / HEATMAP, None, reference)
    else:
        heatmap.draw(folder / HEATMAP, student, reference)
    out.append(page.Image(HEATMAP, "p_attn heatmap"))
    return out


def _missing_note(result):
    raw = result.picture.get("student")
    if raw is None:
        why = "시드 입력에서 p_attn을 얻지 못했습니다(코드가 오류로 끝났거나 (출력, p_attn) 튜플을 돌려주지 않았습니다)"
    else:
        why = "돌려준 p_attn이 (query 토큰 × key 토큰) 2차원 표로 읽히지 않습니다"
    return f"제출한 코드의 그림은 그릴 수 없습니다: {why}. 아래에는 기준 그림만 보여 줍니다."


def write(result, chapter_id, folder):
    """Write `feedback.md`, `feedback.html` and the heatmap PNG into `folder`; return the HTML path."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    heading = f"{chapter_id} 채점 결과 — {result.student}"
    _, html_path = page.write(folder, "feedback", heading, blocks(result, chapter_id, folder))
    return html_path
