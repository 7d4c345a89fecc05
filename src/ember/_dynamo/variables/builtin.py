"""Python builtins during capture: folded on constants, followed on containers and tensor
shapes, a graph break where they would need a tensor's data or do I/O (`print`)."""
from __future__ import annotations

import builtins
import types
import operator

from ember._dynamo.exc import unimplemented
from ember._dynamo.variables.base import ConstantVariable, VariableTracker, constant_or_fail
from ember._dynamo.variables.containers import (
    BaseListVariable,
    DictVariable,
    ListVariable,
    TupleVariable,
)
from ember._dynamo.variables.sym import ARITHMETIC, COMPARISONS, arithmetic, compare, symbolic
from ember._dynamo.variables.tensor import TensorVariable

# Builtins with no side effects: on constant arguments they fold.
_PURE = frozenset({abs, all, any, bool, chr, divmod, float, int, len, max, min, ord, pow,
                   repr, round, str, sum, hash, complex, sorted, reversed})


def python_value(var):
    """The Python value of a constant-like variable (types included, for isinstance)."""
    from ember._dynamo.variables.functions import UnsupportedCallableVariable
    if isinstance(var, BuiltinVariable):
        return var.fn
    if isinstance(var, UnsupportedCallableVariable) and isinstance(var.value, type):
        return var.value
    if isinstance(var, TupleVariable):
        return tuple(python_value(i) for i in var.items)
    return var.as_constant()


class BuiltinVariable(VariableTracker):
    def __init__(self, fn, source=None):
        self.fn = fn
        self.source = source

    def python_type(self):
        return type(self.fn)

    def call(self, tx, args, kwargs):
        fn = self.fn
        handler = _HANDLERS.get(fn)
        if handler is not None:
            return handler(tx, args, kwargs)
        if fn in _PURE or getattr(fn, "__module__", None) == "math":
            if all(a.is_constant() for a in args) and all(v.is_constant() for v in
                                                          kwargs.values()):
                values = [a.as_constant() for a in args]
                named = {k: v.as_constant() for k, v in kwargs.items()}
                return constant_or_fail(fn(*values, **named))
            if fn in (abs, pow) and any(isinstance(a, TensorVariable) for a in args):
                return tx.output.call_op("call_function", fn, args, kwargs)
        if fn is print:
            unimplemented("print() is a Python side effect")
        unimplemented(f"builtin {getattr(fn, '__name__', fn)} with arguments "
                      f"{[type(a).__name__ for a in args]}")

    def __repr__(self):
        return f"BuiltinVariable({getattr(self.fn, '__name__', self.fn)})"


def _len(tx, args, kwargs):
    (value,) = args
    if isinstance(value, TensorVariable):
        if value.example.dim() == 0:
            unimplemented("len() of a 0-d tensor")
        return tx.output.size_of(value, 0)
    if isinstance(value, (BaseListVariable, DictVariable)):
        return ConstantVariable(len(value.items))
    return ConstantVariable(len(value.as_constant()))


def _isinstance(tx, args, kwargs):
    value, classes = args
    return ConstantVariable(issubclass(value.python_type(), python_value(classes)))


def _from_items(kind):
    def build(tx, args, kwargs):
        items = args[0].unpack(tx) if args else []
        return ListVariable(items) if kind is list else TupleVariable(items)
    return build


def _dict(tx, args, kwargs):
    if args:
        unimplemented("dict() from a positional argument")
    return DictVariable(kwargs)


def _enumerate(tx, args, kwargs):
    start = args[1].as_constant() if len(args) > 1 else 0
    return TupleVariable([TupleVariable([ConstantVariable(i + start), v])
                          for i, v in enumerate(args[0].unpack(tx))])


def _zip(tx, args, kwargs):
    if kwargs:
        unimplemented("zip(strict=...)")
    columns = [a.unpack(tx) for a in args]
    return TupleVariable([TupleVariable(list(row)) for row in zip(*columns)])


def _getattr(tx, args, kwargs):
    name = args[1].as_constant()
    if len(args) == 3:
        unimplemented("getattr with a default")
    return args[0].getattr(tx, name)


def _type(tx, args, kwargs):
    from ember._dynamo.variables.functions import ClassVariable
    return ClassVariable(args[0].python_type())


def _sum(tx, args, kwargs):
    items = args[0].unpack(tx)
    total = args[1] if len(args) > 1 else ConstantVariable(0)
    for item in items:
        total = binary(tx, operator.add, total, item)
    return total


def _minmax(fn):
    def handle(tx, args, kwargs):
        if kwargs or any(not a.is_constant() for a in args):
            unimplemented(f"{fn.__name__}() over values that are not constants")
        return constant_or_fail(fn(*[a.as_constant() for a in args]))
    return handle


_HANDLERS = {len: _len, isinstance: _isinstance, list: _from_items(list),
             tuple: _from_items(tuple), dict: _dict, enumerate: _enumerate, zip: _zip,
             getattr: _getattr, type: _type, sum: _sum, min: _minmax(min), max: _minmax(max),
             range: lambda tx, args, kwargs: ConstantVariable(
                 range(*[a.as_constant() for a in args]))}


def binary(tx, op, left, right):
    """`left op right` for an operator-module function: a graph node when a tensor is
    involved, folded on constants, container concatenation followed."""
    if isinstance(left, TensorVariable) or isinstance(right, TensorVariable):
        return tx.output.call_op("call_function", op, [left, right], {})
    if (symbolic(left) or symbolic(right)) and op in ARITHMETIC and \
            all(symbolic(v) or (v.is_constant() and type(v.as_constant()) in (int, float))
                for v in (left, right)):
        return arithmetic(tx.output, op, [left, right])
    if op in COMPARISONS and any(symbolic(v) and v.direct is not None and
                                 not symbolic(o) and o.is_constant() and
                                 type(o.as_constant()) is int
                                 for v, o in ((left, right), (right, left))):
        return compare(tx.output, op, left, right)
    if left.is_constant() and right.is_constant() and not isinstance(left, BaseListVariable) \
            and not isinstance(right, BaseListVariable):
        return constant_or_fail(op(left.as_constant(), right.as_constant()))
    if op in (operator.add, operator.iadd) and isinstance(left, BaseListVariable) and \
            isinstance(right, BaseListVariable) and left.kind is right.kind:
        if op is operator.iadd and isinstance(left, ListVariable):
            left.call_method(tx, "extend", [right], {})
            return left
        return type(left)(left.items + right.items)
    if op in (operator.mul, operator.imul) and isinstance(left, BaseListVariable) and \
            right.is_constant():
        return type(left)(left.items * right.as_constant())
    if op in (operator.eq, operator.ne, operator.is_, operator.is_not) and \
            left.is_constant() and right.is_constant():
        return ConstantVariable(op(left.as_constant(), right.as_constant()))
    unimplemented(f"operator {op.__name__} on {left} and {right}")


def is_builtin(value) -> bool:
    """A builtin, or a function of the `math` module (folded on constant arguments)."""
    name = getattr(value, "__name__", None)
    if name is None:
        return False
    if getattr(builtins, name, None) is value:
        return True
    return type(value) is types.BuiltinFunctionType and \
        getattr(value, "__module__", None) == "math"


