"""The rest of PyTorch's symbolic-shape helpers at `ember.*` and its eager `cond`: in eager
code (ember's tensors have concrete sizes) a range constraint checks the value, `sym_sqrt` is
the square root of a number or 0-d tensor, `cond` calls the branch the predicate picks."""
from __future__ import annotations

import math

from ember._core.checked_entry import checked


def _value(x):
    from ember._sym import SymInt
    if isinstance(x, SymInt):
        return int(x)
    return x


_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def _scalar_int(size):
    """The Scalar `size` as PyTorch's kernel reads it: an int64 (a float truncated, a complex
    by its real part, a one-element tensor by its item)."""
    value = _value(size)
    if hasattr(value, "item"):
        value = value.item()
    if type(value) is complex and value.imag:
        raise RuntimeError("value cannot be converted to type int64_t without overflow")
    return int(value.real) if isinstance(value, complex) else int(value)


@checked("sym_constrain_range(Scalar size, *, int? min=None, int? max=None)")
def sym_constrain_range(size, *, min=None, max=None) -> None:
    """Check that `size` lies in [min, max] (RuntimeError otherwise)."""
    value = _scalar_int(size)
    low = _INT64_MIN if min is None else min
    high = _INT64_MAX if max is None else max
    if not low <= value <= high:
        raise RuntimeError(f"Invalid value range for {value} between [{low}, {high}].")


@checked("sym_constrain_range_for_size(Scalar size, *, int? min=None, int? max=None)")
def sym_constrain_range_for_size(size, *, min=None, max=None) -> None:
    """`sym_constrain_range` for a value used as a size (at least 0; a maximum of at least
    2)."""
    if max is not None and max < 2:
        raise RuntimeError(f"Max value to constrain_range_for_size must be greater than 2. "
                           f"got: {max}")
    sym_constrain_range(size, min=0 if min is None or min < 0 else min, max=max)


def sym_fresh_size(expr):
    """A fresh size equal to `expr` (eagerly: its value, read through a tensor as PyTorch
    does)."""
    import ember
    return ember.tensor(expr).item()


def sym_sqrt(a):
    """The square root as a Python float (of a number, a SymInt or a one-element tensor)."""
    if hasattr(a, "__sym_sqrt__"):
        return a.__sym_sqrt__()
    return math.sqrt(_value(a))


def cond(pred, true_fn, false_fn, operands=()):
    """`true_fn(*operands)` if `pred` (a bool or one-element tensor) else `false_fn(*operands)`."""
    from ember._tensor import Tensor
    if isinstance(pred, Tensor):
        if pred.numel() != 1:
            raise RuntimeError(f"Expected pred to be bool or single-element tensor, but got "
                               f"{pred}.")
        pred = bool(pred.item())
    elif not isinstance(pred, bool):
        from ember._sym import SymInt
        if not isinstance(pred, (int, float, SymInt)):   # (NumPy's bool and arrays too)
            raise RuntimeError(f"Expected pred to be bool or tensor, but got {pred}.")
        pred = bool(_value(pred))
    if not callable(true_fn) or not callable(false_fn):
        raise RuntimeError("Expect both branches to be callable.")  # noqa: TRY004 (PyTorch's class)
    if not isinstance(operands, (tuple, list)):
        raise RuntimeError(  # noqa: TRY004 (PyTorch's class)
            f"Expect operands to be a tuple of possibly nested dict/list/tuple "
            f"that only consists of tensor leaves, but got {operands}.")
    return true_fn(*operands) if pred else false_fn(*operands)
