"""The orthogonal polynomials of `torch.special`: Chebyshev T, U, V, W (and their shifted forms
on [0, 1]), Hermite H and He, Laguerre L and Legendre P, each of a tensor x and a degree n
(a tensor or a number; PyTorch truncates it to an integer, and a negative degree gives 0).

NOTE [polynomial recurrences, vectorised]: PyTorch runs each element's three-term recurrence up
to its own degree. Here one recurrence runs over the whole array up to the largest degree that
needs it, and an element stops taking updates once its degree is reached; Chebyshev degrees
above 6 (T) or 8 (U, V, W) with |x| < 1 use the trigonometric closed forms instead, as PyTorch
does, so large degrees cost no loop there. Special points (|x| = 1, n = 0, 1) are PyTorch's.
No gradients (PyTorch records none), no half or complex input.
"""
from __future__ import annotations

import numpy as np

from ember._core.host_kernels import host_kernel
from ember._core.registry import INT_TO_FLOAT, register_form, register_op
from ember._ops.pointwise import not_implemented_for

_OPTIONS = {"kind": "pointwise", "promotion": INT_TO_FLOAT, "function": False, "method": False,
            "compute_in_float": False, "differentiable": False}


def _prepare(kernel_name, x, n):
    if x.dtype.kind == "c" or x.dtype.itemsize == 2:
        not_implemented_for(kernel_name, x)
    x, n = np.broadcast_arrays(x, n)
    degree = np.trunc(n).astype(np.int64) if n.dtype.kind == "f" else n.astype(np.int64)
    return x, degree


def _recurrence(x, degree, first, second, step, needs):
    """Values of the polynomial family at degree `degree` for the elements `needs` marks:
    p_0 = first, p_1 = second, p_k = step(k, p_{k-2}, p_{k-1})."""
    previous = np.broadcast_to(first, x.shape).astype(x.dtype)
    current = np.broadcast_to(second, x.shape).astype(x.dtype)
    result = np.where(degree == 0, previous, current)
    top = int(degree[needs].max(initial=1))
    for k in range(2, top + 1):
        following = step(k, previous, current)
        active = degree >= k
        previous = np.where(active, current, previous)
        current = np.where(active, following, current)
    return np.where(degree >= 2, current, result)


def _finish(result, degree, specials):
    """`result` with PyTorch's special points (a list of (mask, values)) and 0 below degree 0."""
    for mask, values in specials:
        result = np.where(mask, values, result)
    return np.where(degree < 0, result.dtype.type(0), result)


def _chebyshev(kernel_name, x, n, shifted, kind):
    x, degree = _prepare(kernel_name, x, n)
    one = x.dtype.type(1)
    y = x + x - one if shifted else x          # the shifted families are P(2x - 1)
    odd = degree % 2 == 1
    closed_from = 6 if kind == "t" else 8
    inside = (np.abs(y) < one) & (degree > closed_from)
    theta = np.arccos(np.clip(y, -one, one))
    nf = degree.astype(x.dtype)
    firsts = {"t": y, "u": y + y, "v": y + y - one, "w": y + y + one}
    value = _recurrence(y, degree, one, firsts[kind], lambda k, p, q: (y + y) * q - p,
                        (degree >= 2) & ~inside & (degree >= 0))
    with np.errstate(all="ignore"):
        if kind == "t":
            closed = np.cos(nf * theta)
            at_one = np.ones_like(y)
            at_minus_one = np.where(odd, -one, one)
        elif kind == "u":
            sin_theta = np.sin(theta)
            closed = np.where(sin_theta != 0, np.sin((nf + 1) * theta) / sin_theta,
                              (nf + 1) * np.cos((nf + 1) * theta) / y)
            at_one = nf + 1
            at_minus_one = np.where(odd, -(nf + 1), nf + 1)
        elif kind == "v":
            half_cos = np.cos(theta / 2)
            closed = np.where(np.sin(theta / 2) != one,
                              np.cos((nf + 0.5) * theta) / half_cos,
                              np.where(odd, -(nf + nf + 1), nf + nf + 1))
            at_one = np.ones_like(y)
            at_minus_one = np.where(odd, -(nf + nf + 1), nf + nf + 1)
        else:
            half_sin = np.sin(theta / 2)
            closed = np.where(np.cos(theta / 2) != one,
                              np.sin((nf + 0.5) * theta) / half_sin,
                              nf + nf + 1)
            at_one = nf + nf + 1
            at_minus_one = np.where(odd, -one, one)
    value = np.where(inside, closed, value)
    return _finish(value, degree, [(y == one, at_one), (y == -one, at_minus_one)])


def _register_chebyshev(kind, shifted):
    prefix = "shifted_" if shifted else ""
    name = f"special_{prefix}chebyshev_polynomial_{kind}"
    kernel_name = f"{prefix}chebyshev_polynomial_{kind}_cpu"
    what = f"the {'shifted ' if shifted else ''}Chebyshev polynomial {kind.upper()}_n"

    def kernel(xp, x, n):
        return _chebyshev(kernel_name, x, n, shifted, kind)
    kernel.__name__ = name
    kernel.__doc__ = (f"{prefix}chebyshev_polynomial_{kind}(input, n, *, out=None) -> Tensor: "
                      f"{what}(input){' (on [0, 1])' if shifted else ''}.")
    register_op(f"{name}(Tensor x, Tensor n) -> Tensor", **_OPTIONS)(host_kernel(kernel))


for _shifted in (False, True):
    for _kind in "tuvw":
        _register_chebyshev(_kind, _shifted)


@register_op("special_hermite_polynomial_h(Tensor x, Tensor n) -> Tensor", **_OPTIONS)
@host_kernel
def special_hermite_polynomial_h(xp, x, n):
    """hermite_polynomial_h(input, n, *, out=None) -> Tensor: the physicists' Hermite
    polynomial H_n(input)."""
    x, degree = _prepare("hermite_polynomial_h_cpu", x, n)
    value = _recurrence(x, degree, 1, x + x,
                        lambda k, p, q: (x + x) * q - x.dtype.type(2 * (k - 1)) * p,
                        degree >= 2)
    return _finish(value, degree, [])


@register_op("special_hermite_polynomial_he(Tensor x, Tensor n) -> Tensor", **_OPTIONS)
@host_kernel
def special_hermite_polynomial_he(xp, x, n):
    """hermite_polynomial_he(input, n, *, out=None) -> Tensor: the probabilists' Hermite
    polynomial He_n(input)."""
    x, degree = _prepare("hermite_polynomial_he_cpu", x, n)
    value = _recurrence(x, degree, 1, x,
                        lambda k, p, q: x * q - x.dtype.type(k - 1) * p, degree >= 2)
    return _finish(value, degree, [])


@register_op("special_laguerre_polynomial_l(Tensor x, Tensor n) -> Tensor", **_OPTIONS)
@host_kernel
def special_laguerre_polynomial_l(xp, x, n):
    """laguerre_polynomial_l(input, n, *, out=None) -> Tensor: the Laguerre polynomial
    L_n(input)."""
    x, degree = _prepare("laguerre_polynomial_l_cpu", x, n)
    one = x.dtype.type(1)

    def step(k, p, q):
        j = x.dtype.type(k - 1)
        return ((j + j + (one - x)) * q - j * p) / (j + one)
    value = _recurrence(x, degree, one, one - x, step, degree >= 2)
    return _finish(value, degree, [(x == 0, np.ones_like(x))])


@register_op("special_legendre_polynomial_p(Tensor x, Tensor n) -> Tensor", **_OPTIONS)
@host_kernel
def special_legendre_polynomial_p(xp, x, n):
    """legendre_polynomial_p(input, n, *, out=None) -> Tensor: the Legendre polynomial
    P_n(input)."""
    x, degree = _prepare("legendre_polynomial_p_cpu", x, n)
    one = x.dtype.type(1)

    def step(k, p, q):
        j = x.dtype.type(k - 1)
        return ((j + j + one) * x * q - j * p) / (j + one)
    value = _recurrence(x, degree, one, x, step, degree >= 2)
    odd = degree % 2 == 1
    return _finish(value, degree, [(x == one, np.ones_like(x)),
                                   (x == -one, np.where(odd, -one, one))])


# PyTorch's Scalar overloads, offered to modes for a number operand (NOTE [overload forms]).
for _name in [n for n in (f"special_{p}chebyshev_polynomial_{k}" for p in ("", "shifted_")
                          for k in "tuvw")] + [
        "special_hermite_polynomial_h", "special_hermite_polynomial_he",
        "special_laguerre_polynomial_l", "special_legendre_polynomial_p"]:
    register_form(_name, f"{_name}.x_scalar(Scalar x, Tensor n) -> Tensor", numbers=(0,))
    register_form(_name, f"{_name}.n_scalar(Tensor x, Scalar n) -> Tensor", numbers=(1,))
