"""The statuses a sandboxed run can end with, how one is decided, what each means for the student (in Korean), and
the record of one run (`RunResult`)."""
import os
import signal
from dataclasses import dataclass

OK = "ok"
TIMEOUT = "timeout"
CRASHED = "crashed"
NO_RESULT = "no_result"
MEMORY = "memory"
OUTPUT_LIMIT = "output_limit"
INVALID_RESULT = "invalid_result"  # the child sent back something that is not a bounded plain-data result
TAMPERED = "tampered"  # the student's code replaced what the probe relies on (the result's "tampered" evidence)

ALL = (OK, TIMEOUT, CRASHED, NO_RESULT, MEMORY, OUTPUT_LIMIT, INVALID_RESULT, TAMPERED)

_MESSAGES = {
    OK: "코드가 끝까지 실행되었습니다.",
    TIMEOUT: "시간 제한({wall:g}초)을 넘어 실행을 중단했습니다. 무한 루프나 너무 오래 걸리는 코드가 없는지 확인해 주세요.",
    MEMORY: "메모리 제한({memory})을 넘었습니다. 너무 큰 텐서나 리스트를 만들고 있지 않은지 확인해 주세요.",
    OUTPUT_LIMIT: "print 출력이나 돌려준 값이 너무 커서 실행을 중단했습니다. 반복문 안의 print를 줄여 주세요.",
    CRASHED: "코드를 실행하던 프로세스가 비정상적으로 끝났습니다. 다른 프로세스를 종료하거나 인터프리터를 망가뜨리는 코드가 없는지 확인해 주세요.",
    INVALID_RESULT: "코드가 돌려준 결과를 채점할 수 없습니다(너무 깊게 중첩되었거나, 평범한 값이 아니거나, 형식이 깨졌습니다). "
                    "채점기의 함수나 결과를 바꾸는 코드가 없는지 확인해 주세요.",
    TAMPERED: "코드가 채점기(또는 채점기가 쓰는 라이브러리)의 함수를 바꿔 0점 처리했습니다. 과제의 함수만 작성해 주세요.",
    NO_RESULT: "결과를 돌려주기 전에 프로그램이 끝났습니다. sys.exit()나 os._exit()를 호출하지 않았는지 확인해 주세요.",
}


def message(status, limits):
    """A Korean sentence for the student explaining `status` under `limits`."""
    memory = f"{limits.memory_bytes / 2**30:g} GiB"
    return _MESSAGES[status].format(wall=limits.wall_seconds, memory=memory)


_MEMORY_WORDS = ("MemoryError", "can't allocate memory", "Cannot allocate memory", "bad_alloc", "out of memory")


def _errors(result):
    """Every error dict recorded in a result (load error, case errors, gradient errors)."""
    if not isinstance(result, dict):
        return
    for key in ("load_error", "stopped"):
        if isinstance(result.get(key), dict):
            yield result[key]
    traces = result.get("traces")
    for trace in traces.values() if isinstance(traces, dict) else ():
        if isinstance(trace, dict):
            for error in (trace.get("error"), (trace.get("gradients") or {}).get("error")):
                if isinstance(error, dict):
                    yield error


def _mentions_memory(text):
    """Whether `text` reads like an allocation failure."""
    return any(word in text for word in _MEMORY_WORDS)


def ran_out_of_memory(result, stderr=""):
    """Whether the student's code hit the memory limit, judging by the errors it recorded or printed."""
    for error in _errors(result):
        if error.get("type") == "MemoryError" or _mentions_memory(str(error.get("message", ""))):
            return True
    return _mentions_memory(stderr[-4096:])


def classify(*, exit_status, timed_out, output_exceeded, cpu_seconds, limits, result, stderr):
    """The status of one run, from how the child ended and what it sent back (`result` is None if nothing valid)."""
    if output_exceeded:
        return OUTPUT_LIMIT
    if timed_out:
        return TIMEOUT
    signalled = os.WIFSIGNALED(exit_status)
    signum = os.WTERMSIG(exit_status) if signalled else None
    if signum == signal.SIGXCPU or (signum == signal.SIGKILL and cpu_seconds >= limits.cpu_seconds - 0.05):
        return TIMEOUT
    clean_exit = os.WIFEXITED(exit_status) and os.WEXITSTATUS(exit_status) == 0
    if ran_out_of_memory(result, "" if clean_exit else stderr):
        return MEMORY
    if signalled:
        return CRASHED
    if clean_exit and result is not None:
        return TAMPERED if result.get("tampered") else OK
    return NO_RESULT


@dataclass(frozen=True)
class RunResult:
    """How one submission's run ended; `result` is `execute`'s plain-data dict (or None)."""

    submission_id: str
    status: str
    result: dict | None
    stdout: str
    stderr: str
    seconds: float
    sandbox: str
    isolation: str = ""  # cgroups.CGROUP (memory and processes in a group per submission) or cgroups.CPU_TIME
