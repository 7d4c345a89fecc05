"""`make_fx`: a function traced through the dispatcher into an ATen-level fx graph.

NOTE [make_fx records below autograd]: the function runs (on the real inputs, or on fake copies
under a FakeTensorMode) inside `_GraphRecorder`, a TorchDispatchMode. Every op entry it receives
(`ember.ops.aten.<op>.<overload>`, in-place ones as their `add_` form) becomes one
`call_function` node whose target is that entry, with tensor arguments replaced by the nodes
that produced them; the op then runs below the mode and its tensor results are remembered as
that node's values (`getitem` nodes for ops with several). An op with an entry in the
decomposition table runs the decomposition inside the mode instead, so its pieces are recorded.
A tensor the recorder has not seen (made from data, or captured from outside the function)
enters the graph as a `get_attr` constant `_tensor_constant<N>` held by the GraphModule, as
PyTorch's make_fx does; data made inside the function is then copied (`lift_fresh_copy`).
Each node's `meta['val']` is a FakeTensor with the value's shape, dtype and strides.
NOTE [a saved output is found by its data]: autograd keeps a node's own outputs as their data
only and unpacks a fresh Tensor object on that same array (NOTE [saved tensors]), so a
backward traced here (AOT autograd's joint graph) would see its saved outputs as unknown
constants. The recorder therefore also finds a tensor by its array: the same array object
(hence the same shape, strides and offset) and dtype is the same value.
NOTE [writes the recorder cannot see]: a write into a tensor outside any op the mode receives
(ember's autograd runs an in-place op on a tensor that requires grad as its out-of-place op
and copies the result in below the dispatcher) would leave the graph reading the old value.
The recorder keeps each tensor's version when it records it, and again after each op it
records (a write inside a recorded op, as native_batch_norm's running statistics, is replayed
by the graph); a tensor read later at another version raises `UntracedWrite`.
"""
from __future__ import annotations

import inspect
import operator

from ember._subclasses.fake_tensor import FakeTensor, FakeTensorMode
from ember._tensor import Tensor
from ember.autograd.grad_mode import no_grad
from ember.fx import Graph, GraphModule
from ember.nn import Module, Parameter
from ember.utils._python_dispatch import TorchDispatchMode, _get_current_dispatch_mode_stack

__all__ = ["UntracedWrite", "get_proxy_mode", "make_fx"]


class UntracedWrite(RuntimeError):
    """A traced tensor was written outside the ops the recorder saw (NOTE [writes the recorder
    cannot see])."""


def make_fx(f, decomposition_table=None, tracing_mode: str = "real",
            _allow_non_fake_inputs: bool = False, *, pre_dispatch: bool = False,
            record_module_stack: bool = False, _allow_fake_constant: bool = False,
            _error_on_data_dependent_ops: bool = True):
    """make_fx(f, decomposition_table=None, tracing_mode='real') -> a function that, given
    example inputs, traces `f` into a GraphModule of ATen ops (NOTE [make_fx records below
    autograd]). tracing_mode 'real' runs the ops on the inputs, 'fake' on FakeTensors."""
    if tracing_mode not in ("real", "fake", "symbolic"):
        raise AssertionError(f"Unexpected tracing type: {tracing_mode}")
    if tracing_mode == "symbolic":
        raise NotImplementedError("make_fx: tracing_mode='symbolic' (symbolic shapes) is not "
                                  "implemented in ember yet; use 'real' or 'fake'")
    if pre_dispatch:
        raise NotImplementedError("make_fx: pre_dispatch=True (tracing above autograd) is not "
                                  "implemented in ember yet")
    table = dict(decomposition_table or {})

    def traced(*args):
        return _trace(f, args, table, tracing_mode, _allow_non_fake_inputs)

    return traced


def get_proxy_mode():
    """The innermost make_fx recorder on the dispatch-mode stack, None outside make_fx
    (libraries ask it to skip data-dependent fast paths while traced)."""
    for mode in reversed(_get_current_dispatch_mode_stack()):
        if isinstance(mode, _GraphRecorder):
            return mode
    return None


def _placeholder_names(f, count: int) -> list:
    """PyTorch's names: a parameter's name plus `_1` (`x_1`), `arg<i>_1` for varargs."""
    try:
        params = list(inspect.signature(f).parameters.values())
    except (TypeError, ValueError):
        params = []
    names = []
    for i in range(count):
        if i < len(params) and params[i].kind in (params[i].POSITIONAL_ONLY,
                                                   params[i].POSITIONAL_OR_KEYWORD):
            names.append(f"{params[i].name}_1")
        else:
            names.append(f"arg{i}_1")
    return names


def _trace(f, args, table, tracing_mode, allow_non_fake_inputs):
    for a in args:
        if isinstance(a, (list, tuple, dict)):
            raise NotImplementedError("make_fx: nested (pytree) inputs are not implemented in "
                                      "ember yet; pass tensors and numbers")
    graph = Graph()
    root = Module()
    fake_mode = FakeTensorMode(allow_non_fake_inputs=allow_non_fake_inputs)
    # meta['val'] of real values: converted by a mode of its own (real tensors are its inputs).
    val_mode = FakeTensorMode(allow_non_fake_inputs=True)
    recorder = _GraphRecorder(graph, root, table, val_mode, tracing_mode == "fake")
    inputs = []
    for name, a in zip(_placeholder_names(f, len(args)), args):
        node = graph.placeholder(name)
        if isinstance(a, Tensor):
            value = fake_mode.from_tensor(a) if tracing_mode == "fake" else a
            recorder.remember(value, node)
            inputs.append(value)
        else:
            inputs.append(a)
    if tracing_mode == "fake":
        with fake_mode, recorder:
            out = f(*inputs)
    else:
        with recorder:
            out = f(*inputs)
    graph.output(recorder.as_args(out))
    return GraphModule(root, graph)


class _GraphRecorder(TorchDispatchMode):
    """Records each op it receives into `graph` (NOTE [make_fx records below autograd])."""

    def __init__(self, graph, root, table, val_mode, fake):
        super().__init__()
        self.graph = graph
        self.root = root
        self.table = table
        self.val_mode = val_mode
        self.fake = fake
        self.nodes = {}          # id(tensor) -> (tensor, node); the tensor is kept alive
        self.by_data = {}        # id(tensor._data) -> (tensor, node)
        self.versions = {}       # id(tensor) -> its version when last recorded
        self.constants = {"_tensor_constant": 0, "_param_constant": 0}

    def remember(self, value, node) -> None:
        self.nodes[id(value)] = (value, node)
        self.by_data[id(value._data)] = (value, node)
        self.versions[id(value)] = value._version
        node.meta["val"] = self._val(value)

    def _val(self, value):
        if isinstance(value, FakeTensor):
            return value
        return self.val_mode.from_tensor(value)

    def node_of(self, t):
        found = self.nodes.get(id(t))
        if found is not None and found[0] is t:
            self._check_version(t, found[1])
            return found[1]
        found = self.by_data.get(id(t._data))
        if found is not None and found[0]._data is t._data and found[0]._dtype is t._dtype:
            self._check_version(found[0], found[1])
            return found[1]     # NOTE [a saved output is found by its data]
        # A tensor from outside the trace: a constant the GraphModule holds (a parameter's
        # name says so, as PyTorch's does).
        prefix = "_param_constant" if isinstance(t, Parameter) else "_tensor_constant"
        name = f"{prefix}{self.constants[prefix]}"
        self.constants[prefix] += 1
        setattr(self.root, name, t)
        node = self.graph.get_attr(name)
        self.remember(t, node)
        return node

    def _check_version(self, t, node) -> None:
        if t._version != self.versions.get(id(t), t._version):
            raise UntracedWrite(
                f"make_fx: the value of {node.name} was written outside the traced ops (an "
                "in-place op on a tensor that requires grad runs below the dispatcher in "
                "ember's autograd); the graph would read its old value")

    def _refresh(self, args) -> None:
        for a in args:
            if isinstance(a, Tensor):
                if id(a) in self.versions:
                    self.versions[id(a)] = a._version
            elif type(a) is tuple or type(a) is list:
                self._refresh(a)

    def as_args(self, value):
        if isinstance(value, Tensor):
            return self.node_of(value)
        if type(value) is tuple or type(value) is list:
            return type(value)(self.as_args(v) for v in value)
        if isinstance(value, dict):
            return {k: self.as_args(v) for k, v in value.items()}
        return value

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        decomposition = self.table.get(func)
        if decomposition is not None:
            # Below autograd: the outer call records the op for autograd; the pieces must
            # not be recorded again (their results would get a second history).
            with self, no_grad():
                out = decomposition(*args, **kwargs)
            if out is not NotImplemented:
                # ember's ops give several results as a tuple (autograd records them so)
                return tuple(out) if type(out) is list else out
        if func is _LIFT_FRESH:
            return self._lift_fresh(args[0])
        node = self.graph.call_function(func, self.as_args(tuple(args)), self.as_args(kwargs))
        out = func(*args, **kwargs)
        self._refresh(args)
        self._refresh(tuple(kwargs.values()))
        self._track(out, node)
        return out

    def _lift_fresh(self, data):
        """Data made inside the function: a constant, then its copy (PyTorch's
        `lift_fresh_copy`)."""
        constant = self.node_of(data)
        node = self.graph.call_function(_LIFT_FRESH_COPY, (constant,), {})
        # lift_fresh below this mode first: a fake mode takes the data in as a constant.
        out = _LIFT_FRESH_COPY(_LIFT_FRESH(data))
        self._track(out, node)
        return out

    def _track(self, out, node) -> None:
        if isinstance(out, Tensor):
            self.remember(out, node)
        elif type(out) is tuple or type(out) is list:
            node.meta["val"] = type(out)(self._val(v) if isinstance(v, Tensor) else v
                                         for v in out)
            for i, v in enumerate(out):
                if isinstance(v, Tensor):
                    self.remember(v, self.graph.call_function(operator.getitem, (node, i)))
        else:
            node.meta["val"] = out


def _lift_ops():
    from ember.ops import aten
    return aten.lift_fresh.default, aten.lift_fresh_copy.default


_LIFT_FRESH, _LIFT_FRESH_COPY = _lift_ops()
