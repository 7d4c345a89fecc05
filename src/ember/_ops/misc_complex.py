"""Building complex tensors from real ones: complex(real, imag) and polar(abs, angle).

Both take two real tensors of one floating dtype (float16, float32 or float64; float16 gives
complex32, NOTE [complex32 storage], and polar refuses it as PyTorch) and broadcast them. Gradients follow the
convention of a real input feeding a complex output: the real part of conj(d out / d in) * grad.
"""
from __future__ import annotations

import numpy as np

from ember._core import dispatch
from ember._core import dtype as dt
from ember._core.checks import _check, _check_not_implemented
from ember._core.dispatch.pointwise import check_broadcastable
from ember._core.registry import OPS, register_op

_COMPLEX_OF = {dt.float16: dt.complex32, dt.float32: dt.complex64, dt.float64: dt.complex128}
_ACCEPTED = (dt.float16, dt.float32, dt.float64)


def _dtype_of(value) -> dt.dtype:
    if isinstance(value, dispatch.Tensor):
        return value._dtype
    return dt.NP_TO_DTYPE[np.dtype(value.dtype)]


def _complex_dtype(first, second) -> dt.dtype:
    """The complex dtype built from two real operands, with PyTorch's checks."""
    a, b = _dtype_of(first), _dtype_of(second)
    _check(a in _ACCEPTED and b in _ACCEPTED, lambda: (
        "Expected both inputs to be Half, Float or Double tensors but got "
        f"{a._cpp_name} and {b._cpp_name}"))
    _check(a == b, lambda: (
        f"Expected object of scalar type {a._cpp_name} but got scalar type {b._cpp_name} for "
        "second argument"))
    return _COMPLEX_OF[a]


def _meta(first, second):
    dtype = _complex_dtype(first, second)
    check_broadcastable(None, (first.shape, second.shape))
    return np.broadcast_shapes(tuple(first.shape), tuple(second.shape)), dtype


def _real_part(z):
    return dispatch.call(OPS["real"], (z,))


def _imag_part(z):
    return dispatch.call(OPS["imag"], (z,))


def _assemble(xp, real, imag, dtype):
    check_broadcastable(None, (real.shape, imag.shape))
    shape = np.broadcast_shapes(real.shape, imag.shape)
    out = xp.empty(shape, dtype=dtype._np)
    if dtype is dt.complex32:                 # NOTE [complex32 storage]
        out["real"], out["imag"] = real, imag
        return out
    out.real = real
    out.imag = imag
    return out


@register_op("complex(Tensor real, Tensor imag) -> Tensor", method=False, meta=_meta, saves=(),
             derivatives={"real": lambda c: _real_part(c.grad),
                          "imag": lambda c: _imag_part(c.grad)})
def complex(xp, real, imag):
    """complex(real, imag, *, out=None) -> Tensor: the complex tensor real + imag * 1j."""
    return _assemble(xp, real, imag, _complex_dtype(real, imag))


def _polar_abs_grad(c):
    """d out / d abs is exp(i angle): the gradient is Re(conj(exp(i angle)) * grad), with
    exp(i angle) taken as sgn(out), so 0 where abs is 0 (as PyTorch)."""
    return _real_part(c.grad * c.result.sgn().conj())


def _polar_angle_grad(c):
    """d out / d angle is i * out: the gradient is Re(conj(i * out) * grad)."""
    return _real_part(c.grad * (c.result * 1j).conj())


@register_op("polar(Tensor abs, Tensor angle) -> Tensor", method=False, meta=_meta,
             saves=("result",), tags=("fp_errors",),
             derivatives={"abs": _polar_abs_grad, "angle": _polar_angle_grad})
def polar(xp, abs, angle):
    """polar(abs, angle, *, out=None) -> Tensor: the complex tensor abs * (cos(angle) +
    sin(angle) * 1j)."""
    dtype = _complex_dtype(abs, angle)
    _check_not_implemented(dtype is not dt.complex32, "\"polar_cpu\" not implemented for 'Half'")
    return _assemble(xp, abs * xp.cos(angle), abs * xp.sin(angle), dtype)
