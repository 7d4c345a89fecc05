"""complex32 in the ops that are not element-wise (NOTE [complex32 storage]).

Shape, view, copy and indexing kernels move complex32 elements as they are (NumPy copies a
structured element whole). The ops named below that compute have a complex32 entry in their kernel
table (NOTE [the kernel table], key (strided, any device, "complex32")), and no other op (every
other op's kernel runs untouched); the table's guard in front of their plain entry costs a call
without complex32 only a look at its tensors' dtypes:
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

import numpy as np

from ember._core import complex_half
from ember._core import dtype as dt
from ember._core.checks import _check_not_implemented
from ember._core.kernel_table import STRIDED, DispatchKey
from ember._core.registry import on_built

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


def _widened(plain, xp, *args, **kwargs):
    """The complex32 entry of a WIDENED op: its plain kernel on widened arguments."""
    return _computed(plain, (xp, *args), kwargs)


def _refused(name):
    def refuse(plain, xp, *args, **kwargs):
        _check_not_implemented(False, lambda: complex_half.refusal(name))
    refuse.__name__ = f"{name}_complex32_refused"
    return refuse


COMPLEX32 = DispatchKey(STRIDED, None, "complex32")


def install():
    """Enter the complex32 entries of the ops named above in their kernel tables (NOTE [the
    kernel table]), once every op family has registered: on each entry as it is built (NOTE
    [op entries are built on first use])."""
    on_built(_install_one)


def _install_one(op) -> None:
    name = op.schema.name
    widened = name in WIDENED
    if op.raw_kernel is None or not widened and name not in REFUSED:
        return
    op.register_kernel(COMPLEX32, _widened if widened else _refused(name))
