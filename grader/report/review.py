"""Submissions that reach into the grader, found by reading their source (outside the sandbox): a list for the
instructor to look at, never a verdict. Each finding is a line of the submission and what it reaches for."""
import re
from dataclasses import dataclass
from pathlib import Path

SOURCES = "sources"  # the grading command keeps each graded source here, beside results/
_PATTERNS = (
    (re.compile(r"\b(?:import|from)\s+(?:grader|selfcheck)\b|\bch\d\d_(?:probe|judge)\b|['\"]selfcheck['\"]"),
     "채점기(프로브·selfcheck) 모듈을 가져옴"),
    (re.compile(r"\bsys\s*\.\s*modules\b"), "sys.modules를 뒤짐"),
    (re.compile(r"\bimport\s+gc\b|\bgc\s*\.\s*get_(?:objects|referrers|referents)\b"), "gc로 다른 객체를 찾음"),
    (re.compile(r"\bsys\s*\.\s*_getframe\b|\binspect\s*\.\s*(?:currentframe|stack|getouterframes|getmembers)\b"
                r"|\.\s*f_(?:back|globals|locals|builtins)\b|\btb_frame\b"), "호출 프레임을 거슬러 올라감"),
    (re.compile(r"\bctypes\b"), "ctypes로 인터프리터 메모리에 접근"),
    (re.compile(r"\bos\s*\.\s*(?:fork|forkpty|system|exec\w*|spawn\w*|posix_spawn\w*)\b|\bimport\s+(?:subprocess|pty|multiprocessing)\b"
                r"|\bfrom\s+(?:subprocess|multiprocessing)\b"), "프로세스를 새로 만듦(fork·subprocess)"),
    (re.compile(r"\b__builtins__\b|\bimport\s+builtins\b|\b__import__\s*\("), "내장 함수·import를 바꾸거나 우회함"),
    (re.compile(r"\b(?:json|pickle|marshal)\s*\.\s*(?:dumps?|loads?|encoder|decoder)\s*="), "결과를 인코딩하는 함수를 바꿈"),
    (re.compile(r"\bos\s*\.\s*(?:write|dup2?|close|fdopen)\s*\(\s*[3-9]\b|\bopen\s*\(\s*[3-9]\s*,"
                r"|/proc/[^'\"]*/(?:mem|fd)\b"), "결과 통로(fd 3)나 프로세스 메모리에 직접 접근함"),
)


@dataclass(frozen=True)
class Finding:
    """One line of a submission that reaches for something only the grader has."""

    line: int
    code: str
    reason: str


def _code_part(line):
    """`line` without a trailing comment (a `#` inside a string is rare enough to be read as code)."""
    stripped = line.strip()
    return "" if stripped.startswith("#") else line


def scan(source):
    """Every suspicious line of `source`, in order (a line with several reasons once per reason)."""
    found = []
    for number, line in enumerate(source.splitlines(), start=1):
        code = _code_part(line)
        for pattern, reason in _PATTERNS:
            if code and pattern.search(code):
                found.append(Finding(number, line.strip()[:160], reason))
    return found


def kept_sources(out_dir):
    """{submission id: source} of what the grading command kept in `out_dir/sources/` (empty if nothing was)."""
    folder = Path(out_dir, SOURCES)
    found = {}
    for path in sorted(folder.glob("*.py")) if folder.is_dir() else ():
        try:
            found[path.stem] = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
    return found


def review_list(results, sources):
    """[(student, submission, Finding)] over the graded submissions whose source was kept."""
    rows = []
    for result in results:
        for finding in scan(sources.get(result.submission, "")):
            rows.append((result.student, result.submission, finding))
    return rows
