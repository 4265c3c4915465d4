"""Fixed Korean wording of the pages: run statuses (students, instructors), the self-check instructions, pictures."""
from grader.checks.korean import attach

STUDENT = {
    "ok": "코드가 끝까지 실행되었습니다.",
    "timeout": "시간 제한을 넘어 실행을 중단했습니다. 무한 루프나 너무 오래 걸리는 코드가 없는지 확인해 주세요.",
    "memory": "메모리 제한을 넘었습니다. 너무 큰 텐서나 리스트를 만들고 있지 않은지 확인해 주세요.",
    "output_limit": "print 출력이나 돌려준 값이 너무 커서 실행을 중단했습니다. 반복문 안의 print를 줄여 주세요.",
    "crashed": "코드를 실행하던 프로세스가 비정상적으로 끝났습니다. 인터프리터를 망가뜨리는 코드가 없는지 확인해 주세요.",
    "no_result": "결과를 돌려주기 전에 프로그램이 끝났습니다. sys.exit()나 os._exit()를 호출하지 않았는지 확인해 주세요.",
    "unreadable": "제출 파일을 읽을 수 없습니다. 파일 형식(.ipynb 또는 .py)과 인코딩(UTF-8)을 확인해 주세요.",
    "tampered": "코드가 채점기(또는 채점기가 쓰는 라이브러리)의 함수를 바꿔 0점 처리했습니다. 과제의 함수만 작성해 주세요.",
    "invalid_result": "코드가 돌려준 결과를 채점할 수 없습니다. 채점기의 함수나 결과를 바꾸는 코드가 없는지 확인해 주세요.",
    "grader_error": "채점기 내부 오류로 이 제출물을 채점하지 못했습니다. 학생의 잘못이 아닐 수 있으니 조교에게 알려 주세요.",
}

# A run status in one or two words, where the instructor counts or lists them (report, CLI, progress).
STATUS = {
    "ok": "정상",
    "timeout": "시간 초과",
    "memory": "메모리 초과",
    "output_limit": "출력 초과",
    "crashed": "비정상 종료",
    "no_result": "결과 없음",
    "unreadable": "파일 읽기 실패",
    "grader_error": "채점 오류",
    "tampered": "채점기 변조",
    "invalid_result": "채점 불가 결과",
}

INSTRUCTOR = {
    "ok": "끝까지 실행됨",
    "timeout": "시간 제한에 걸려 중단됨",
    "memory": "메모리 제한에 걸림",
    "output_limit": "출력이나 돌려준 값이 너무 큼",
    "crashed": "샌드박스 프로세스가 비정상 종료됨",
    "no_result": "결과를 돌려주기 전에 종료됨",
    "unreadable": "제출 파일을 읽을 수 없음",
    "tampered": "채점기나 라이브러리의 함수를 바꿈 (증거는 아래 목록)",
    "invalid_result": "돌려준 결과가 평범한 값이 아니거나 너무 깊음",
    "grader_error": "채점기 내부 오류 (채점 로그의 traceback 확인)",
}

# The student instructions at the end of every feedback page.
SELF_CHECK_HEADING = "다시 점검하기"
SELF_CHECK_INTRO = ("과제 폴더(`exercises/{chapter}/`, 옆에 공통 `_selfcheck/`가 있는 곳)의 터미널에서 다음 명령으로 고친 코드를 "
                    "다시 확인할 수 있습니다.")
SELF_CHECK = (
    "`python demo.py` — 데모를 실행해 장의 본문에 나온 출력과 같은지 비교합니다.",
    "`python -m selfcheck` — 공개 검사를 실행하고 실패한 검사의 안내를 보여 줍니다.",
    "`python -m pytest test_visible.py` — 같은 공개 검사를 pytest로 실행합니다.",
)
# A notebook student may hold the notebook alone (nbgrader's release folder, Colab): its own cells are the way back.
SELF_CHECK_NOTEBOOK_INTRO = ("노트북 하나로 다시 확인할 수 있습니다: Jupyter, Colab, 노트북 하나뿐인 폴더 어디서나 같은 점수와 "
                             "진단이 나오며, 다른 파일이나 터미널 명령은 필요 없습니다.")
SELF_CHECK_NOTEBOOK = (
    "노트북 `{notebook}`의 셀을 위에서부터 차례로 실행합니다 (Jupyter: Run All, Colab: 런타임 → 모두 실행).",
    "데모 셀의 출력을 장의 본문과 비교합니다.",
    "검사 셀마다 통과 여부와 한국어 진단이 나옵니다. 검사 셀 바로 앞의 읽기 전용 '자가 점검 준비' 셀이 노트북에 담긴 "
    "공개 검사를 풀어 주므로, 그 셀부터 차례로 실행하세요.",
)
HIDDEN_CHECKS = ("숨겨진 검사는 채점할 때만 실행되며, 입력과 기준 값은 공개하지 않습니다. "
                 "공개 검사를 모두 통과해도 숨겨진 검사에서 실패할 수 있으니 진단 내용을 읽고 고쳐 보세요.")

PICTURE_DEFAULT = {"title": "결과 그림", "rows": "행", "columns": "열", "note": "칸의 숫자는 돌려준 값입니다."}


def _picture_default(label):
    """The wording of a label without its own: what it is and why it may be missing, spelled from the label."""
    return {"what": f"돌려준 {label}", "missing": f"코드가 오류로 끝났거나 {attach(label, '을')} 돌려주지 않았습니다"}


def student(status):
    """A Korean sentence about a run status."""
    return STUDENT.get(status, f"실행 상태: {status}")


def status_word(status):
    """The status in Korean words (정상, 시간 초과, …); an unknown code is named as one."""
    return STATUS.get(status, f"알 수 없는 상태({status})")


def instructor(status):
    """A short Korean phrase about a run status, for the class report."""
    return INSTRUCTOR.get(status, status)


def self_check(track, chapter_id):
    """(intro, steps) of the re-check for the student's track (a results.json `track`: "notebook", else the .py
    track): a notebook's own cells, or the commands of the chapter's exercise folder."""
    if track == "notebook":
        return SELF_CHECK_NOTEBOOK_INTRO, tuple(step.format(notebook=f"{chapter_id}.ipynb") for step in SELF_CHECK_NOTEBOOK)
    return SELF_CHECK_INTRO.format(chapter=chapter_id), SELF_CHECK


def picture(label, declared=None):
    """{title, rows, columns, note, what, missing} for a picture called `label`: the chapter's own wording
    (`declared`, its `Picture.texts`) over a generic one spelled from the label."""
    generic = {**PICTURE_DEFAULT, "title": f"{PICTURE_DEFAULT['title']} ({label})"} if not declared else PICTURE_DEFAULT
    return {**_picture_default(label), **generic, **(declared or {})}
