"""Present check results: a Korean table for the terminal, and Gradescope's results.json schema."""
import re
import unicodedata


DECIMALS = 2  # every score shown or exported carries at most two decimals; a check's score is rounded so already


def rounded(value):
    """`value` rounded to the two decimals scores carry (a sum of such scores, too)."""
    return round(float(value), DECIMALS)


def number(value):
    """A score as shown and exported: 38.3333 → "38.33", 70.0 → "70", 2.5 → "2.5"."""
    return f"{rounded(value):.{DECIMALS}f}".rstrip("0").rstrip(".").replace("-0", "0") or "0"


def total(results):
    """(score, max_score) of a list of CheckResult: the sums of the rounded per-check scores, so they add up."""
    return rounded(sum(rounded(r.score) for r in results)), rounded(sum(r.points for r in results))


def gradescope(results, extra=None):
    """The results in Gradescope's `results.json` schema."""
    score, max_score = total(results)
    document = {
        "score": score,
        "max_score": max_score,
        "tests": [
            {
                "name": r.name,
                "score": rounded(r.score),
                "max_score": rounded(r.points),
                "status": "passed" if r.passed else "failed",
                "output": r.title + ("" if r.passed else f"\n{r.message}"),
                "visibility": "visible" if r.visible else "after_published",
            }
            for r in results
        ],
    }
    document.update(extra or {})
    return document


def _width(text):
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _pad(text, width):
    return text + " " * max(0, width - _width(text))


# A diagnosis that names no mistake: it only says the numbers differ. It is listed only when nothing more specific
# was found (then the checks it failed are counted under the first specific cause).
GENERIC = ("출력 값이 기준과 다릅니다",)


def rank(cause, bugs=()):
    """0: a chapter's known bug text; 1: another specific diagnosis (an error, a shape); 2: the generic one."""
    if any(known in cause for known in bugs):
        return 0
    return 2 if cause.startswith(GENERIC) else 1


def ranked(grouped, bugs=()):
    """`grouped` ({cause: ([titles], [cases])}, in check order) ranked: known bugs first, generic causes last and
    only when nothing more specific was found (their checks then join the first cause)."""
    order = sorted(grouped, key=lambda cause: rank(cause, bugs))  # stable: check order within a rank
    if not order or rank(order[0], bugs) == 2:
        return [(cause, *grouped[cause]) for cause in order]
    first_titles, first_cases = grouped[order[0]]
    for cause in order:
        if rank(cause, bugs) == 2:
            first_titles.extend(t for t in grouped[cause][0] if t not in first_titles)
    return [(cause, *grouped[cause]) for cause in order if rank(cause, bugs) < 2]


# errortext.runtime_error's sentence: the exception's type, its message (not on a hidden case), where it happened
ERROR_LINE = re.compile(r"^실행 중 오류가 났습니다 \((?P<type>[\w.]+)(?P<message>: .*?)?(?P<where>, (?:위에서|실행 번호|\S+\.py ).*)?\)\.$")


def merge_errors(grouped):
    """One exception is one cause: a hidden check's sentence without the message joins the same exception's sentence
    with it (same type, same place)."""
    full = {}
    for cause in grouped:
        found = ERROR_LINE.match(cause)
        if found and found["message"]:
            full.setdefault((found["type"], found["where"]), cause)
    for cause in list(grouped):
        found = ERROR_LINE.match(cause)
        target = found and not found["message"] and full.get((found["type"], found["where"]))
        if target:
            titles, cases = grouped.pop(cause)
            grouped[target][0].extend(t for t in titles if t not in grouped[target][0])
            grouped[target][1].extend(c for c in cases if c not in grouped[target][1])
    return grouped


def known_text(line, bugs):
    """The one known bug text `line` holds (None when it holds none, or several: bugs that occur together)."""
    found = [known for known in bugs if known in line]
    found = [known for known in found if not any(known != other and known in other for other in found)]
    return found[0] if len(found) == 1 else None


def causes(results, case_texts=(), bugs=()):
    """[(cause, [titles of the failed checks it affects], [inputs it was seen on])]: each distinct diagnosis once,
    ranked (`ranked`: a known bug of `bugs` first, the generic one only when nothing else was found); a line
    `<case text>: <cause>` counts as `<cause>` seen on that input, a line holding one known bug text as that text."""
    grouped = {}
    for r in results:
        if r.passed:
            continue
        for line in (r.message or "").splitlines():
            cause, case = _split_case(line.strip(), case_texts)
            if not cause:
                continue
            cause = known_text(cause, bugs) or cause
            titles, cases = grouped.setdefault(cause, ([], []))
            if r.title not in titles:
                titles.append(r.title)
            if case and case not in cases:
                cases.append(case)
    return ranked(merge_errors(grouped), bugs)


def _split_case(line, case_texts):
    for case in sorted(case_texts, key=len, reverse=True):
        if line.startswith(case + ": "):
            return line[len(case) + 2:].strip(), case
    return line, None


def table(results, heading="", notes=(), case_texts=(), bugs=()):
    """A fixed-width Korean table (check, points, pass/fail), then each cause once with the checks it affects."""
    titles = [r.title for r in results] + ["검사"]
    width = max(_width(t) for t in titles)
    lines = [heading] if heading else []
    lines.extend(f"※ {note}" for note in notes)
    lines.append(f"{_pad('검사', width)}  {'점수':>9}    결과")
    lines.append("-" * (width + 20))
    for r in results:
        mark = "통과" if r.passed else "실패"
        lines.append(f"{_pad(r.title, width)}  {number(r.score):>5}/{number(r.points):<5}  {mark}")
    score, max_score = total(results)
    lines.append("-" * (width + 20))
    lines.append(f"{_pad('합계', width)}  {number(score):>5}/{number(max_score):<5}")
    found = causes(results, case_texts, bugs)
    if found:
        lines.append("")
        lines.append("원인 (아래는 그 원인으로 실패한 검사)")
        for index, (cause, titles, cases) in enumerate(found, 1):
            lines.append(f"{index}. {cause}")
            lines.extend(f"    └ {title}" for title in titles)
            if cases:
                lines.append(f"      (입력: {', '.join(cases)})")
    return "\n".join(lines)
