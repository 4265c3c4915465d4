"""Pairs of unusually similar submissions (chapters 03 on), found with copydetect's winnowed fingerprints.

Code every student was given or could copy in public counts as boilerplate and never makes two submissions
similar: the chapter's stub (its given code included) and the chapter's solution (the Annotated Transformer's own
code, given parts and answers alike). What is left is what students wrote differently from it, so a pair scores
high only when they share the same deviations. A list for the instructor to look at, never a verdict."""
import html
import io
from dataclasses import dataclass

from grader import paths

FIRST_CHAPTER = 3  # chapters 01-02 are a few lines each: every correct answer looks alike
DEFAULT_THRESHOLD = 0.5
NOISE_TOKENS = 25  # copydetect's defaults: matches shorter than 25 tokens are ignored, 30 always found
WINDOW = 6
MIN_OVERLAP = 40  # shared tokens below this are too little to show, whatever the ratio


@dataclass(frozen=True)
class Pair:
    """Two submissions and how much of each (its own, non-boilerplate code) the other shares."""

    first: str
    second: str
    similarity: tuple
    overlap: int
    slices: tuple  # per submission: (starts, ends) in its source


def applies(chapter_id):
    """Whether the chapter is long enough for similarity to mean something."""
    return str(chapter_id)[:2].isdigit() and int(str(chapter_id)[:2]) >= FIRST_CHAPTER


def _fingerprint(source, boilerplate=frozenset()):
    """copydetect's fingerprint of `source` without the `boilerplate` hashes (removed here: copydetect's own removal
    assumes a document's hashes are unique, and fails when they are not)."""
    from copydetect import CodeFingerprint
    from copydetect.utils import get_token_coverage

    fingerprint = CodeFingerprint("submission.py", NOISE_TOKENS, WINDOW, fp=io.StringIO(source))
    for common in fingerprint.hashes & boilerplate:
        del fingerprint.hash_idx[common]
    fingerprint.hashes = fingerprint.hashes - boilerplate
    fingerprint.token_coverage = get_token_coverage(fingerprint.hash_idx, NOISE_TOKENS, len(fingerprint.filtered_code))
    return fingerprint


def boilerplate(chapter_id):
    """The fingerprints of the chapter's stub and solution (empty where they are not in this checkout)."""
    hashes = set()
    for path in (paths.EXERCISES / chapter_id / "transformer.py", paths.SOLUTIONS / chapter_id / "transformer.py"):
        if path.is_file():
            hashes |= _fingerprint(path.read_text(encoding="utf-8")).hashes
    return frozenset(hashes)


def pairs(sources, chapter_id, threshold=None):
    """Every pair of `sources` ({submission: source}) at least `threshold` similar (either way), most similar first."""
    from copydetect import compare_files

    threshold = DEFAULT_THRESHOLD if threshold is None else threshold
    common = boilerplate(chapter_id)
    prints = {name: _fingerprint(source, common) for name, source in sorted(sources.items())}
    names = list(prints)
    found = []
    for index, first in enumerate(names):
        for second in names[index + 1:]:
            overlap, similarity, slices = compare_files(prints[first], prints[second])
            if overlap >= MIN_OVERLAP and max(similarity) >= threshold:
                found.append(Pair(first, second, tuple(float(s) for s in similarity), int(overlap),
                                  tuple((list(map(int, s[0])), list(map(int, s[1]))) for s in slices)))
    return sorted(found, key=lambda pair: (-max(pair.similarity), pair.first, pair.second))


def marked(source, slices):
    """`source` as escaped HTML with the shared stretches in <mark>."""
    starts, ends = slices
    out, position = [], 0
    for start, end in sorted(zip(starts, ends)):
        start = max(start, position)
        if end <= start:
            continue
        out += [html.escape(source[position:start]), "<mark>", html.escape(source[start:end]), "</mark>"]
        position = end
    out.append(html.escape(source[position:]))
    return "".join(out)


def side_by_side(pair, sources, students):
    """HTML: the two sources next to each other, shared code marked."""
    columns = []
    for name, slices, share in zip((pair.first, pair.second), pair.slices, pair.similarity):
        columns.append(f'<td style="vertical-align:top;width:50%"><b>{html.escape(students.get(name, name))}</b> '
                       f"({html.escape(name)}, {100 * share:.0f}% 공유)<pre>{marked(sources[name], slices)}</pre></td>")
    return f'<table class="side-by-side"><tr>{"".join(columns)}</tr></table>'
