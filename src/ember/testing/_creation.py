"""`make_tensor`: a tensor of random test values, drawn with the same calls as PyTorch's (so,
as ember draws PyTorch's CPU stream, the same seed gives the same values)."""
from __future__ import annotations

import math
import warnings


def _dtype_groups(ember):
    def present(*names):
        return tuple(getattr(ember, n) for n in names if hasattr(ember, n))
    integral = present("uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64")
    floating = present("float16", "bfloat16", "float32", "float64")
    complex_ = present("complex32", "complex64", "complex128")
    float8 = present("float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz")
    return integral, floating, complex_, float8


def _bounds(low, high, dtype, *, lowest, highest, default_low, default_high, integral):
    """[low, high) from the arguments: defaults filled, checked, clamped to what the dtype
    holds, and rounded up for integer draws (randint's high is exclusive)."""
    low = default_low if low is None else low
    high = default_high if high is None else high
    if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
    if low == high and not integral:
        warnings.warn("Passing `low==high` to `ember.testing.make_tensor` for floating or "
                      "complex types is deprecated (since PyTorch 2.1). Use `ember.full(...)` "
                      "instead.", FutureWarning, stacklevel=3)
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest or low >= highest:
        raise ValueError(f"The value interval specified by `low` and `high` is [{low}, {high}), "
                         f"but {dtype} only supports [{lowest}, {highest})")
    low, high = min(max(low, lowest), highest), min(max(high, lowest), highest)
    if integral:
        return math.ceil(low), math.ceil(high)
    return low, high


def _uniform_(t, low, high, ember):
    # uniform_ refuses a range wider than the dtype's largest value: draw half of it, double.
    if high - low >= ember.finfo(t.dtype).max:
        return t.uniform_(low / 2, high / 2).mul_(2)
    return t.uniform_(low, high)


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False,
                noncontiguous=False, exclude_zero=False, memory_format=None):
    """make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False,
    noncontiguous=False, exclude_zero=False, memory_format=None) -> Tensor: values drawn
    uniformly from [low, high) (defaults by dtype: bool [0, 2), unsigned [0, 10), signed
    [-9, 10), floating and complex [-9, 9)); `noncontiguous` gives a strided view,
    `exclude_zero` replaces zeros by 1 (integers) or the dtype's tiny value."""
    import ember
    integral, floating, complex_, float8 = _dtype_groups(ember)
    if len(shape) == 1 and not isinstance(shape[0], int) and hasattr(shape[0], "__len__"):
        shape = shape[0]
    shape = tuple(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError("The parameters `noncontiguous` and `memory_format` are mutually "
                         f"exclusive, but got noncontiguous={noncontiguous} and "
                         f"memory_format={memory_format}")
    exact = dtype is ember.bool or dtype in integral
    if requires_grad and exact:
        raise ValueError("`requires_grad=True` is not supported for boolean and integral "
                         f"dtypes, but got dtype={dtype}")
    noncontiguous = noncontiguous and math.prod(shape) > 1
    if noncontiguous:
        # Twice the last dim, so the view's neighbours differ from its values.
        shape = (*shape[:-1], 2 * shape[-1])
    if dtype is ember.bool:
        low, high = _bounds(low, high, dtype, lowest=0, highest=2, default_low=0,
                            default_high=2, integral=True)
        result = ember.randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in integral:
        info = ember.iinfo(dtype)
        # randint takes its bounds as int64, so int64's own maximum stays out of reach.
        low, high = _bounds(low, high, dtype, lowest=info.min,
                            highest=info.max + (dtype is not ember.int64), default_low=-9,
                            default_high=10, integral=True)
        result = ember.randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in floating or dtype in complex_:
        info = ember.finfo(dtype)
        low, high = _bounds(low, high, dtype, lowest=info.min, highest=info.max,
                            default_low=-9, default_high=9, integral=False)
        result = ember.empty(shape, device=device, dtype=dtype)
        _uniform_(ember.view_as_real(result) if dtype in complex_ else result, low, high,
                  ember)
    elif dtype in float8:
        info = ember.finfo(dtype)
        low, high = _bounds(low, high, dtype, lowest=info.min, highest=info.max,
                            default_low=-9, default_high=9, integral=False)
        result = _uniform_(ember.empty(shape, device=device, dtype=ember.float32), low, high,
                           ember).to(dtype)
    else:
        raise TypeError(f"The requested dtype '{dtype}' is not supported by "
                        "ember.testing.make_tensor().")
    if noncontiguous:
        # From the second element on, so offsets are exercised too.
        result = result[..., 1::2]
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        result[result == 0] = 1 if exact else ember.finfo(dtype).tiny
    if dtype in floating or dtype in complex_:
        result.requires_grad = requires_grad
    return result
