"""Chapter 13's probe builds each case's model once per submission and uses it again (the re-run under another seed,
the copy model's other cases) only while it is as built: what one run of a student's `greedy_decode` does to the
model never reaches another run."""
import pytest

from grader.checks import ch13_probe as probe
from grader.checks.loading import module_from_source
from tests import fixtures
from tests.checks.chapters import CHAPTERS, grade, total
from tests.fixtures import patches

pytestmark = [pytest.mark.checks, pytest.mark.ch13]

CH13 = next(chapter for chapter in CHAPTERS if chapter.marker == "ch13")
SOLUTION = patches.bare(fixtures.solution("ch13").read_text(encoding="utf-8"))
# the solution's greedy_decode, then the generator's weights zeroed: the tokens it returned are right
SPOILS_THE_MODEL = SOLUTION + '''

_greedy_decode = greedy_decode


def greedy_decode(model, src, src_mask, max_len, start_symbol):
    ys = _greedy_decode(model, src, src_mask, max_len, start_symbol)
    model.generator.proj.weight.data.zero_()
    return ys
'''


def test_a_model_left_as_built_is_used_again():
    """Within one submission, a case's model comes back from the cache after a run that only read it."""
    namespace = module_from_source(SOLUTION)
    first = probe.model_for(namespace, probe.CASES["causal"])
    probe.decode(namespace, "causal", probe.Spy(), seed=1)
    assert probe.model_for(namespace, probe.CASES["causal"]) is first
    assert probe.model_for(module_from_source(SOLUTION), probe.CASES["causal"]) is not first  # another submission


def test_a_model_a_run_spoiled_is_built_again(tmp_path):
    """A greedy_decode that returns the right tokens and then zeroes the generator's weights scores what the solution
    scores: the re-run under another seed (sampling or not) and the copy model's other cases get a model built anew."""
    path = tmp_path / "spoils.py"
    path.write_text(SPOILS_THE_MODEL, encoding="utf-8")
    results = grade(CH13, path)
    assert [(r.name, r.message) for r in results if not r.passed] == []
    assert total(results) == 100
