"""Matrix products: matmul, mm, bmm, mv, dot, ... (ember.linalg's decompositions live elsewhere)."""
from __future__ import annotations

from ember._core.checks import _check
from ember._core.promotion import promote_types
from ember._core.registry import register_op


def _matmul_shape(a, b):
    """The result shape of matmul for every rank case, with PyTorch's errors."""
    _check(a.ndim >= 1 and b.ndim >= 1, lambda: (
        f"both arguments to matmul need to be at least 1D, but they are {a.ndim}D and "
        f"{b.ndim}D"))
    if a.ndim == 1 and b.ndim == 1:
        _check(a.shape[0] == b.shape[0], lambda: (
            f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src [{b.shape[0]}] "
            "to have the same number of elements, but got "
            f"{a.shape[0]} and {b.shape[0]} elements respectively"))
        return ()
    a_shape = (1,) + tuple(a.shape) if a.ndim == 1 else tuple(a.shape)
    b_shape = tuple(b.shape) + (1,) if b.ndim == 1 else tuple(b.shape)
    _check(a_shape[-1] == b_shape[-2], lambda: (
        f"mat1 and mat2 shapes cannot be multiplied ({a_shape[-2]}x{a_shape[-1]} and "
        f"{b_shape[-2]}x{b_shape[-1]})" if a.ndim <= 2 and b.ndim <= 2 else
        f"Expected size for first two dimensions of batch2 tensor to be: "
        f"[{b_shape[0] if len(b_shape) > 2 else 1}, {a_shape[-1]}] but got: "
        f"[{b_shape[0] if len(b_shape) > 2 else 1}, {b_shape[-2]}]."))
    import numpy as np
    batch = np.broadcast_shapes(a_shape[:-2], b_shape[:-2])
    shape = tuple(batch) + (a_shape[-2], b_shape[-1])
    if a.ndim == 1:
        shape = shape[:-2] + shape[-1:]
    if b.ndim == 1:
        shape = shape[:-1]
    return shape


def _check_same_dtype(name, a, b):
    _check(a.dtype == b.dtype, lambda: (
        f"expected m1 and m2 to have the same dtype, but got: {_cpp(a.dtype)} != "
        f"{_cpp(b.dtype)}"))


def _cpp(np_dtype):
    from ember._core.dtype import NP_TO_DTYPE
    return NP_TO_DTYPE[np_dtype]._cpp_name


def _matmul_meta(self, other):
    _check(self._dtype is other._dtype, lambda: (
        f"expected m1 and m2 to have the same dtype, but got: {self._dtype._cpp_name} != "
        f"{other._dtype._cpp_name}"))
    return (_matmul_shape(self._data, other._data), promote_types(self._dtype, other._dtype))


@register_op("matmul(Tensor self, Tensor other) -> Tensor", kind="generic", meta=_matmul_meta,
             dunders={"__matmul__": "forward", "__rmatmul__": "reflect"})
def matmul(xp, self, other):
    """matmul(input, other, *, out=None) -> Tensor: matrix product with broadcasting."""
    _check_same_dtype("matmul", self, other)
    _matmul_shape(self, other)
    if self.dtype.itemsize <= 2 and self.dtype.kind == "f":
        return xp.matmul(self.astype("float32"), other.astype("float32")).astype(self.dtype)
    if self.dtype.kind == "b":
        return xp.matmul(self, other)
    return xp.matmul(self, other)
