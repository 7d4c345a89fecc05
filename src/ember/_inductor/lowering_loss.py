"""Lowerings of `nll_loss_forward` and `nll_loss_backward` for a (N, C) input, class-index
targets and no class weights: the forward as two sums over N (the picked log-probabilities,
loaded at each row's target, and the count of rows not ignored), the backward as one pointwise
value over (N, C) (-grad / count at each row's target, 0 elsewhere), fused with the log-softmax
around them instead of run as extern calls.

NOTE [targets checked before the loss kernels]: eager raises IndexError for a target outside
[0, C) (other than ignore_index). The kernels cannot raise, so a check step runs first in the
wrapper: NumPy's min and max over the targets and, when one is outside, eager's IndexError
with its message. The kernels then read the input only at checked targets (an ignored row
reads column 0 and discards it)."""
from __future__ import annotations

from ember._core import dtype as dt
from ember._inductor.codegen_c import literal
from ember._inductor.ir import Pointwise, TensorBox
from ember._inductor.lowering_reductions import reduce
from ember._inductor.lowerings import register

_MEAN, _SUM = 1, 2


def _lowered(x, target, weight, reduction) -> bool:
    return weight is None and len(x.shape) == 2 and reduction in (_MEAN, _SUM) and \
        x.dtype in (dt.float32, dt.float64) and target.dtype is dt.int64 and \
        tuple(target.shape) == (x.shape[0],)


def _check_step(g, target, classes, ignore_index):
    """NOTE [targets checked before the loss kernels]."""
    from ember._inductor.lowering import ExternStep       # (lowering.py imports this file)
    g.steps.append(ExternStep(check_targets, (g._tensor_arg(target), classes, ignore_index),
                              {}, [], single=False))


def check_targets(target, classes, ignore_index):
    """Eager's IndexError for a target outside [0, classes) other than `ignore_index`."""
    t = target._data
    if t.size and (int(t.min()) < 0 or int(t.max()) >= classes):
        bad = t[(t != ignore_index) & ((t < 0) | (t >= classes))]
        if bad.size:
            raise IndexError(f"Target {int(bad[0])} is out of bounds.")


def _is_kept(kernel, target, row, ignore_index):
    t = target.load(kernel, [row])
    kept = kernel.tmp(f"{t} != {literal(ignore_index, dt.int64)}", dt.bool_)
    return t, kept


@register("nll_loss_forward.default")
def _nll_loss_forward(g, node, x, target, weight, reduction, ignore_index):
    if not _lowered(x, target, weight, reduction):
        return g.extern(node, (x, target, weight, reduction, ignore_index), {})
    _check_step(g, target, x.shape[1], ignore_index)
    n = x.shape[0]
    dtype = x.dtype
    zero = literal(0, dtype)

    def picked(kernel, index):
        t, kept = _is_kept(kernel, target, index[0], ignore_index)
        safe = kernel.tmp(f"{kept} ? {t} : {literal(0, dt.int64)}", dt.int64)
        v = x.load(kernel, [index[0], safe])
        return kernel.tmp(f"{kept} ? -({v}) : {zero}", dtype)

    def counted(kernel, index):
        _, kept = _is_kept(kernel, target, index[0], ignore_index)
        return kernel.tmp(f"{kept} ? {literal(1, dtype)} : {zero}", dtype)
    total = reduce(g, TensorBox(Pointwise((n,), dtype, picked, loads=2)), [0], False, "sum",
                   dtype)
    count = reduce(g, TensorBox(Pointwise((n,), dtype, counted)), [0], False, "sum", dtype)
    if reduction == _SUM:
        return total, count

    def mean(kernel, index):
        return kernel.tmp(f"{total.load(kernel, [])} / {count.load(kernel, [])}", dtype)
    return TensorBox(Pointwise((), dtype, mean, loads=2)), count


@register("nll_loss_backward.default")
def _nll_loss_backward(g, node, grad, x, target, weight, reduction, ignore_index):
    if not _lowered(x, target, weight, reduction) or tuple(grad.shape) != ():
        return g.extern(node, (grad, x, target, weight, reduction, ignore_index), {})
    _check_step(g, target, x.shape[1], ignore_index)
    n, classes = x.shape
    dtype = x.dtype
    zero = literal(0, dtype)
    scale = grad
    if reduction == _MEAN:
        def counted(kernel, index):
            _, kept = _is_kept(kernel, target, index[0], ignore_index)
            return kernel.tmp(f"{kept} ? {literal(1, dtype)} : {zero}", dtype)
        count = reduce(g, TensorBox(Pointwise((n,), dtype, counted)), [0], False, "sum", dtype)

        def per_row(kernel, index):
            return kernel.tmp(f"{grad.load(kernel, [])} / {count.load(kernel, [])}", dtype)
        scale = TensorBox(Pointwise((), dtype, per_row, loads=2))

    def value(kernel, index):
        t, kept = _is_kept(kernel, target, index[0], ignore_index)
        s = scale.load(kernel, [])
        return kernel.tmp(f"({kept} && {t} == {index[1]}) ? -({s}) : {zero}", dtype)
    return TensorBox(Pointwise((n, classes), dtype, value, loads=3))

