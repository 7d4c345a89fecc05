"""The lowering table: `ember.ops.aten` overload -> f(graph, node, *args, **kwargs) giving the
IR of the op's result (a TensorBox, or a tuple of them). Ops absent here run as extern calls.
Result shapes and dtypes are read off the node's `meta['val']` (type promotion is the
dispatcher's business, already done while tracing).
"""
from __future__ import annotations

import math

from ember._core import dtype as dt
from ember._inductor.codegen_c import c_type, literal, math_call
from ember._inductor.ir import (
    BufferRead,
    Pointwise,
    Reduction,
    TensorBox,
    View,
    contiguous_strides,
    drop_map,
    expand_map,
    numel,
    permute_map,
    reshape_map,
    select_map,
    slice_map,
    squeeze_insert_map,
)
from ember.ops import aten

LOWERINGS: dict = {}


def register(*names):
    """Register for the overloads named ("add.Tensor"); an overload ember does not define
    can never reach a graph and is passed over."""
    def decorate(fn):
        for name in names:
            packet, _, overload = name.partition(".")
            found = getattr(aten, packet, None)
            op = getattr(found, overload, None) if found is not None and \
                overload in found.overloads() else None
            if op is not None:
                LOWERINGS[op] = fn
        return fn
    return decorate


def _val(node):
    v = node.meta["val"]
    return tuple(v.shape), v.dtype


def cast(v: str, dtype) -> str:
    return f"(({c_type(dtype)})({v}))"


# --------------------------------------------------------------------------- views

def view(box, shape, index_map, strides_of=None, node=None):
    """`box` read through `index_map`; a buffer read becomes a strided alias when
    `strides_of(strides) -> (strides, offset)` is given (no index arithmetic in the loop)."""
    data = box.data
    eager = (node, box) if node is not None else None
    if type(data) is BufferRead and strides_of is not None:
        buf = data.buffer
        found = strides_of(buf.shape, buf.strides)
        if found is not None:
            strides, offset = found
            return TensorBox(BufferRead(buf.alias(shape, strides, buf.offset + offset)), eager)
    return TensorBox(View(box, shape, index_map), eager)


def permute(box, dims, node=None):
    dims = [d % len(box.shape) for d in dims]
    shape = tuple(box.shape[d] for d in dims)
    return view(box, shape, permute_map(dims),
                lambda _, st: (tuple(st[d] for d in dims), 0), node)


def expand(box, shape, node=None):
    shape = tuple(s if s != -1 else box.shape[i - (len(shape) - len(box.shape))]
                  for i, s in enumerate(shape))
    if shape == box.shape:
        return box
    offset = len(shape) - len(box.shape)

    def strides_of(old_shape, st):
        return (tuple(0 if i < offset or (old_shape[i - offset] == 1 and s != 1)
                      else st[i - offset] for i, s in enumerate(shape)), 0)
    return view(box, shape, expand_map(box.shape, shape), strides_of, node)


def reshape(box, shape, node=None):
    shape = tuple(shape)
    if shape == box.shape:
        return box

    def strides_of(old_shape, st):
        if st != contiguous_strides(old_shape):
            return None
        return contiguous_strides(shape), 0
    return view(box, shape, reshape_map(box.shape, shape), strides_of, node)


def unsqueeze(box, dim, node=None):
    dim = dim % (len(box.shape) + 1)
    shape = box.shape[:dim] + (1,) + box.shape[dim:]
    return view(box, shape, drop_map({dim}),
                lambda _, st: (st[:dim] + (0,) + st[dim:], 0), node)


def squeeze(box, dims, node=None):
    ndim = len(box.shape)
    dims = {d % ndim for d in dims if box.shape[d % ndim] == 1} if ndim else set()
    if not dims:
        return box
    shape = tuple(s for i, s in enumerate(box.shape) if i not in dims)
    return view(box, shape, squeeze_insert_map(dims, ndim),
                lambda _, st: (tuple(s for i, s in enumerate(st) if i not in dims), 0), node)


@register("permute.default")
def _permute(g, node, x, dims):
    return permute(x, dims, node)


@register("t.default")
def _t(g, node, x):
    return permute(x, list(reversed(range(len(x.shape)))), node)


@register("transpose.int")
def _transpose(g, node, x, dim0, dim1):
    dims = list(range(len(x.shape)))
    if dims:
        dims[dim0], dims[dim1] = dims[dim1], dims[dim0]
    return permute(x, dims, node)


@register("expand.default")
def _expand(g, node, x, size, implicit=False):
    return expand(x, _val(node)[0], node)


@register("view.default", "_unsafe_view.default", "reshape.default")
def _view(g, node, x, size):
    return reshape(x, _val(node)[0], node)


@register("unsqueeze.default")
def _unsqueeze(g, node, x, dim):
    return unsqueeze(x, dim, node)


@register("squeeze.dim")
def _squeeze_dim(g, node, x, dim):
    return squeeze(x, [dim], node)


@register("squeeze.dims")
def _squeeze_dims(g, node, x, dims):
    return squeeze(x, dims, node)


@register("squeeze.default")
def _squeeze(g, node, x):
    return squeeze(x, range(len(x.shape)), node)


@register("slice.Tensor")
def _slice(g, node, x, dim=0, start=None, end=None, step=1):
    shape = _val(node)[0]
    dim = dim % len(x.shape)
    size = x.shape[dim]
    start = 0 if start is None else (start + size if start < 0 else start)
    start = min(max(start, 0), size)
    return view(x, shape, slice_map(dim, start, step),
                lambda _, st: (st[:dim] + (st[dim] * step,) + st[dim + 1:], start * st[dim]),
                node)


@register("select.int")
def _select(g, node, x, dim, index):
    dim = dim % len(x.shape)
    index = index + x.shape[dim] if index < 0 else index
    return view(x, _val(node)[0], select_map(dim, index),
                lambda _, st: (st[:dim] + st[dim + 1:], index * st[dim]), node)


@register("alias.default", "detach.default", "lift_fresh_copy.default")
def _alias(g, node, x):
    return x


@register("clone.default")
def _clone(g, node, x, memory_format=None):
    return x


# --------------------------------------------------------------------------- pointwise

def pointwise(node, inputs, fn, expensive=False, shape=None, dtype=None):
    """A Pointwise over the node's shape: `fn(*values) -> C expression`, where tensor inputs
    arrive as C variables (broadcast to the shape) and others as they were given."""
    if shape is None:
        shape, dtype = _val(node)
    boxes = [expand(x, shape) if isinstance(x, TensorBox) else x for x in inputs]
    expensive = expensive or any(isinstance(b, TensorBox) and b.is_expensive() for b in boxes)

    def inner(kernel, index):
        values = [b.load(kernel, index) if isinstance(b, TensorBox) else b for b in boxes]
        return kernel.tmp(fn(*values), dtype)
    return TensorBox(Pointwise(shape, dtype, inner, expensive))


def _operand(x, dtype):
    """A tensor's C variable cast to `dtype`, or a Python number as a literal of it."""
    return cast(x, dtype) if isinstance(x, str) else literal(x, dtype)


def _binary(c_op):
    def lower(g, node, a, b, alpha=1):
        dtype = _val(node)[1]

        def fn(x, y):
            x, y = _operand(x, dtype), _operand(y, dtype)
            if alpha != 1:
                y = f"({literal(alpha, dtype)} * {y})"
            return f"{x} {c_op} {y}"
        return pointwise(node, [a, b], fn)
    return lower


register("add.Tensor", "add.Scalar")(_binary("+"))
register("sub.Tensor", "sub.Scalar")(_binary("-"))
register("mul.Tensor", "mul.Scalar")(_binary("*"))


@register("div.Tensor", "div.Scalar")
def _div(g, node, a, b):
    dtype = _val(node)[1]
    if not dtype.is_floating_point:
        return g.extern(node, (a, b), {})
    return pointwise(node, [a, b], lambda x, y: f"{_operand(x, dtype)} / {_operand(y, dtype)}")


def _compute_dtype(inputs):
    """The dtype a comparison computes in: the tensors' promoted type, a float number
    lifting integer tensors to float32 (a number never widens a tensor's own kind)."""
    tensors = [x.dtype for x in inputs if isinstance(x, TensorBox)]
    floats = [d for d in tensors if d.is_floating_point]
    if floats:
        return dt.float64 if dt.float64 in floats else floats[0]
    if any(isinstance(x, float) for x in inputs):
        return dt.float32
    if any(d == dt.int64 for d in tensors) or any(type(x) is int for x in inputs):
        return dt.int64
    return tensors[0]


def _comparison(c_op):
    def lower(g, node, a, b):
        dtype = _compute_dtype([a, b])
        return pointwise(node, [a, b],
                         lambda x, y: f"{_operand(x, dtype)} {c_op} {_operand(y, dtype)}")
    return lower


for _name, _c in (("eq", "=="), ("ne", "!="), ("lt", "<"), ("le", "<="), ("gt", ">"),
                  ("ge", ">=")):
    register(f"{_name}.Tensor", f"{_name}.Scalar")(_comparison(_c))


def _unary_math(name, expensive=True, float_only=True):
    def lower(g, node, x):
        dtype = _val(node)[1]
        if float_only and not dtype.is_floating_point:
            return g.extern(node, (x,), {})
        return pointwise(node, [x], lambda v: math_call(name, cast(v, dtype), dtype),
                         expensive=expensive)
    return lower


for _name in ("exp", "log", "log1p", "expm1", "tanh", "erf", "sin", "cos", "log2"):
    register(f"{_name}.default")(_unary_math(_name))
register("sqrt.default")(_unary_math("sqrt", expensive=False))


@register("rsqrt.default")
def _rsqrt(g, node, x):
    dtype = _val(node)[1]
    one = literal(1, dtype)
    return pointwise(node, [x], lambda v: f"{one} / {math_call('sqrt', cast(v, dtype), dtype)}")


@register("reciprocal.default")
def _reciprocal(g, node, x):
    dtype = _val(node)[1]
    return pointwise(node, [x], lambda v: f"{literal(1, dtype)} / {cast(v, dtype)}")


@register("sigmoid.default")
def _sigmoid(g, node, x):
    dtype = _val(node)[1]
    one = literal(1, dtype)
    return pointwise(node, [x], lambda v: f"{one} / ({one} + "
                     f"{math_call('exp', '-' + cast(v, dtype), dtype)})", expensive=True)


@register("neg.default")
def _neg(g, node, x):
    dtype = _val(node)[1]
    if dtype == dt.bool_:
        return g.extern(node, (x,), {})
    return pointwise(node, [x], lambda v: f"-{cast(v, dtype)}")


@register("abs.default")
def _abs(g, node, x):
    dtype = _val(node)[1]
    if dtype.is_floating_point:
        return pointwise(node, [x], lambda v: math_call("fabs", v, dtype))
    return pointwise(node, [x], lambda v: f"{v} < 0 ? -{v} : {v}")


@register("relu.default")
def _relu(g, node, x):
    dtype = _val(node)[1]
    zero = literal(0, dtype)
    return pointwise(node, [x], lambda v: f"{v} < {zero} ? {zero} : {v}")


@register("logical_not.default")
def _logical_not(g, node, x):
    return pointwise(node, [x], lambda v: f"!{v}")


def _max_min(greater: bool):
    def lower(g, node, a, b):
        dtype = _val(node)[1]
        cmp = ">" if greater else "<"

        def fn(x, y):
            x, y = cast(x, dtype), cast(y, dtype)
            if dtype.is_floating_point:       # NaN wins, as in PyTorch
                return f"({x} != {x} || {x} {cmp} {y}) ? {x} : {y}"
            return f"({x} {cmp} {y}) ? {x} : {y}"
        return pointwise(node, [a, b], fn)
    return lower


register("maximum.default")(_max_min(True))
register("minimum.default")(_max_min(False))


@register("clamp.default")
def _clamp(g, node, x, min=None, max=None):
    dtype = _val(node)[1]

    def fn(v):
        v = cast(v, dtype)
        if min is not None:
            lo = literal(min, dtype)
            v = f"({v} < {lo} ? {lo} : {v})"
        if max is not None:
            hi = literal(max, dtype)
            v = f"({v} > {hi} ? {hi} : {v})"
        return v
    return pointwise(node, [x], fn)


@register("where.self")
def _where(g, node, cond, a, b):
    dtype = _val(node)[1]
    return pointwise(node, [cond, a, b],
                     lambda c, x, y: f"{c} ? {_operand(x, dtype)} : {_operand(y, dtype)}")


@register("pow.Tensor_Scalar")
def _pow(g, node, x, exponent):
    dtype = _val(node)[1]
    if not dtype.is_floating_point or isinstance(exponent, bool):
        return g.extern(node, (x, exponent), {})
    if exponent == 2:
        return pointwise(node, [x], lambda v: f"{cast(v, dtype)} * {cast(v, dtype)}")
    if exponent == 1:
        return pointwise(node, [x], lambda v: cast(v, dtype))
    if exponent == 0.5:
        return pointwise(node, [x], lambda v: math_call("sqrt", cast(v, dtype), dtype))
    e = literal(exponent, dtype)
    name = "powf" if dtype == dt.float32 else "pow"
    return pointwise(node, [x], lambda v: f"{name}({cast(v, dtype)}, {e})", expensive=True)


@register("gelu.default")
def _gelu(g, node, x, approximate="none"):
    dtype = _val(node)[1]

    def c(value):
        return literal(value, dtype)

    def fn(v):
        v = cast(v, dtype)
        if approximate == "tanh":
            inner = f"{c(math.sqrt(2 / math.pi))} * ({v} + {c(0.044715)} * {v} * {v} * {v})"
            return f"{c(0.5)} * {v} * ({c(1)} + {math_call('tanh', inner, dtype)})"
        return f"{c(0.5)} * {v} * ({c(1)} + {math_call('erf', f'{v} * {c(0.5 ** 0.5)}', dtype)})"
    return pointwise(node, [x], fn, expensive=True)


@register("_to_copy.default")
def _to_copy(g, node, x, dtype=None, layout=None, device=None, pin_memory=None,
             non_blocking=False, memory_format=None):
    out_dtype = _val(node)[1]
    if (device is not None and str(device) != "cpu") or memory_format is not None:
        return g.extern(node, (x,), {"dtype": dtype, "layout": layout, "device": device,
                                     "pin_memory": pin_memory, "non_blocking": non_blocking,
                                     "memory_format": memory_format})
    if out_dtype == dt.bool_:
        return pointwise(node, [x], lambda v: f"({v} != 0)")
    return pointwise(node, [x], lambda v: cast(v, out_dtype))


def _fill(node, value):
    dtype = _val(node)[1]
    return pointwise(node, [], lambda: literal(value, dtype))


@register("full.default")
def _full(g, node, size, fill_value, **kwargs):
    return _fill(node, fill_value)


@register("scalar_tensor.default")
def _scalar_tensor(g, node, s, **kwargs):
    return _fill(node, s)


@register("full_like.default")
def _full_like(g, node, x, fill_value, **kwargs):
    return _fill(node, fill_value)


@register("zeros_like.default")
def _zeros_like(g, node, x, **kwargs):
    return _fill(node, 0)


@register("ones_like.default")
def _ones_like(g, node, x, **kwargs):
    return _fill(node, 1)


# --------------------------------------------------------------------------- reductions

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

@register("_softmax.default")
def _softmax(g, node, x, dim, half_to_float=False):
    dtype = _val(node)[1]
    d = _dims(x, dim)
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
