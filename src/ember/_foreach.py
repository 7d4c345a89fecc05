"""`ember._foreach_*`: PyTorch's list-at-once functions (`_foreach_add`, `_foreach_mul_`,
`_foreach_norm` ...), which optimizers, EMA helpers and gradient clippers written against
PyTorch call directly.

The element-wise ones (unary, binary, addcmul/addcdiv, lerp) parse their arguments here, offer
the call to `__torch_function__` under their public name, and run the registry op of the
overload they chose (`_ops/foreach.py`, NOTE [foreach ops]); when an input needs grad they run
the per-tensor ops instead, so autograd records each. The others (norm, powsum, max, mm, clone,
copy_, zero_) are composites of the per-tensor ops. Values, dtypes and errors are the per-tensor
op's. What is foreach's own is the argument handling, as PyTorch's overloads have it:
- the first argument is a non-empty list or tuple of tensors;
- a second operand is a tensor list (elementwise), a number (to every tensor), a list of
  numbers (one per tensor) or, for add/mul/div, one 0-d tensor; a 0-d tensor stands for a number
  where there is no tensor overload;
- `alpha` exists only beside a tensor (list) operand of add and sub;
- out-of-place forms return a tuple of new tensors, in-place forms (`_` suffix) the list given.
"""
from __future__ import annotations

import numbers
import operator

import numpy as np

import ember
from ember._core.dispatch.process_state import state
from ember._core.dispatch.stack import call_aten, handle_torch_function, torch_function_wanted
from ember._core.dispatch.subclasses import PLAIN
from ember._core.registry import OPS
from ember._tensor import Tensor


def _all_plain(values) -> bool:
    """Whether every item is a Tensor or a plain-acting subclass (one C-level pass)."""
    types = set(map(type, values))
    types.discard(Tensor)
    return types <= PLAIN

UNARY = ["abs", "acos", "asin", "atan", "ceil", "cos", "cosh", "erf", "erfc", "exp", "expm1", "floor", "frac", "lgamma", "log", "log10", "log1p", "log2", "neg", "reciprocal", "round", "rsqrt", "sigmoid", "sign", "sin", "sinh", "sqrt", "tan", "tanh", "trunc"]
# name -> (per-tensor function with a tensor operand, with a number operand, overloads)
BINARY = {
    "add": ("add", "add", "Scalar List ScalarList Tensor"),
    "sub": ("sub", "sub", "Scalar List ScalarList"),
    "mul": ("mul", "mul", "Scalar List ScalarList Tensor"),
    "div": ("div", "div", "Scalar List ScalarList Tensor"),
    "clamp_min": ("clamp_min", "clamp_min", "Scalar List ScalarList"),
    "clamp_max": ("clamp_max", "clamp_max", "Scalar List ScalarList"),
    "maximum": ("maximum", "clamp_min", "Scalar List ScalarList"),
    "minimum": ("minimum", "clamp_max", "Scalar List ScalarList"),
    "pow": ("pow", "pow", "Scalar List ScalarList"),
}
_SIGNATURES = {
    "Scalar": "(tuple of Tensors self, Number scalar)",
    "List": "(tuple of Tensors self, tuple of Tensors other, *, Number alpha = 1)",
    "ScalarList": "(tuple of Tensors self, tuple of Scalars scalars)",
    "Tensor": "(tuple of Tensors self, Tensor other, *, Number alpha = 1)",
}


def _is_number(value) -> bool:
    return isinstance(value, (numbers.Number, np.generic)) and not isinstance(value, Tensor)


def _invalid(name, args, kwargs, overloads):
    got = ", ".join([type(a).__name__ for a in args] +
                    [f"{k}={type(v).__name__}" for k, v in kwargs.items()])
    lines = "".join(f"\n * {_SIGNATURES[o]}" for o in overloads.split())
    return TypeError(f"{name}() received an invalid combination of arguments - got ({got}), "
                     f"but expected one of:{lines}")


def _tensors(value, name, position, args=(), kwargs=None, overloads=None):
    """The tensor list argument at `position`, checked as PyTorch's parser checks it."""
    if not isinstance(value, (list, tuple)):
        if overloads:
            raise _invalid(name, args, kwargs or {}, overloads)
        raise TypeError(f"{name}(): argument '{'self' if position == 0 else 'other'}' "
                        f"(position {position + 1}) must be tuple of Tensors, not "
                        f"{type(value).__name__}")
    if _all_plain(value):     # (one C-level pass: the common call)
        return value
    for index, item in enumerate(value):
        if not isinstance(item, Tensor):
            raise TypeError(f"expected Tensor as element {index} in argument {position}, but "
                            f"got {type(item).__name__}")
    return value


def _nonempty(tensors):
    if not tensors:
        raise RuntimeError("Tensor list must have at least one tensor.")


def _same_length(tensors, others):
    if len(tensors) != len(others):
        raise RuntimeError(f"Tensor lists must have the same number of tensors, got "
                           f"{len(tensors)} and {len(others)}")


def _scalar_list(tensors, scalars, name, position):
    for index, item in enumerate(() if _NUMBER_TYPES.issuperset(map(type, scalars))
                                 else scalars):
        if not _is_number(item):
            raise TypeError(f"expected Tensor as element {index} in argument {position}, but "
                            f"got {type(item).__name__}")
    if len(scalars) != len(tensors):
        raise RuntimeError("Tensor list must have same number of elements as scalar list.")
    return scalars


def _operand(tensors, other, name, overloads, args, kwargs, alpha_given):
    """(kind, per-tensor operands) of a binary foreach call: kind is 'tensor' or 'number'."""
    if isinstance(other, (list, tuple)):
        if other and isinstance(other[0], Tensor) or alpha_given:
            others = _tensors(other, name, 1)
            _same_length(tensors, others)
            return "tensor", others
        return "number", _scalar_list(tensors, other, name, 1)
    if isinstance(other, Tensor):
        if "Tensor" in overloads.split():
            if other.ndim != 0:     # (the parser's test, which no mode sees)
                raise RuntimeError(f"scalar tensor expected to be 0 dim but it has {other.ndim} "
                                   f"dimensions and {other._data.size} elements.")
            return "tensor", [other] * len(tensors)
        if other.ndim == 0 and not alpha_given:
            return "number", [other.item()] * len(tensors)
    elif _is_number(other) and not alpha_given:
        return "number", [other] * len(tensors)
    raise _invalid(name, args, kwargs, overloads)


def _inplace_result(t, result):
    """Write `result` into `t` as an in-place op would: refused when its dtype cannot go back."""
    if not ember.can_cast(result.dtype, t.dtype):
        raise RuntimeError(f"result type {_type_name(result.dtype)} can't be cast to the "
                           f"desired output type {_type_name(t.dtype)}")
    t.copy_(result)


def _type_name(dtype):
    return {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
            "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
            "bool": "Bool", "complex64": "ComplexFloat",
            "complex128": "ComplexDouble"}.get(str(dtype).split(".")[-1], str(dtype))


_DTYPE_OF = operator.attrgetter("_dtype")
_NUMBER_TYPES = frozenset((int, float))
_REQUIRES_GRAD_OF = operator.attrgetter("_requires_grad")


def _kind_of_call(op_args):
    """"plain": every tensor a plain (or plain-acting) Tensor sharing one floating dtype, the
    numbers real (not bool), none needing grad: the registry op serves it, on its array path
    when no mode is open. "composite": integer or mixed dtypes, bool or complex numbers, an
    input needing grad: the per-tensor frontends (whose checks the per-tensor ops leave to
    them; autograd records each). "layered": a subclass that may ask for __torch_function__.
    (The lists are read with C-level passes: this runs on every call.)"""
    grad_on = state.grad_enabled()
    kind = "plain"
    dtypes = set()
    for value in op_args:
        tv = type(value)
        if tv is list:
            if value and not isinstance(value[0], Tensor):      # a list of numbers
                if not _NUMBER_TYPES.issuperset(map(type, value)):
                    return "composite"
                continue
            if not _all_plain(value):
                if not all(isinstance(v, Tensor) for v in value):
                    return "composite"
                kind = "layered"
            dtypes.update(map(_DTYPE_OF, value))
            if grad_on and any(map(_REQUIRES_GRAD_OF, value)):
                return "composite"
        elif tv is int or tv is float:
            continue
        elif isinstance(value, Tensor):
            if tv is not Tensor and tv not in PLAIN:
                kind = "layered"
            dtypes.add(value._dtype)
            if grad_on and value._requires_grad:
                return "composite"
        else:
            return "composite"
    if len(dtypes) != 1 or not next(iter(dtypes)).is_floating_point:
        return "composite"
    return kind


def _through_op(public, key, op_args, relevant, call_args, call_kwargs, composite):
    """The call's common end: `__torch_function__` under the public name, the per-tensor
    composite where the registry op does not serve the call, else the registry op `key` (its
    runner straight away when nothing can observe it: NOTE [the plain call])."""
    kind = _kind_of_call(op_args)
    if kind == "plain" and not state.slow:
        op = OPS[key]
        result = op.runner(op, op_args)
    elif torch_function_wanted(relevant):
        return handle_torch_function(public, relevant, call_args, call_kwargs)
    elif kind == "composite":
        return composite()
    else:
        result = call_aten(OPS[key], op_args)
    return call_args[0] if result is None else tuple(result)


def _make_unary(op_name, inplace):
    name = f"_foreach_{op_name}{'_' if inplace else ''}"

    def foreach(self):
        tensors = _tensors(self, name, 0)
        _nonempty(tensors)

        def composite():
            if inplace:
                for t in tensors:
                    getattr(t, op_name + "_")()
                return self
            function = getattr(ember, op_name)
            return tuple(function(t) for t in tensors)
        return _through_op(foreach, name, (list(tensors),), (self,), (self,), {}, composite)

    foreach.__name__ = foreach.__qualname__ = name
    foreach.__doc__ = f"`{op_name}` of every tensor of a list{' in place' if inplace else ''}."
    return foreach


def _make_binary(op_name, inplace):
    tensor_fn, number_fn, overloads = BINARY[op_name]
    name = f"_foreach_{op_name}{'_' if inplace else ''}"
    takes_alpha = op_name in ("add", "sub")

    def foreach(self, other, **kwargs):
        args = (self, other)
        if op_name == "pow" and _is_number(self) and not inplace:
            # pow's ScalarAndTensor overload: one base, a list of exponents.
            exponents = _tensors(other, name, 1)
            _nonempty(exponents)
            return tuple(ember.pow(self, e) for e in exponents)
        tensors = _tensors(self, name, 0, args, kwargs, overloads)
        unknown = set(kwargs) - ({"alpha"} if takes_alpha else set())
        if unknown:
            raise _invalid(name, args, kwargs, overloads)
        alpha = kwargs.get("alpha")
        _nonempty(tensors)
        kind, operands = _operand(tensors, other, name, overloads, args, kwargs,
                                  alpha is not None)
        extra = {"alpha": alpha} if alpha is not None else {}
        function = getattr(ember, tensor_fn if kind == "tensor" else number_fn)

        def composite():
            if not inplace:
                return tuple(function(t, o, **extra) for t, o in zip(tensors, operands))
            method = (tensor_fn if kind == "tensor" else number_fn) + "_"
            for t, o in zip(tensors, operands):
                if hasattr(Tensor, method):
                    getattr(t, method)(o, **extra)
                else:
                    _inplace_result(t, function(t, o, **extra))
            return self
        overload, op_args = _binary_overload(op_name, tensors, other, kind, operands, alpha)
        return _through_op(foreach, f"{name}.{overload}", op_args, (self, other), args, kwargs,
                           composite)

    foreach.__name__ = foreach.__qualname__ = name
    foreach.__doc__ = (f"`{op_name}` of every tensor of a list with a tensor list, a number, a "
                       f"list of numbers{' or a 0-d tensor' if 'Tensor' in overloads else ''}"
                       f"{' (in place)' if inplace else ''}.")
    return foreach


def _binary_overload(op_name, tensors, other, kind, operands, alpha):
    """(overload name, the registry op's arguments) of a parsed binary call."""
    alpha_arg = (1 if alpha is None else alpha,) if op_name in ("add", "sub") else ()
    tensors = list(tensors)
    if kind == "tensor":
        if isinstance(other, Tensor):
            return "Tensor", (tensors, other) + alpha_arg
        return "List", (tensors, list(operands)) + alpha_arg
    if isinstance(other, (list, tuple)):
        return "ScalarList", (tensors, list(operands))
    return "Scalar", (tensors, operands[0])


def _packed_scalars(scalars, count):
    if scalars.ndim != 1:
        raise RuntimeError(f"Expected packed scalar Tensor to be of dimension 1. Got "
                           f"{scalars.ndim} instead.")
    if scalars._data.size != count:
        raise RuntimeError(f"Expected length of scalars to match input of length {count} but "
                           f"got {scalars._data.size} instead.")
    return scalars.tolist()


def _make_pointwise(op_name, inplace):
    """addcmul / addcdiv: self + value * (tensor1 op tensor2), value one number, one per tensor
    (a list or a 1-D tensor)."""
    name = f"_foreach_{op_name}{'_' if inplace else ''}"

    def foreach(self, tensor1, tensor2, value=1):
        tensors = _tensors(self, name, 0)
        firsts = _tensors(tensor1, name, 1)
        seconds = _tensors(tensor2, name, 2)
        _nonempty(tensors)
        _same_length(tensors, firsts)
        _same_length(tensors, seconds)
        if isinstance(value, Tensor):
            values = _packed_scalars(value, len(tensors))
        elif isinstance(value, (list, tuple)):
            values = _scalar_list(tensors, value, name, 3)
        else:
            values = [value] * len(tensors)

        def composite():
            if inplace:
                for t, a, b, v in zip(tensors, firsts, seconds, values):
                    getattr(t, op_name + "_")(a, b, value=v)
                return self
            function = getattr(ember, op_name)
            return tuple(function(t, a, b, value=v)
                         for t, a, b, v in zip(tensors, firsts, seconds, values))
        lists = [list(tensors), list(firsts), list(seconds)]
        if isinstance(value, Tensor):
            key, last = "Tensor", value
        elif isinstance(value, (list, tuple)):
            key, last = "ScalarList", list(values)
        else:
            key, last = "Scalar", value
        return _through_op(foreach, f"{name}.{key}", (*lists, last),
                           (self, tensor1, tensor2, value), (self, tensor1, tensor2),
                           {} if value is None or (type(value) is int and value == 1)
                           else {"value": value}, composite)

    foreach.__name__ = foreach.__qualname__ = name
    foreach.__doc__ = f"`{op_name}` over lists of tensors{' in place' if inplace else ''}."
    return foreach


def _make_lerp(inplace):
    name = f"_foreach_lerp{'_' if inplace else ''}"

    def foreach(self, tensors1, weight):
        tensors = _tensors(self, name, 0)
        ends = _tensors(tensors1, name, 1)
        _nonempty(tensors)
        _same_length(tensors, ends)
        if isinstance(weight, (list, tuple)) and weight and isinstance(weight[0], Tensor):
            weights = _tensors(weight, name, 2)
            _same_length(tensors, weights)
        elif isinstance(weight, (list, tuple)):
            weights = _scalar_list(tensors, weight, name, 2)
        elif isinstance(weight, Tensor) and weight.ndim == 0:
            weights = [weight.item()] * len(tensors)
        elif _is_number(weight):
            weights = [weight] * len(tensors)
        else:
            raise TypeError(f"{name}(): argument 'weight' must be Number or tuple of Tensors, "
                            f"not {type(weight).__name__}")

        def composite():
            if inplace:
                for t, e, w in zip(tensors, ends, weights):
                    t.lerp_(e, w)
                return self
            return tuple(ember.lerp(t, e, w) for t, e, w in zip(tensors, ends, weights))
        if isinstance(weight, (list, tuple)) and weight and isinstance(weight[0], Tensor):
            key, last = "List", list(weights)
        elif isinstance(weight, (list, tuple)):
            key, last = "ScalarList", list(weights)
        else:
            key, last = "Scalar", weights[0]
        return _through_op(foreach, f"{name}.{key}", (list(tensors), list(ends), last),
                           (self, tensors1, weight), (self, tensors1, weight), {}, composite)

    foreach.__name__ = foreach.__qualname__ = name
    foreach.__doc__ = "`lerp` over lists of tensors" + (" in place." if inplace else ".")
    return foreach


def _foreach_norm(self, ord=2, dtype=None):
    """The vector norm of every tensor of a list (a tuple of 0-d tensors)."""
    tensors = _tensors(self, "_foreach_norm", 0)
    _nonempty(tensors)

    def composite():
        return tuple(ember.linalg.vector_norm(t, ord, dtype=dtype) for t in tensors)
    if type(ord) is not int and type(ord) is not float or dtype is not None:
        return composite()
    return _through_op(_foreach_norm, "_foreach_norm.Scalar", (list(tensors), ord), (self,),
                       (self,), {"ord": ord, "dtype": dtype}, composite)


def _foreach_powsum(self, ord=2, dtype=None):
    """The sum of |x| ** ord over every tensor of a list (a tuple of 0-d tensors)."""
    tensors = _tensors(self, "_foreach_powsum", 0)
    _nonempty(tensors)
    return tuple(ember.sum(ember.pow(t.abs(), ord), dtype=dtype) for t in tensors)


def _foreach_max(self):
    """The largest element of every tensor of a list (a tuple of 0-d tensors)."""
    tensors = _tensors(self, "_foreach_max", 0)
    _nonempty(tensors)
    for t in tensors:
        if t.numel() == 0:
            raise RuntimeError("_foreach_max cannot compute the maximum of an empty tensor; max "
                               "over zero elements is undefined.")
    return tuple(t.max() for t in tensors)


def _foreach_mm(self, mat2):
    """The matrix product of every pair of two lists."""
    tensors = _tensors(self, "_foreach_mm", 0)
    others = _tensors(mat2, "_foreach_mm", 1)
    _nonempty(tensors)
    _same_length(tensors, others)
    return tuple(ember.mm(a, b) for a, b in zip(tensors, others))


def _foreach_clone(self, *, memory_format=None):
    """A copy of every tensor of a list."""
    tensors = _tensors(self, "_foreach_clone", 0)
    _nonempty(tensors)
    extra = {} if memory_format is None else {"memory_format": memory_format}
    return tuple(t.clone(**extra) for t in tensors)


def _foreach_copy_(self, src, non_blocking=False):
    """Copy every tensor of `src` into the tensor of `self` at its place."""
    tensors = _tensors(self, "_foreach_copy_", 0)
    sources = _tensors(src, "_foreach_copy_", 1)
    _nonempty(tensors)
    _same_length(tensors, sources)

    def composite():
        for t, s in zip(tensors, sources):
            t.copy_(s, non_blocking)
        return self
    # (the registry op for lists of one floating dtype without grad; `non_blocking` given,
    # or other lists, run the per-tensor copies)
    op_args = (list(tensors), list(sources)) + ((non_blocking,) if non_blocking else ())
    return _through_op(_foreach_copy_, "_foreach_copy_", op_args, (self, src), (self, src),
                       {"non_blocking": non_blocking} if non_blocking else {}, composite)


def _foreach_zero_(self):
    """Fill every tensor of a list with zeros."""
    tensors = _tensors(self, "_foreach_zero_", 0)
    _nonempty(tensors)
    for t in tensors:
        t.zero_()
    return self


def _build() -> dict:
    functions = {}
    for inplace in (False, True):
        suffix = "_" if inplace else ""
        for op_name in UNARY:
            functions[f"_foreach_{op_name}{suffix}"] = _make_unary(op_name, inplace)
        for op_name in BINARY:
            functions[f"_foreach_{op_name}{suffix}"] = _make_binary(op_name, inplace)
        for op_name in ("addcmul", "addcdiv"):
            functions[f"_foreach_{op_name}{suffix}"] = _make_pointwise(op_name, inplace)
        functions[f"_foreach_lerp{suffix}"] = _make_lerp(inplace)
    for fn in (_foreach_norm, _foreach_powsum, _foreach_max, _foreach_mm, _foreach_clone,
               _foreach_copy_, _foreach_zero_):
        functions[fn.__name__] = fn
    return functions


FUNCTIONS = _build()
NAMES = tuple(sorted(FUNCTIONS))
globals().update(FUNCTIONS)
