"""Summaries are made on the judge side from raw data the probe sends (issue 26): chapter 09's Xavier spread from a
sample of the fresh weights, chapter 14's tick labels at the cells from the heatmap's placement and the axes' ticks.
A number made up in the sandbox (the spread itself, the labels where they should be) buys nothing."""
import copy

import pytest

from grader.checks import ch09_judge, ch14_judge, framework, references

pytestmark = pytest.mark.checks


def verdicts(judge, case, trace):
    """{check name: CheckResult} of the chapter's checks on `case`, the other cases' traces being the reference's."""
    chapter = judge.CHAPTER
    known = references.load(chapter.id)
    traces = {name: copy.deepcopy(reference) for name, reference in known["cases"].items()}
    traces[case] = trace
    return {result.name: result for result in framework.judge(chapter.checks, chapter.probe, {"traces": traces}, known)}


def reference_trace(judge, case):
    return copy.deepcopy(references.load(judge.CHAPTER.id)["cases"][case])


@pytest.mark.ch09
def test_the_spread_is_computed_from_the_weights():
    """The solution's sampled weights pass; the same weights scaled by 0.7 (no Xavier) fail; the old in-sandbox
    summary ([std, mean] with the Xavier std) is no sample of weights and fails too."""
    trace = reference_trace(ch09_judge, "model")
    assert verdicts(ch09_judge, "model", trace)["xavier"].passed
    scaled = {name: [0.7 * value for value in values] for name, values in trace["fresh"].items()}
    failed = verdicts(ch09_judge, "model", {**trace, "fresh": scaled})["xavier"]
    assert not failed.passed and ch09_judge.BUGS["no_xavier"] in failed.message
    summary = {name: [float(ch09_judge.torch.tensor(values).std()), 0.0] for name, values in trace["fresh"].items()}
    assert not verdicts(ch09_judge, "model", {**trace, "fresh": summary})["xavier"].passed


@pytest.mark.ch14
def test_tick_labels_are_read_at_the_cells_from_the_raw_ticks():
    """The solution's ticks give the key and query tokens at the cells; the same labels on ticks moved one cell
    over are misplaced."""
    trace = reference_trace(ch14_judge, "map")
    x_labels, y_labels = ch14_judge.labels(trace["axes"], "map")
    spec = ch14_judge.probe.CASES["map"]
    assert x_labels[:spec.max_dim] == ch14_judge.probe.col_tokens(spec)[:spec.max_dim]
    assert y_labels[:spec.max_dim] == ch14_judge.probe.row_tokens(spec)[:spec.max_dim]
    assert verdicts(ch14_judge, "map", trace)["attn_map_ticks"].passed
    for axis in ("x_ticks", "y_ticks"):
        trace["axes"][axis]["at"] = [at + 1 for at in trace["axes"][axis]["at"]]
    moved = verdicts(ch14_judge, "map", trace)["attn_map_ticks"]
    assert not moved.passed and ch14_judge.BUGS["ticks_misplaced"] in moved.message


@pytest.mark.ch14
def test_the_colour_range_is_judged_from_the_norms_limits():
    """The solution's norm limits (0 and 1) pass; the drawn values' own extremes (matplotlib's default) are named as
    colours that follow the data, another fixed range as not 0–1; a summary the probe never sends buys nothing."""
    trace = reference_trace(ch14_judge, "map")
    assert trace["axes"]["colour"] == {"norm": "Normalize", "vmin": 0.0, "vmax": 1.0}
    assert verdicts(ch14_judge, "map", trace)["attn_map_scale"].passed
    data = trace["axes"]["data"]["data"]
    auto = copy.deepcopy(trace)
    auto["axes"]["colour"].update(vmin=min(data), vmax=max(data))
    failed = verdicts(ch14_judge, "map", auto)["attn_map_scale"]
    assert not failed.passed and ch14_judge.BUGS["scale_data"] in failed.message
    other = copy.deepcopy(trace)
    other["axes"]["colour"]["vmax"] = 0.5
    failed = verdicts(ch14_judge, "map", other)["attn_map_scale"]
    assert not failed.passed and ch14_judge.BUGS["scale_range"] in failed.message
    for colour in ({"norm": "Normalize", "vmin": None, "vmax": None}, {"norm": "Norm"},
                   {"norm": "Normalize", "vmin": {"type": "str"}, "vmax": 1.0},
                   {"norm": "Normalize", "fixed": True}):  # a made-up verdict is no limit
        forged = copy.deepcopy(trace)
        forged["axes"]["colour"] = colour
        assert not verdicts(ch14_judge, "map", forged)["attn_map_scale"].passed, colour


@pytest.mark.ch14
def test_the_probe_reads_the_colour_limits_through_matplotlibs_normalize():
    """vmin=0, vmax=1 as ints or floats, clim, set_clim and Normalize(0, 1) read as 0.0 and 1.0; no limits give the
    data's extremes; a Normalize subclass whose own vmin and vmax say 0 and 1 is read by matplotlib's property, and a
    limit that is no plain number by its type's name only."""
    import numpy
    from matplotlib.colors import Normalize
    from matplotlib.figure import Figure

    from grader.checks import ch14_probe

    m = numpy.array([[0.2, 0.3], [0.25, 0.4]])

    def colour(draw):
        ax = Figure().add_subplot()
        draw(ax)
        return ch14_probe.drawn(ax)["colour"]

    fixed = {"norm": "Normalize", "vmin": 0.0, "vmax": 1.0}
    assert colour(lambda ax: ax.imshow(m, vmin=0, vmax=1)) == fixed
    assert colour(lambda ax: ax.matshow(m, clim=(0.0, 1.0))) == fixed
    assert colour(lambda ax: ax.pcolormesh(m).set_clim(0, 1)) == fixed
    assert colour(lambda ax: ax.pcolor(m, norm=Normalize(0, 1))) == fixed
    assert colour(lambda ax: ax.imshow(m)) == {"norm": "Normalize", "vmin": 0.2, "vmax": 0.4}

    class Lying(Normalize):
        vmin = property(lambda self: 0.0, lambda self, value: None)
        vmax = property(lambda self: 1.0, lambda self, value: None)

    assert colour(lambda ax: ax.imshow(m, norm=Lying(0.2, 0.4)))["vmax"] == 0.4

    class Number(float):
        pass

    norm = Normalize(0, 1)
    norm._vmax = Number(1.0)  # past matplotlib's setter, which makes a plain float of any number
    assert colour(lambda ax: ax.imshow(m, norm=norm))["vmax"] == {"type": "Number"}
