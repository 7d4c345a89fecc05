"""Pointwise selection and three-operand ops: where, clamp/clip, clamp_min/clamp_max, lerp,
addcmul, addcdiv. Arithmetic lives in pointwise.py, comparisons and logic in pointwise_logic.py.
"""
from __future__ import annotations

import warnings

import numpy as np

from ember._core import arguments, deprecated_forms, dispatch
from ember._core import dtype as dt
from ember._core.checks import _check, _check_not_implemented
from ember._core.deprecated_forms import NOT_GIVEN
from ember._core.dispatch import call, call_inplace, call_out
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.registry import (
    FRONTENDS,
    OPS,
    kernel_entry,
    register_form,
    register_frontend,
    register_op,
)
from ember._core.schema import parse_schema
from ember._ops.fused_multiply_add import fma
from ember._ops.grad_utils import by_kind, conj, identity, numbers_as_tensors
from ember._ops.grad_utils import where as grad_where  # (`where` is the frontend here)
from ember._ops.pointwise import not_implemented_for, scalar_into
from ember._ops.pointwise_logic import keep_self_at_ties, tensor_arg

_BINARY = {"kind": "pointwise", "inplace": True}


# --------------------------------------------------------------------------- where / clamp

# NOTE [where promotes through its condition]: the pointwise runner promotes every tensor
# argument, the condition included. A bool operand never changes a promotion result, so the
# result dtype is PyTorch's result_type(input, other); the condition reaches the kernel cast to
# the compute dtype, where its truth values are unchanged. The frontend makes sure it is bool.
@register_op("where.self(Tensor condition, Tensor self, Tensor other) -> Tensor",
             kind="pointwise", function=False, method=False, saves=("condition",),
             derivatives={"condition": lambda c: None,
                          "self": lambda c: grad_where(c.condition, c.grad, 0.0),
                          "other": lambda c: grad_where(c.condition, 0.0, c.grad)},
             tags=("no_fp_errors", "wide_unsigned", "out_dtype_exact", "range_checked_scalars"))
def where_self(xp, condition, self, other):
    """where(condition, input, other, *, out=None) -> Tensor: input where condition, else other."""
    return xp.where(condition, self, other)


# NOTE [branch-free where]: NumPy's where branches on each element, so a condition with no
# pattern (a ReLU's mask, dropout's) costs a misprediction every other element: about 8x
# slower than the same call on a sorted mask. On larger arrays ember selects with bit
# operations instead: mask = -condition as a same-width integer (all ones or all zeros), then
# (a & mask) | (b & ~mask) on the operands' bits. The bits are copied exactly (NaN payloads,
# -0.0), so the result is where's.
_SELECT_INT = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}
_SELECT_MIN_SIZE = 4096


@kernel_entry("where.self", "CPU")
def _where_self_cpu(xp, condition, self, other):
    """where's CPU entry (NOTE [the kernel table]): NOTE [branch-free where] on larger arrays."""
    if self.dtype.itemsize in _SELECT_INT and self.dtype == other.dtype and \
            max(condition.size, self.size, other.size) >= _SELECT_MIN_SIZE:
        return _bitwise_select(condition, self, other)
    return np.where(condition, self, other)


def keep_where(keep, values):
    """values where the bool array `keep` holds, zeros elsewhere (same shape as values): for
    the larger arrays a branch-free select (NOTE [branch-free where]) that needs no second
    operand, since the other branch's bits are all zero."""
    itype = _SELECT_INT.get(values.dtype.itemsize)
    if itype is None or values.size < _SELECT_MIN_SIZE or keep.shape != values.shape:
        return np.where(keep, values, values.dtype.type(0))
    mask = keep.view(np.int8).astype(itype)
    np.negative(mask, out=mask)
    np.bitwise_and(values.view(itype), mask, out=mask)
    return mask.view(values.dtype)


def _bitwise_select(condition, a, b):
    itype = _SELECT_INT[a.dtype.itemsize]
    truth = condition if condition.dtype == np.bool_ else condition != 0
    mask = truth.astype(itype)
    np.negative(mask, out=mask)
    out = np.empty(np.broadcast_shapes(truth.shape, a.shape, b.shape), itype)
    np.bitwise_and(a.view(itype), mask, out=out)
    np.invert(mask, out=mask)
    np.bitwise_or(out, np.bitwise_and(b.view(itype), mask), out=out)
    return out.view(a.dtype)


_WHERE_OP = OPS["where.self"]


def where(condition, input=None, other=None, *, out=None):
    """where(condition, input, other, *, out=None) -> Tensor; where(condition) -> tuple.

    `input` and `other` may be Python numbers. The one-argument form is nonzero(as_tuple=True).
    """
    if _state.entry and _wants(locals()):
        return _handle(where, locals())
    tensor_arg(condition, "where", "condition", 1)
    if input is None and other is None:
        return FRONTENDS["nonzero"].function(condition, as_tuple=True)
    if input is None or other is None:         # where(condition) or all three
        raise arguments.invalid_combination("where", _WHERE_OP, (condition, input, other), (
            parse_schema("where(Tensor condition) -> Tensor[]"), _WHERE_OP.schema))
    if condition._dtype is dt.uint8:
        warnings.warn("where received a uint8 condition tensor. This behavior is deprecated and "
                      "will be removed in a future version of ember. Use a boolean condition "
                      "instead.", UserWarning, stacklevel=2)
        condition = condition.to(dt.bool_)
    _check(condition._dtype is dt.bool_, lambda: (
        "where expected condition to be a boolean tensor, but got a tensor with dtype "
        f"{condition._dtype._cpp_name}"))
    for position, name, value in ((2, "input", input), (3, "other", other)):
        if not isinstance(value, (dispatch.Tensor, int, float, complex, np.number, np.bool_)):
            arguments.refuse(("where", name, position), "Tensor", value)
    if out is None:
        if _state.slow and dispatch.modes.dispatch_modes and not (
                isinstance(input, dispatch.Tensor) and isinstance(other, dispatch.Tensor)):
            input, other = numbers_as_tensors(condition, input, other)  # NOTE [where's
        return call(_WHERE_OP, (condition, input, other))               # numbers under modes]
    return call_out(_WHERE_OP, (condition, input, other), out)


def _where_method(self, condition, other):
    """Tensor.where(condition, other): where(condition, self, other)."""
    if _state.entry and _wants(locals()):
        return _handle(_where_method, locals())
    return where(condition, self, other)


register_frontend("where", method=_where_method)(where)


def _check_clamp(self, low=None, high=None, name="clamp"):
    """PyTorch's clamp has a Tensor overload and a Scalar one (a 0-d tensor fits either):
    a number beside a tensor with dimensions fits neither (its parser's TypeError). Bool
    has neither the Scalar kernels nor the two-tensor one. The kernels see tensors as arrays
    and numbers as NumPy scalars."""
    if type(low) is not type(high) and low is not None and high is not None and (
            isinstance(low, np.generic) and high.ndim or isinstance(high, np.generic) and
            low.ndim):
        raise TypeError(f"{name}() received an invalid combination of arguments - got (Tensor, "
                        f"Tensor, Number), but expected one of:\n * (Tensor input, Tensor min "
                        f"= None, Tensor max = None, *, Tensor out = None)\n * (Tensor input, "
                        f"Number min = None, Number max = None, *, Tensor out = None)\n")
    kind = self.dtype.kind
    if kind == "b":
        if isinstance(low, np.generic) or isinstance(high, np.generic):
            which = name if name != "clamp" or (low is not None and high is not None) else \
                "clamp_min" if high is None else "clamp_max"
            not_implemented_for(f"{which}_scalar_cpu", self)
        if low is not None and high is not None:
            not_implemented_for("clamp_cpu", self)
    _check_not_implemented(kind != "c", "clamp is not supported for complex types")


# Clamp's gradients (PyTorch's subgradients): `self` gets the gradient where it lies within
# [min, max], bounds included; a bound gets it where it is the value taken. With both bounds
# and min >= max the result is max, so min gets nothing there. NaN anywhere gives zeros.

def _clamp_self(c):
    low, high = c.min, c.max
    if low is None:
        return grad_where(c.self <= high, c.grad, 0.0)
    inside = c.self >= low
    if high is not None:
        inside = inside & (c.self <= high)
    return grad_where(inside, c.grad, 0.0)


def _clamp_min(c):
    low, high = c.min, c.max
    taken = c.self < low
    if high is not None:
        taken = taken & (low < high)
    return grad_where(taken, c.grad, 0.0)


def _clamp_max(c):
    low, high = c.min, c.max
    taken = c.self > high
    if low is not None:
        taken = taken | (high < low)
    return grad_where(taken, c.grad, 0.0)


def _clamp_name(args, outputs):
    """clamp with number bounds is ClampBackward1, with tensor bounds ClampBackward0."""
    tensors = isinstance(args[1], dispatch.Tensor) or isinstance(args[2], dispatch.Tensor)
    return "ClampBackward0" if tensors else "ClampBackward1"


@register_op("clamp.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor",
             **_BINARY, aliases=("clip",),
             derivatives={"self": _clamp_self, "min": _clamp_min, "max": _clamp_max},
             node_name=_clamp_name, tags=("no_fp_errors", "range_checked_scalars"))
def clamp(xp, self, min=None, max=None):
    """clamp(input, min=None, max=None, *, out=None) -> Tensor: limit values to [min, max].

    Where min > max every element becomes max; NaN in input or bounds propagates.
    """
    if min is None and max is None:
        _check(False, "torch.clamp: At least one of 'min' or 'max' must not be None")
    _check_clamp(self, min, max)
    # NOTE [ties keep self]; each step keeps its own input: clamp(-1, -0.0, 0.0) is -0.0.
    if min is None:
        return keep_self_at_ties(xp, self, xp.minimum(self, max), max)
    low = keep_self_at_ties(xp, self, xp.maximum(self, min), min)
    if max is None:
        return low
    return keep_self_at_ties(xp, low, xp.minimum(low, max), max)


@register_op("clamp_min.Tensor(Tensor self, Tensor min) -> Tensor", **_BINARY,
             derivatives={"self": lambda c: grad_where(c.self >= c.min, c.grad, 0.0),
                          "min": lambda c: grad_where(c.self < c.min, c.grad, 0.0)},
             node_name=by_kind(1, "ClampMinBackward1", "ClampMinBackward0"),
             tags=("no_fp_errors", "range_checked_scalars"))
def clamp_min(xp, self, min):
    """clamp_min(input, min, *, out=None) -> Tensor: max(input, min)."""
    _check_clamp(self, min, None, "clamp_min")
    return keep_self_at_ties(xp, self, xp.maximum(self, min), min)


@register_op("clamp_max.Tensor(Tensor self, Tensor max) -> Tensor", **_BINARY,
             derivatives={"self": lambda c: grad_where(c.self <= c.max, c.grad, 0.0),
                          "max": lambda c: grad_where(c.self > c.max, c.grad, 0.0)},
             node_name=by_kind(1, "ClampMaxBackward1", "ClampMaxBackward0"),
             tags=("no_fp_errors", "range_checked_scalars"))
def clamp_max(xp, self, max):
    """clamp_max(input, max, *, out=None) -> Tensor: min(input, max)."""
    _check_clamp(self, None, max, "clamp_max")
    return keep_self_at_ties(xp, self, xp.minimum(self, max), max)


# --------------------------------------------------------------------------- lerp / addc*

_FUSED_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))

@register_op("lerp.Tensor(Tensor self, Tensor end, Tensor weight) -> Tensor",
             kind="pointwise", function=False, method=False,
             derivatives={"self": lambda c: c.grad * conj(1 - c.weight),
                          "end": lambda c: c.grad * conj(c.weight),
                          "weight": lambda c: c.grad * conj(c.end - c.self)},
             node_name=by_kind(2, "LerpBackward1", "LerpBackward0"),
             tags=("unrounded_numbers",))
def lerp_tensor(xp, self, end, weight):
    """lerp(input, end, weight, *, out=None) -> Tensor: input + weight * (end - input)."""
    diff = end - self
    # Two forms, each exact at its own end (weight 0 gives input, weight 1 gives end); the
    # first where |weight| < 0.5, as PyTorch picks.
    small = xp.abs(weight) < 0.5
    return xp.where(small, self + weight * diff, end - diff * (1 - weight))


def lerp_number_into(self, end, weight, out=None, scratch=None):
    """lerp_tensor's arithmetic for float32 or float64 arrays `self` and `end` of one shape and
    dtype and a number `weight`: written into `out` (which may be `self`; None: a new array),
    the difference formed in `scratch` (None: a new array)."""
    small = np.abs(weight) < 0.5
    diff = np.subtract(end, self, out=scratch)
    weight = np.asarray(weight, self.dtype)
    if small:
        return fma(weight, diff, self, out=out)
    return fma(-diff if scratch is None else np.negative(diff, out=diff), 1 - weight, end,
               out=out)


_LERP_OP = OPS["lerp.Tensor"]


@_LERP_OP.impl("CPU")
def _lerp_tensor_cpu(xp, self, end, weight):
    """lerp's CPU entry (NOTE [the kernel table]): PyTorch's CPU kernel fuses each form into
    one multiply-add (NOTE [fused multiply-add]) for float32 and float64."""
    if self.dtype not in _FUSED_DTYPES:
        return lerp_tensor(np, self, end, weight)
    if np.ndim(weight) == 0 and end.shape == self.shape and end.dtype == self.dtype:
        return lerp_number_into(self, end, weight)
    diff = end - self
    small = np.abs(weight) < 0.5
    weight = np.asarray(weight, self.dtype)
    if weight.ndim == 0:
        return fma(weight, diff, self) if small else fma(-diff, 1 - weight, end)
    # fma takes operands of one shape: every one broadcast to the result's.
    shape = np.broadcast_shapes(weight.shape, diff.shape)
    weight, diff, self, end = (np.broadcast_to(v, shape) for v in (weight, diff, self, end))
    return np.where(small, fma(weight, diff, self), fma(-diff, 1 - weight, end))


def _check_lerp(input, end, weight):
    tensor_arg(input, "lerp", "input", 1)
    tensor_arg(end, "lerp", "end", 2)
    if not isinstance(weight, (dispatch.Tensor, int, float, complex, np.number)):
        arguments.refuse(("lerp", "weight", 3), "Tensor", weight)   # (the parser's, first)
    _check(end._dtype is input._dtype, lambda: (
        f"expected dtype {input._dtype} for `end` but got dtype {end._dtype}"))
    if isinstance(weight, dispatch.Tensor) and weight._data.ndim > 0:
        _check(weight._dtype is input._dtype, lambda: (
            f"expected dtype {input._dtype} for `weight` but got dtype {weight._dtype}"))
    if input._dtype._category < dt.FLOAT:
        raise NotImplementedError(
            f'"lerp_kernel_scalar" not implemented for \'{input._dtype._cpp_name}\'')


def lerp(input, end, weight, *, out=None):
    """lerp(input, end, weight, *, out=None) -> Tensor: input + weight * (end - input)."""
    if _state.entry and _wants(locals()):
        return _handle(lerp, locals())
    _check_lerp(input, end, weight)
    args = (input, end, weight)
    return call(_LERP_OP, args) if out is None else call_out(_LERP_OP, args, out)


def lerp_inplace(self, end, weight):
    if _state.entry and _wants(locals()):
        return _handle(lerp_inplace, locals())
    _check_lerp(self, end, weight)
    return call_inplace(_LERP_OP, (self, end, weight))


register_frontend("lerp", inplace=lerp_inplace)(lerp)


_ADDC_OLD_FORMS = ("self, value, tensor1, tensor2",)   # NOTE [deprecated argument orders]


@register_op("addcmul(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor",
             **_BINARY, saves=("tensor1", "tensor2"), deprecated_forms=_ADDC_OLD_FORMS,
             derivatives={"self": identity,
                          "tensor1": lambda c: c.grad * conj(c.tensor2 * c.value),
                          "tensor2": lambda c: c.grad * conj(c.tensor1 * c.value)})
def addcmul(xp, self, tensor1, tensor2, value=1):
    """addcmul(input, tensor1, tensor2, *, value=1, out=None) -> Tensor.

    input + value * tensor1 * tensor2.
    """
    if self.dtype.kind == "b":
        not_implemented_for("addcmul_cpu_out", self)
    # (value * tensor1) * tensor2, in PyTorch's order: a product that overflows (or a zero
    # value beside an infinity) gives what PyTorch's gives; complex tensors take the complex
    # product by value even where it is 1 (as addcdiv's, below).
    if type(value) is not int or value != 1 or tensor1.dtype.kind == "c":
        tensor1 = xp.multiply(tensor1, scalar_into(value, xp.result_type(tensor1, tensor2)))
    return xp.add(self, xp.multiply(tensor1, tensor2))


_ADDCDIV_INTEGER = (
    "Integer division with addcdiv is no longer supported, and in a future release addcdiv "
    "will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be "
    "implemented as (input + value * trunc(tensor1 / tensor2)).to(input.dtype) for integer "
    "inputs and as (input + value * tensor1 / tensor2) for float inputs. The future addcdiv "
    "behavior is just the latter implementation: (input + value * tensor1 / tensor2), for all "
    "dtypes.")


@register_op("addcdiv(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor",
             kind="pointwise", function=False, method=False, saves=("tensor1", "tensor2"),
             deprecated_forms=_ADDC_OLD_FORMS,
             derivatives={"self": identity,
                          "tensor1": lambda c: c.grad * conj(c.value / c.tensor2),
                          "tensor2": lambda c: -c.grad * conj(
                              c.value * c.tensor1 / (c.tensor2 * c.tensor2))},
             tags=("wide_unsigned",))
def addcdiv_kernel(xp, self, tensor1, tensor2, value=1):
    """addcdiv(input, tensor1, tensor2, *, value=1, out=None) -> Tensor.

    input + value * tensor1 / tensor2 (true division; integer tensor1 and tensor2 are refused).
    """
    _check(tensor1.dtype.kind not in "biu", _ADDCDIV_INTEGER)
    # (value * tensor1) / tensor2, in PyTorch's order (a zero value beside a zero or denormal
    # tensor2 adds zero, not NaN); a complex tensor1 is multiplied by value even where it is 1,
    # as a complex product: (1 + 0j) * (inf + 2j) is inf + nan j, so its quotient is NaN.
    if type(value) is not int or value != 1 or tensor1.dtype.kind == "c":
        quotient_dtype = xp.result_type(tensor1, tensor2, np.float32)
        tensor1 = xp.multiply(tensor1, scalar_into(value, quotient_dtype))
    return xp.add(self, xp.true_divide(tensor1, tensor2))


_ADDCDIV_OP = OPS["addcdiv"]


def _check_addcdiv(input, tensor1, tensor2, name="addcdiv", method=False, value=1):
    # Tensors only (PyTorch's parser takes no numbers here), checked before promotion: a float
    # input does not make integer operands acceptable.
    if not method:
        tensor_arg(input, name, "input", 1)
    tensor_arg(tensor1, name, "tensor1", 1 if method else 2)
    tensor_arg(tensor2, name, "tensor2", 2 if method else 3)
    if type(value) is int:
        arguments.check_scalar_int(value)
    _check(tensor1._dtype._category > dt.INT or tensor2._dtype._category > dt.INT,
           _ADDCDIV_INTEGER)


def addcdiv(_input=NOT_GIVEN, _tensor1=NOT_GIVEN, _tensor2=NOT_GIVEN, /, *_more,
            input=NOT_GIVEN, tensor1=NOT_GIVEN, tensor2=NOT_GIVEN, value=1, out=None):
    """addcdiv(input, tensor1, tensor2, *, value=1, out=None) -> Tensor."""
    if _state.entry and _wants(locals()):
        return _handle(addcdiv, locals())
    # (NOTE [deprecated argument orders]: the parameters as the generated bindings have them.)
    if _more or _tensor2 is NOT_GIVEN or input is not NOT_GIVEN or \
            tensor1 is not NOT_GIVEN or tensor2 is not NOT_GIVEN:
        input, tensor1, tensor2, value = deprecated_forms.bind(
            _ADDCDIV_OP, "addcdiv", False, (_input, _tensor1, _tensor2, *_more),
            {"input": input, "tensor1": tensor1, "tensor2": tensor2, "value": value})
    else:
        input, tensor1, tensor2 = _input, _tensor1, _tensor2
    _check_addcdiv(input, tensor1, tensor2, value=value)
    args = (input, tensor1, tensor2, value)
    return call(_ADDCDIV_OP, args) if out is None else call_out(_ADDCDIV_OP, args, out)


def _method_args(name, self, positional, tensor1, tensor2, value):
    """Tensor.addcdiv's and addcdiv_'s arguments (NOTE [deprecated argument orders])."""
    if len(positional) != 2 or positional[1] is NOT_GIVEN or tensor1 is not NOT_GIVEN or \
            tensor2 is not NOT_GIVEN:
        self, tensor1, tensor2, value = deprecated_forms.bind(
            _ADDCDIV_OP, name, True, (self, *positional),
            {"tensor1": tensor1, "tensor2": tensor2, "value": value})
    else:
        tensor1, tensor2 = positional
    _check_addcdiv(self, tensor1, tensor2, name, True, value)
    return self, tensor1, tensor2, value


def addcdiv_method(self, _tensor1=NOT_GIVEN, _tensor2=NOT_GIVEN, /, *_more,
                   tensor1=NOT_GIVEN, tensor2=NOT_GIVEN, value=1):
    if _state.entry and _wants(locals()):
        return _handle(addcdiv_method, locals())
    args = _method_args("addcdiv", self, (_tensor1, _tensor2, *_more), tensor1, tensor2, value)
    return call(_ADDCDIV_OP, args)


def addcdiv_inplace(self, _tensor1=NOT_GIVEN, _tensor2=NOT_GIVEN, /, *_more,
                    tensor1=NOT_GIVEN, tensor2=NOT_GIVEN, value=1):
    if _state.entry and _wants(locals()):
        return _handle(addcdiv_inplace, locals())
    args = _method_args("addcdiv_", self, (_tensor1, _tensor2, *_more), tensor1, tensor2, value)
    return call_inplace(_ADDCDIV_OP, args)


register_frontend("addcdiv", method=addcdiv_method, inplace=addcdiv_inplace)(addcdiv)


# PyTorch's Scalar overloads, offered to modes for number operands (NOTE [overload forms]).
register_form("clamp.Tensor", "clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor",
              numbers=(1, 2))
register_form("clamp_min.Tensor", "clamp_min(Tensor self, Scalar min) -> Tensor", numbers=(1,))
register_form("clamp_max.Tensor", "clamp_max(Tensor self, Scalar max) -> Tensor", numbers=(1,))
register_form("lerp.Tensor", "lerp.Scalar(Tensor self, Tensor end, Scalar weight) -> Tensor",
              numbers=(2,))
