"""complex32 (ComplexHalf): the complex dtype NumPy has no type for.

NOTE [complex32 storage]: a complex32 array is a NumPy structured array of two float16 fields,
`real` and `imag` (itemsize 4). Shapes, strides, views, indexing, copies, concatenation and the
bytes in storage are element-wise and need nothing special; `array["real"]` is a float16 view.
Arithmetic widens to complex64 (`widen`), computes there, and narrows the result back by
rounding each part to float16 (`narrow`), which is what PyTorch's CPU kernels for ComplexHalf do
(they compute in complex<float>). NumPy's own casts to and from a structured dtype copy one value
into every field, so every cast that may meet complex32 goes through `astype` here.
"""
from __future__ import annotations

import numpy as np

from ember._core.kernel_table import register_extension

CHALF_NP = np.dtype([("real", np.float16), ("imag", np.float16)])
_COMPLEX64 = np.dtype(np.complex64)


def is_chalf(np_dtype) -> bool:
    return np_dtype == CHALF_NP


def _leading_is_chalf(array) -> bool:
    return array.dtype.names is not None


def _any_chalf(args) -> bool:
    for a in args:
        if isinstance(a, np.ndarray) and a.dtype.names is not None or \
                type(a) in (list, tuple) and any(isinstance(v, np.ndarray) and
                                                 v.dtype.names is not None for v in a):
            return True
    return False


# NOTE [the kernel table]: complex32 is a dtype extension; its entries run around the plain
# kernel (widen, compute, narrow), chosen where the leading (or any) operand is complex32.
register_extension("complex32", _leading_is_chalf, _any_chalf)


def widen(array, xp=np):
    """A complex32 array as complex64 (exact: every float16 is a float32)."""
    out = xp.empty(array.shape, _COMPLEX64)
    out.real = array["real"]
    out.imag = array["imag"]
    return out


def narrow(array, xp=np):
    """Any numeric array as complex32: each part rounded to float16 (a real array's imaginary
    part is zero)."""
    out = xp.empty(array.shape, CHALF_NP)
    with np.errstate(over="ignore", invalid="ignore"):    # past float16's range: inf, quietly
        if array.dtype.kind == "c":
            out["real"] = array.real
            out["imag"] = array.imag
        else:
            out["real"] = array
            out["imag"] = 0
    return out


def astype(array, np_dtype):
    """`array.astype(np_dtype)` where either side may be complex32."""
    if array.dtype == CHALF_NP:
        if np_dtype == CHALF_NP:
            return array.copy()
        return widen(array).astype(np_dtype)
    return narrow(array)


def scalar(value):
    """A Python number as a 0-d complex32 array (one already is returned as it is)."""
    if type(value) is np.ndarray and value.dtype == CHALF_NP:
        return value
    return narrow(np.asarray(complex(value), _COMPLEX64))


# The element-wise ops PyTorch's CPU kernels run for ComplexHalf (probed against PyTorch 2.13;
# tests/test_complex32.py checks every element-wise op of the registry against it). Any other
# element-wise op on complex32 raises NotImplementedError as PyTorch's dispatch does, except
# those that refuse every complex dtype with their own message (they keep it).
POINTWISE_SUPPORTED = frozenset((
    "abs", "add", "addcmul", "conj_physical", "_conj_physical", "eq", "float_power", "isfinite",
    "isinf", "isnan",
    "isreal", "mul", "ne", "neg", "rsub", "sgn", "sub", "where", "masked_fill", "fill",
))
POINTWISE_OWN_COMPLEX_ERROR = frozenset((
    "ceil", "clamp", "clamp_max", "clamp_min", "deg2rad", "floor", "fmax", "fmin", "heaviside",
    "isneginf", "isposinf", "maximum", "minimum", "rad2deg", "relu", "sign", "signbit", "trunc",
))


# The kernel names PyTorch's refusals give where they are not "<op>_cpu".
_KERNEL_NAMES = {
    "mean": "sum_cpu", "nanmean": "sum_cpu", "prod": "prod_out_cpu", "cumsum": "cumsum_out_cpu",
    "cumprod": "cumprod_out_cpu", "max": "max_all", "min": "min_all", "amax": "max_values_cpu",
    "amin": "min_values_cpu", "sort": "sort", "argsort": "sort", "msort": "sort",
    "unique": "unique", "trace": "trace", "matmul": "addmm_impl_cpu_", "mm": "addmm_impl_cpu_",
    "addmm": "addmm_impl_cpu_", "bmm": "bmm", "dot": "dot", "vdot": "vdot", "inner": "dot",
    "mv": "addmv_impl_cpu", "cross": "cross", "gather": "scatter_gather_tensor_cpu",
    "scatter": "scatter_gather_tensor_cpu", "logsumexp": "logsumexp", "histc": "aminmax_cpu",
    "eye": "eye", "pow": "pow", "square": "pow", "exp2": "exp2",
}


def refusal(name):
    """PyTorch's message for an op it has no ComplexHalf kernel for."""
    kernel = _KERNEL_NAMES.get(name, f"{name}_cpu")
    return f'"{kernel}" not implemented for \'ComplexHalf\''
