"""What the fx tests share: the two libraries side by side (torch is the oracle), text compared
modulo the library's name, and graphs compared node by node."""
from __future__ import annotations

import re

import numpy as np
import torch

import ember

LIBS = {"torch": torch, "ember": ember}


def same_text(torch_text: str, ember_text: str) -> None:
    """The two texts agree once `torch.` is read as `ember.` (and torch's C home of
    `F.linear`, `torch._C._nn.`, as `nn.functional`)."""
    torch_text = torch_text.replace("torch._C._nn.", "torch.nn.functional.")
    ember_text = ember_text.replace("ember.fx.tracer._symbolic_trace.", "ember.fx._symbolic_trace.")
    assert ember_text == re.sub(r"\btorch\.", "ember.", torch_text)


def node_rows(graph) -> list:
    """(op, name, target name, args with nodes as names, kwargs) per node."""
    return [(n.op, n.name, target_name(n.target), _plain(n.args), _plain(n.kwargs))
            for n in graph.nodes]


def target_name(target) -> str:
    if isinstance(target, str):
        return target
    module = getattr(target, "__module__", "") or ""
    if module in ("_operator", "builtins"):
        return f"{module}.{target.__name__}"
    return target.__name__


def _plain(value):
    if isinstance(value, (tuple, list)):
        return type(value).__name__, [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, slice):
        return ("slice", _plain(value.start), _plain(value.stop), _plain(value.step))
    if hasattr(value, "op") and hasattr(value, "users"):
        return "%" + value.name
    if isinstance(value, (torch.dtype, ember.dtype)):
        return str(value).split(".")[-1]
    return value


def same_graph(torch_graph, ember_graph) -> None:
    assert node_rows(ember_graph) == node_rows(torch_graph)


def canonical_calls(gm) -> None:
    """Rewrite each call_function node of an `ember.*` / `torch.*` / `nn.functional` function
    into one canonical form, then regenerate the code: the parameters without a default
    positional, the others by keyword and only where they differ from their default.

    NOTE [fx call arguments in canonical form]: torch's Python functions hand their
    arguments to `__torch_function__` in their own way (`F.relu(x)` arrives with
    `inplace=False`, `F.log_softmax(x, dim=1)` with `_stacklevel=3, dtype=None`); ember's
    public entry hands over the call as the user could have written it, by position, defaults
    left off (dispatch/entry.py). Both describe the same call; the tests compare graphs after
    this rewriting, done on both sides with ember's signature of the function."""
    import inspect
    for node in gm.graph.nodes:
        if node.op != "call_function":
            continue
        counterpart = _ember_counterpart(node.target)
        if counterpart is None:
            continue
        signature = inspect.signature(counterpart)
        kinds = {p.kind for p in signature.parameters.values()}
        if inspect.Parameter.VAR_POSITIONAL in kinds or inspect.Parameter.VAR_KEYWORD in kinds:
            continue
        bound = signature.bind(*node.args, **node.kwargs)
        args, kwargs, positional = [], {}, True
        for name, parameter in signature.parameters.items():
            if name not in bound.arguments:
                positional = False
                continue
            value = bound.arguments[name]
            if parameter.default is inspect.Parameter.empty and positional and \
                    parameter.kind != inspect.Parameter.KEYWORD_ONLY:
                args.append(value)
                continue
            positional = False
            if not _is_default(value, parameter.default):
                kwargs[name] = value
        node.args, node.kwargs = tuple(args), kwargs
    gm.recompile()


def _ember_counterpart(target):
    """ember's public function for a torch or ember function (`torch.cat` -> `ember.cat`),
    whose signature says the defaults for both; None when there is none."""
    module = getattr(target, "__module__", None) or ""
    name = getattr(target, "__name__", "")
    if module.startswith("ember"):
        return target
    for source, found in ((torch, ember), (torch.nn.functional, ember.nn.functional),
                          (torch._C._nn, ember.nn.functional)):
        if getattr(source, name, None) is target:
            return getattr(found, name, None)
    return None


def _is_default(value, default) -> bool:
    return type(value) is type(default) and value == default


def to_numpy(value):
    if isinstance(value, (torch.Tensor, ember.Tensor)):
        return value.detach().numpy()
    return value


def same_values(torch_value, ember_value, rtol=1e-5, atol=1e-6) -> None:
    """Nested results (tensors, tuples, lists, dicts, numbers) agree."""
    if isinstance(torch_value, (tuple, list)):
        assert type(ember_value).__name__ == type(torch_value).__name__
        assert len(ember_value) == len(torch_value)
        for t, e in zip(torch_value, ember_value):
            same_values(t, e, rtol, atol)
    elif isinstance(torch_value, dict):
        assert list(ember_value) == list(torch_value)
        for key in torch_value:
            same_values(torch_value[key], ember_value[key], rtol, atol)
    elif isinstance(torch_value, (torch.Tensor, ember.Tensor)):
        assert isinstance(ember_value, ember.Tensor)
        assert tuple(ember_value.shape) == tuple(torch_value.shape)
        assert str(ember_value.dtype) == str(torch_value.dtype).replace("torch.", "ember.")
        assert ember_value.requires_grad == torch_value.requires_grad
        np.testing.assert_allclose(to_numpy(ember_value), to_numpy(torch_value),
                                   rtol=rtol, atol=atol)
    elif isinstance(torch_value, torch.Size):
        assert tuple(ember_value) == tuple(torch_value)
    else:
        assert ember_value == torch_value


def copy_weights(torch_module, ember_module) -> None:
    """Give the ember module the torch module's parameters and buffers."""
    state = {k: ember.tensor(v.detach().numpy()) for k, v in torch_module.state_dict().items()}
    ember_module.load_state_dict(state)


def inputs(*shapes, seed=0):
    """The same random float32 inputs for both libraries: (torch tensors, ember tensors)."""
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    return [torch.tensor(a) for a in arrays], [ember.tensor(a) for a in arrays]
