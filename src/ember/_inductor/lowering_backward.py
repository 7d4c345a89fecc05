"""Lowerings of the composite backward ops autograd records (`native_layer_norm_backward`,
`_softmax_backward_data`, `_log_softmax_backward_data`): row reductions and pointwise steps,
so a compiled backward graph fuses them instead of calling ember's eager kernels."""
from __future__ import annotations

from ember._inductor.codegen_c import literal, math_call
from ember._inductor.ir import numel
from ember._inductor.lowering_pointwise import pointwise
from ember._inductor.lowering_reductions import _dims, _store_if_shared, reduce
from ember._inductor.lowerings import register


def _dtype_of(node, i=None):
    v = node.meta["val"]
    return (v[i] if i is not None else v).dtype


@register("_softmax_backward_data.default")
def _softmax_backward(g, node, grad, out, dim, input_dtype):
    """grad_in = y * (g - sum(g * y)) along `dim`."""
    dtype = _dtype_of(node)
    d = _dims(out, dim)
    _store_if_shared(g, grad)
    _store_if_shared(g, out)
    gy = pointwise(None, [grad, out], lambda a, b: f"{a} * {b}", shape=out.shape, dtype=dtype)
    s = reduce(g, gy, d, True, "sum", dtype)
    return pointwise(None, [out, grad, s], lambda y, a, sv: f"{y} * ({a} - {sv})",
                     shape=out.shape, dtype=dtype)


@register("_log_softmax_backward_data.default")
def _log_softmax_backward(g, node, grad, out, dim, input_dtype):
    """grad_in = g - exp(y) * sum(g) along `dim`."""
    dtype = _dtype_of(node)
    d = _dims(out, dim)
    _store_if_shared(g, grad)
    s = reduce(g, grad, d, True, "sum", dtype)
    return pointwise(None, [grad, out, s],
                     lambda a, y, sv: f"{a} - {math_call('exp', y, dtype)} * {sv}",
                     shape=out.shape, dtype=dtype, expensive=True)


@register("native_layer_norm_backward.default")
def _layer_norm_backward(g, node, grad, x, normalized_shape, mean, rstd, weight, bias,
                         output_mask):
    """Per row (the normalized dims), with xhat = (x - mean) * rstd and wg = grad * weight:
    dx = rstd * (wg - sum(wg) / n - xhat * sum(wg * xhat) / n); over the leading dims:
    dweight = sum(grad * xhat), dbias = sum(grad)."""
    dtype = x.dtype
    ndim = len(x.shape)
    lead = list(range(ndim - len(normalized_shape)))
    rows = list(range(ndim - len(normalized_shape), ndim))
    n = literal(numel(normalized_shape), dtype)
    _store_if_shared(g, grad)
    _store_if_shared(g, x)
    shape = x.shape
    xhat = pointwise(None, [x, mean, rstd], lambda v, m, r: f"({v} - {m}) * {r}",
                     shape=shape, dtype=dtype)
    if weight is not None:
        wg = pointwise(None, [grad, weight], lambda a, w: f"{a} * {w}", shape=shape,
                       dtype=dtype)
    else:
        wg = grad
    results = [None, None, None]
    if output_mask[0]:
        a = reduce(g, wg, rows, True, "sum", dtype)
        b = reduce(g, pointwise(None, [wg, xhat], lambda u, h: f"{u} * {h}", shape=shape,
                                dtype=dtype), rows, True, "sum", dtype)
        results[0] = pointwise(
            None, [wg, xhat, rstd, a, b],
            lambda u, h, r, av, bv: f"{r} * ({u} - {av} / {n} - {h} * ({bv} / {n}))",
            shape=shape, dtype=dtype)
    if output_mask[1] and weight is not None:
        results[1] = reduce(g, pointwise(None, [grad, xhat], lambda u, h: f"{u} * {h}",
                                         shape=shape, dtype=dtype),
                            lead, False, "sum", _dtype_of(node, 1))
    if output_mask[2] and bias is not None:
        results[2] = reduce(g, grad, lead, False, "sum", _dtype_of(node, 2))
    return tuple(results)
