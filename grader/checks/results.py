"""Present check results: a Korean table for the terminal, and Gradescope's results.json schema."""
import unicodedata


def total(results):
    """(score, max_score) of a list of CheckResult."""
    return round(sum(r.score for r in results), 4), round(sum(r.points for r in results), 4)


def gradescope(results, extra=None):
    """The results in Gradescope's `results.json` schema."""
    score, max_score = total(results)
    document = {
        "score": score,
        "max_score": max_score,
        "tests": [
            {
                "name": r.name,
                "score": r.score,
                "max_score": r.points,
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


def table(results, heading=""):
    """A fixed-width Korean table: check, points, pass/fail, then each diagnosis under its row."""
    titles = [r.title for r in results] + ["검사"]
    width = max(_width(t) for t in titles)
    lines = [heading] if heading else []
    lines.append(f"{_pad('검사', width)}  {'점수':>9}  결과")
    lines.append("-" * (width + 20))
    for r in results:
        mark = "통과" if r.passed else "실패"
        lines.append(f"{_pad(r.title, width)}  {r.score:>4g}/{r.points:<4g}  {mark}")
        if not r.passed and r.message:
            lines.extend(f"    └ {part}" for part in r.message.splitlines())
    score, max_score = total(results)
    lines.append("-" * (width + 20))
    lines.append(f"{_pad('합계', width)}  {score:>4g}/{max_score:<4g}")
    return "\n".join(lines)
