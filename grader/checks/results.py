"""Present check results: a Korean table for the terminal, and Gradescope's results.json schema."""
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


def causes(results, case_texts=()):
    """[(cause, [titles of the failed checks it affects], [inputs it was seen on])]: each distinct diagnosis once,
    in check order; a line `<case text>: <cause>` counts as `<cause>` seen on that input."""
    grouped = {}
    for r in results:
        if r.passed:
            continue
        for line in (r.message or "").splitlines():
            cause, case = _split_case(line.strip(), case_texts)
            if not cause:
                continue
            titles, cases = grouped.setdefault(cause, ([], []))
            if r.title not in titles:
                titles.append(r.title)
            if case and case not in cases:
                cases.append(case)
    return [(cause, titles, cases) for cause, (titles, cases) in grouped.items()]


def _split_case(line, case_texts):
    for case in sorted(case_texts, key=len, reverse=True):
        if line.startswith(case + ": "):
            return line[len(case) + 2:].strip(), case
    return line, None


def table(results, heading="", notes=(), case_texts=()):
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
    found = causes(results, case_texts)
    if found:
        lines.append("")
        lines.append("원인 (아래는 그 원인으로 실패한 검사)")
        for index, (cause, titles, cases) in enumerate(found, 1):
            lines.append(f"{index}. {cause}")
            lines.extend(f"    └ {title}" for title in titles)
            if cases:
                lines.append(f"      (입력: {', '.join(cases)})")
    return "\n".join(lines)
