"""The instructor's class report (`report.md`, `report.html` and PNGs): scores, pass rates, what to re-teach."""
from pathlib import Path

from . import charts, diagnoses, page, stats, texts

HISTOGRAM = "report-histogram.png"
PASS_RATES = "report-pass-rates.png"
TOP_TOPICS = 10


def _s(value):
    return "—" if value is None else f"{value:.1f} s"


def class_table(results, bugs, cases, width=None):
    """(student, score, status, top diagnosis) per submission: the first topic of its first failed check."""
    rows = []
    for result in results:
        found = diagnoses.topics(result, bugs, cases)
        top = found[0] if found else "—"
        if width and len(top) > width:
            top = top[: width - 1] + "…"
        rows.append((result.student, f"{round(result.score, 2):g}/{result.max_score:g}", result.status, top))
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
        "timing": {k: v for k, v in stats.timing(results, wall_seconds).items() if k != "slowest"},
    }


def stats_topics(results, bugs, cases):
    """[(topic, submissions)] most frequent first."""
    return diagnoses.frequent(results, bugs, cases).most_common()


def blocks(results, chapter_id, folder, wall_seconds=None):
    """The report's blocks; draws the charts into `folder`."""
    folder = Path(folder)
    bugs, cases = diagnoses.vocabulary(chapter_id)
    if not results:
        return [page.Text("No results found: nothing was graded.")]
    top, numbers = stats.max_score(results), stats.scores(results)
    counts = stats.statuses(results)
    out = [page.Text(f"{len(results)} submissions, max score {top:g}. Mean {numbers['mean']:.1f}, median "
                     f"{round(numbers['median'], 2):g}, lowest {round(numbers['min'], 2):g}, highest {round(numbers['max'], 2):g}. Run status: "
                     + ", ".join(f"{status} {n}" for status, n in sorted(counts.items())) + ".")]
    bins = stats.histogram(results)
    charts.histogram(folder / HISTOGRAM, bins, top)
    out += [page.Heading("Score histogram"), page.Image(HISTOGRAM, "score histogram"),
            page.Table(("score", "submissions"), tuple((b.label, str(b.count)) for b in bins))]
    rates = stats.pass_rates(results)
    charts.pass_rates(folder / PASS_RATES, rates)
    out += [page.Heading("Pass rate per check"), page.Image(PASS_RATES, "pass rate per check"),
            page.Table(("check", "title", "kind", "points", "passed", "rate"), tuple(
                (name, e["title"], "visible" if e["visible"] else "hidden", f"{e['points']:g}",
                 f"{e['passed']}/{e['total']}", f"{100 * e['rate']:.0f}%") for name, e in rates.items()))]
    topics = stats_topics(results, bugs, cases)
    out += [page.Heading("What to re-teach: most frequent diagnoses"),
            page.Text("Each diagnosis counts once per submission (known bug explanations are grouped across checks and inputs).")]
    out.append(page.Table(("submissions", "diagnosis (as the students read it)", "examples"), tuple(
        (str(n), text, ", ".join(_students_with(results, text, bugs, cases)[:5])) for text, n in topics[:TOP_TOPICS]))
        if topics else page.Text("No check failed."))
    problems = stats.problems(results)
    out.append(page.Heading("Submissions that did not run normally"))
    out.append(page.Table(("student", "submission", "status", "meaning", "seconds"), tuple(
        (r.student, r.submission, r.status, texts.instructor(r.status), _s(r.seconds)) for r in problems))
        if problems else page.Text("None: every submission ran to the end."))
    timing = stats.timing(results, wall_seconds)
    slowest = timing["slowest"]
    rows = [("sum of per-submission seconds", _s(timing["total"]) + f" ({timing['timed']} timed)"),
            ("mean per submission", _s(timing["mean"])),
            ("slowest", f"{slowest.student}: {_s(slowest.seconds)}" if slowest else "—"),
            ("wall time of the grading run", _s(wall_seconds))]
    out += [page.Heading("Grading time"), page.Table(("", "time"), tuple(rows))]
    out += [page.Heading("Class table"),
            page.Table(("student", "score", "status", "top diagnosis"), tuple(class_table(results, bugs, cases)))]
    return out


def _students_with(results, text, bugs, cases):
    return [r.student for r in results if text in diagnoses.topics(r, bugs, cases)]


def write(results, chapter_id, folder, wall_seconds=None):
    """Write `report.md`, `report.html` and the chart PNGs into `folder`; return the HTML path."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    _, html_path = page.write(folder, "report", f"Class report — {chapter_id}",
                              blocks(results, chapter_id, folder, wall_seconds))
    return html_path
