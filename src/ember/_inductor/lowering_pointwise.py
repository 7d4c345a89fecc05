"""Lowerings of element-wise ops: one `Pointwise` each, C expressions over loaded values."""
from __future__ import annotations

import math

from ember._core import dtype as dt
from ember._inductor.codegen_c import literal, math_call
from ember._inductor.ir import Pointwise, TensorBox
from ember._inductor.lowering_views import expand
from ember._inductor.lowerings import _val, cast, register
from ember._inductor.sizes import SymSize, active, symbolic


def pointwise(node, inputs, fn, expensive=False, shape=None, dtype=None):
    """A Pointwise over the node's shape: `fn(*values) -> C expression`, where tensor inputs
    arrive as C variables (broadcast to the shape) and others as they were given."""
    if shape is None:
        shape, dtype = _val(node)
    shape = _named(shape, inputs)
    boxes = [expand(x, shape) if isinstance(x, TensorBox) else x for x in inputs]
    expensive = expensive or any(isinstance(b, TensorBox) and b.is_expensive() for b in boxes)
    loads = sum(b.loads() for b in boxes if isinstance(b, TensorBox))

    def inner(kernel, index):
        values = [b.load(kernel, index) if isinstance(b, TensorBox) else b for b in boxes]
        return kernel.tmp(fn(*values), dtype)
    return TensorBox(Pointwise(shape, dtype, inner, expensive, loads))


def _named(shape, inputs):
    """`shape` with the C names of the inputs' sizes it shares (NOTE [symbolic sizes in
    kernels])."""
    if not active():
        return tuple(shape)
    shape = list(shape)
    for x in inputs:
        if isinstance(x, TensorBox):
            lead = len(shape) - len(x.shape)
            for k, size in enumerate(x.shape):
                if type(size) is SymSize and lead + k >= 0 and shape[lead + k] == size:
                    shape[lead + k] = size
    return symbolic(shape)


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


class _ExternNode:
    """The parts of an fx node `GraphLowering.extern` reads, for an op a lowering calls."""

    def __init__(self, target, meta):
        self.target = target
        self.meta = meta


@register("addmm.default")
def _addmm(g, node, bias, mat1, mat2, beta=1, alpha=1):
    """`bias + mat1 @ mat2` as the product (BLAS, an extern call) and a Pointwise adding the
    bias, which then fuses with what follows (a Linear's activation) instead of taking its own
    pass over the result."""
    from ember.ops import aten
    dtype = _val(node)[1]
    if beta != 1 or alpha != 1 or not dtype.is_floating_point or \
            not isinstance(bias, TensorBox):
        return g.extern(node, (bias, mat1, mat2), {"beta": beta, "alpha": alpha})
    product = g.extern(_ExternNode(aten.mm.default, node.meta), (mat1, mat2), {})
    return pointwise(node, [product, bias], lambda x, y: f"{x} + {cast(y, dtype)}")
