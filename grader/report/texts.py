"""Fixed wording: what each run status means, for students (Korean) and instructors (English)."""

STUDENT = {
    "ok": "코드가 끝까지 실행되었습니다.",
    "timeout": "시간 제한을 넘어 실행을 중단했습니다. 무한 루프나 너무 오래 걸리는 코드가 없는지 확인해 주세요.",
    "memory": "메모리 제한을 넘었습니다. 너무 큰 텐서나 리스트를 만들고 있지 않은지 확인해 주세요.",
    "output_limit": "print 출력이나 돌려준 값이 너무 커서 실행을 중단했습니다. 반복문 안의 print를 줄여 주세요.",
    "crashed": "코드를 실행하던 프로세스가 비정상적으로 끝났습니다. 인터프리터를 망가뜨리는 코드가 없는지 확인해 주세요.",
    "no_result": "결과를 돌려주기 전에 프로그램이 끝났습니다. sys.exit()나 os._exit()를 호출하지 않았는지 확인해 주세요.",
    "unreadable": "제출 파일을 읽을 수 없습니다. 파일 형식(.ipynb 또는 .py)과 인코딩(UTF-8)을 확인해 주세요.",
}

INSTRUCTOR = {
    "ok": "ran to the end",
    "timeout": "stopped at the time limit",
    "memory": "hit the memory limit",
    "output_limit": "printed or returned too much",
    "crashed": "the sandboxed process died",
    "no_result": "exited before returning a result",
    "unreadable": "the submission file could not be read",
}


def student(status):
    """A Korean sentence about a run status."""
    return STUDENT.get(status, f"실행 상태: {status}")


def instructor(status):
    """A short English phrase about a run status."""
    return INSTRUCTOR.get(status, status)
