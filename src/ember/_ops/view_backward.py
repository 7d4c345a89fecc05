"""The gradients of the picking views as ops of their own, as PyTorch's formulas call them:
`slice_backward` and `select_backward` place the incoming gradient in zeros of the input's
sizes (a mode sees one op where a scatter into fresh zeros would show two). Their own
gradients read the view back, so both differentiate again.
"""
from __future__ import annotations

from ember._core import dispatch
from ember._core.registry import OPS, register_op
from ember._core.shape import wrap_dim


def _backward_meta(grad_output, input_sizes, *args):
    return (tuple(input_sizes), grad_output._dtype)


def _placed(xp, grad_output, input_sizes, dim, index):
    sizes = tuple(input_sizes)
    out = xp.zeros(sizes, grad_output.dtype)
    where = [slice(None)] * len(sizes)
    where[dim] = index
    out[tuple(where)] = grad_output
    return out


@register_op("slice_backward(Tensor grad_output, SymInt[] input_sizes, int dim, SymInt start, "
             "SymInt end, SymInt step) -> Tensor", function=False, method=False,
             meta=_backward_meta, saves=(),
             derivatives={"grad_output": lambda c: dispatch.call(
                 OPS["slice.Tensor"], (c.grad, c.dim, c.start, c.end, c.step))})
def slice_backward(xp, grad_output, input_sizes, dim, start, end, step):
    """Zeros of `input_sizes` with grad_output where [start:end:step] of `dim` reads."""
    dim = wrap_dim(dim, len(input_sizes))
    return _placed(xp, grad_output, input_sizes, dim,
                   slice(*slice(start, end, step).indices(input_sizes[dim])))


@register_op("select_backward(Tensor grad_output, SymInt[] input_sizes, int dim, SymInt index) "
             "-> Tensor", function=False, method=False, meta=_backward_meta, saves=(),
             derivatives={"grad_output": lambda c: dispatch.call(
                 OPS["select.int"], (c.grad, c.dim, c.index))})
def select_backward(xp, grad_output, input_sizes, dim, index):
    """Zeros of `input_sizes` with grad_output at `index` of `dim`."""
    dim = wrap_dim(dim, len(input_sizes))
    return _placed(xp, grad_output, input_sizes, dim, index % input_sizes[dim])


def slice_backward_of(grad, sizes, dim, start, end, step):
    return dispatch.call(OPS["slice_backward"], (grad, list(sizes), dim, start, end, step))


def select_backward_of(grad, sizes, dim, index):
    return dispatch.call(OPS["select_backward"], (grad, list(sizes), dim, index))
