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

# How a feedback picture is named and explained, by the label a chapter declares (picture.Declaration).
PICTURES = {
    "p_attn": {
        "title": "어텐션 가중치 그림",
        "rows": "query 토큰",
        "columns": "key 토큰",
        "note": "칸의 숫자는 i번째 query 토큰이 j번째 key 토큰을 참고하는 비율입니다. 행마다 합이 1이어야 합니다.",
    },
    "self.attn": {
        "title": "self.attn의 head 0 어텐션 가중치 그림",
        "what": "forward가 self.attn에 저장한 가중치 중 첫 번째 예시(batch 0)의 head 0",
        "missing": "코드가 오류로 끝났거나 forward가 self.attn에 (batch, h, query 길이, key 길이) 가중치를 저장하지 않았습니다",
        "rows": "query 토큰",
        "columns": "key 토큰",
        "note": "칸의 숫자는 head 0에서 i번째 query 토큰이 j번째 key 토큰을 참고하는 비율입니다. 행마다 합이 1이어야 합니다.",
    },
    "layers[0].self_attn.attn": {
        "title": "0번 인코더 층의 self-attention 가중치 그림 (head 0)",
        "what": "0번 층의 self_attn이 self.attn에 저장한 가중치 중 첫 번째 문장(batch 0)의 head 0",
        "missing": "코드가 오류로 끝났거나 0번 층의 self_attn이 불리지 않아 self.attn에 가중치가 없습니다",
        "rows": "query 토큰",
        "columns": "key 토큰",
        "note": "칸의 숫자는 head 0에서 i번째 토큰이 j번째 토큰을 참고하는 비율입니다. 행마다 합이 1이고, "
        "padding 토큰의 열(마지막 두 열)은 0이어야 합니다.",
    },
    "layers[0].src_attn.attn": {
        "title": "디코더 첫 층의 source attention 가중치 그림",
        "what": "Decoder의 첫 층(layers[0])의 src_attn이 forward에서 self.attn에 저장한 가중치 중 첫 번째 예시(batch 0)의 "
        "head 0",
        "missing": "코드가 오류로 끝났거나 첫 층의 src_attn.attn에 (batch, h, target 길이, memory 길이) 가중치가 없습니다",
        "rows": "target 위치(query)",
        "columns": "memory 위치(key)",
        "note": "칸의 숫자는 head 0에서 i번째 target 위치가 encoder memory의 j번째 위치를 참고하는 비율입니다. 행마다 합이 "
        "1이고, src_mask가 가린 padding 위치의 열은 0이어야 합니다.",
    },
    "src_attn": {
        "title": "decoder 0번 층 source-attention의 head 0 가중치 그림",
        "what": "forward 뒤 decoder.layers[0].src_attn.attn 중 두 번째 예시(batch 1)의 head 0",
        "missing": "코드가 오류로 끝났거나 모델의 decoder.layers[0].src_attn에 attn 가중치가 없습니다",
        "rows": "target 토큰",
        "columns": "source 토큰 (memory)",
        "note": "칸의 숫자는 i번째 target 토큰이 j번째 source 토큰을 참고하는 비율입니다. 행마다 합이 1이고, "
        "padding인 source 토큰(src_mask가 0인 열)은 0이어야 합니다.",
    },
    "fill_attention src_attn": {
        "title": "fill_attention 뒤 decoder 0번 층 source-attention의 head 0 가중치 그림",
        "what": "fill_attention이 마지막 디코딩 단계에서 decoder.layers[0].src_attn.attn에 남긴 가중치 중 batch 0의 head 0",
        "missing": "코드가 오류로 끝났거나 fill_attention 뒤 decoder.layers[0].src_attn에 attn 가중치가 없습니다",
        "rows": "target 위치 (query)",
        "columns": "source 토큰 (key)",
        "note": "칸의 숫자는 마지막 디코딩 단계에서 i번째 target 위치가 j번째 source 토큰을 참고하는 비율입니다. 행마다 "
        "합이 1입니다. 0인 칸이 흩어져 있거나 1/(1 - p)배로 커진 값이 보이면 train 모드(dropout)로 디코딩한 것입니다.",
    },
    "tgt_mask": {
        "title": "tgt_mask 그림",
        "what": "Batch가 만든 self.tgt_mask 중 첫 번째 문장(batch 0)",
        "missing": "코드가 오류로 끝났거나 Batch가 self.tgt_mask를 (batch, 길이, 길이) mask로 만들지 않았습니다",
        "rows": "query 위치",
        "columns": "key 위치",
        "note": "칸이 1이면 i번째 토큰이 j번째 토큰을 볼 수 있고, 0이면 가려집니다. 대각선 위(미래)와 pad인 열이 0이어야 합니다.",
    },
    "true_dist": {
        "title": "라벨 스무딩의 목표 분포 true_dist 그림",
        "what": "forward가 self.true_dist에 저장한 목표 분포",
        "missing": "코드가 오류로 끝났거나 forward가 self.true_dist에 (토큰 수, 어휘 크기) 목표 분포를 저장하지 않았습니다",
        "rows": "토큰 (target)",
        "columns": "어휘의 단어",
        "note": "칸의 숫자는 그 토큰의 목표 확률입니다. 정답 칸은 confidence, 나머지 칸은 smoothing / (size - 2), "
        "padding 열과 target이 padding인 행은 0입니다. padding이 아닌 행은 합이 1이어야 합니다.",
    },
}
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


def picture(label):
    """{title, rows, columns, note} for a declared picture label (a generic wording for unknown labels)."""
    generic = {**PICTURE_DEFAULT, "title": f"{PICTURE_DEFAULT['title']} ({label})"}
    return {**_picture_default(label), **PICTURES.get(label, generic)}
