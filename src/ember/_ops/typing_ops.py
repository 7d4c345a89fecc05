"""Questions about dtypes that take tensors or numbers: `result_type`.

(`promote_types` and `can_cast` take dtypes only; they live in `ember._core.promotion`.)
"""
from __future__ import annotations

from ember._core import dispatch
from ember._core.checks import _check_type
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.promotion import result_type_from, scalar_type_of
from ember._core.registry import register_frontend

_NUMBER_TYPES = (bool, int, float, complex)


def _is_operand(value) -> bool:
    return isinstance(value, (dispatch.Tensor, _NUMBER_TYPES))


@register_frontend(method=False)
def result_type(tensor, other):
    """result_type(tensor, other) -> dtype: the dtype an arithmetic op on the two would give.

    Each argument may be a tensor or a Python number; type promotion treats dimensioned
    tensors, zero-dim tensors and numbers as in every pointwise op."""
    if _state.entry and _wants(locals()):
        return _handle(result_type, locals())
    _check_type(_is_operand(tensor) and _is_operand(other), lambda: (
        f"result_type() received an invalid combination of arguments - got "
        f"({type(tensor).__name__}, {type(other).__name__}), but expected one of: "
        "(Tensor tensor, Tensor other), (Number scalar, Tensor tensor), "
        "(Tensor tensor, Number other), (Number scalar1, Number scalar2)"))
    dim_types, zero_dim_types, scalar_types = [], [], []
    for value in (tensor, other):
        if isinstance(value, dispatch.Tensor):
            (dim_types if value._data.ndim else zero_dim_types).append(value._dtype)
        else:
            scalar_types.append(scalar_type_of(value))
    return result_type_from(dim_types, zero_dim_types, scalar_types)
