"""PyTorch's type promotion: `promote_types`, `result_type` and `can_cast`.

NOTE [three kinds of operands]: dimensioned tensors decide the result within their category;
zero-dim tensors, then Python scalars ("weak" operands), count only when they bring a higher
category (bool < integer < floating < complex). A Python float in an integer op gives the default
float dtype; a Python complex gives the default complex dtype.
"""
from __future__ import annotations

from ember._core import dtype as d
from ember._core.checks import _check, _check_type

_BARE_UNSIGNED = (d.uint16, d.uint32, d.uint64)
_FLOAT8 = (d.float8_e4m3fn, d.float8_e5m2)
_SIGNED_INTS = (d.int8, d.int16, d.int32, d.int64)
_FLOATS = (d.float16, d.bfloat16, d.float32, d.float64)

_promote_cache: dict = {}


def _promote_uncached(a: d.dtype, b: d.dtype) -> d.dtype:
    if a is b:
        return a
    if a in _FLOAT8 or b in _FLOAT8:
        raise RuntimeError("Promotion for Float8 Types is not supported, attempted to promote "
                           f"{a._cpp_name} and {b._cpp_name}")
    if a in _BARE_UNSIGNED or b in _BARE_UNSIGNED:
        # Only (real) floating types absorb the wide unsigned types.
        other = b if a in _BARE_UNSIGNED else a
        if other._category != d.FLOAT:
            raise RuntimeError("Promotion for uint16, uint32, uint64 types is not supported, "
                               f"attempted to promote {a._cpp_name} and {b._cpp_name}")
        return other
    if a._category != b._category:
        high, low = (a, b) if a._category > b._category else (b, a)
        if high.is_complex and low.is_floating_point and low.to_complex().itemsize > \
                high.itemsize:
            return low.to_complex()    # complex32 with float32 or bfloat16: complex64
        return high
    category = a._category
    if category == d.INT:
        if a is d.uint8 or b is d.uint8:
            other = b if a is d.uint8 else a
            return d.int16 if other is d.int8 else other
        return a if a.itemsize >= b.itemsize else b
    if category == d.FLOAT:
        if {a, b} == {d.float16, d.bfloat16}:
            return d.float32
        return a if a.itemsize >= b.itemsize else b
    return a if a.itemsize >= b.itemsize else b


def promote_types(type1: d.dtype, type2: d.dtype) -> d.dtype:
    """The smallest dtype to which both arguments can be cast (PyTorch's lattice)."""
    key = (type1, type2)
    found = _promote_cache.get(key)
    if found is None:
        _check_type(isinstance(type1, d.dtype) and isinstance(type2, d.dtype),
                    lambda: f"promote_types(): expected two dtypes, got {type1!r} and {type2!r}")
        found = _promote_cache[key] = _promote_uncached(type1, type2)
    return found


def _combine_categories(higher, lower):
    """Combine the result of a stronger operand group with a weaker one (None = absent)."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher.is_complex:
        return higher
    if lower.is_complex:
        if higher.is_floating_point:
            return higher.to_complex()
        return lower
    if higher.is_floating_point:
        return higher
    if higher is d.bool_ or lower.is_floating_point:
        return promote_types(higher, lower)
    return higher


def scalar_type_of(value) -> d.dtype:
    """The dtype a Python scalar stands for when it meets tensors (before weakening)."""
    kind = type(value)
    if kind is bool:
        return d.bool_
    if kind is int:
        return d.int64
    if kind is float:
        return d.get_default_dtype()
    if kind is complex:
        return d.default_complex_dtype()
    if isinstance(value, bool):
        return d.bool_
    if isinstance(value, int):
        return d.int64
    if isinstance(value, float):
        return d.get_default_dtype()
    if isinstance(value, complex):
        return d.default_complex_dtype()
    # NumPy scalars behave like Python numbers of their kind.
    np_dtype = getattr(value, "dtype", None)
    if np_dtype is not None and getattr(value, "ndim", 1) == 0:
        kind_char = np_dtype.kind
        return {"b": d.bool_, "i": d.int64, "u": d.int64,
                "f": d.get_default_dtype(), "c": d.default_complex_dtype()}[kind_char]
    raise TypeError(f"expected a Tensor or a number, but got {type(value).__name__}")


def result_type_from(dim_types, zero_dim_types, scalar_types) -> d.dtype:
    """Combine the dtypes of dimensioned tensors, zero-dim tensors and Python scalars."""
    dim_result = zero_result = scalar_result = None
    for t in dim_types:
        dim_result = t if dim_result is None else promote_types(dim_result, t)
    for t in zero_dim_types:
        zero_result = t if zero_result is None else promote_types(zero_result, t)
    for t in scalar_types:
        scalar_result = t if scalar_result is None else promote_types(scalar_result, t)
    found = _combine_categories(dim_result, _combine_categories(zero_result, scalar_result))
    _check(found is not None, "result_type(): no operands")
    return found


def can_cast(from_: d.dtype, to: d.dtype) -> bool:
    """Whether type promotion may cast `from_` to `to` (no category demotion)."""
    if not isinstance(from_, d.dtype) or not isinstance(to, d.dtype):
        # PyTorch's parser: a Python type names a dtype (int: int64), anything else refused
        from ember._core import arguments
        from_ = arguments.dtype_(from_, ("can_cast", "from_", 1))
        to = arguments.dtype_(to, ("can_cast", "to", 2))
    if from_.is_complex and not to.is_complex:
        return False
    if from_.is_floating_point and to._category < d.FLOAT:
        return False
    if from_ is not d.bool_ and to is d.bool_:
        return False
    return True
