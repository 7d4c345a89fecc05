"""Matrix products: matmul, mm, bmm, mv, dot, vdot, inner, outer/ger and the fused
`beta * input + alpha * product` family (addmm, addmv, addr, addbmm, baddbmm).

einsum, tensordot, kron, cross, cdist and chain_matmul live in contraction.py; ember.linalg's
decompositions live elsewhere.

Checks are written over anything with `.shape`, `.ndim` and a NumPy `.dtype`, so the kernels
(raw arrays) and the meta rules (MetaArrays, via `t._data`) share them and raise alike.
"""
from __future__ import annotations

import math

import numpy as np

from ember._backends.array_helpers import backend_helpers
from ember._backends.cpu_allocator import MIN_BYTES as POOLED_BYTES
from ember._core import dtype as dt
from ember._core.checks import _check, _check_not_implemented
from ember._core.dispatch import call
from ember._core.promotion import promote_types
from ember._core.registry import OPS, register_op
from ember._core.scalars import CXX_NAMES as _CXX_NAMES
from ember._core.shape import infer_size, size_at
from ember._ops.grad_utils import conj
from ember._ops.random_float32_math import fma32

_SCALAR_NAMES = {"int64": "int64_t", "int32": "int", "int16": "int16_t", "int8": "int8_t",
                 "uint8": "uint8_t", "float64": "double", "bool": "bool"}
_HALF = (dt.float16._np, dt.bfloat16._np)


def cpp(np_dtype) -> str:
    """PyTorch's ScalarType name for a NumPy dtype ("Float", "Long", ...)."""
    return dt.NP_TO_DTYPE[np.dtype(np_dtype)]._cpp_name


def cxx(np_dtype) -> str:
    return _CXX_NAMES.get(np.dtype(np_dtype).name, np.dtype(np_dtype).name)


def dims_text(shape) -> str:
    return "x".join(str(s) for s in shape)


def check_kernel_dtype(kernel_name: str, *arrays, skip_empty=True) -> None:
    """Bool, complex32 and the wide unsigned types have no matrix kernels in PyTorch (whose
    empty-input early exits come before the kernel is chosen, so empty products pass)."""
    if skip_empty and any(a.size == 0 for a in arrays):
        return
    for a in arrays:
        kind = a.dtype.kind
        _check_not_implemented(kind != "b" and (kind != "u" or a.dtype.itemsize == 1) and
                               a.dtype.names is None, lambda: (
            f'"{kernel_name}" not implemented for \'{cpp(a.dtype)}\''))


def compute(xp, fn, *arrays):
    """Run `fn` on the arrays, widening half types to float32 as PyTorch's CPU kernels do."""
    out_dtype = arrays[0].dtype
    if out_dtype in _HALF or out_dtype.kind == "V":   # ml_dtypes' bfloat16 and float8
        arrays = tuple(a.astype(np.float32) for a in arrays)
    if fn is np.matmul or fn is xp.matmul:
        fn = backend_helpers(xp).matmul              # NOTE [back-end helpers]
    result = xp.asarray(fn(*arrays))
    if result.dtype != out_dtype:
        result = result.astype(out_dtype)
    return result


def compute_wide(xp, fn, *arrays):
    """`compute` without the final rounding: half types give their float32 product.

    NOTE [addmm rounds once]: PyTorch's CPU addmm and baddbmm in float16/bfloat16 keep the
    product in float32, scale it by alpha (one float32 rounding), add beta * input in one fused
    multiply-add and round to the half type once. Rounding the product to the half type first
    moves some elements by one ulp, and Muon's Newton-Schulz iteration (all addmm in bfloat16)
    magnifies such ulps into different updates."""
    if arrays[0].dtype in _HALF or arrays[0].dtype.kind == "V":
        return xp.asarray(fn(*(a.astype(np.float32) for a in arrays)))
    return compute(xp, fn, *arrays)


def expand_check(shape, target, dtype_np) -> None:
    """PyTorch's expand() errors for broadcasting `shape` to `target` (the `input` of addmm...)."""
    _check(len(shape) <= len(target), lambda: (
        f"expand(torch.{cpp(dtype_np)}Tensor{{{list(shape)}}}, size={list(target)}): the number "
        f"of sizes provided ({len(target)}) must be greater or equal to the number of "
        f"dimensions in the tensor ({len(shape)})"))
    offset = len(target) - len(shape)
    for i, size in enumerate(shape):
        want = target[offset + i]
        _check(size == want or size == 1, lambda: (
            f"The expanded size of the tensor ({want}) must match the existing size ({size}) at "
            f"non-singleton dimension {offset + i}.  Target sizes: {list(target)}.  Tensor "
            f"sizes: {list(shape)}"))


def scalar_for(value, np_dtype, name=None):
    """A beta/alpha Scalar converted to the op's compute type the way PyTorch does: complex
    values refuse real types, integer types truncate (addr checks more, see `_addr_scalar`)."""
    if isinstance(value, (complex, np.complexfloating)) and np_dtype.kind != "c":
        type_name = "float" if np_dtype in _HALF else _SCALAR_NAMES.get(np_dtype.name, "float")
        _check(False, lambda: f"value cannot be converted to type {type_name} without overflow")
    if np_dtype.kind in "iu":
        info = np.iinfo(np_dtype)
        _check(info.min - 1 < value < info.max + 1, lambda: (
            f"value cannot be converted to type {_SCALAR_NAMES.get(np_dtype.name)} without "
            "overflow"))
        return np_dtype.type(int(value))
    if np_dtype in _HALF:
        return np.float32(value)
    return np_dtype.type(value)


# --------------------------------------------------------------------------- shape checks

def _check_vector(name, a, b):
    _check(a.ndim == 1 and b.ndim == 1, lambda: (
        f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors"))
    _check(a.dtype == b.dtype, lambda: (
        f"{name} : expected both vectors to have same dtype, but found {cpp(a.dtype)} and "
        f"{cpp(b.dtype)}"))
    _check(a.shape[0] == b.shape[0], lambda: (
        f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src [{b.shape[0]}] to "
        f"have the same number of elements, but got {a.shape[0]} and {b.shape[0]} elements "
        "respectively"))
    return ()


def _check_mm_shapes(a_shape, b_shape):
    _check(a_shape[1] == b_shape[0], lambda: (
        f"mat1 and mat2 shapes cannot be multiplied ({dims_text(a_shape)} and "
        f"{dims_text(b_shape)})"))


def _check_same_m(a, b):
    _check(a.dtype == b.dtype, lambda: (
        f"expected m1 and m2 to have the same dtype, but got: {cxx(a.dtype)} != {cxx(b.dtype)}"))


def mm_shape(a, b):
    _check(a.ndim == 2, "self must be a matrix")
    _check(b.ndim == 2, "mat2 must be a matrix")
    _check_mm_shapes(a.shape, b.shape)
    _check_same_m(a, b)
    return (a.shape[0], b.shape[1])


def mv_shape(mat, vec, input_shape=None, input_dtype=None):
    _check(mat.ndim == 2 and vec.ndim == 1 and (input_shape is None or len(input_shape) <= 1),
           lambda: (f"vector + matrix @ vector expected, got "
                    f"{1 if input_shape is None else len(input_shape)}, {mat.ndim}, {vec.ndim}"))
    rows = mat.shape[0]
    # addmv's input has rows elements or one (a 0-d input, too); the message reads its
    # size(0), an IndexError of its own for a 0-d input, as in PyTorch.
    numel = rows if input_shape is None else math.prod(input_shape)
    if not (mat.shape[1] == vec.shape[0] and (numel == rows or numel == 1)):
        first = rows if input_shape is None else size_at(input_shape, 0)
        _check(False, f"size mismatch, got input ({first}), mat ({dims_text(mat.shape)}), vec "
                      f"({vec.shape[0]})")
    in_dtype = vec.dtype if input_dtype is None else input_dtype
    _check(in_dtype == mat.dtype == vec.dtype, lambda: (
        f"addmv input tensors must have the same dtype, but got {cpp(in_dtype)}, "
        f"{cpp(mat.dtype)}, and {cpp(vec.dtype)}"))
    return (rows,)


def bmm_shape(a, b):
    _check(a.ndim == 3, "batch1 must be a 3D tensor")
    _check(b.ndim == 3, "batch2 must be a 3D tensor")
    _check(a.shape[0] == b.shape[0] and a.shape[2] == b.shape[1], lambda: (
        f"Expected size for first two dimensions of batch2 tensor to be: [{a.shape[0]}, "
        f"{a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}]."))
    _check(a.dtype == b.dtype, lambda: (
        f"expected scalar type {cpp(a.dtype)} but found {cpp(b.dtype)}"))
    return (a.shape[0], a.shape[1], b.shape[2])


class _Shape:
    """A shape and dtype standing in for an array in the checks (folded matmul operands)."""

    __slots__ = ("dtype", "ndim", "shape")

    def __init__(self, shape, dtype):
        self.shape = tuple(shape)
        self.ndim = len(self.shape)
        self.dtype = dtype


def matmul_shape(a, b):
    """matmul's result shape, raising the error of the product PyTorch reduces the case to."""
    _check(a.ndim >= 1 and b.ndim >= 1, lambda: (
        f"both arguments to matmul need to be at least 1D, but they are {a.ndim}D and "
        f"{b.ndim}D"))
    if a.ndim == 1 and b.ndim == 1:
        return _check_vector("dot", a, b)
    if a.ndim == 2 and b.ndim == 1:
        return mv_shape(a, b)
    if a.ndim <= 2 and b.ndim == 2:
        m = _Shape((1,) + a.shape if a.ndim == 1 else a.shape, a.dtype)
        shape = mm_shape(m, b)
        return shape[1:] if a.ndim == 1 else shape
    if a.ndim >= 3 and b.ndim <= 2:
        # PyTorch folds the batch dimensions of `a` into its rows.
        rows = math.prod(a.shape[:-1])
        folded = _Shape((rows, a.shape[-1]), a.dtype)
        if b.ndim == 1:
            mv_shape(folded, b)
            return a.shape[:-1]
        mm_shape(folded, b)
        return a.shape[:-1] + (b.shape[1],)
    a_mat = (1,) + a.shape if a.ndim == 1 else a.shape
    b_mat = b.shape + (1,) if b.ndim == 1 else b.shape
    batch = broadcast_batch(a_mat[:-2], b_mat[:-2])
    size = math.prod(batch)
    bmm_shape(_Shape((size,) + a_mat[-2:], a.dtype), _Shape((size,) + b_mat[-2:], b.dtype))
    shape = batch + (a_mat[-2], b_mat[-1])
    if a.ndim == 1:
        shape = shape[:-2] + shape[-1:]
    if b.ndim == 1:
        shape = shape[:-1]
    return shape


# Broadcast two batch shapes with PyTorch's message.
broadcast_batch = infer_size


def _meta(shape_fn):
    """A meta rule from a shape check over arrays: the result keeps the first input's dtype."""
    def meta(*args):
        arrays = [a._data for a in args if hasattr(a, "_data")]
        return (shape_fn(*arrays), args[0]._dtype)
    return meta


# --------------------------------------------------------------------------- derivatives
# NOTE [product gradients]: for C = A @ B, dA = G @ B^H and dB = A^H @ G (the conjugate
# transposes are plain transposes for real values). A 1-d operand is a row (left) or column
# (right) that the product drops again, so its gradient is taken with that dim put back and
# squeezed; batch dims that broadcasting added are summed by the engine (graph._fit).


def _scaled(t, scalar):
    """t * conj(scalar), leaving t alone for the common scalar 1."""
    return t if scalar == 1 else t * conj(scalar)


def _matmul_self_grad(ctx):
    a, b, g = ctx.self, ctx.other, ctx.grad
    if b.ndim == 1:
        # (..., n) against a column: the gradient is the outer product with conj(other).
        return g * conj(b) if a.ndim == 1 else g.unsqueeze(-1) * conj(b)
    if a.ndim == 1:
        return (g.unsqueeze(-2) @ b.mH).squeeze(-2)
    return g @ b.mH


def _matmul_other_grad(ctx):
    a, b, g = ctx.self, ctx.other, ctx.grad
    if a.ndim == 1:
        return g * conj(a) if b.ndim == 1 else conj(a).unsqueeze(-1) * g.unsqueeze(-2)
    if b.ndim == 1:
        return (a.mH @ g.unsqueeze(-1)).squeeze(-1)
    return a.mH @ g


def _inner_self_grad(ctx):
    a, b, g = ctx.self, ctx.other, ctx.grad
    if a.ndim == 0 or b.ndim == 0:
        return g * conj(b)
    # g is (a-batch..., b-batch...): contract its b-batch dims with those of `other`.
    lead = a.ndim - 1
    dims = list(range(b.ndim - 1))
    return call(OPS["tensordot"], (g, conj(b), [lead + d for d in dims], dims))


def _inner_other_grad(ctx):
    a, b, g = ctx.self, ctx.other, ctx.grad
    if a.ndim == 0 or b.ndim == 0:
        return g * conj(a)
    dims = list(range(a.ndim - 1))
    return call(OPS["tensordot"], (g, conj(a), dims, dims))


def _outer_grads(first, second):
    """Formulas for outer-like products (first[i] * second[j]); `mul` promotes mixed dtypes."""
    return {first: lambda c: (c.grad * conj(getattr(c, second))).sum(-1),
            second: lambda c: (c.grad * conj(getattr(c, first)).unsqueeze(-1)).sum(0)}


def _fused_grads(first, second, product_grads):
    """beta * self + alpha * product(first, second): the product's formulas scaled by alpha."""
    grads = {"self": lambda c: _scaled(c.grad, c.beta)}
    for name in (first, second):
        grads[name] = (lambda f: lambda c: _scaled(f(c), c.alpha))(product_grads[name])
    return grads


def _product_grads(left, right, product):
    """d left = grad @ right^H and d right = left^H @ grad, with `product` as the @."""
    return {left: lambda c: product(c.grad, getattr(c, right).mH),
            right: lambda c: product(getattr(c, left).mH, c.grad)}


def _column_major(t):
    """A matrix laid out column by column (a transposed row-major one)."""
    strides = t.stride()
    return strides[0] == 1 and strides[1] == t.shape[0]


def _mm_grads(left, right):
    """mm's formulas as PyTorch writes them: d left = grad @ right^H and d right = left^H @
    grad, each computed transposed when that input was column-major, so the gradient comes
    out in the input's layout (a mode sees `t`, `mm`, `t` there)."""
    def left_grad(c):
        a, b, g = getattr(c, left), getattr(c, right), c.grad
        if _column_major(a):
            return conj(b).mm(g.t()).t()
        return g.mm(conj(b.t()))

    def right_grad(c):
        a, b, g = getattr(c, left), getattr(c, right), c.grad
        if _column_major(b):
            return g.t().mm(conj(a)).t()
        return conj(a.t()).mm(g)
    return {left: left_grad, right: right_grad}


def _mm_grads_right_first(left, right):
    """mm's formulas, the right operand's first (PyTorch's MmBackward0 order)."""
    grads = _mm_grads(left, right)
    return {right: grads[right], left: grads[left]}


def _mv_grads(mat, vec):
    return {mat: lambda c: c.grad.unsqueeze(-1) * conj(getattr(c, vec)),
            vec: lambda c: getattr(c, mat).mH.mv(c.grad)}


def _bmm(a, b):
    return a.bmm(b)


def _matmul(a, b):
    return a @ b


# --------------------------------------------------------------------------- products

def _matmul_name(args, outputs):
    """matmul is composite in PyTorch: its node is the product it reduced the case to."""
    a, b = args[0].ndim, args[1].ndim
    if a == 1 and b == 1:
        return "DotBackward0"
    if a == 2 and b == 1:
        return "MvBackward0"
    if a == 2 and b == 2:
        return "MmBackward0"
    return "SqueezeBackward4" if a == 1 and b == 2 else "UnsafeViewBackward0"


_BLAS_DTYPES = frozenset(np.dtype(t) for t in (np.float32, np.float64, np.complex64,
                                                np.complex128))


@register_op("matmul(Tensor self, Tensor other) -> Tensor", kind="generic",
             meta=_meta(matmul_shape), dunders={"__matmul__": "forward", "__rmatmul__": "reflect"},
             derivatives={"self": _matmul_self_grad, "other": _matmul_other_grad},
             node_name=_matmul_name,
             # A fresh product is row-major already (NOTE [row-major results]).
             tags=("fp_errors", "keeps_layout"))
def matmul(xp, self, other):
    """matmul(input, other, *, out=None) -> Tensor: matrix product with broadcasting."""
    dtype = self.dtype
    if dtype in _BLAS_DTYPES and other.dtype is dtype and self.ndim == 2 and other.ndim == 2 \
            and self.shape[1] == other.shape[0]:
        # The common case, already valid: float32/64 (complex) matrices that fit.
        if self.nbytes + other.nbytes < POOLED_BYTES:
            return self @ other
        return backend_helpers(xp).matmul(self, other)       # NOTE [back-end helpers]
    if dtype in _BLAS_DTYPES and other.dtype is dtype and self.ndim > 2 and other.ndim == 2 \
            and self.shape[-1] == other.shape[0] and self.flags.c_contiguous:
        # A batch of rows times one matrix: one product (NOTE [linear of a batch is one
        # product], nn_linear.py), the same sums.
        lead = self.shape[:-1]
        rows = self.reshape(math.prod(lead), self.shape[-1])
        product = rows @ other if rows.nbytes + other.nbytes < POOLED_BYTES else \
            backend_helpers(xp).matmul(rows, other)
        return product.reshape(lead + other.shape[1:])
    matmul_shape(self, other)
    kernel = "dot" if self.ndim == 1 and other.ndim == 1 else (
        "addmv_impl_cpu" if other.ndim == 1 and self.ndim >= 2 else
        "addmm_impl_cpu_" if other.ndim == 2 else "bmm")
    check_kernel_dtype(kernel, self, other, skip_empty=kernel != "dot")
    return compute(xp, xp.matmul, self, other)


@register_op("mm(Tensor self, Tensor mat2) -> Tensor", kind="generic", meta=_meta(mm_shape),
             derivatives=_mm_grads_right_first("self", "mat2"), tags=("fp_errors",))
def mm(xp, self, mat2):
    """mm(input, mat2, *, out=None) -> Tensor: product of two matrices."""
    mm_shape(self, mat2)
    check_kernel_dtype("addmm_impl_cpu_", self, mat2)
    return compute(xp, xp.matmul, self, mat2)


@register_op("bmm(Tensor self, Tensor mat2) -> Tensor", kind="generic", meta=_meta(bmm_shape),
             derivatives=_product_grads("self", "mat2", _bmm), tags=("fp_errors",))
def bmm(xp, self, mat2):
    """bmm(input, mat2, *, out=None) -> Tensor: batched product of (b, n, m) and (b, m, p)."""
    bmm_shape(self, mat2)
    check_kernel_dtype("bmm", self, mat2)
    return compute(xp, xp.matmul, self, mat2)


@register_op("mv(Tensor self, Tensor vec) -> Tensor", kind="generic", meta=_meta(mv_shape),
             derivatives=_mv_grads("self", "vec"), tags=("fp_errors",))
def mv(xp, self, vec):
    """mv(input, vec, *, out=None) -> Tensor: matrix-vector product."""
    size_at(self.shape, 0)                  # (PyTorch sizes its result first)
    mv_shape(self, vec)
    check_kernel_dtype("addmv_impl_cpu", self, vec)
    return compute(xp, xp.matmul, self, vec)


def _dot_shape(a, b):
    return _check_vector("dot", a, b)


@register_op("dot(Tensor self, Tensor tensor) -> Tensor", kind="generic", meta=_meta(_dot_shape),
             derivatives={"self": lambda c: c.grad * conj(c.tensor),
                          "tensor": lambda c: c.grad * conj(c.self)}, tags=("fp_errors",))
def dot(xp, self, tensor):
    """dot(input, tensor, *, out=None) -> Tensor: inner product of two 1-D tensors."""
    _check_vector("dot", self, tensor)
    check_kernel_dtype("dot", self, skip_empty=False)
    return compute(xp, xp.matmul, self, tensor)


@register_op("vdot(Tensor self, Tensor other) -> Tensor", kind="generic", meta=_meta(_dot_shape),
             derivatives={"self": lambda c: conj(c.grad) * c.other,
                          "other": lambda c: c.grad * c.self}, tags=("fp_errors",))
def vdot(xp, self, other):
    """vdot(input, other, *, out=None) -> Tensor: dot product with `input` conjugated."""
    _check_vector("dot", self, other)
    check_kernel_dtype("dot", self, skip_empty=False)
    if self.dtype.kind == "c":
        self = xp.conj(self)
    return compute(xp, xp.matmul, self, other)


def _inner_shape(a, b):
    if a.ndim == 0 or b.ndim == 0:
        return np.broadcast_shapes(a.shape, b.shape)
    _check(a.shape[-1] == b.shape[-1], lambda: (
        f"inner() the last dimension must match on both input tensors but got shapes "
        f"{list(a.shape)} and {list(b.shape)}"))
    _check(a.dtype == b.dtype, "both inputs should have same dtype")
    return a.shape[:-1] + b.shape[:-1]


def _inner_meta(self, other):
    shape = _inner_shape(self._data, other._data)
    if self.ndim == 0 or other.ndim == 0:
        return (shape, _mul_dtype(self, other))
    return (shape, self._dtype)


def _mul_dtype(a, b):
    from ember._core.promotion import result_type_from
    tensors = (a, b)
    return result_type_from([t._dtype for t in tensors if t.ndim],
                            [t._dtype for t in tensors if not t.ndim], [])


@register_op("inner(Tensor self, Tensor other) -> Tensor", kind="generic", meta=_inner_meta,
             derivatives={"self": _inner_self_grad, "other": _inner_other_grad},
             tags=("fp_errors", "out_without_autograd"))
def inner(xp, self, other):
    """inner(input, other, *, out=None) -> Tensor: sum over the last dimensions."""
    shape = _inner_shape(self, other)
    if self.ndim == 0 or other.ndim == 0:
        # A 0-d operand makes inner a plain (type-promoting) product.
        result_np = _promoted_np(self, other)
        return compute(xp, xp.multiply, self.astype(result_np), other.astype(result_np))
    check_kernel_dtype("dot" if self.ndim == other.ndim == 1 else "addmm_impl_cpu_", self)
    result = compute(xp, lambda a, b: xp.tensordot(a, b, axes=([-1], [-1])), self, other)
    return result.reshape(shape)


def _promoted_np(a, b):
    from ember._core.promotion import result_type_from
    dims = [dt.NP_TO_DTYPE[x.dtype] for x in (a, b) if x.ndim]
    zeros = [dt.NP_TO_DTYPE[x.dtype] for x in (a, b) if not x.ndim]
    return result_type_from(dims, zeros, [])._np


def _outer_meta(self, vec2):
    _outer_check(self._data, vec2._data)
    return ((self.shape[0], vec2.shape[0]), promote_types(self._dtype, vec2._dtype))


def _outer_check(a, b, name="outer", first="self", second="vec2"):
    _check(a.ndim == 1, lambda: f"{name}: Expected 1-D argument {first}, but got {a.ndim}-D")
    _check(b.ndim == 1, lambda: f"{name}: Expected 1-D argument {second}, but got {b.ndim}-D")


@register_op("outer(Tensor self, Tensor vec2) -> Tensor", kind="generic", meta=_outer_meta,
             aliases=("ger",), derivatives=_outer_grads("self", "vec2"), tags=("fp_errors",))
def outer(xp, self, vec2):
    """outer(input, vec2, *, out=None) -> Tensor: the outer product (types promote)."""
    _outer_check(self, vec2)
    result_np = promote_types(dt.NP_TO_DTYPE[self.dtype], dt.NP_TO_DTYPE[vec2.dtype])._np
    return compute(xp, xp.multiply, self.astype(result_np)[:, None], vec2.astype(result_np)[None])


# --------------------------------------------------------------------------- beta * input + ...

def fused(xp, input, product, beta, alpha, np_dtype=None, owned=False):
    """beta * input + alpha * product in the product's dtype (or `np_dtype`, when the product
    comes unrounded in float32 from `compute_wide`). beta == 0 ignores `input` entirely (NaN
    and inf in it do not propagate), as PyTorch documents. `owned`: the caller made `product`
    for this call, so with beta and alpha 1 the input is added into it (no copies: the same
    sums as input + product)."""
    np_dtype = product.dtype if np_dtype is None else np_dtype
    work = np.dtype(np.float32) if np_dtype in _HALF else np_dtype
    b = scalar_for(beta, np_dtype)
    a = scalar_for(alpha, np_dtype)
    if owned and b == 1 and a == 1 and product.dtype == np_dtype and input.dtype == np_dtype:
        product += input
        return product
    result = product.astype(work, copy=False)
    if a != 1:
        result = result * a
    if b != 0:
        scaled = input.astype(work, copy=False)
        if b != 1 and product.dtype != np_dtype and backend_helpers(xp).host:
            # NOTE [addmm rounds once]: the half types' beta * input joins alpha * product in
            # one fused multiply-add.
            return np.array(fma32(np.float32(b), np.broadcast_to(scaled, product.shape),
                                  np.broadcast_to(result, product.shape)), dtype=np_dtype)
        if b != 1:
            scaled = scaled * b
        result = result + scaled
    result = xp.broadcast_to(result, product.shape)
    return xp.array(result, dtype=np_dtype)


def _old_forms(first, second):
    """The fused products' old argument orders (NOTE [deprecated argument orders])."""
    return (f"beta, self, alpha, {first}, {second}", f"beta, self, {first}, {second}")


_ADD_SCHEMA = "(Tensor self, Tensor {1}, Tensor {2}, *, Scalar beta=1, Scalar alpha=1) -> Tensor"


def _addmm_checks(self, mat1, mat2):
    _check(mat1.ndim == 2, lambda: f"mat1 must be a matrix, got {mat1.ndim}-D tensor")
    _check(mat2.ndim == 2, lambda: f"mat2 must be a matrix, got {mat2.ndim}-D tensor")
    _check_mm_shapes(mat1.shape, mat2.shape)
    target = (mat1.shape[0], mat2.shape[1])
    expand_check(self.shape, target, self.dtype)
    _check(self.dtype == mat2.dtype, lambda: (
        f"self and mat2 must have the same dtype, but got {cpp(self.dtype)} and "
        f"{cpp(mat2.dtype)}"))
    _check_same_m(mat1, mat2)
    return target


@register_op("addmm" + _ADD_SCHEMA.format(0, "mat1", "mat2"), kind="generic",
             deprecated_forms=_old_forms("mat1", "mat2"), inplace=True,
             tags=("fp_errors",),
             meta=_meta(_addmm_checks), saves=("mat1", "mat2"),
             derivatives=_fused_grads("mat1", "mat2", _mm_grads("mat1", "mat2")))
def addmm(xp, self, mat1, mat2, beta=1, alpha=1):
    """addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None) -> Tensor:
    beta * input + alpha * (mat1 @ mat2)."""
    _addmm_checks(self, mat1, mat2)
    check_kernel_dtype("addmm_impl_cpu_", self)
    return fused(xp, self, compute_wide(xp, xp.matmul, mat1, mat2), beta, alpha, mat1.dtype,
                 owned=True)


def _addmv_checks(self, mat, vec):
    return mv_shape(mat, vec, self.shape, self.dtype)


@register_op("addmv" + _ADD_SCHEMA.format(0, "mat", "vec"), kind="generic",
             deprecated_forms=_old_forms("mat", "vec"), inplace=True,
             tags=("fp_errors",),
             meta=_meta(_addmv_checks), saves=("mat", "vec"),
             derivatives=_fused_grads("mat", "vec", _mv_grads("mat", "vec")))
def addmv(xp, self, mat, vec, beta=1, alpha=1):
    """addmv(input, mat, vec, *, beta=1, alpha=1, out=None) -> Tensor:
    beta * input + alpha * (mat @ vec)."""
    _addmv_checks(self, mat, vec)
    check_kernel_dtype("addmv_impl_cpu", self)
    return fused(xp, self, compute(xp, xp.matmul, mat, vec), beta, alpha)


def _addbmm_checks(self, batch1, batch2):
    # PyTorch reads the result's sizes and expands `self` to them before it looks further.
    target = (size_at(batch1.shape, 1), size_at(batch2.shape, 2))
    expand_check(self.shape, target, self.dtype)
    _check(batch1.ndim == 3, "batch1 must be a 3D tensor")
    _check(batch2.ndim == 3, "batch2 must be a 3D tensor")
    _check(batch1.shape[0] == batch2.shape[0], lambda: (
        f"batch1 and batch2 must have same number of batches, got {batch1.shape[0]} and "
        f"{batch2.shape[0]}"))
    _check(batch1.shape[2] == batch2.shape[1], lambda: (
        f"Incompatible matrix sizes for bmm ({batch1.shape[1]}x{batch1.shape[2]} and "
        f"{batch2.shape[1]}x{batch2.shape[2]})"))
    _check(self.dtype == batch2.dtype, lambda: (
        f"self and mat2 must have the same dtype, but got {cpp(self.dtype)} and "
        f"{cpp(batch2.dtype)}"))
    _check_same_m(batch1, batch2)
    return target


@register_op("addbmm" + _ADD_SCHEMA.format(0, "batch1", "batch2"), kind="generic",
             deprecated_forms=_old_forms("batch1", "batch2"), inplace=True,
             tags=("fp_errors",),
             meta=_meta(_addbmm_checks), saves=("batch1", "batch2"),
             # The batch of products is summed: each gets the whole (broadcast) gradient.
             derivatives=_fused_grads("batch1", "batch2",
                                      _product_grads("batch1", "batch2", _matmul)))
def addbmm(xp, self, batch1, batch2, beta=1, alpha=1):
    """addbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None) -> Tensor:
    beta * input + alpha * sum_b (batch1[b] @ batch2[b])."""
    _addbmm_checks(self, batch1, batch2)
    check_kernel_dtype("addmm_impl_cpu_", self)
    product = compute(xp, lambda a, b: xp.matmul(a, b).sum(axis=0), batch1, batch2)
    return fused(xp, self, product, beta, alpha)


def _baddbmm_checks(self, batch1, batch2):
    # As addbmm: the result's sizes read and `self` expanded to them first.
    target = (size_at(batch1.shape, 0), size_at(batch1.shape, 1), size_at(batch2.shape, 2))
    expand_check(self.shape, target, self.dtype)
    _check(batch1.ndim == 3, "batch1 must be a 3D tensor")
    _check(batch2.ndim == 3, "batch2 must be a 3D tensor")
    _check(self.dtype == batch1.dtype == batch2.dtype, lambda: (
        f"Input dtypes must be the same, got: input {cxx(self.dtype)}, batch1: "
        f"{cxx(batch1.dtype)}, batch2: {cxx(batch2.dtype)}"))
    bmm_shape(batch1, batch2)
    return target


@register_op("baddbmm" + _ADD_SCHEMA.format(0, "batch1", "batch2"), kind="generic",
             deprecated_forms=_old_forms("batch1", "batch2"),
             tags=("fp_errors",), inplace=True, meta=_meta(_baddbmm_checks),
             saves=("batch1", "batch2"),
             derivatives=_fused_grads("batch1", "batch2",
                                      _product_grads("batch1", "batch2", _bmm)))
def baddbmm(xp, self, batch1, batch2, beta=1, alpha=1):
    """baddbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None) -> Tensor:
    beta * input + alpha * (batch1 @ batch2), batch by batch."""
    _baddbmm_checks(self, batch1, batch2)
    check_kernel_dtype("baddbmm", self)
    return fused(xp, self, compute_wide(xp, xp.matmul, batch1, batch2), beta, alpha,
                 batch1.dtype, owned=True)


def _addr_scalar(value, np_dtype, name):
    """addr checks its Scalars against the result type like add's alpha does."""
    if isinstance(value, (bool, np.bool_)):
        _check(np_dtype.kind == "b", lambda: (
            f"Boolean {name} only supported for Boolean results."))
    elif np_dtype.kind in "biu":
        _check(not isinstance(value, (float, complex, np.inexact)), lambda: (
            f"For integral input tensors, argument {name} must not be a floating point "
            "number."))


def _addr_checks(self, vec1, vec2):
    _outer_check(vec1, vec2, "addr", "vec1", "vec2")
    target = (vec1.shape[0], vec2.shape[0])
    expand_check(self.shape, target, self.dtype)
    return target


def _addr_meta(self, vec1, vec2, beta=1, alpha=1):
    shape = _addr_checks(self._data, vec1._data, vec2._data)
    return (shape, promote_types(promote_types(self._dtype, vec1._dtype), vec2._dtype))


@register_op("addr" + _ADD_SCHEMA.format(0, "vec1", "vec2"), kind="generic",
             deprecated_forms=_old_forms("vec1", "vec2"), inplace=True,
             tags=("fp_errors",),
             meta=_addr_meta, saves=("vec1", "vec2"),
             derivatives=_fused_grads("vec1", "vec2", _outer_grads("vec1", "vec2")))
def addr(xp, self, vec1, vec2, beta=1, alpha=1):
    """addr(input, vec1, vec2, *, beta=1, alpha=1, out=None) -> Tensor:
    beta * input + alpha * outer(vec1, vec2) (types promote)."""
    target = _addr_checks(self, vec1, vec2)
    result = promote_types(promote_types(dt.NP_TO_DTYPE[self.dtype], dt.NP_TO_DTYPE[vec1.dtype]),
                           dt.NP_TO_DTYPE[vec2.dtype])._np
    _addr_scalar(beta, result, "beta")
    _addr_scalar(alpha, result, "alpha")
    product = compute(xp, xp.multiply, vec1.astype(result)[:, None], vec2.astype(result)[None])
    if result.kind == "b":
        # Booleans: beta and alpha act as truth values (and / or instead of * / +).
        out = xp.logical_and(product, bool(alpha))
        if beta:
            out = xp.logical_or(out, xp.broadcast_to(self, target))
        return xp.array(out)
    return fused(xp, self.astype(result), product, beta, alpha)
