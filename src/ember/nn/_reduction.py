"""The `reduction` argument of the losses: its enum (0 none, 1 mean, 2 sum, as PyTorch's
`at::Reduction`) and the deprecated `size_average` / `reduce` pair that once chose it."""
from __future__ import annotations

import warnings

_ENUM = {"none": 0, "mean": 1, "elementwise_mean": 1, "sum": 2}


def get_enum(reduction: str) -> int:
    """The enum value of a reduction name; ValueError for an unknown one."""
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' "
                      "instead.", stacklevel=2)
    # (compared by value, as PyTorch's chain of == does: a list or a tensor is no name)
    value = _ENUM.get(reduction) if type(reduction) is str else None
    if value is None:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return value


def legacy_get_string(size_average, reduce, emit_warning: bool = True) -> str:
    """The reduction name that the legacy `size_average` and `reduce` flags stand for (None
    means True for both); warns that they are deprecated."""
    warning = "size_average and reduce args will be deprecated, please use reduction='{}' instead."
    if size_average is None:
        size_average = True
    if reduce is None:
        reduce = True
    if size_average and reduce:
        name = "mean"
    elif reduce:
        name = "sum"
    else:
        name = "none"
    if emit_warning:
        warnings.warn(warning.format(name), stacklevel=2)
    return name


def legacy_get_enum(size_average, reduce, emit_warning: bool = True) -> int:
    return get_enum(legacy_get_string(size_average, reduce, emit_warning))
