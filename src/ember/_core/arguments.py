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

import operator

import numpy as np

from ember._core import complex_half
from ember._core import dtype as dt

PYTHON_TYPE_DTYPES = {int: dt.int64, float: dt.float64, bool: dt.bool_,
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


def tensor_(value, where):
    """A `Tensor` argument of a hand-written function (nn.functional's composites): anything
    else gets the TypeError PyTorch's parser gives, before any attribute of it is read."""
    if not _is_tensor(value):
        refuse(where, "Tensor", value)
    return value


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
    tensors pass (as PyTorch's Scalar does); strings, None, lists, tensors with dimensions ...
    are refused."""
    if type(value) is int:
        check_scalar_int(value)         # (an int past uint64: its conversion's OverflowError)
        return value
    if isinstance(value, (np.bool_, np.integer, np.floating)):
        return value.item()
    if isinstance(value, np.complexfloating) and not isinstance(value, complex):
        # PyTorch's parser reads a NumPy complex64 through float(): its real part, with
        # NumPy's ComplexWarning (complex128 is a Python complex and stays one).
        return float(value)
    if isinstance(value, numbers.Number) or _is_tensor(value) and value.dim() == 0:
        return value                    # (a tensor with dimensions is no Number in PyTorch)
    if type(value).__name__ in ("SymInt", "SymFloat", "SymBool"):
        return value
    refuse(where, "Number", value)


def dtype_(value, where):
    """A `ScalarType` argument that is not a plain ember.dtype: Python's own types name one;
    the dtypes without NumPy storage (quantized, sub-byte: NOTE [dtypes without tensors]) are
    dtypes too."""
    if isinstance(value, dt.dtype):
        return value
    found = PYTHON_TYPE_DTYPES.get(value) if isinstance(value, type) else None
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
    if isinstance(value, bytes):           # (PyTorch's parser reads bytes as a string)
        return value.decode("utf-8", "replace")
    if isinstance(value, (str, int)) and not isinstance(value, bool) or \
            type(value).__name__ == "device":
        return value
    refuse(where, "torch.device", value)


def generator_(value, where):
    if type(value).__name__ != "Generator":
        refuse(where, "torch.Generator", value)
    return value


def str_(value, where):
    """A `str` argument that is not a str: PyTorch's parser decodes bytes."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if not isinstance(value, str):
        refuse(where, "str", value)
    return value


def int_list(value, where):
    """An `int[]` argument that is not a tuple, list, Size or int, or whose first item is no
    plain int: an integer tensor of one element passes (as a one-int tuple, as in PyTorch);
    anything else (a longer tensor, a NumPy array) is refused. NOTE [int lists]: PyTorch's
    parser tells an int list by its first item, which must be an int (a bool, float, string
    ... there is a TypeError); the later items are only converted (a bool is 0 or 1)."""
    if isinstance(value, (tuple, list)):
        if value:
            _int_list_items(value[:1], where)
        return tuple(v if type(v) is int else _later_item(v, j + 1, where)
                     for j, v in enumerate(value))
    if _is_tensor(value) and not value.dtype.is_floating_point and \
            not value.dtype.is_complex and value.numel() == 1:
        return (int(value.item()),)
    if isinstance(value, (np.integer,)) and not isinstance(value, bool):
        return int(value)
    refuse(where, "tuple of ints", value)


def bool_list(value, where):
    if isinstance(value, (list, tuple)) and all(isinstance(v, (bool, np.bool_)) for v in value):
        return [bool(v) for v in value]
    refuse(where, f"tuple of {len(value) if isinstance(value, (list, tuple)) else ''} bools"
           .replace("of  ", "of "), value)


# (NOTE [int lists]: a list's first item decides.)
_INT_LIST_TEST = ("type({v}) is int or type({v}) in _int_list_types and (not {v} or "
                  "type({v}[0]) is int)")

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
    "int[]": (_INT_LIST_TEST, "int_list"),
    "SymInt[]": (_INT_LIST_TEST, "int_list"),
}


# --------------------------------------------------------------------------- after a failure

def explain(exc: BaseException, name: str, operand: bool = True, op=None, args=None,
            method: bool = False):
    """Raise the exception PyTorch raises where a kernel of `name` raised `exc` (NOTE
    [argument parsing]); return to let the caller re-raise `exc` unchanged. `operand`: turn
    UnsupportedOperand into TypeError too (a public binding; inside the dispatcher it must
    stay, the dunders return NotImplemented on it). With the op and its arguments (schema
    order), an argument PyTorch's parser would have refused first is reported instead
    (NOTE [the parser's errors come first])."""
    is_operand = type(exc).__name__ == "UnsupportedOperand"
    if op is not None and args is not None and (operand or not is_operand) and \
            type(exc) is not TypeError:
        parser_error(op, args, name, method)
    if operand and is_operand:
        raise TypeError(str(exc)) from None
    if isinstance(exc, TypeError) and args is not None and _holds_complex32(args):
        # NumPy found no loop or cast for a complex32 array: an op PyTorch has no ComplexHalf
        # kernel for (NOTE [complex32 storage])
        raise NotImplementedError(complex_half.refusal(name)) from None
    if isinstance(exc, MemoryError):
        raise RuntimeError(allocation_message(exc)) from None
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
    if isinstance(exc, ValueError) and str(exc).startswith("array is too big"):
        # NumPy could not count the bytes of an allocation: PyTorch's overflow check
        sizes = args[0] if args and isinstance(args[0], (tuple, list)) else ()
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(sizes)}") \
            from None
    if type(exc).__name__ == "_UFuncNoLoopError":
        raise NotImplementedError(f'"{name}" not implemented for the given dtypes: '
                                  f"{exc}") from None
    if type(exc).__name__ in ("_UFuncOutputCastingError", "_UFuncInputCastingError"):
        raise RuntimeError(str(exc)) from None


def _holds_complex32(args) -> bool:
    for value in args:
        if getattr(value, "_dtype", None) is dt.complex32 or type(value) in (list, tuple) and \
                any(getattr(v, "_dtype", None) is dt.complex32 for v in value):
            return True
    return False


# NOTE [the parser's errors come first]: PyTorch's argument parser looks at every argument
# before any kernel runs: a wrong kind anywhere is its TypeError (a tensor argument given None,
# a string, a list ...), and an int beyond 64 bits its "Overflow when unpacking long long",
# whatever the kernel would have said about the other arguments. The generated bindings test
# the non-tensor arguments up front (cheaply); the rest is checked here, after a kernel or the
# dispatcher failed, so calls that work pay nothing for it.

# The ops whose tensor arguments PyTorch's parser also takes as Python numbers (through a
# Scalar overload or its numbers-as-tensors rule), read off PyTorch 2.13 by calling each op
# with a number in each place: the first argument, and any other.
_SPECIAL_SCALAR_OVERLOADS = tuple(f"special_{name}" for name in (
    "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
    "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
    "laguerre_polynomial_l", "legendre_polynomial_p", "xlog1py", "zeta"))
NUMBERS_FIRST = frozenset((
    "add", "sub", "mul", "div", "true_divide", "floor_divide", "remainder", "pow",
    "float_power", "xlogy", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
    "bitwise_right_shift", "isin", "bucketize", "normal", "subtract", "multiply", "divide",
    *_SPECIAL_SCALAR_OVERLOADS))
NUMBERS_BESIDE = NUMBERS_FIRST | frozenset((
    "rsub", "fmod", "copysign", "eq", "ne", "lt", "le", "gt", "ge", "clamp_max", "clamp_min",
    "clamp", "where", "fill", "quantile", "nanquantile", "bernoulli", "masked_fill",
    "index_fill", "scatter", "scatter_add", "scatter_reduce", "diff", "tensordot", "greater",
    "greater_equal", "less", "less_equal", "not_equal", "__lshift__", "__rshift__"))

_INT64_MIN, _INT64_MAX, _UINT64_MAX = -(1 << 63), (1 << 63) - 1, (1 << 64) - 1
_OVERFLOW = "Overflow when unpacking long long"
_FAST_TESTS: dict = {}


def _fast_test(base_type):
    """CHECKS' fast test for a schema type as a function (compiled once)."""
    found = _FAST_TESTS.get(base_type)
    if found is None:
        from ember._core.dtype import dtype as dtype_class
        from ember._core.shape import Size
        namespace = {"_dtype_class": dtype_class,
                     "_int_list_types": frozenset((tuple, list, int, Size))}
        fast, slow = CHECKS[base_type]
        found = (eval("lambda v: " + fast.format(v="v"), namespace), globals()[slow])
        _FAST_TESTS[base_type] = found
    return found


def parser_error(op, args, name: str, method: bool = False, none_refused: bool = False) -> tuple:
    """Raise what PyTorch's parser raises for `args` (the schema's order) of `op` called as
    `name`, if anything (NOTE [the parser's errors come first]). For a name with several
    overloads that is PyTorch's "invalid combination of arguments" TypeError. Returns the
    arguments as the parser converts them (dtype=int is int64). `none_refused`: None is
    refused where the schema does not allow it (as PyTorch's parser does), for a frontend that
    passes the user's values as they came; otherwise None passes (a frontend's "not given")."""
    try:
        return _first_parser_error(op, args, name, method, none_refused)
    except TypeError:
        overloads = _overloads(op)
        if len(overloads) < 2:
            raise
        raise invalid_combination(name, op, args, overloads, method) from None


def fitting_overload(ops, args, name: str):
    """(op, converted arguments) for the first of `ops` (overloads sharing one frontend, in
    the order PyTorch's parser tries them) whose schema `args` fit; None where none does.
    None is refused where a schema does not allow it. (For a frontend's slow path: its
    plain calls pick their overload with a type test.)"""
    for op in ops:
        try:
            return op, _first_parser_error(op, args, name, False, True)
        except TypeError:
            continue
    return None


def _first_parser_error(op, args, name, method, none_refused=False):
    schema_args = op.schema.arguments
    count = min(len(args), len(schema_args))
    has_tensor = any(_is_tensor(args[i]) for i in op.tensor_positions if i < count)
    for i in range(1 if method else 0, count):
        arg, value = schema_args[i], args[i]
        where = (name, "input" if i == 0 and not method and arg.name == "self" else arg.name,
                 None if arg.kwarg_only else (i if method else i + 1))
        base = arg.base_type
        if value is None and (arg.optional or base != "Tensor" and not none_refused) or \
                arg.has_default and type(value) is type(arg.default) and value == arg.default:
            continue        # (frontends pass None, or the default as written: dtype='long')
        if base == "Tensor":
            if _is_tensor(value) or has_tensor and isinstance(value, (
                    numbers.Number, np.generic)) and op.schema.name in (
                    NUMBERS_FIRST if i == 0 else NUMBERS_BESIDE):
                continue
            refuse(where, "Tensor", value)
        elif base in ("Tensor[]", "Tensor?[]"):
            _tensor_list(value, where, i - 1 if method else i, base == "Tensor?[]")
        elif base in CHECKS:
            fast, slow = _fast_test(base)
            if not fast(value):
                converted = slow(value, where)
                if converted is not value:
                    args = (*args[:i], converted, *args[i + 1:])
            elif base in ("int[]", "SymInt[]") and type(value) is not int:
                _int_list_items(value, where)     # (the fast test looks at the list only)
    for i in range(1 if method else 0, count):
        base, value = schema_args[i].base_type, args[i]
        if base in ("int", "SymInt") and type(value) is int and \
                not _INT64_MIN <= value <= _INT64_MAX:
            raise ValueError(_OVERFLOW)
        if base in ("Scalar", "Tensor") and type(value) is int:
            check_scalar_int(value)
        if base in ("int[]", "SymInt[]") and isinstance(value, (tuple, list)):
            for j, item in enumerate(value):
                if type(item) is int and not _INT64_MIN <= item <= _INT64_MAX:
                    raise TypeError(f"{name}(): argument '{schema_args[i].name}' failed to "
                                    f"unpack the object at pos {j + 1} with error "
                                    f'"{_OVERFLOW}"')
    return args


def check_scalar_int(value) -> None:
    """A Python int as PyTorch's Scalar: int64, or uint64 above it; anything wider is the
    OverflowError of its conversion."""
    if not _INT64_MIN <= value <= _UINT64_MAX:
        raise OverflowError("int too big to convert" if value > 0 else
                            "can't convert negative int to unsigned")


_OVERLOADS: dict = {}


def _overloads(op):
    """The registry's schemas sharing `op`'s Python name (its overloads)."""
    found = _OVERLOADS.get(op.python_name)
    if found is None:
        from ember._core.registry import OPS
        found = tuple(o.schema for o in OPS.values() if o.python_name == op.python_name)
        _OVERLOADS[op.python_name] = found
    return found


_SHOWN_TYPES = {"Scalar": "Number", "int[]": "tuple of ints", "SymInt[]": "tuple of ints",
                "SymInt": "int", "Tensor[]": "tuple of Tensors", "Tensor?[]": "tuple of Tensors",
                "ScalarType": "torch.dtype", "Layout": "torch.layout", "Device": "torch.device",
                "MemoryFormat": "torch.memory_format", "Generator": "torch.Generator",
                "bool[]": "tuple of bools", "PyObject": "object"}


def _signature_text(schema, method: bool) -> str:
    """One overload as PyTorch's messages list it: (Tensor input, int dim = -1, *, ...)."""
    parts, star = [], False
    for i, arg in enumerate(schema.arguments):
        if method and i == 0:
            continue
        if arg.kwarg_only and not star:
            parts.append("*")
            star = True
        shown = _SHOWN_TYPES.get(arg.base_type, arg.base_type)
        name = "input" if i == 0 and arg.name == "self" else arg.name
        text = f"{shown} {name}"
        if arg.has_default:
            default = arg.default
            text += f" = {default if not isinstance(default, (tuple, list)) else list(default)}"
        parts.append(text)
    return f"({', '.join(parts)})"


def invalid_combination(name, op, args, overloads, method=False) -> TypeError:
    """PyTorch's TypeError for a call that fits none of a function's overloads:

        sort() received an invalid combination of arguments - got (Tensor, str), but
        expected one of:
         * (Tensor input, *, bool stable, int dim = -1, bool descending = False)
         * (Tensor input, int dim = -1, bool descending = False)
    """
    got = []
    for i, (arg, value) in enumerate(zip(op.schema.arguments, args)):
        if method and i == 0 or arg.has_default and type(value) is type(arg.default) and \
                value == arg.default or value is None and arg.has_default:
            continue
        shown = type_name(value)
        got.append(f"{arg.name}={shown}" if arg.kwarg_only else shown)
    return _combination_error(name, got, overloads, method)


def combination_error(name, op, positional, keywords, method=False) -> TypeError:
    """invalid_combination for a frontend that knows how the call was made: its positional
    values and its keywords ({name: value}) as they came."""
    got = [type_name(v) for v in positional] + [f"{k}={type_name(v)}"
                                                for k, v in keywords.items()]
    return _combination_error(name, got, _overloads(op), method)


def _combination_error(name, got, overloads, method) -> TypeError:
    signatures = [_signature_text(schema, method) for schema in overloads]
    expected = "".join(f"\n * {text}" for text in signatures)
    return TypeError(f"{name}() received an invalid combination of arguments - got "
                     f"({', '.join(got)}), but expected one of:{expected}\n")


def _later_item(item, position, where):
    """An int list's item after the first, converted as PyTorch's parser converts it (NOTE
    [int lists]); `position` counts from 1, as its message does."""
    if isinstance(item, (bool, np.bool_, np.integer)):
        return int(item)
    if _is_tensor(item) or type(item).__name__ == "SymInt":
        return int_(item, where)
    if _has_index(item):
        return operator.index(item)
    raise TypeError(f"{where[0]}(): argument '{where[1]}' failed to unpack the object at pos "
                    f"{position} with error \"type must be tuple of ints,but got "
                    f"{type_name(item)}\"")


def _has_index(item) -> bool:
    """An integer as PyTorch's parser takes one in an int list: any object with `__index__`
    (not a bool, which the first item may not be)."""
    return hasattr(type(item), "__index__") and not isinstance(item, (bool, np.bool_))


def _int_list_items(value, where):
    for j, item in enumerate(value):
        if type(item) is int or isinstance(item, np.integer) or _is_tensor(item) or \
                type(item).__name__ == "SymInt" or j > 0 and isinstance(item, np.bool_) or \
                _has_index(item):
            continue
        if j > 0 and type(item) is bool:
            continue                          # (NOTE [int lists]: only the first is checked)
        name, arg, position = where
        at = f" (position {position})" if position is not None else ""
        raise TypeError(f"{name}(): argument '{arg}'{at} must be tuple of ints, but found "
                        f"element of type {type_name(item)} at pos {j}")


def _tensor_list(value, where, index, none_allowed):
    if not isinstance(value, (tuple, list)):
        refuse(where, "tuple of Tensors", value)
    for j, item in enumerate(value):
        if not (_is_tensor(item) or none_allowed and item is None):
            raise TypeError(f"expected Tensor as element {j} in argument {index}, but got "
                            f"{type_name(item)}")


def allocation_message(exc) -> str:
    shape, np_dtype = getattr(exc, "shape", None), getattr(exc, "dtype", None)
    if shape is not None and np_dtype is not None:
        count = 1
        for size in shape:
            count *= int(size)
        return (f"[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't "
                f"allocate memory: you tried to allocate {count * np_dtype.itemsize} bytes. "
                f"Error code 12 (Cannot allocate memory)")
    return f"DefaultCPUAllocator: can't allocate memory ({exc})"
