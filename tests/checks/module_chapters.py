"""Expectation tables of the nn.Module chapters (03 onward): one table per chapter, read by generic tests.

A table names the chapter, its bug fixtures (fixture -> {check that must lose points: bug key whose
Korean explanation the message must contain}), its correct variants, fixtures with other names
than the contract (the message lists expected and found names) and the visible points.
"""
import functools
import importlib
import warnings
from dataclasses import dataclass, field

from tests.conftest import ROOT


@dataclass(frozen=True)
class Table:
    """What one chapter's fixtures must score."""

    chapter: str
    bug_fixtures: dict
    correct_variants: tuple
    renamed: dict = field(default_factory=dict)  # fixture -> (an expected name, a found name)
    contract: tuple = ()  # attribute names the stub's TODO must name
    text_arguments: tuple = ()  # shapes the text's "what to look for" quotes as arguments, not outputs
    visible_points: int = 70

    @property
    def number(self):
        return self.chapter[:2]

    @property
    def judge(self):
        return importlib.import_module(f"grader.checks.ch{self.number}_judge")

    @property
    def checks(self):
        return frozenset(check.name for check in self.judge.CHECKS)

    def fixture(self, name):
        path = ROOT / "tests" / "fixtures" / f"ch{self.number}" / f"{name}.py"
        assert path.exists(), f"missing fixture {path}"
        return path


# ----------------------------------------------------------------------------- chapter 03
_CH03_FORWARD = frozenset({"self_attention", "stores_attn", "cross_attention", "padding_mask", "dropout_train",
                           "hidden_causal", "hidden_cross_mask", "hidden_dropout", "hidden_gradients"})
_CH03_OUTPUTS = _CH03_FORWARD - {"stores_attn"}  # wrong output, right self.attn
_CH03_ALL = _CH03_FORWARD | {"clones_deep_copies", "module_structure"}
CH03 = Table(
    chapter="03_multihead",
    bug_fixtures={
        "no_split_transpose": dict.fromkeys(_CH03_FORWARD, "no_split_transpose"),  # view(…, h, d_k), no transpose
        "no_merge_transpose": dict.fromkeys(_CH03_OUTPUTS, "no_merge_transpose"),  # x.contiguous().view(…)
        "no_contiguous": dict.fromkeys(_CH03_FORWARD, "no_contiguous"),  # transpose(1, 2).view(…): RuntimeError
        "no_unsqueeze": dict.fromkeys({"padding_mask", "hidden_cross_mask", "hidden_dropout"}, "no_unsqueeze"),
        "shared_clones": dict.fromkeys(_CH03_ALL, "clones_shared"),  # nn.ModuleList([module] * N)
        "shallow_copy": dict.fromkeys(_CH03_ALL, "clones_shared"),  # copy.copy(module)
        "plain_list": dict.fromkeys(_CH03_ALL, "clones_list"),  # [copy.deepcopy(module) for …]
        "no_output_projection": dict.fromkeys(_CH03_OUTPUTS, "no_output_projection"),  # return x
        "dk_is_d_model": dict.fromkeys(_CH03_FORWARD, "dk_is_d_model"),  # self.d_k = d_model
        "dropout_not_passed": dict.fromkeys({"dropout_train", "hidden_dropout"}, "dropout_not_passed"),
        "attn_not_stored": {"stores_attn": "attn_not_stored"},  # x, attn = attention(…)
        "key_as_value": dict.fromkeys({"cross_attention", "hidden_cross_mask", "hidden_dropout", "hidden_gradients"},
                                      "key_as_value"),  # zip(self.linears, (query, key, key))
    },
    correct_variants=(
        "ok_reshape",  # ModuleList().append(deepcopy); reshape + permute; mask[:, None]; positional arguments
        "ok_loop_einsum",  # generator in ModuleList; a loop over linears[:3]; einsum to merge the heads
    ),
    renamed={"renamed_linears": ("linears.0.weight", "layers.0.weight")},  # self.layers
    contract=("self.linears", "self.attn", "self.dropout", "self.d_k", "self.h"),
    text_arguments=("(3, 2)",),  # nn.Linear(3, 2)
)

# ----------------------------------------------------------------------------- chapter 04
_CH04_FORWARD = frozenset({"eval_forward", "no_batch_axis", "dropout_train", "hidden_sizes", "hidden_dropout",
                           "hidden_gradients"})
_CH04_TRAIN = frozenset({"dropout_train", "hidden_dropout"})
CH04 = Table(
    chapter="04_feedforward",
    bug_fixtures={
        "relu_missing": dict.fromkeys(_CH04_FORWARD, "relu_missing"),  # w_2(dropout(w_1(x)))
        "relu_after_w2": dict.fromkeys(_CH04_FORWARD, "relu_after_w2"),  # w_2(dropout(w_1(x))).relu()
        "gelu": dict.fromkeys(_CH04_FORWARD, "other_activation"),  # F.gelu instead of ReLU
        "dropout_after_w2": dict.fromkeys(_CH04_TRAIN, "dropout_after_w2"),  # dropout(w_2(…))
        "dropout_before_w1": dict.fromkeys(_CH04_TRAIN, "dropout_before_w1"),  # w_1(dropout(x))
        "dropout_missing": dict.fromkeys(_CH04_TRAIN, "dropout_missing"),  # no dropout at all
    },
    correct_variants=(
        "ok_steps",  # torch.relu, then dropout, then w_2, one step per line
        "ok_dropout_before_relu",  # dropout then clamp(min=0): the same numbers
    ),
    renamed={"renamed_layers": ("w_1.weight", "linear1.weight")},  # self.linear1 / self.linear2
    contract=("self.w_1", "self.w_2", "self.dropout"),
)

TABLES = {table.chapter: table for table in (CH03, CH04)}


@functools.lru_cache(maxsize=None)
def _graded(chapter, path, visible_only):
    from grader.checks import runner

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return tuple(runner.run(chapter, path, visible_only=visible_only))


def grade(chapter, path, hidden=True):
    """Every check (visible and hidden, unless not `hidden`) of `chapter` on the file at `path`, cached."""
    return list(_graded(chapter, str(path), not hidden))


def total(results):
    return round(sum(r.score for r in results), 4)
