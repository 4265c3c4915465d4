"""The statuses a sandboxed run can end with, and what each means for the student (in Korean)."""

OK = "ok"
TIMEOUT = "timeout"
CRASHED = "crashed"
NO_RESULT = "no_result"
MEMORY = "memory"
OUTPUT_LIMIT = "output_limit"

ALL = (OK, TIMEOUT, CRASHED, NO_RESULT, MEMORY, OUTPUT_LIMIT)

_MESSAGES = {
    OK: "코드가 끝까지 실행되었습니다.",
    TIMEOUT: "시간 제한({wall:g}초)을 넘어 실행을 중단했습니다. 무한 루프나 너무 오래 걸리는 코드가 없는지 확인해 주세요.",
    MEMORY: "메모리 제한({memory})을 넘었습니다. 너무 큰 텐서나 리스트를 만들고 있지 않은지 확인해 주세요.",
    OUTPUT_LIMIT: "print 출력이나 돌려준 값이 너무 커서 실행을 중단했습니다. 반복문 안의 print를 줄여 주세요.",
    CRASHED: "코드를 실행하던 프로세스가 비정상적으로 끝났습니다. 다른 프로세스를 종료하거나 인터프리터를 망가뜨리는 코드가 없는지 확인해 주세요.",
    NO_RESULT: "결과를 돌려주기 전에 프로그램이 끝났습니다. sys.exit()나 os._exit()를 호출하지 않았는지 확인해 주세요.",
}


def message(status, limits):
    """A Korean sentence for the student explaining `status` under `limits`."""
    memory = f"{limits.memory_bytes / 2**30:g} GiB"
    return _MESSAGES[status].format(wall=limits.wall_seconds, memory=memory)
