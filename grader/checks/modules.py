"""Probe-side support for chapters whose students write `nn.Module` classes.

Sandbox side: builds the student's class under a fixed seed, describes its structure (parameter and
buffer names, shapes, aliasing, modules hidden in plain containers), loads seeded weights, runs
eval or seeded train-mode forwards, records attributes and gradients — all as plain data. The
weights are drawn per state_dict name from a seed (`seeded_weights`), so the solution and a student
whose names match get the same numbers, and the judge can draw them again; nothing crosses in.
"""
import zlib

import torch

from .tensors import describe_exception, encode, portable_randn

MAX_NAMES = 64  # groups of shared names, unregistered containers, gradients
MAX_STATE_NAMES = 4096  # names and shapes: compared as sets by the judge, so never cut to the first few
MISSING = {"kind": "missing"}


def build(namespace, class_name, args=(), kwargs=None, seed=0):
    """(module, None) built as `class_name(*args, **kwargs)` after `torch.manual_seed(seed)`, or (None, trace)."""
    cls = getattr(namespace, class_name, None)
    if not callable(cls):
        return None, {"error": {"type": "MissingFunction", "message": class_name}}
    torch.manual_seed(seed)
    try:
        module = cls(*args, **(kwargs or {}))
    except BaseException as error:
        return None, {"error": describe_exception(error)}
    if not isinstance(module, torch.nn.Module):
        return None, {"error": {"type": "NotAModule", "message": type(module).__name__}}
    return module, None


def structure(module):
    """Names, shapes and sharing of a module's parameters and buffers, and modules it holds unregistered."""
    state = module.state_dict(keep_vars=True)
    return {
        "type": type(module).__name__,
        "state_dict": [[name, [int(n) for n in value.shape]] for name, value in list(state.items())[:MAX_STATE_NAMES]],
        "parameters": [[name, [int(n) for n in p.shape], bool(p.requires_grad)]
                       for name, p in list(module.named_parameters(remove_duplicate=False))[:MAX_STATE_NAMES]],
        "buffers": [[name, [int(n) for n in b.shape]]
                    for name, b in list(module.named_buffers(remove_duplicate=False))[:MAX_STATE_NAMES]],
        "shared": shared_names(state),
        "unregistered": unregistered_modules(module),
        "parameter_count": int(sum(p.numel() for p in module.parameters())),
        "dropout": [[name, float(sub.p)] for name, sub in module.named_modules()
                    if isinstance(sub, torch.nn.Dropout)][:MAX_STATE_NAMES],
    }


def shared_names(state):
    """Groups of state_dict names that are the same tensor storage (e.g. `[nn.Linear(...)] * 4`)."""
    groups = {}
    for name, value in state.items():
        if isinstance(value, torch.Tensor) and value.numel():
            groups.setdefault((value.untyped_storage().data_ptr(), value.storage_offset()), []).append(name)
    return [names for names in groups.values() if len(names) > 1][:MAX_NAMES]


def unregistered_modules(module):
    """Attributes (of the module or its submodules) that hold modules in a plain list, tuple or dict."""
    found = []
    for prefix, sub in module.named_modules():
        for attribute, value in vars(sub).items():
            if attribute.startswith("_") or not isinstance(value, (list, tuple, dict)):
                continue
            items = value.values() if isinstance(value, dict) else value
            kinds = [type(item).__name__ for item in items if isinstance(item, torch.nn.Module)]
            if kinds:
                name = f"{prefix}.{attribute}" if prefix else attribute
                found.append({"name": name, "container": type(value).__name__, "modules": kinds[:16]})
    return found[:MAX_NAMES]


def seeded_weights(shapes, seed):
    """{name: tensor} drawn for each (name, shape), uniform in ±1/√(last dim), from `seed` and the name alone."""
    weights = {}
    for name, shape in shapes:
        generator = torch.Generator().manual_seed(seed * 1_000_003 + zlib.crc32(name.encode()))
        bound = 1.0 / max(1, shape[-1] if shape else 1) ** 0.5
        uniform = torch.rand(*shape, generator=generator, dtype=torch.float64)  # float64: the same on every CPU
        weights[name] = ((uniform * 2 - 1) * bound).to(torch.float32)
    return weights


def load_seeded(module, seed):
    """Load weights drawn by `seeded_weights` for the module's own state_dict names, strictly; plain data."""
    shapes = [(name, list(value.shape)) for name, value in module.state_dict().items()]
    try:
        result = module.load_state_dict(seeded_weights(shapes, seed), strict=True)
    except BaseException as error:
        return {"error": describe_exception(error)}
    return {"missing": list(result.missing_keys), "unexpected": list(result.unexpected_keys)}


def forward(module, inputs, train=False, seed=0, kwargs=None):
    """Call `module(*inputs)` in eval or train mode, seeded; the result as plain data, or an error."""
    module.train(train)
    try:
        # Right before the call: the student's dropout draws from here; in eval mode too, so a dropout that ignores
        # eval (F.dropout without training=) draws what its bug model draws.
        torch.manual_seed(seed)
        return module(*inputs, **(kwargs or {})), None
    except BaseException as error:
        return None, {"error": describe_exception(error)}


def attributes(module, names):
    """{name: encoded attribute} for attributes a later chapter reads (e.g. `attn`); missing ones marked."""
    return {name: encode(getattr(module, name)) if hasattr(module, name) else MISSING for name in names}


def gradients(module, output, inputs=(), seed=99):
    """Backpropagate a fixed random weighting of `output`; each parameter's gradient by name, and the inputs'."""
    try:
        weighting = portable_randn(output.shape, torch.Generator().manual_seed(seed))
        (output * weighting).sum().backward()
    except BaseException as error:
        return {"error": describe_exception(error)}
    return {
        "parameters": {name: encode(p.grad) for name, p in list(module.named_parameters())[:MAX_NAMES]},
        "inputs": [encode(t.grad) for t in inputs],
    }


def fresh_values(module, names):
    """{name: encoded value} of state_dict entries of a freshly built module (buffers such as a positional
    table, or initial values such as a LayerNorm's ones and zeros), before loading overwrites them."""
    state = module.state_dict()
    return {name: encode(state[name]) if name in state else MISSING for name in names}


def record(namespace, class_name, args, kwargs=None, seed=0, inputs=None, train=False, call_kwargs=None,
           attribute_names=(), with_gradients=False, fresh_names=(), fresh_inputs=None, load=True, built_names=()):
    """One module case as plain data: the fresh module's structure (and the values of `fresh_names`, its
    attributes `built_names` as built, and its output on `fresh_inputs` in eval mode, before any loading); with
    `inputs`, also the seeded weights' loading, the forward's result, the attributes after it and, if asked, the
    gradients. With
    `load=False` nothing is loaded: the forward runs on the module as built (a buffer it computed, its
    initial weights), with no "load" in the trace and attributes only if named."""
    module, failed = build(namespace, class_name, args, kwargs, seed)
    if failed:
        return failed
    trace = {"structure": structure(module)}
    if built_names:  # kept when the forward raises (e.g. a head size the forward cannot use)
        trace["built"] = attributes(module, built_names)
    if fresh_names:
        trace["fresh"] = fresh_values(module, fresh_names)
    if fresh_inputs is not None:
        output, failed = forward(module, fresh_inputs, False, seed, call_kwargs)
        trace["fresh_result"] = failed["error"] if failed else encode(output)
    if inputs is None:
        trace["attributes"] = attributes(module, attribute_names)
        return trace
    if load:
        trace["load"] = load_seeded(module, seed)
    if with_gradients:
        inputs = tuple(t.clone().requires_grad_(True) for t in inputs)
    output, failed = forward(module, inputs, train, seed, call_kwargs)
    if failed:
        return {**trace, **failed}
    trace["result"] = encode(output)
    if load or attribute_names:
        trace["attributes"] = attributes(module, attribute_names)
    if with_gradients and isinstance(output, torch.Tensor):
        trace["gradients"] = gradients(module, output, inputs)
    return trace


class Pristine:
    """A built module kept for another run: `intact()` says whether what ran since left it as built, so it can be used
    again instead of building it anew (a model a student's `make_model` builds costs 10-30 ms). Compared: the
    submodules (identity, class), each one's attributes (plain values by value, containers such as hook dicts by
    identity and size, other objects by identity) and every parameter and buffer value. A tensor kept as a plain
    attribute (a layer's last `attn`) is an output, not state. Read through `nn.Module`'s own methods, never the
    student's overrides."""

    def __init__(self, module):
        self.module = module
        try:
            self.layout = _layout(module)
            self.state = {name: value.detach().clone()
                          for name, value in torch.nn.Module.state_dict(module, keep_vars=True).items()}
        except BaseException:  # something of the student's that cannot be read: never used again
            self.layout, self.state = None, None

    def intact(self):
        """Whether the module is as it was built (on any doubt: False, and the caller builds a new one)."""
        try:
            if self.layout is None or _layout(self.module) != self.layout:
                return False
            state = torch.nn.Module.state_dict(self.module, keep_vars=True)
            return state.keys() == self.state.keys() and all(
                isinstance(state[name], torch.Tensor) and state[name].shape == kept.shape
                and state[name].dtype == kept.dtype and torch.equal(state[name].detach(), kept)
                for name, kept in self.state.items())
        except BaseException:
            return False


_PLAIN = (bool, int, float, str, type(None))


def _layout(module):
    """[(name, submodule identity, class, {attribute: signature})] over `module` and its submodules."""
    return [(name, id(sub), type(sub), {key: _signature(value) for key, value in vars(sub).items()})
            for name, sub in torch.nn.Module.named_modules(module)]


def _signature(value):
    """What `Pristine` compares of one attribute: a plain value itself, a container's identity and size, a plain
    tensor or None nothing (an output such as `attn`, None until the first forward), any other object its identity."""
    if value is None or isinstance(value, torch.Tensor):
        return ("output",)
    if isinstance(value, _PLAIN):
        return ("value", type(value), value)
    if isinstance(value, (dict, list, set, tuple)):
        return ("container", id(value), len(value))
    return ("object", id(value))


class stand_in:
    """`<name>` replaced by `value` inside the block, both in `namespace` and in the globals the student's class
    `owner` reads in its __init__, or the student's function `owner` reads (a notebook's check cell hands over a copy
    of its globals); the student's own restored after. A dependent unit is then judged as if the unit it uses were right."""

    def __init__(self, namespace, name, value, owner):
        self.namespace, self.name, self.value = namespace, name, value
        owner = getattr(namespace, owner, None)  # a class (its __init__ reads the name) or a function
        found = getattr(owner, "__globals__", None) or getattr(getattr(owner, "__init__", None), "__globals__", None)
        self.globals = found if isinstance(found, dict) and name in found else None

    def __enter__(self):
        self.saved = getattr(self.namespace, self.name, None)
        self.saved_global = self.globals[self.name] if self.globals is not None else None
        setattr(self.namespace, self.name, self.value)
        if self.globals is not None:
            self.globals[self.name] = self.value

    def __exit__(self, *exc):
        if self.globals is not None:
            self.globals[self.name] = self.saved_global
        setattr(self.namespace, self.name, self.saved)
