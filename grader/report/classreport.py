"""The instructor's Korean class report (`report.md`, `report.html`): scores, pass rates, what to re-teach."""
from pathlib import Path

from grader.checks.scoresheet import number

from . import charts, diagnoses, page, review, similarity, stats, texts

TOP_TOPICS = 10
NOTHING = "결과가 없습니다: 채점한 제출이 없습니다."


def _s(value):
    return "—" if value is None else f"{value:.1f}초"


def class_table(results, bugs, cases, width=None):
    """(student, score, status, top diagnosis) per submission: the first topic of its first failed check."""
    rows = []
    for result in results:
        found = diagnoses.topics(result, bugs, cases)
        top = found[0] if found else "—"
        if width and len(top) > width:
            top = top[: width - 1] + "…"
        rows.append((result.student, f"{number(result.score)}/{number(result.max_score)}", texts.status_word(result.status),
                     top))
    return rows


def summary(results, chapter_id, wall_seconds=None):
    """The report's numbers as plain data (what the tests compare with results.json)."""
    bugs, cases = diagnoses.vocabulary(chapter_id)
    return {
        "submissions": len(results),
        "max_score": stats.max_score(results),
        "scores": stats.scores(results),
        "histogram": [(b.low, b.high, b.count) for b in stats.histogram(results)],
        "pass_rates": stats.pass_rates(results),
        "topics": stats_topics(results, bugs, cases),
        "statuses": dict(stats.statuses(results)),
        "problems": [(r.student, r.submission, r.status) for r in stats.problems(results)],
        "tampered": tampered(results),
        "superseded": [(r.student, _attempt(a), r.graded_attempt) for r in results for a in r.superseded],
        "timing": {k: v for k, v in stats.timing(results, wall_seconds).items() if k != "slowest"},
    }


def stats_topics(results, bugs, cases):
    """[(topic, submissions)] most frequent first, over the submissions whose file could be read (an empty or broken
    file is no concept to re-teach: the report lists those apart)."""
    return diagnoses.frequent([r for r in results if not r.file_problem], bugs, cases).most_common()


def review_blocks(results, sources):
    """The review list: lines that reach into the grader (a static scan of the kept sources)."""
    out = [page.Heading("검토 목록: 채점기에 손을 대는 코드"),
           page.Text("판정이 아니라 검토할 목록입니다: 제출 코드를 실행하지 않고 읽어서, 채점기(프로브·selfcheck), "
                     "sys.modules, gc, 호출 프레임, ctypes, fork 등에 손을 대는 줄을 찾았습니다.")]
    if not sources:
        return out + [page.Text("채점한 코드가 보관되지 않아(sources/ 없음) 검토하지 못했습니다.")]
    rows = review.review_list(results, sources)
    return out + [page.Table(("학생", "제출", "줄", "코드", "이유"), tuple(
        (student, submission, str(finding.line), finding.code, finding.reason) for student, submission, finding in rows))
        if rows else page.Text("없음: 채점기에 손을 대는 줄이 없습니다.")]


def similarity_blocks(results, chapter_id, sources, threshold=None):
    """Pairs of unusually similar submissions side by side (chapters 03 on)."""
    if not similarity.applies(chapter_id):
        return []
    threshold = similarity.DEFAULT_THRESHOLD if threshold is None else threshold
    out = [page.Heading("서로 비슷한 제출"),
           page.Text(f"판정이 아니라 검토할 목록입니다: 이 장의 뼈대 코드와 풀이(공개된 Annotated Transformer 코드)는 "
                     f"빼고, 학생이 직접 쓴 부분이 {100 * threshold:.0f}% 이상 겹치는 제출 쌍입니다 "
                     f"(copydetect; 기준은 --similarity로 바꿉니다).")]
    graded = {r.submission: sources[r.submission] for r in results if r.submission in sources}
    if not graded:
        return out + [page.Text("채점한 코드가 보관되지 않아(sources/ 없음) 비교하지 못했습니다.")]
    found = similarity.pairs(graded, chapter_id, threshold)
    if not found:
        return out + [page.Text("없음: 기준을 넘는 쌍이 없습니다.")]
    students = {r.submission: r.student for r in results}
    out.append(page.Table(("학생 1", "학생 2", "겹침 (1 / 2)", "겹친 토큰"), tuple(
        (students[p.first], students[p.second], f"{100 * p.similarity[0]:.0f}% / {100 * p.similarity[1]:.0f}%",
         str(p.overlap)) for p in found)))
    for pair in found:
        out.append(page.Figure(similarity.side_by_side(pair, graded, students),
                               f"{students[pair.first]} ↔ {students[pair.second]}: "
                               f"{100 * max(pair.similarity):.0f}% (report.html에서 나란히 볼 수 있습니다)"))
    return out


def blocks(results, chapter_id, wall_seconds=None, sources=None, threshold=None):
    """The report's blocks (charts drawn inline)."""
    bugs, cases = diagnoses.vocabulary(chapter_id)
    if not results:
        return [page.Text(NOTHING)]
    top, numbers = stats.max_score(results), stats.scores(results)
    counts = stats.statuses(results)
    out = [page.Text(f"제출 {len(results)}건, 만점 {number(top)}점. 평균 {number(numbers['mean'])}점, 중앙값 "
                     f"{number(numbers['median'])}점, 최저 {number(numbers['min'])}점, 최고 "
                     f"{number(numbers['max'])}점. 실행 상태: "
                     + ", ".join(f"{texts.status_word(status)} {n}건" for status, n in sorted(counts.items())) + ".")]
    bins = stats.histogram(results)
    out += [page.Heading("점수 분포"), charts.histogram(bins, top),
            page.Table(("점수 구간", "제출 수"), tuple((b.label, str(b.count)) for b in bins))]
    rates = stats.pass_rates(results)
    out += [page.Heading("검사별 통과율"), charts.pass_rates(rates),
            page.Table(("검사", "제목", "구분", "배점", "통과", "통과율"), tuple(
                (name, e["title"], "공개" if e["visible"] else "숨김", number(e['points']),
                 f"{e['passed']}/{e['total']}", f"{100 * e['rate']:.0f}%") for name, e in rates.items()))]
    topics = stats_topics(results, bugs, cases)
    out += [page.Heading("다시 가르칠 것: 가장 많이 나온 진단"),
            page.Text("진단은 제출마다 한 번만 셉니다 (알려진 버그의 설명은 검사와 입력이 달라도 하나로 묶습니다). "
                      "파일을 읽지 못한 제출은 세지 않고 아래 '정상적으로 실행되지 않은 제출'에 이유와 함께 둡니다.")]
    out.append(page.Table(("제출 수", "진단 (학생이 읽는 그대로)", "예"), tuple(
        (str(n), text, ", ".join(_students_with(results, text, bugs, cases)[:5])) for text, n in topics[:TOP_TOPICS]))
        if topics else page.Text("실패한 검사가 없습니다."))
    problems = stats.problems(results)
    out.append(page.Heading("정상적으로 실행되지 않은 제출"))
    out.append(page.Table(("학생", "제출", "상태", "뜻", "시간"), tuple(
        (r.student, r.submission, texts.status_word(r.status), _meaning(r), _s(r.seconds)) for r in problems))
        if problems else page.Text("없음: 모든 제출이 끝까지 실행되었습니다."))
    out += tampered_blocks(results)
    out += _superseded(results)
    timing = stats.timing(results, wall_seconds)
    slowest = timing["slowest"]
    rows = [("제출별 채점 시간의 합", _s(timing["total"]) + f" ({timing['timed']}건 측정)"),
            ("제출당 평균", _s(timing["mean"])),
            ("가장 오래 걸린 제출", f"{slowest.student}: {_s(slowest.seconds)}" if slowest else "—"),
            ("채점 실행의 벽시계 시간", _s(wall_seconds))]
    out += [page.Heading("채점 시간"), page.Table(("", "시간"), tuple(rows))]
    out += review_blocks(results, sources or {})
    out += similarity_blocks(results, chapter_id, sources or {}, threshold)
    out += [page.Heading("학급 표"),
            page.Table(("학생", "점수", "상태", "주요 진단"), tuple(class_table(results, bugs, cases)))]
    return out


def tampered(results):
    """[(student, submission, evidence lines)] of the submissions graded "tampered"."""
    return [(r.student, r.submission, [str(line) for line in r.data.get("tampered") or []])
            for r in results if r.status == "tampered"]


def tampered_blocks(results):
    """A section listing tampered submissions with their evidence (nothing when there are none)."""
    found = tampered(results)
    if not found:
        return []
    return [page.Heading("채점기를 바꾼 제출 (0점)"),
            page.Text("학생 코드가 채점기나 채점기가 쓰는 라이브러리의 함수를 바꿨습니다. 아래 증거를 확인해 주세요."),
            page.Table(("학생", "제출", "바뀐 것"), tuple(
                (student, submission, "; ".join(lines[:10]) or "—") for student, submission, lines in found))]


def _superseded(results):
    """The older attempts set aside for a newer one of the same student (none is dropped without a word)."""
    rows = tuple((r.student, _attempt(a), r.graded_attempt) for r in results for a in r.superseded)
    heading = page.Heading("채점하지 않은 이전 시도")
    if not rows:
        return [heading, page.Text("없음: 학생마다 시도가 하나였습니다.")]
    return [heading, page.Text("한 학생이 여러 번 제출하면 가장 새로운 시도만 채점합니다."),
            page.Table(("학생", "채점하지 않은 시도", "채점한 시도"), rows)]


def _attempt(attempt):
    return str(attempt.get("timestamp") or attempt.get("origin") or "—")


def _meaning(result):
    """What a problem status means; for an unreadable file, why (the reason the student reads)."""
    if result.file_problem and result.reason:
        return f"{texts.instructor(result.status)}: {result.reason}"
    return texts.instructor(result.status)


def _students_with(results, text, bugs, cases):
    return [r.student for r in results if text in diagnoses.topics(r, bugs, cases)]


def write(results, chapter_id, folder, wall_seconds=None, sources=None, threshold=None):
    """Write `report.md` and `report.html` (charts inline) into `folder`; return the HTML path. `sources`
    ({submission: graded source}) feed the review list and, with the similarity `threshold`, the similar pairs."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    _, html_path = page.write(folder, "report", f"학급 보고서 — {chapter_id}",
                              blocks(results, chapter_id, wall_seconds, sources, threshold))
    return html_path
