"""Custom autograd functions: subclass `Function`, write `forward` and `backward`, call `apply`.

Both styles work: `forward(ctx, *args)`, or `forward(*args)` plus
`setup_context(ctx, inputs, output)`. The node recorded for a call is named after the class
(`MyFnBackward`), so `grad_fn.name()` reads as in PyTorch.
"""
from __future__ import annotations

import functools
import weakref

from ember._core import dispatch
from ember._core.checks import _check, _check_type
from ember.autograd import forward_ad, grad_mode
from ember.autograd.graph import _FREED, Node, edge_of, fit_gradient
from ember.autograd.saved_tensor import save_input, save_output


class FunctionCtx:
    """The `ctx` a custom Function's forward/backward share."""

    def __init__(self):
        self.to_save = ()
        self._saved = None
        self._node = None           # weakref to the node, once one is recorded
        self.needs_input_grad = ()
        self.dirty_tensors = ()
        self.non_differentiable = ()
        self.materialize_grads = True
        self._freed = False

    def save_for_backward(self, *tensors) -> None:
        for t in tensors:
            _check_type(t is None or isinstance(t, dispatch.Tensor),
                        "save_for_backward can only save variables, but argument 0 is of type "
                        f"{type(t).__name__}")
        self.to_save = tensors

    def save_for_forward(self, *tensors) -> None:
        self.saved_for_forward = tensors

    def mark_dirty(self, *tensors) -> None:
        self.dirty_tensors = tensors

    def mark_non_differentiable(self, *tensors) -> None:
        self.non_differentiable = tensors

    def set_materialize_grads(self, value: bool) -> None:
        self.materialize_grads = bool(value)

    @property
    def saved_tensors(self):
        _check(not self._freed, _FREED)
        if self._saved is None:
            return ()
        # NOTE [saved tensors]: the node is reached through a weak reference (it holds this
        # ctx), and outputs are kept as their data, so that nothing here makes a cycle.
        node = self._node() if self._node is not None else None
        return tuple(s.unpack(node) if s is not None else s for s in self._saved)

    saved_variables = saved_tensors


class BackwardCFunction(Node):
    """The node for one call of a custom Function; `self.ctx` is that call's ctx."""

    __slots__ = (
        "__dict__",
        "_function",
        "_input_map",
        "_input_meta",
        "_n_inputs",
        "_output_meta",
        "ctx",
    )

    def apply(self, grad_outputs):
        ctx = self.ctx
        _check(not ctx._freed, _FREED)
        grads = list(grad_outputs)
        n_out = len(self._output_meta)
        grads += [None] * (n_out - len(grads))
        if ctx.materialize_grads:
            for k, g in enumerate(grads):
                if g is None and self._output_meta[k] is not None:
                    shape, dtype, device = self._output_meta[k]
                    from ember._ops.creation import zero_gradient
                    grads[k] = zero_gradient(shape, dtype, device)
        result = self._function.backward(ctx, *grads)
        if not isinstance(result, tuple):
            result = (result,)
        if len(result) != self._n_inputs:
            if len(result) > self._n_inputs and all(r is None for r in result[self._n_inputs:]):
                result = result[:self._n_inputs]
            else:
                raise RuntimeError(
                    f"function {self.name()} returned an incorrect number of gradients "
                    f"(expected {self._n_inputs}, got {len(result)})")
        out = []
        for k, position in enumerate(self._input_map):
            g = result[position]
            _check_type(g is None or isinstance(g, dispatch.Tensor), lambda: (
                f"function {self.name()} returned a gradient of type {type(g).__name__}; "
                "expected a Tensor or None"))
            if g is not None and self._input_meta[k] is not None:
                g = fit_gradient(g, self._input_meta[k], self, position)
            out.append(g)
        return out

    def release(self) -> None:
        ctx = self.ctx
        if ctx._saved:
            ctx._freed = True
            ctx._saved = None

    @property
    def saved_tensors(self):
        return self.ctx.saved_tensors


class FunctionMeta(type):
    """Gives each Function subclass its own node class, named `<Class>Backward`."""

    def __init__(cls, name, bases, attrs):
        cls._backward_cls = type(name + "Backward", (BackwardCFunction,), {"__slots__": ()})
        super().__init__(name, bases, attrs)


class Function(metaclass=FunctionMeta):
    """Base class for custom differentiable operations."""

    generate_vmap_rule = False

    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Legacy autograd function with non-static forward method is "
                           "deprecated. Please use new-style autograd function with static "
                           "forward method.")

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward "
                                  "mode AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError("You must implement the jvp function for custom "
                                  "autograd.Function to use it with forward mode AD.")

    @classmethod
    def apply(cls, *args, **kwargs):
        Tensor = dispatch.Tensor
        ctx = FunctionCtx()
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a._requires_grad for a in args)
        uses_setup_context = cls.setup_context is not Function.setup_context
        with grad_mode.no_grad():
            if uses_setup_context:
                output = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, output)
            else:
                output = cls.forward(ctx, *args, **kwargs)
        needs_graph = grad_mode._state.grad_enabled and any(ctx.needs_input_grad)
        result = _wrap_outputs(cls, ctx, args, output, needs_graph)
        if dispatch.state.slow and not kwargs:
            # Forward AD: tangents from this Function's backward (forward_ad.py).
            tangents = forward_ad.function_tangents(cls.apply, args)
            if tangents is not None:
                forward_ad.set_tangents(result, tangents)
        return result


def _wrap_outputs(cls, ctx, args, output, needs_graph):
    Tensor = dispatch.Tensor
    is_tuple = isinstance(output, tuple)
    outputs = output if is_tuple else (output,)
    dirty = {id(t) for t in ctx.dirty_tensors}
    non_diff = {id(t) for t in ctx.non_differentiable}
    input_ids = {id(a) for a in args if isinstance(a, Tensor)}
    node = None
    if needs_graph:
        node = cls._backward_cls()
        node.ctx = ctx
        node._function = cls
        node._n_inputs = len(args)
        positions, edges = [], []
        for i, a in enumerate(args):
            if isinstance(a, Tensor):
                positions.append(i)
                edges.append(edge_of(a) if a._requires_grad else None)
        node._input_map = tuple(positions)
        node._input_meta = tuple((tuple(args[i].shape), args[i]._dtype)
                                 if args[i]._requires_grad else None for i in positions)
        node.next_functions = tuple(edges)
    results, output_meta = [], []
    for k, o in enumerate(outputs):
        if not isinstance(o, Tensor):
            results.append(o)
            output_meta.append(None)
            continue
        if id(o) in dirty:
            _check(not (o._requires_grad and o._grad_fn is None) or not needs_graph,
                   "a leaf Variable that requires grad has been used in an in-place operation.")
        elif id(o) in input_ids:
            o = o.view_as(o) if hasattr(o, "view_as") else o.detach()
        differentiable = (o._dtype.is_floating_point or o._dtype.is_complex) and \
            id(outputs[k]) not in non_diff
        if node is not None and differentiable:
            o._grad_fn = node
            o._requires_grad = True
            if k:
                o.__dict__["_output_nr"] = k
            else:
                o.__dict__.pop("_output_nr", None)
            output_meta.append((tuple(o.shape), o._dtype,
                                o._device if type(o) is dispatch.Tensor else o.device))
        else:
            if id(outputs[k]) in non_diff:
                o._requires_grad = False
            output_meta.append(None)
        results.append(o)
    if node is not None:
        node._output_meta = output_meta
    if ctx.to_save:
        if node is None:
            ctx._saved = tuple(ctx.to_save)
        else:
            ctx._node = weakref.ref(node)
            output_nrs = {id(o): k for k, o in enumerate(results)
                          if isinstance(o, Tensor) and o._grad_fn is node}
            ctx._saved = tuple(
                None if t is None else
                save_output(t, output_nrs[id(t)]) if id(t) in output_nrs else save_input(t)
                for t in ctx.to_save)
            ctx.to_save = ()
    return tuple(results) if is_tuple else results[0]


def once_differentiable(fn):
    """Mark a backward as not itself differentiable: it runs with grad mode off."""
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with grad_mode.no_grad():
            return fn(ctx, *args)
    return wrapper


class InplaceFunction(Function):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace


class NestedIOFunction(Function):
    """The legacy Function whose subclasses define `forward_extended` / `backward_extended`
    on nested inputs, kept for old code that names it. As in PyTorch, the legacy instance call
    it was made for is gone (calling an instance raises Function's legacy error); what is left
    is its bookkeeping: which tensors it saves, marks dirty or non-differentiable."""

    def save_for_backward(self, *args) -> None:
        self.to_save = tuple(_tensors_in(args))
        self._to_save_nested = args

    @property
    def saved_tensors(self):
        return self._to_save_nested

    def mark_dirty(self, *args, **kwargs) -> None:
        self.dirty_tensors = tuple(_tensors_in((args, kwargs)))

    def mark_non_differentiable(self, *args, **kwargs) -> None:
        self.non_differentiable = tuple(_tensors_in((args, kwargs)))

    def forward_extended(self, *input):
        raise NotImplementedError

    def backward_extended(self, *grad_output):
        raise NotImplementedError


def _tensors_in(nested):
    """The tensors of nested tuples, lists and dicts, in order (None skipped; anything else is
    PyTorch's ValueError)."""
    if isinstance(nested, dispatch.Tensor):
        yield nested
    elif nested is None:
        return
    elif isinstance(nested, (list, tuple)):
        for item in nested:
            yield from _tensors_in(item)
    elif isinstance(nested, dict):
        for item in nested.values():
            yield from _tensors_in(item)
    else:
        kind = type(nested)
        name = kind.__name__ if kind.__module__ == "builtins" else \
            f"{kind.__module__}.{kind.__qualname__}"
        raise ValueError("Auto nesting doesn't know how to process an input object of type "
                         f"{name}. Accepted types: Tensors, or lists/tuples of them")
