"""Class statistics computed from results.json documents: pure data, no drawing."""
import statistics
from collections import Counter
from dataclasses import dataclass

from .result_files import OK, title

BINS = 10


@dataclass(frozen=True)
class Bin:
    low: float
    high: float
    count: int
    last: bool = False

    @property
    def label(self):
        """`[low, high)`, or `[low, high]` for the last bin."""
        return f"[{self.low:g}, {self.high:g}" + ("]" if self.last else ")")


def max_score(results):
    """The assignment's maximum score (the largest max_score seen)."""
    return max((r.max_score for r in results), default=0.0)


def histogram(results, bins=BINS):
    """Score bins of equal width from 0 to the maximum; each bin holds low ≤ score < high, the last one ≤ high."""
    top = max_score(results) or 1.0
    width = top / bins
    counts = [0] * bins
    for result in results:
        index = min(bins - 1, max(0, int(result.score / width + 1e-9)))
        counts[index] += 1
    return [Bin(round(i * width, 6), round((i + 1) * width, 6), counts[i], i == bins - 1) for i in range(bins)]


def scores(results):
    """{mean, median, min, max} of the scores (None when there are no results)."""
    values = [r.score for r in results]
    if not values:
        return None
    return {"mean": statistics.fmean(values), "median": statistics.median(values), "min": min(values), "max": max(values)}


def pass_rates(results):
    """{check name: {title, visible, points, passed, total, rate}} in the order the checks appear."""
    rates = {}
    for result in results:
        for test in result.tests:
            name = str(test.get("name"))
            entry = rates.setdefault(name, {"title": title(test), "visible": test.get("visibility") == "visible",
                                            "points": float(test.get("max_score") or 0), "passed": 0, "total": 0})
            entry["total"] += 1
            entry["passed"] += test.get("status") == "passed"
    for entry in rates.values():
        entry["rate"] = entry["passed"] / entry["total"] if entry["total"] else 0.0
    return rates


def statuses(results):
    """Counter of run statuses."""
    return Counter(r.status for r in results)


def problems(results):
    """The submissions that did not run normally (timeout, crash, unreadable, …)."""
    return [r for r in results if r.status != OK]


def timing(results, wall_seconds=None):
    """{total, mean, slowest (Result or None), timed, wall}: seconds spent grading."""
    timed = [r for r in results if r.seconds is not None]
    total = sum(r.seconds for r in timed)
    return {
        "total": total,
        "timed": len(timed),
        "mean": total / len(timed) if timed else None,
        "slowest": max(timed, key=lambda r: r.seconds) if timed else None,
        "wall": wall_seconds,
    }
