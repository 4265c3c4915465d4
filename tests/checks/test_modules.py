"""Module support: what the probe records about an `nn.Module` (plain JSON data) and how the judge explains it."""
import copy
import json
import types

import pytest
import torch
from torch import nn

from grader.checks import module_judge, modules
from grader.checks.tensors import encode

pytestmark = pytest.mark.checks


class Pair(nn.Module):
    """Two linear layers kept in `layers`, built by `make_layers`; a buffer `table`."""

    def __init__(self, make_layers, d=3):
        super().__init__()
        self.layers = make_layers(nn.Linear(d, d))
        self.register_buffer("table", torch.arange(float(d)))
        self.drop = nn.Dropout(0.25)
        self.seen = None

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        self.seen = x.detach()
        return self.drop(x + self.table)


def _deep(module):
    return nn.ModuleList([copy.deepcopy(module) for _ in range(2)])


def _record(make_layers):
    module, failed = modules.build(types.SimpleNamespace(Pair=lambda: Pair(make_layers)), "Pair", seed=5)
    assert failed is None
    return module, json.loads(json.dumps(modules.structure(module)))


def test_structure_is_plain_data_with_names_shapes_buffers_and_dropout():
    """A correct module: state_dict names and shapes, parameters, buffers, dropout rates; nothing shared."""
    _, found = _record(_deep)
    assert [name for name, _ in found["state_dict"]] == [
        "table", "layers.0.weight", "layers.0.bias", "layers.1.weight", "layers.1.bias"]
    assert found["buffers"] == [["table", [3]]]
    assert found["shared"] == [] and found["unregistered"] == []
    assert found["parameter_count"] == 2 * (9 + 3)
    assert found["dropout"] == [["drop", 0.25]]


def test_shared_weights_are_visible():
    """`[m] * N` and a shallow copy put one tensor under several names; the record groups them."""
    for make_layers in (lambda m: nn.ModuleList([m] * 2), lambda m: nn.ModuleList([copy.copy(m) for _ in range(2)])):
        _, found = _record(make_layers)
        assert ["layers.0.weight", "layers.1.weight"] in found["shared"]
        assert found["parameter_count"] == 9 + 3


def test_plain_list_is_visible():
    """Layers kept in a plain list are not registered: no parameters, and the attribute is named."""
    _, found = _record(lambda m: [copy.deepcopy(m) for _ in range(2)])
    assert found["parameter_count"] == 0
    assert found["unregistered"] == [{"name": "layers", "container": "list", "modules": ["Linear", "Linear"]}]


def test_seeded_weights_depend_on_seed_and_name_only():
    """The same (name, shape) and seed give the same tensor in any order; another seed or name another tensor."""
    a = modules.seeded_weights([("x.weight", [4, 3]), ("y", [3])], seed=7)
    b = modules.seeded_weights([("y", [3]), ("x.weight", [4, 3])], seed=7)
    assert torch.equal(a["x.weight"], b["x.weight"]) and torch.equal(a["y"], b["y"])
    assert not torch.equal(a["x.weight"], modules.seeded_weights([("x.weight", [4, 3])], seed=8)["x.weight"])
    assert a["x.weight"].abs().max() <= 1 / 3 ** 0.5


def test_load_forward_attributes_and_gradients():
    """Seeded weights load strictly (buffers too); a seeded train-mode forward repeats; attributes and
    gradients come back as plain data."""
    module, _ = _record(_deep)
    assert modules.load_seeded(module, seed=3) == {"missing": [], "unexpected": []}
    assert not torch.equal(module.table, torch.arange(3.0))  # loading overwrites buffers: record fresh modules too
    x = torch.randn(2, 3)
    first, failed = modules.forward(module, (x,), train=True, seed=11)
    second, _ = modules.forward(module, (x,), train=True, seed=11)
    assert failed is None and torch.equal(first, second)
    evaluated, _ = modules.forward(module, (x,), train=False)
    assert not torch.equal(first, evaluated)
    recorded = modules.attributes(module, ("seen", "absent"))
    assert recorded["seen"]["kind"] == "tensor" and recorded["absent"] == modules.MISSING
    grads = modules.gradients(module, evaluated)
    assert set(grads["parameters"]) == {"layers.0.weight", "layers.0.bias", "layers.1.weight", "layers.1.bias"}
    json.dumps(grads)


def test_build_reports_missing_class_and_errors():
    """A missing class, an exception in __init__ and a non-module come back as error data."""
    assert modules.build(types.SimpleNamespace(), "Pair")[1]["error"]["type"] == "MissingFunction"

    def broken():
        raise NotImplementedError("todo")

    assert modules.build(types.SimpleNamespace(Pair=broken), "Pair")[1]["error"]["type"] == "NotImplementedError"
    assert modules.build(types.SimpleNamespace(Pair=list), "Pair")[1]["error"]["type"] == "NotAModule"


def test_judge_explains_a_state_dict_mismatch_in_korean():
    """Missing and unexpected names are listed with the expected and the found names; shapes are compared;
    hidden cases leave the full name lists and shapes out."""
    _, expected = _record(_deep)
    renamed = json.loads(json.dumps(expected).replace("layers.", "blocks."))
    message = module_judge.structure_problem(expected, renamed)
    assert "있어야 하는데 없는 이름: `layers.0.weight`" in message
    assert "기준에 없는 이름: `blocks.0.weight`" in message
    assert "기준의 이름" in message and "찾은 이름" in message
    assert "기준의 이름" not in module_judge.structure_problem(expected, renamed, visible=False)
    reshaped = json.loads(json.dumps(expected))
    reshaped["state_dict"][1][1] = [3, 2]
    assert "`layers.0.weight`의 모양이 다릅니다: (3, 3)이어야 하는데 (3, 2)입니다" in module_judge.names_problem(expected, reshaped)
    assert module_judge.structure_problem(expected, expected) is None


def test_judge_explains_sharing_and_plain_lists():
    """Shared names and plain-list containers get their own Korean explanation (with the chapter's hint)."""
    _, expected = _record(_deep)
    _, shared = _record(lambda m: nn.ModuleList([m] * 2))
    assert "`layers.0.weight` = `layers.1.weight`" in module_judge.structure_problem(expected, shared, shared_hint="H")
    _, plain = _record(lambda m: [copy.deepcopy(m) for _ in range(2)])
    message = module_judge.structure_problem(expected, plain, list_hint="L")
    assert "`self.layers`" in message and "list" in message and message.endswith("L")
    assert "4개여야" not in (module_judge.parameter_count_problem(expected, expected) or "")
    assert "24개여야" in module_judge.parameter_count_problem(expected, plain)


def test_fresh_module_values_and_output_are_recorded_before_loading():
    """A fresh module's buffer and initial values, and its eval output, are recorded before seeded weights
    overwrite them (loading replaces buffers such as a positional table)."""
    namespace = types.SimpleNamespace(Pair=lambda: Pair(_deep))
    x = torch.ones(1, 3)
    trace = json.loads(json.dumps(modules.record(namespace, "Pair", (), seed=5, inputs=(x,),
                                                 fresh_names=("table", "absent"), fresh_inputs=(x,))))
    assert trace["fresh"]["table"]["data"] == [0.0, 1.0, 2.0]
    assert trace["fresh"]["absent"] == modules.MISSING
    assert trace["fresh_result"]["kind"] == "tensor"
    assert trace["fresh_result"]["data"] != trace["result"]["data"]  # the loaded weights give another output


def test_unloaded_record_runs_the_module_as_built():
    """With `load=False` the forward (eval, or seeded train mode) runs on the freshly built module: the
    trace has its structure and result but no "load", and the result differs from the loaded module's."""
    namespace = types.SimpleNamespace(Pair=lambda: Pair(_deep))
    x = torch.ones(2, 3)
    fresh = json.loads(json.dumps(modules.record(namespace, "Pair", (), seed=5, inputs=(x,), train=True, load=False)))
    loaded = modules.record(namespace, "Pair", (), seed=5, inputs=(x,), train=True)
    assert set(fresh) == {"structure", "result"} and "load" in loaded
    module, _ = _record(_deep)
    expected, _ = modules.forward(module, (x,), train=True, seed=5)
    assert fresh["result"]["data"] == encode(expected)["data"]
    assert fresh["result"]["data"] != json.loads(json.dumps(loaded["result"]))["data"]


def _pair():
    return Pair(_deep).eval()


def test_a_module_a_forward_left_as_built_is_intact():
    """`Pristine` finds a module intact after forwards that only read it: outputs kept as attributes (`seen`, None
    until the first forward) and hooks added then removed are not changes."""
    module = _pair()
    kept = modules.Pristine(module)
    handle = module.register_forward_hook(lambda *args: None)
    module(torch.ones(2, 3))
    handle.remove()
    assert module.seen is not None and kept.intact()


@pytest.mark.parametrize("change", [
    lambda m: m.layers[0].weight.data.add_(1.0),  # a parameter edited in place
    lambda m: m.table.mul_(2),  # a buffer
    lambda m: setattr(m.layers, "1", nn.Linear(3, 3)),  # a submodule replaced
    lambda m: m.register_forward_hook(lambda *args: None),  # a hook left behind
    lambda m: setattr(m.drop, "p", 0.9),  # a plain attribute of a submodule
    lambda m: m.train(),  # the mode
    lambda m: setattr(m, "extra", object()),  # an attribute added
    lambda m: setattr(m.layers[0], "forward", lambda x: x),  # a method replaced on the instance
], ids=["parameter", "buffer", "submodule", "hook", "dropout_rate", "train_mode", "new_attribute", "forward"])
def test_a_changed_module_is_not_intact(change):
    """Whatever a run changed of the module, `Pristine.intact()` says so (the caller then builds a new one)."""
    module = _pair()
    kept = modules.Pristine(module)
    change(module)
    assert not kept.intact()
