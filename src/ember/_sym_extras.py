"""The rest of PyTorch's symbolic-shape helpers at `ember.*` and its eager `cond`: in eager
code (ember's tensors have concrete sizes) a range constraint checks the value, `sym_sqrt` is
the square root of a number or 0-d tensor, `cond` calls the branch the predicate picks."""
from __future__ import annotations

import math


def _value(x):
    from ember._sym import SymInt
    if isinstance(x, SymInt):
        return int(x)
    return x


def sym_constrain_range(size, min=None, max=None) -> None:
    """Check that `size` lies in [min, max] (RuntimeError otherwise)."""
    value = _value(size)
    low = -math.inf if min is None else min
    high = math.inf if max is None else max
    if isinstance(value, int) and not low <= value <= high:
        raise RuntimeError(f"Invalid value range for {value} between [{low}, {high}].")


def sym_constrain_range_for_size(size, min=None, max=None) -> None:
    """`sym_constrain_range` for a value used as a size (at least 0)."""
    if min is not None and min < 0:
        raise ValueError("Cannot constrain a size to be negative")
    sym_constrain_range(size, 0 if min is None else min, max)


def sym_fresh_size(expr):
    """A fresh size equal to `expr` (eagerly: `expr` itself)."""
    return expr


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
        pred = bool(_value(pred))
    if not callable(true_fn) or not callable(false_fn):
        raise RuntimeError("Expect both branches to be callable.")  # noqa: TRY004 (PyTorch's class)
    if not isinstance(operands, (tuple, list)):
        raise RuntimeError(  # noqa: TRY004 (PyTorch's class)
            f"Expect operands to be a tuple of possibly nested dict/list/tuple "
            f"that only consists of tensor leaves, but got {operands}.")
    return true_fn(*operands) if pred else false_fn(*operands)
