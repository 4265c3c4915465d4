"""Probe-side: what a module's parts received during one forward, as plain data.

Sandbox side. `watch(module, inputs)` hooks the student's submodules before a forward and records, in call
order, every call of a watched part (attention, feed-forward, …): where each tensor argument came from — one of
the forward's named inputs (`input:x`, `input:memory`), the output of one of the module's LayerNorms (its
dotted name, e.g. `layers.0.sublayer.1.norm`), or something else — and which mask it received (`None`, an
input mask by name, or another tensor's shape). Which inputs a lambda actually used and which mask each
attention call got are then facts the judge reads, not guesses.
"""
import torch

MAX_CALLS = 256
ARGUMENTS = {"MultiHeadedAttention": ("query", "key", "value", "mask"), "PositionwiseFeedForward": ("x",)}
NORMS = ("LayerNorm",)


class Recorder:
    """Hooks on one module's parts; `calls` is the plain-data record, `remove()` takes the hooks off."""

    def __init__(self, module, inputs):
        self.inputs = dict(inputs)
        self.calls = []
        self._norm_outputs = {}  # id(output) → (norm name, output): kept alive so ids stay unique
        self._handles = []
        for name, sub in module.named_modules():
            kind = type(sub).__name__
            if kind in NORMS:
                self._handles.append(sub.register_forward_hook(self._norm_hook(name)))
            elif kind in ARGUMENTS:
                self._handles.append(sub.register_forward_pre_hook(self._call_hook(name, kind), with_kwargs=True))

    def _norm_hook(self, name):
        def hook(module, args, output):
            if isinstance(output, torch.Tensor):
                self._norm_outputs[id(output)] = (name, output)

        return hook

    def _call_hook(self, name, kind):
        def hook(module, args, kwargs):
            if len(self.calls) < MAX_CALLS:
                given = dict(zip(ARGUMENTS[kind], args))
                given.update({key: value for key, value in kwargs.items() if key in ARGUMENTS[kind]})
                record = {"module": name, "kind": kind}
                for argument in ARGUMENTS[kind]:
                    value = given.get(argument)
                    record[argument] = self.mask(value) if argument == "mask" else self.origin(value)
                self.calls.append(record)

        return hook

    def origin(self, tensor):
        """Where `tensor` came from: `input:<name>`, a LayerNorm's name, "other", or None when not given."""
        if tensor is None:
            return None
        for name, value in self.inputs.items():
            if tensor is value:
                return f"input:{name}"
        kept = self._norm_outputs.get(id(tensor))
        return kept[0] if kept is not None and kept[1] is tensor else "other"

    def mask(self, tensor):
        """Which mask an attention call received: None, `input:<name>` (that mask, or one equal to it), or its shape."""
        if tensor is None:
            return None
        if not isinstance(tensor, torch.Tensor):
            return {"type": type(tensor).__name__}
        for name, value in self.inputs.items():
            if tensor is value or (value.dtype == torch.bool and tensor.shape == value.shape
                                   and bool(torch.equal(tensor.bool(), value))):
                return f"input:{name}"
        return {"shape": [int(n) for n in tensor.shape]}

    def remove(self):
        for handle in self._handles:
            handle.remove()


def watch(module, inputs):
    """A Recorder on `module` for a forward on `inputs` ({name: tensor}); never raises (None if hooking failed)."""
    try:
        return Recorder(module, inputs)
    except (AttributeError, RuntimeError, TypeError):  # a student's module may break named_modules(); the record is then simply absent
        return None
