"""How functionalization replays a view and writes a changed view back into its base.

A `ViewStep` is one view op applied to a tensor's value (`select.int` with dim 0, index 1 ...).
`replay` runs it again on a new value of the base (in "mutations_and_views" as the op's `*_copy`
form, see `copy_op`); `scatter` is its inverse: the base's value with the view's elements
replaced by a new value, through the ops PyTorch's functionalization uses (`select_scatter`,
`slice_scatter`, `diagonal_scatter`, `as_strided_scatter`) or, for views that only rearrange or
reshape, the inverse view of the new value.
"""
from __future__ import annotations

from ember._core.checks import _check_not_implemented
from ember._core.dispatch import stack as _stack
from ember._core.dispatch.inplace_out import OpForm
from ember._core.registry import OPS
from ember._core.shape import wrap_dim

# view op name -> how its output is written back (see ViewStep.scatter)
_SCATTERS = {
    "select": "select", "slice": "slice", "diagonal": "diagonal", "as_strided": "as_strided",
    "split": "range", "split_with_sizes": "range", "chunk": "range",
    "tensor_split": "range", "unbind": "index",
    "view": "reshape", "view_as": "reshape", "reshape": "reshape", "reshape_as": "reshape",
    "flatten": "reshape", "ravel": "reshape", "unflatten": "reshape", "squeeze": "reshape",
    "unsqueeze": "squeeze",
    "t": "same", "transpose": "same", "adjoint": "same",
    "permute": "permute", "movedim": "movedim",
    "alias": "identity", "detach": "identity",
    "view_as_real": "view_as_complex", "view_as_complex": "view_as_real",
    "real": "part", "imag": "part",
}


class ViewStep:
    """`func(value, *args, **kwargs)` (its `index`-th result for ops giving several views)."""

    __slots__ = ("args", "func", "index", "kwargs", "piece")

    def __init__(self, func, args, kwargs, index=None, piece=None):
        self.func = func            # the view op entry (an OpDef)
        self.args = args            # its schema arguments after `self`
        self.kwargs = kwargs
        self.index = index          # which result of a multi-output view (split, unbind ...)
        self.piece = piece          # (dim, start, end) or (dim, index) of that result

    def replay(self, value, copies: bool):
        func = copy_op(self.func) if copies else self.func
        result = func(value, *self.args, **self.kwargs)
        return result if self.index is None else result[self.index]

    def scatter(self, base, new, copies: bool):
        """`base`'s value with this view of it replaced by `new`."""
        name = self.func.schema.name
        how = _SCATTERS.get(name)
        _check_not_implemented(how is not None, lambda: (
            f"functionalization: writing through a view made by aten.{name} is not supported"))
        args = self.args
        if how == "select":
            return OPS["select_scatter"](base, new, *args)
        if how == "slice":
            return OPS["slice_scatter"](base, new, *args)
        if how == "diagonal":
            return OPS["diagonal_scatter"](base, new, *args, **self.kwargs)
        if how == "as_strided":
            return OPS["as_strided_scatter"](base, new, *args, **self.kwargs)
        if how == "index":
            dim, index = self.piece
            return OPS["select_scatter"](base, new, dim, index)
        if how == "range":
            dim, start, end = self.piece
            return OPS["slice_scatter"](base, new, dim, start, end)
        if how == "reshape":
            overload = self.func.schema.overload
            if name == "squeeze" and overload == "dim" and \
                    base.shape[wrap_dim(args[0], base.ndim)] == 1:
                return _view(OPS["unsqueeze"], copies)(new, wrap_dim(args[0], base.ndim))
            if overload == "dtype":
                return _view(OPS["view.dtype"], copies)(new, base.dtype)
            return _view(OPS["view"], copies)(new, list(base.shape))
        if how == "same":
            return _view(self.func, copies)(new, *args)
        if how == "permute":
            dims = [wrap_dim(d, new.ndim) for d in args[0]]
            inverse = sorted(range(len(dims)), key=dims.__getitem__)
            return _view(OPS["permute"], copies)(new, inverse)
        if how == "movedim":
            return _view(self.func, copies)(new, args[1], args[0])
        if how == "squeeze":
            return _view(OPS["squeeze.dim"], copies)(new, wrap_dim(args[0], new.ndim))
        if how == "identity":
            return new
        if how == "part":           # real/imag: one component of view_as_real
            pairs = _view(OPS["view_as_real"], copies)(base)
            part = 0 if name == "real" else 1
            pairs = OPS["select_scatter"](pairs, new, -1, part)
            return _view(OPS["view_as_complex"], copies)(pairs)
        return _view(OPS[how], copies)(new)


def _view(op, copies):
    return copy_op(op) if copies else op


def piece_of(func, args, results, index, base_shape):
    """Where result `index` of a multi-output view op lies in its input: (dim, start, end) for
    the splits, (dim, index) for unbind."""
    name = func.schema.name
    dim = args[-1] if name in ("split", "split_with_sizes", "chunk", "tensor_split") \
        and len(args) > 1 else 0
    if name == "unbind":
        dim = args[0] if args else 0
        return wrap_dim(dim, len(base_shape)), index
    dim = wrap_dim(dim, len(base_shape))
    start = sum(r.shape[dim] for r in results[:index])
    return dim, start, start + results[index].shape[dim]


def narrow_as_slice(args, base_shape):
    """narrow's (dim, start, length) as slice's (dim, start, end)."""
    dim, start, length = args[0], args[1], args[2]
    dim = wrap_dim(dim, len(base_shape))
    start = int(start)
    if start < 0:
        start += base_shape[dim]
    return dim, start, start + int(length)


# --------------------------------------------------------------------------- *_copy forms

class CopyOp(OpForm):
    """The `*_copy` form of a view op as dispatch modes below functionalization see it
    (`aten.view_copy.default`): the view's values in a fresh tensor. Calling it offers it to
    the next TorchDispatchMode down, and with none left computes the view and clones it."""

    __slots__ = ()
    SUFFIX = "_copy"

    def __call__(self, *args, **kwargs):
        return forward_below(self, args, kwargs, self._run)

    def _run(self, *args, **kwargs):
        result = self.op(*args, **kwargs)
        if isinstance(result, (tuple, list)):
            return tuple(OPS["clone"](piece) for piece in result)
        return OPS["clone"](result)


_copy_ops: dict = {}


def copy_op(op) -> CopyOp:
    found = _copy_ops.get(op)
    if found is None:
        found = _copy_ops[op] = CopyOp(op)
    return found


def forward_below(func, args, kwargs, run):
    """Offer `func(*args, **kwargs)` to the innermost TorchDispatchMode still on the stack (as
    the dispatcher offers an op entry, dispatch/stack.py), else `run` it."""
    modes = _stack.modes
    stack = modes.dispatch_modes
    if not stack:
        return run(*args, **kwargs)
    Tensor = _stack.Tensor
    types = tuple(dict.fromkeys(type(v) for v in args
                                if isinstance(v, Tensor) and type(v) is not Tensor))
    mode = stack.pop()
    modes.below_autograd += 1
    try:
        return mode.__torch_dispatch__(func, types, args, kwargs)
    finally:
        modes.below_autograd -= 1
        stack.append(mode)
