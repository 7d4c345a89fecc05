"""Window functions as registry factories: hann_window, hamming_window, blackman_window,
bartlett_window, kaiser_window (PyTorch's overloads `.periodic`, `.periodic_alpha_beta`,
`.beta`), with the frontends that take PyTorch's optional arguments.

NOTE [windows round each step]: PyTorch builds a window with a chain of in-place ops on an
arange in the window's own dtype (cos_, mul_, add_ ...), each rounded to that dtype. For the
half types that rounding shows (a float16 Hann window is not symmetric), so the kernels here
take the same steps in the same order and round after each one (computing the half types in
float32, as PyTorch's CPU kernels do). A periodic window of length N is the symmetric window
of length N + 1 without its last point.
"""
from __future__ import annotations

import math

import numpy as np

from ember._core import dtype as dt
from ember._core.arguments import parser_error
from ember._core.checks import _check, _check_not_implemented
from ember._core.deprecated_forms import NOT_GIVEN
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.fp_errors import run_quietly
from ember._core.registry import OPS, register_frontend
from ember._core.registry import register_op as _register_op
from ember._ops.creation import _FACTORY, _OPTIONS, on_device, option_dtype, run_factory_op

_CXX = {"int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
        "uint8": "unsigned char", "bool": "bool", "complex64": "c10::complex<float>",
        "complex128": "c10::complex<double>"}


def _window_dtype(name, window_length, dtype, layout):
    """The window's dtype (default: the default dtype), after PyTorch's checks."""
    dtype = option_dtype(dtype, dt.get_default_dtype())
    _check(_is_strided(layout), lambda: (
        f"{name} is not implemented for sparse types, got: {_options_text(dtype, layout)}"))
    _check(dtype.is_floating_point or dtype.is_complex, lambda: (
        f"{name} expects floating point dtypes, got: {_options_text(dtype, layout)}"))
    _check(window_length >= 0, lambda: (
        f"{name} requires non-negative window_length, got window_length={window_length}"))
    return dtype


def _is_strided(layout):
    # ember.strided lives in ember/__init__.py, above the ops: compared by name.
    return layout is None or getattr(layout, "name", None) == "strided"


def _options_text(dtype, layout):
    name = str(dtype).rsplit(".", 1)[-1]
    layout_text = "Strided (default)" if _is_strided(layout) else "Sparse"
    return (f"TensorOptions(dtype={_CXX.get(name, name)}, device=cpu, layout={layout_text}, "
            "requires_grad=false (default), pinned_memory=false, memory_format=(nullopt))")


class _Steps:
    """Elementwise steps on an array, each result rounded to `dtype` (NOTE [windows round
    each step]); the half types compute in float32."""

    def __init__(self, dtype):
        self.store = dtype._np
        self.work = np.dtype(np.float32) if dtype in (dt.float16, dt.bfloat16) else self.store

    def arange(self, n):
        return np.arange(n, dtype=np.float64).astype(self.store)

    def apply(self, fn, *arrays):
        widened = [a.astype(self.work) if isinstance(a, np.ndarray) else a for a in arrays]
        result = run_quietly(fn, *widened)
        return np.asarray(result, dtype=self.work).astype(self.store)

    def scalar(self, value):
        """A Python number as PyTorch's kernels take it: rounded to the window's dtype first
        (for the half types that rounding shows), then widened to the computing type."""
        return self.work.type(self.store.type(value))


def _trivial(window_length, dtype):
    if window_length == 0:
        return np.empty(0, dtype._np)
    if window_length == 1:
        return np.ones(1, dtype._np)
    # Longer windows start from an arange, which has no complex kernel.
    _check_not_implemented(not dtype.is_complex, lambda: (
        f"\"arange_cpu\" not implemented for '{dtype._cpp_name}'"))
    return None


def _cosine_sum(n, steps, alpha, beta):
    """alpha - beta * cos(2 pi k / (n - 1)): Hann (0.5, 0.5) and Hamming windows."""
    k = steps.arange(n)
    angle = steps.apply(np.multiply, k, steps.scalar(2.0 * math.pi / (n - 1)))
    cosine = steps.apply(np.cos, angle)
    scaled = steps.apply(np.multiply, cosine, steps.scalar(-beta))
    return steps.apply(np.add, scaled, steps.scalar(alpha))


def _blackman(n, steps):
    base = steps.apply(np.multiply, steps.arange(n), steps.scalar(math.pi / (n - 1)))
    high = steps.apply(np.multiply, steps.apply(
        np.cos, steps.apply(np.multiply, base, steps.scalar(4.0))), steps.scalar(0.08))
    low = steps.apply(np.multiply, steps.apply(
        np.cos, steps.apply(np.multiply, base, steps.scalar(2.0))), steps.scalar(0.5))
    return steps.apply(np.add, steps.apply(np.subtract, high, low), steps.scalar(0.42))


def _bartlett(n, steps):
    window = steps.apply(np.multiply, steps.arange(n), steps.scalar(2.0 / (n - 1)))
    first_half = ((n - 1) >> 1) + 1
    tail = steps.apply(np.multiply, window[first_half:], steps.scalar(-1.0))
    window[first_half:] = steps.apply(np.add, tail, steps.scalar(2.0))
    return window


def _kaiser(n, steps, beta):
    # I0(beta * sqrt(1 - ((k - alpha) / alpha)^2)) / I0(beta), alpha = (n - 1) / 2, in the
    # computing type as one expression (PyTorch's kernel is a single elementwise pass).
    k = steps.arange(n).astype(np.float64)
    alpha = (n - 1) / 2.0
    inner = np.sqrt(np.abs(1 - ((k - alpha) / alpha) ** 2))
    values = np.i0(beta * inner) / np.i0(beta)
    return values.astype(steps.work).astype(steps.store)


def _window(name, build):
    """A kernel: the trivial lengths, the periodic extension, the build in rounded steps."""
    def kernel(xp, window_length, periodic, *rest):
        *params, dtype, layout, device, _pin_memory = rest
        dtype = _window_dtype(name, window_length, dtype, layout)
        values = _trivial(window_length, dtype)
        if values is None:
            n = window_length + 1 if periodic else window_length
            values = build(n, _Steps(dtype), *params)
            if periodic:
                values = values[:-1].copy()
        return on_device(xp, values, device)
    return kernel


def _meta(name):
    def meta(window_length, periodic, *rest):
        *_, dtype, layout, _device, _pin_memory = rest
        return ((window_length,), _window_dtype(name, window_length, dtype, layout))
    return meta


def _register(schema, name, build, doc):
    kernel = _window(name, build)
    kernel.__doc__ = doc
    _register_op(schema, **_FACTORY, meta=_meta(name))(kernel)


_register(f"hann_window.periodic(int window_length, bool periodic, *, {_OPTIONS}) -> Tensor",
          "hann_window", lambda n, steps: _cosine_sum(n, steps, 0.5, 0.5),
          "hann_window(window_length, periodic=True, *, dtype=None, layout=torch.strided, "
          "device=None, requires_grad=False) -> Tensor: the Hann window, "
          "sin^2(pi k / (N - 1)), of `window_length` points (N = window_length + 1 when "
          "periodic).")
_register("hamming_window.periodic_alpha_beta(int window_length, bool periodic, float alpha, "
          f"float beta, *, {_OPTIONS}) -> Tensor", "hamming_window", _cosine_sum,
          "hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None, "
          "layout=torch.strided, device=None, requires_grad=False) -> Tensor: the Hamming "
          "window, alpha - beta cos(2 pi k / (N - 1)).")
_register(f"blackman_window.periodic(int window_length, bool periodic, *, {_OPTIONS}) -> "
          "Tensor", "blackman_window", _blackman,
          "blackman_window(window_length, periodic=True, *, dtype=None, layout=torch.strided, "
          "device=None, requires_grad=False) -> Tensor: the Blackman window, 0.42 - 0.5 "
          "cos(2 pi k / (N - 1)) + 0.08 cos(4 pi k / (N - 1)).")
_register(f"bartlett_window.periodic(int window_length, bool periodic, *, {_OPTIONS}) -> "
          "Tensor", "bartlett_window", _bartlett,
          "bartlett_window(window_length, periodic=True, *, dtype=None, layout=torch.strided, "
          "device=None, requires_grad=False) -> Tensor: the triangular Bartlett window.")
_register("kaiser_window.beta(int window_length, bool periodic, float beta, *, "
          f"{_OPTIONS}) -> Tensor", "kaiser_window", _kaiser,
          "kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, "
          "layout=torch.strided, device=None, requires_grad=False) -> Tensor: the Kaiser "
          "window, I0(beta sqrt(1 - ((k - (N - 1) / 2) / ((N - 1) / 2))^2)) / I0(beta).")


# --------------------------------------------------------------------------- frontends

def _run(op_name, args, requires_grad):
    op = OPS[op_name]
    args = parser_error(op, args, op.python_name)      # (the parser's errors come first)
    return run_factory_op(op, args, requires_grad, None)


def _given(name, values, defaults):
    """PyTorch's overloads of a window take periodic, alpha and beta in turn, each only after
    the one before it: one given after one left out fits none of them, nor does None."""
    for i in range(len(values)):
        if values[i] is None or i and values[i] is not NOT_GIVEN and \
                values[i - 1] is NOT_GIVEN:
            raise TypeError(f"{name}() received an invalid combination of arguments - "
                            f"{', '.join(defaults)} must be given in turn")
    return tuple(d if v is NOT_GIVEN else v for v, d in zip(values, defaults.values()))


@register_frontend(method=False)
def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                pin_memory=False, requires_grad=False):
    if _state.entry and _wants(locals()):
        return _handle(hann_window, locals())
    return _run("hann_window.periodic",
                (window_length, periodic, dtype, layout, device, pin_memory), requires_grad)


@register_frontend(method=False)
def hamming_window(window_length, periodic=NOT_GIVEN, alpha=NOT_GIVEN, beta=NOT_GIVEN, *,
                   dtype=None, layout=None, device=None, pin_memory=False,
                   requires_grad=False):
    if _state.entry and _wants(locals()):
        return _handle(hamming_window, locals())
    periodic, alpha, beta = _given("hamming_window", (periodic, alpha, beta),
                                   {"periodic": True, "alpha": 0.54, "beta": 0.46})
    return _run("hamming_window.periodic_alpha_beta", (window_length, periodic, alpha, beta,
                                                       dtype, layout, device, pin_memory),
                requires_grad)


@register_frontend(method=False)
def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    if _state.entry and _wants(locals()):
        return _handle(blackman_window, locals())
    return _run("blackman_window.periodic",
                (window_length, periodic, dtype, layout, device, pin_memory), requires_grad)


@register_frontend(method=False)
def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    if _state.entry and _wants(locals()):
        return _handle(bartlett_window, locals())
    return _run("bartlett_window.periodic",
                (window_length, periodic, dtype, layout, device, pin_memory), requires_grad)


@register_frontend(method=False)
def kaiser_window(window_length, periodic=NOT_GIVEN, beta=NOT_GIVEN, *, dtype=None,
                  layout=None, device=None, pin_memory=False, requires_grad=False):
    if _state.entry and _wants(locals()):
        return _handle(kaiser_window, locals())
    periodic, beta = _given("kaiser_window", (periodic, beta), {"periodic": True, "beta": 12.0})
    return _run("kaiser_window.beta",
                (window_length, periodic, beta, dtype, layout, device, pin_memory),
                requires_grad)
