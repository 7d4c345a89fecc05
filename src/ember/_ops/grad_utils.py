"""Pieces the derivative formulas of the op entries share.

A formula is `f(ctx) -> gradient` for one input, declared in its op's entry as
`derivatives={"self": f, "other": g}`; `ctx.grad` is the incoming gradient (`ctx.grads` for
several outputs), `ctx.<name>` the op's argument by schema name and `ctx.result` its output.
Formulas are written in ember ops (Tensor methods and `call`), never on raw arrays, so that
with `create_graph=True` they are recorded too and give second derivatives. The engine sums a
broadcast gradient back to its input's shape and casts it to the input's dtype, so a formula
may return the gradient at the broadcast shape. See NOTE [complex gradients].

NOTE [complex gradients]: as in PyTorch, the gradient of a real loss with respect to a complex
input is the conjugate Wirtinger derivative; for a holomorphic f that is `grad * conj(f'(z))`.
`conj` below is a no-op on real values, so one formula serves both.
"""
from __future__ import annotations

from ember._core import dispatch
from ember._core.dispatch import call
from ember._core.dispatch.process_state import state as _state
from ember._core.registry import OPS
from ember._core.shape import wrap_dims


def conj(x):
    """The complex conjugate of a tensor or number; real values come back as they are."""
    if isinstance(x, dispatch.Tensor):
        return x.conj() if x._dtype.is_complex else x
    if isinstance(x, complex):
        return x.conjugate()
    return x


def unreduce(grad, shape, dim, keepdim):
    """A reduction's gradient broadcast back to the input's `shape` (dims that `dim` removed
    are put back first unless `keepdim`)."""
    shape = tuple(shape)
    every = dim is None or (not isinstance(dim, int) and len(dim) == 0)
    # A full reduction's 0-d gradient (or keepdim's size-1 dims) expands as it is.
    if not keepdim and shape and not every:
        for d in sorted(wrap_dims(dim, len(shape))):
            grad = grad.unsqueeze(d)
    # (The op itself: `shape` is a tuple of ints already, nothing for Tensor.expand to parse.)
    return call(OPS["expand"], (grad, shape, False))


def zeros_grad(ctx):
    """The gradient of a piecewise-constant op (floor, sign, round ...): zero everywhere."""
    return ctx.grad.new_zeros(ctx.grad.shape)


def where(condition, a, b):
    """where(condition, a, b) through the registry (a or b may be a Python number)."""
    if _state.slow and dispatch.modes.dispatch_modes and not (
            isinstance(a, dispatch.Tensor) and isinstance(b, dispatch.Tensor)):
        a, b = numbers_as_tensors(condition, a, b)
    return call(OPS["where.self"], (condition, a, b))


# NOTE [where's numbers under modes]: PyTorch serves `where(c, x, 0.0)` by CompositeImplicit
# overloads (where.ScalarSelf / ScalarOther / Scalar) that make each number a 0-d tensor
# (`scalar_tensor`), cast the tensor operand to the result dtype and call where.self, which a
# TorchDispatchMode sees. ember's where.self takes numbers itself; while a dispatch mode is open
# the calls through `where` here (the public function and the formulas) do the same first, so
# the result stays the number's promotion. Named calls (`aten.where.self` in a decomposition)
# pass numbers as they are.
def numbers_as_tensors(condition, a, b):
    from ember._core.promotion import promote_types, result_type_from, scalar_type_of
    numbers = (not isinstance(a, dispatch.Tensor), not isinstance(b, dispatch.Tensor))
    if all(numbers):
        dtype, device = promote_types(scalar_type_of(a), scalar_type_of(b)), condition.device
    else:
        tensor, number = (b, a) if numbers[0] else (a, b)
        dtype = result_type_from([tensor.dtype] if tensor.ndim else [],
                                 [] if tensor.ndim else [tensor.dtype], [scalar_type_of(number)])
        device = tensor.device
    if numbers[1]:
        b = call(OPS["scalar_tensor"], (b, dtype, None, device, None))
    elif b.dtype is not dtype:
        b = b.to(dtype)
    if numbers[0]:
        a = call(OPS["scalar_tensor"], (a, dtype, None, device, None))
    elif a.dtype is not dtype:
        a = a.to(dtype)
    return a, b


def identity(ctx):
    return ctx.grad


def negated(ctx):
    return ctx.grad.neg()


# --------------------------------------------------------------------------- node names
# `node_name=` of an entry: PyTorch names a node after the overload that ran, so the class name
# can depend on the call.

def by_kind(position, if_tensor, if_number):
    """One name when args[position] is a tensor, another when it is a number (or None)."""
    def name(args, outputs):
        return if_tensor if isinstance(args[position], dispatch.Tensor) else if_number
    return name


def by_dim(stem):
    """"<stem>Backward0" for a reduction over everything (dim None), else "...Backward1"."""
    def name(args, outputs):
        return f"{stem}Backward0" if args[1] is None else f"{stem}Backward1"
    return name


def pow_name(args, outputs):
    """pow's three overloads: Tensor_Scalar 0, Tensor_Tensor 1, Scalar (number base) 2."""
    if not isinstance(args[0], dispatch.Tensor):
        return "PowBackward2"
    return "PowBackward1" if isinstance(args[1], dispatch.Tensor) else "PowBackward0"


def view_or_copy(args, outputs):
    """reshape-like ops: a view, or a copy when the layout did not allow one."""
    return "ViewBackward0" if outputs[0]._base is not None else "UnsafeViewBackward0"
