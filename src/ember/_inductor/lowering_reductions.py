"""Lowerings of reductions (sum, mean, amax, amin) and of the composites built from them
(`_softmax`, `_log_softmax`, `native_layer_norm`)."""
from __future__ import annotations

from ember._inductor.codegen_c import literal, math_call
from ember._inductor.ir import Pointwise, Reduction, TensorBox, numel
from ember._inductor.lowering_pointwise import pointwise
from ember._inductor.lowering_views import unsqueeze
from ember._inductor.lowerings import _val, register


def _dims(x, dims):
    ndim = len(x.shape)
    if dims is None or (isinstance(dims, (list, tuple)) and len(dims) == 0):
        return list(range(ndim))
    if isinstance(dims, int):
        dims = [dims]
    return sorted({d % ndim for d in dims}) if ndim else []


def reduce(g, x, dims, keepdim, kind, dtype, post=None, value=None):
    """`kind` ('sum', 'max', 'min') of `x` over `dims`; `value(kernel, v)` transforms each
    element first, `post(kernel, acc)` the result."""
    ndim = len(x.shape)
    kept = [d for d in range(ndim) if d not in dims]
    out_shape = [x.shape[d] for d in kept]
    ranges = [x.shape[d] for d in dims]

    def inner(kernel, index, rindex):
        full = [None] * ndim
        for d, i in zip(kept, index):
            full[d] = i
        for d, r in zip(dims, rindex):
            full[d] = r
        v = x.load(kernel, full)
        return value(kernel, v) if value is not None else v
    acc_dtype = dtype if kind == "sum" else x.dtype
    box = g.reduction(Reduction(out_shape, dtype, kind, ranges, inner, acc_dtype, post))
    if keepdim:
        for d in dims:
            box = unsqueeze(box, d)
    return box


@register("sum.dim_IntList")
def _sum(g, node, x, dim=None, keepdim=False, dtype=None):
    out_dtype = _val(node)[1]
    return reduce(g, x, _dims(x, dim), keepdim, "sum", out_dtype)


@register("sum.default")
def _sum_all(g, node, x, dtype=None):
    return reduce(g, x, _dims(x, None), False, "sum", _val(node)[1])


@register("mean.dim")
def _mean(g, node, x, dim=None, keepdim=False, dtype=None):
    out_dtype = _val(node)[1]
    dims = _dims(x, dim)
    n = numel([x.shape[d] for d in dims])
    return reduce(g, x, dims, keepdim, "sum", out_dtype,
                  post=lambda k, acc: f"{acc} / {literal(n, out_dtype)}")


@register("mean.default")
def _mean_all(g, node, x, dtype=None):
    return _mean(g, node, x, None, False, dtype)


@register("amax.default")
def _amax(g, node, x, dim=(), keepdim=False):
    return reduce(g, x, _dims(x, dim), keepdim, "max", _val(node)[1])


@register("amin.default")
def _amin(g, node, x, dim=(), keepdim=False):
    return reduce(g, x, _dims(x, dim), keepdim, "min", _val(node)[1])


# --------------------------------------------------------------------------- composites

def _store_if_shared(g, x):
    """Composites read their input in several loops; an inlined input that loads more than
    one buffer per element (a residual sum) is stored once instead (NOTE [when a value is
    realized])."""
    if isinstance(x, TensorBox) and type(x.data) is Pointwise and x.loads() > 1:
        g.realize(x)


@register("_softmax.default")
def _softmax(g, node, x, dim, half_to_float=False):
    dtype = _val(node)[1]
    d = _dims(x, dim)
    _store_if_shared(g, x)
    m = reduce(g, x, d, True, "max", dtype)
    e = pointwise(node, [x, m], lambda v, mv: math_call("exp", f"{v} - {mv}", dtype),
                  expensive=True)
    g.realize(e)      # read by the sum and the division: NOTE [when a value is realized]
    s = reduce(g, e, d, True, "sum", dtype)
    return pointwise(node, [e, s], lambda v, sv: f"{v} / {sv}")


@register("_log_softmax.default")
def _log_softmax(g, node, x, dim, half_to_float=False):
    dtype = _val(node)[1]
    d = _dims(x, dim)
    _store_if_shared(g, x)
    m = reduce(g, x, d, True, "max", dtype)
    shifted = pointwise(node, [x, m], lambda v, mv: f"{v} - {mv}")
    log_sum = reduce(g, shifted, d, True, "sum", dtype,
                     post=lambda k, acc: math_call("log", acc, dtype),
                     value=lambda k, v: math_call("exp", v, dtype))
    return pointwise(node, [shifted, log_sum], lambda v, ls: f"{v} - {ls}")


@register("native_layer_norm.default")
def _layer_norm(g, node, x, normalized_shape, weight, bias, eps):
    dtype = x.dtype
    ndim = len(x.shape)
    dims = list(range(ndim - len(normalized_shape), ndim))
    n = literal(numel(normalized_shape), dtype)
    _store_if_shared(g, x)
    mean = reduce(g, x, dims, True, "sum", dtype, post=lambda k, acc: f"{acc} / {n}")
    centered = pointwise(None, [x, mean], lambda v, mv: f"{v} - {mv}", shape=x.shape,
                         dtype=dtype)
    one, e = literal(1, dtype), literal(eps, dtype)
    rstd = reduce(g, centered, dims, True, "sum", dtype,
                  value=lambda k, v: k.tmp(f"{v} * {v}", dtype),
                  post=lambda k, acc: f"{one} / {math_call('sqrt', f'{acc} / {n} + {e}', dtype)}")
    inputs = [centered, rstd]
    if weight is not None:
        inputs.append(weight)
    if bias is not None:
        inputs.append(bias)

    def fn(v, r, *affine):
        out = f"{v} * {r}"
        if weight is not None:
            out = f"({out}) * {affine[0]}"
        if bias is not None:
            out = f"({out}) + {affine[-1]}"
        return out
    out = pointwise(None, inputs, fn, shape=x.shape, dtype=dtype)
    return out, mean, rstd
