"""complex32 in the ops that are not element-wise (NOTE [complex32 storage]).

Shape, view, copy and indexing kernels move complex32 elements as they are (NumPy copies a
structured element whole). The kernels that compute are wrapped at import, the ops named below
and no other (every other op's kernel runs untouched); a wrapped kernel called without complex32
only pays a look at its tensors' dtypes:
- WIDENED: the ops PyTorch's CPU runs for ComplexHalf. Complex32 arguments are widened to
  complex64; complex64 results narrow back to complex32 and float32 ones to float16 (what the op
  gives for complex32, the real type of complex32), unless a dtype argument asked for the result
  type.
- REFUSED: the ops PyTorch has no ComplexHalf kernel for whose NumPy kernel would compute
  something for the structured array (a lexicographic sort, a gather): NotImplementedError with
  PyTorch's message.
The rest needs no wrapper (the hot reductions and products among them): where NumPy finds no loop
or cast for the structured array, `arguments.explain` turns its TypeError into PyTorch's
NotImplementedError; the kernels' own dtype checks refuse complex32 where PyTorch's message is
another (sort, argmax, nansum, matmul, flip, arange, eye ...); sum, mean and cumsum given a dtype
widen where they cast (`summation.cast_for_sum`, `cumulative`).
"""
from __future__ import annotations

import functools

import numpy as np

from ember._core import complex_half
from ember._core import dtype as dt
from ember._core.checks import _check_not_implemented
from ember._core.registry import OPS

_COMPLEX64 = np.dtype(np.complex64)
_FLOAT32 = np.dtype(np.float32)

WIDENED = ("norm", "std", "var", "std_mean", "var_mean", "outer", "kron", "diff", "isclose",
           "nonzero", "count_nonzero", "any", "all", "linalg_vector_norm", "argwhere",
           "index_add")
REFUSED = ("aminmax", "unique_consecutive", "masked_scatter", "topk", "kthvalue", "median", "mode",
           "_unique2", "unique_dim", "gather", "scatter", "take", "cummax", "cummin",
           "logcumsumexp", "histc")


def _is_chalf(value):
    return isinstance(value, np.ndarray) and value.dtype.names is not None


def _any_chalf(args):
    for a in args:
        if _is_chalf(a) or type(a) in (list, tuple) and any(_is_chalf(v) for v in a):
            return True
    return False


def _widen(value):
    if _is_chalf(value):
        return complex_half.widen(value)
    if type(value) in (list, tuple):
        return type(value)(_widen(v) for v in value)
    return value


def _narrow(result):
    if isinstance(result, np.ndarray):
        if result.dtype == _COMPLEX64:
            return complex_half.narrow(result)
        if result.dtype == _FLOAT32:
            return result.astype(np.float16)
        return result
    if type(result) in (list, tuple):
        return type(result)(_narrow(r) for r in result)
    return result


def _asks_dtype(args, kwargs):
    return any(isinstance(v, dt.dtype) for v in args) or \
        any(isinstance(v, dt.dtype) for v in kwargs.values())


def _computed(kernel, args, kwargs):
    """The kernel on widened arguments; its results narrowed unless a dtype was asked for."""
    result = kernel(*_widen(args), **kwargs)
    return result if _asks_dtype(args, kwargs) else _narrow(result)


def _wrap_leading(kernel, name, widened):
    """For ops of one leading tensor argument: a look at its dtype, and nothing else, on the
    calls without complex32."""
    @functools.wraps(kernel)
    def run(xp, self, *args, **kwargs):
        if self.dtype.names is None:
            return kernel(xp, self, *args, **kwargs)
        _check_not_implemented(widened, lambda: complex_half.refusal(name))
        return _computed(kernel, (xp, self, *args), kwargs)
    return run


def _wrap_any(kernel, name, widened):
    @functools.wraps(kernel)
    def run(xp, *args, **kwargs):
        if not _any_chalf(args):
            return kernel(xp, *args, **kwargs)
        _check_not_implemented(widened, lambda: complex_half.refusal(name))
        return _computed(kernel, (xp, *args), kwargs)
    return run


def install():
    """Wrap the kernels of the ops named above (once, after every op family registered)."""
    for op in OPS.values():
        name = op.schema.name
        widened = name in WIDENED
        if op.raw_kernel is None or not widened and name not in REFUSED:
            continue
        if tuple(op.tensor_positions) == (0,) and not op.list_positions:
            wrap = _wrap_leading
        else:
            wrap = _wrap_any
        op.raw_kernel = wrap(op.raw_kernel, name, widened)
        op.kernel = wrap(op.kernel, name, widened)
        op.kernels = {device: wrap(kernel, name, widened)
                      for device, kernel in op.kernels.items()}

