"""PyTorch's argument checking, from the op schemas: the slow half of every generated binding.

NOTE [argument parsing]: a generated binding (tools/gen_bindings.py) tests each non-tensor
argument with one cheap type test (`type(dim) is int`, `dtype is None or type(dtype) is
dtype` ...) and calls into this module only when that test fails. Here the value is either
converted the way PyTorch's parser converts it (a NumPy integer for an int, `float` for a
dtype, a 0-d integer tensor for an index) or refused with PyTorch's TypeError:

    unsqueeze(): argument 'dim' (position 1) must be int, not bool

(the position is left out for keyword-only arguments). So a call whose arguments are already
plain pays one type test per argument, and bad input never reaches a kernel, where a string
may crash a native library (ml_dtypes' bfloat16 constructor dies on one).

`explain` is the other half: when a kernel raises, the binding hands the exception here. A
foreign exception (NumPy's AxisError, MemoryError ...) becomes the class PyTorch raises, and
an UnsupportedOperand (the dunders' NotImplemented signal) a plain TypeError.

`where` in every function is (function name, argument name, position or None).
"""
from __future__ import annotations

import numbers

import numpy as np

from ember._core import dtype as dt

_PYTHON_TYPE_DTYPES = {int: dt.int64, float: dt.float64, bool: dt.bool_,
                       complex: dt.complex128}


def type_name(value) -> str:
    """A value's type as PyTorch's messages name it: 'Tensor', 'int', 'numpy.float32'."""
    cls = type(value)
    if _is_tensor(value):
        return "Tensor"
    module = cls.__module__
    if module in ("builtins", None):
        return cls.__qualname__
    if module.startswith("numpy"):
        return f"numpy.{cls.__qualname__}"
    return cls.__qualname__


def _is_tensor(value) -> bool:
    from ember._core.dispatch import Tensor
    return isinstance(value, Tensor)


def refuse(where, expected: str, value):
    name, arg, position = where
    at = f" (position {position})" if position is not None else ""
    raise TypeError(f"{name}(): argument '{arg}'{at} must be {expected}, not "
                    f"{type_name(value)}")


# --------------------------------------------------------------------------- by schema type

def int_(value, where):
    """An `int`/`SymInt` argument that is not a plain int."""
    if value is True or value is False or isinstance(value, (float, complex, np.bool_)):
        refuse(where, "int", value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if type(value).__name__ == "SymInt":
        return value
    if _is_tensor(value):
        if value.dtype.is_floating_point or value.dtype.is_complex or value.numel() != 1:
            refuse(where, "int", value)
        return int(value.item())
    index = getattr(type(value), "__index__", None)
    if index is None or isinstance(value, np.ndarray):
        refuse(where, "int", value)
    return index(value)


def float_(value, where):
    """A `float` argument that is not a plain float or int."""
    if isinstance(value, (bool, int, float, np.integer, np.floating, np.bool_)):
        return float(value)
    if type(value).__name__ == "SymFloat":
        return value
    if _is_tensor(value) and value.numel() == 1 and not value.requires_grad:
        return float(value.item())
    refuse(where, "float", value)


def bool_(value, where):
    """A `bool` argument that is not True or False (PyTorch refuses NumPy's bool too)."""
    if type(value).__name__ == "SymBool":
        return value
    refuse(where, "bool", value)


def scalar(value, where):
    """A `Scalar` argument that is not a plain int or float: complex, NumPy numbers and 0-d
    tensors pass (as PyTorch's Scalar does); strings, None, lists ... are refused."""
    if isinstance(value, (np.bool_, np.integer, np.floating, np.complexfloating)):
        return value.item()
    if isinstance(value, numbers.Number) or _is_tensor(value):
        return value
    if type(value).__name__ in ("SymInt", "SymFloat", "SymBool"):
        return value
    refuse(where, "Number", value)


def dtype_(value, where):
    """A `ScalarType` argument that is not an ember.dtype: Python's own types name one."""
    found = _PYTHON_TYPE_DTYPES.get(value) if isinstance(value, type) else None
    if found is None:
        refuse(where, "torch.dtype", value)
    return found


def layout_(value, where):
    if type(value).__name__ != "layout":
        refuse(where, "torch.layout", value)
    return value


def memory_format_(value, where):
    if type(value).__name__ != "memory_format":
        refuse(where, "torch.memory_format", value)
    return value


def device_(value, where):
    if isinstance(value, (str, int)) and not isinstance(value, bool) or \
            type(value).__name__ == "device":
        return value
    refuse(where, "torch.device", value)


def generator_(value, where):
    if type(value).__name__ != "Generator":
        refuse(where, "torch.Generator", value)
    return value


def str_(value, where):
    if not isinstance(value, str):
        refuse(where, "str", value)
    return value


def int_list(value, where):
    """An `int[]` argument that is not a tuple, list, Size or int: a 1-d integer tensor
    passes (as a tuple); anything else (a NumPy array too, as in PyTorch) is refused."""
    if isinstance(value, (tuple, list)):
        return tuple(v if type(v) is int else int_(v, where) for v in value)
    if _is_tensor(value) and not value.dtype.is_floating_point and \
            not value.dtype.is_complex and value.dim() <= 1:
        return tuple(int(v) for v in value.reshape(-1).tolist())
    if isinstance(value, (np.integer,)) and not isinstance(value, bool):
        return int(value)
    refuse(where, "tuple of ints", value)


def bool_list(value, where):
    if isinstance(value, (list, tuple)) and all(isinstance(v, (bool, np.bool_)) for v in value):
        return [bool(v) for v in value]
    refuse(where, f"tuple of {len(value) if isinstance(value, (list, tuple)) else ''} bools"
           .replace("of  ", "of "), value)


# The generated bindings' checks, by the schema's base type: (fast test as Python source over
# the argument's name `v` and the module names the bindings import, the slow function's name).
CHECKS = {
    "int": ("type({v}) is int", "int_"),
    "SymInt": ("type({v}) is int", "int_"),
    "float": ("type({v}) is float or type({v}) is int", "float_"),
    "bool": ("{v} is True or {v} is False", "bool_"),
    "Scalar": ("type({v}) is float or type({v}) is int", "scalar"),
    "ScalarType": ("type({v}) is _dtype_class", "dtype_"),
    "Layout": ("type({v}).__name__ == 'layout'", "layout_"),
    "MemoryFormat": ("type({v}).__name__ == 'memory_format'", "memory_format_"),
    "Device": ("type({v}) is str", "device_"),
    "Generator": ("type({v}).__name__ == 'Generator'", "generator_"),
    "str": ("type({v}) is str", "str_"),
    "int[]": ("type({v}) in _int_list_types", "int_list"),
    "SymInt[]": ("type({v}) in _int_list_types", "int_list"),
}


# --------------------------------------------------------------------------- after a failure

def explain(exc: BaseException, name: str, operand: bool = True):
    """Raise the exception PyTorch raises where a kernel of `name` raised `exc` (NOTE
    [argument parsing]); return to let the caller re-raise `exc` unchanged. `operand`: turn
    UnsupportedOperand into TypeError too (a public binding; inside the dispatcher it must
    stay, the dunders return NotImplemented on it)."""
    if operand and type(exc).__name__ == "UnsupportedOperand":
        raise TypeError(str(exc)) from None
    if isinstance(exc, MemoryError):
        raise RuntimeError(_allocation_message(exc)) from None
    axis_error = getattr(np.exceptions, "AxisError", None)
    if axis_error is not None and isinstance(exc, axis_error):
        ndim, axis = getattr(exc, "ndim", None), getattr(exc, "axis", None)
        if ndim is not None and axis is not None:
            low, high = (-ndim, ndim - 1) if ndim else (-1, 0)
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{low}, {high}], but got {axis})") from None
        raise IndexError(str(exc)) from None
    if isinstance(exc, ZeroDivisionError):
        raise RuntimeError("ZeroDivisionError") from None
    if type(exc).__name__ == "_UFuncNoLoopError":
        raise NotImplementedError(f'"{name}" not implemented for the given dtypes: '
                                  f"{exc}") from None
    if type(exc).__name__ in ("_UFuncOutputCastingError", "_UFuncInputCastingError"):
        raise RuntimeError(str(exc)) from None


def _allocation_message(exc) -> str:
    shape, np_dtype = getattr(exc, "shape", None), getattr(exc, "dtype", None)
    if shape is not None and np_dtype is not None:
        count = 1
        for size in shape:
            count *= int(size)
        return (f"[enforce fail at alloc_cpu.cpp:117] err == 0. DefaultCPUAllocator: can't "
                f"allocate memory: you tried to allocate {count * np_dtype.itemsize} bytes. "
                f"Error code 12 (Cannot allocate memory)")
    return f"DefaultCPUAllocator: can't allocate memory ({exc})"
