"""Symbolic scalars: `SymInt`, `SymFloat`, `SymBool`.

Each wraps a `SymNode`: a SymPy expression (SymPy is imported on first use) and, when known, a
concrete `hint` value. They behave like Python numbers: arithmetic and comparison build new
symbolic values; `int()`, `float()`, `bool()` and `__index__` read the hint. ember has no
compiler or tracer: tensor sizes are always plain ints, and these types are here for programs
and libraries that build or test symbolic values themselves.
The `sym_*` functions work on symbolic and plain values alike and return plain Python values
for plain inputs.
"""
from __future__ import annotations

import builtins
import math


def _sympy():
    import sympy
    return sympy


class SymNode:
    """A symbolic expression with its Python type (int, float, bool) and an optional hint."""

    __slots__ = ("expr", "hint", "pytype")

    def __init__(self, expr, pytype, hint=None):
        self.expr = expr
        self.pytype = pytype
        self.hint = hint

    def __repr__(self) -> str:
        return f"SymNode({self.expr}, {self.pytype.__name__}, hint={self.hint})"


def symbol(name: str, hint=None, pytype=int):
    """A fresh symbolic scalar named `name` (e.g. a tensor size "s0") with an optional hint."""
    sympy = _sympy()
    assumptions = {"integer": True} if pytype is int else (
        {"real": True} if pytype is float else {})
    expr = sympy.Symbol(name, **assumptions)
    return _wrap(SymNode(expr, pytype, hint))


def _wrap(node: SymNode):
    return {int: SymInt, float: SymFloat, bool: SymBool}[node.pytype](node)


def _is_plain(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, SymBase)


def _expr_and_hint(value):
    if isinstance(value, SymBase):
        return value.node.expr, value.node.hint
    sympy = _sympy()
    if isinstance(value, bool):
        return sympy.true if value else sympy.false, value
    if isinstance(value, int):
        return sympy.Integer(value), value
    return sympy.Float(value), value


def _result_type(a, b):
    kinds = {_pytype(a), _pytype(b)}
    if float in kinds:
        return float
    return int


def _pytype(value):
    if isinstance(value, SymBase):
        return value.node.pytype
    if isinstance(value, bool):
        return int
    return type(value) if type(value) in (int, float) else float


def _operand_ok(value) -> bool:
    return isinstance(value, (SymInt, SymFloat, SymBool, int, float))


def _binary(op_expr, op_hint, pytype=None):
    def method(self, other):
        if not _operand_ok(other):
            return NotImplemented
        a_expr, a_hint = _expr_and_hint(self)
        b_expr, b_hint = _expr_and_hint(other)
        kind = pytype or _result_type(self, other)
        hint = None if a_hint is None or b_hint is None else op_hint(a_hint, b_hint)
        return _wrap(SymNode(op_expr(a_expr, b_expr), kind, hint))

    def reflected(self, other):
        if not _operand_ok(other):
            return NotImplemented
        return method(_constant(other), self)
    return method, reflected


def _constant(value):
    expr, hint = _expr_and_hint(value)
    return _wrap(SymNode(expr, _pytype(value) if not isinstance(value, bool) else int, hint))


def _floordiv(a, b):
    return _sympy().floor(a / b)


def _truediv(a, b):
    return a / b


def _compare(op_expr, op_hint):
    def method(self, other):
        if not _operand_ok(other):
            return NotImplemented
        a_expr, a_hint = _expr_and_hint(self)
        b_expr, b_hint = _expr_and_hint(other)
        hint = None if a_hint is None or b_hint is None else op_hint(a_hint, b_hint)
        return SymBool(SymNode(op_expr(a_expr, b_expr), bool, hint))
    return method


class SymBase:
    __slots__ = ("node",)

    def __init__(self, node: SymNode):
        self.node = node

    def _hint(self, what):
        hint = self.node.hint
        if hint is None:
            raise RuntimeError(f"Could not guard on data-dependent expression {self.node.expr} "
                               f"(no hint to convert it with {what})")
        return hint

    def __repr__(self) -> str:
        return str(self.node.expr)

    def __str__(self) -> str:
        return str(self.node.expr)

    def __hash__(self):
        raise TypeError(f"unhashable type: non-nested {type(self).__name__}")

    __eq__ = _compare(lambda a, b: _sympy().Eq(a, b), lambda a, b: a == b)
    __ne__ = _compare(lambda a, b: _sympy().Ne(a, b), lambda a, b: a != b)
    __lt__ = _compare(lambda a, b: a < b, lambda a, b: a < b)
    __le__ = _compare(lambda a, b: a <= b, lambda a, b: a <= b)
    __gt__ = _compare(lambda a, b: a > b, lambda a, b: a > b)
    __ge__ = _compare(lambda a, b: a >= b, lambda a, b: a >= b)

    __add__, __radd__ = _binary(lambda a, b: a + b, lambda a, b: a + b)
    __sub__, __rsub__ = _binary(lambda a, b: a - b, lambda a, b: a - b)
    __mul__, __rmul__ = _binary(lambda a, b: a * b, lambda a, b: a * b)
    __truediv__, __rtruediv__ = _binary(_truediv, lambda a, b: a / b, float)
    __floordiv__, __rfloordiv__ = _binary(_floordiv, lambda a, b: a // b)
    __mod__, __rmod__ = _binary(lambda a, b: _sympy().Mod(a, b), lambda a, b: a % b)
    __pow__, __rpow__ = _binary(lambda a, b: a ** b, lambda a, b: a ** b)

    def __neg__(self):
        hint = None if self.node.hint is None else -self.node.hint
        return _wrap(SymNode(-self.node.expr, self.node.pytype, hint))

    def __pos__(self):
        return self

    def __abs__(self):
        hint = None if self.node.hint is None else abs(self.node.hint)
        return _wrap(SymNode(_sympy().Abs(self.node.expr), self.node.pytype, hint))

    def __int__(self) -> int:
        return int(self._hint("int()"))

    def __float__(self) -> float:
        return float(self._hint("float()"))

    def __bool__(self) -> bool:
        return bool(self._hint("bool()"))


class SymInt(SymBase):
    """A symbolic integer: an int-like value over a SymPy expression."""

    __slots__ = ()

    def __index__(self) -> int:
        return int(self._hint("__index__"))

    def __round__(self, ndigits=None):
        return self

    def __trunc__(self):
        return self

    def __floor__(self):
        return self

    def __ceil__(self):
        return self


class SymFloat(SymBase):
    """A symbolic float."""

    __slots__ = ()

    def is_integer(self) -> bool:
        return float(self).is_integer()

    def __floor__(self):
        hint = None if self.node.hint is None else math.floor(self.node.hint)
        return SymInt(SymNode(_sympy().floor(self.node.expr), int, hint))

    def __ceil__(self):
        hint = None if self.node.hint is None else math.ceil(self.node.hint)
        return SymInt(SymNode(_sympy().ceiling(self.node.expr), int, hint))

    def __trunc__(self):
        hint = None if self.node.hint is None else math.trunc(self.node.hint)
        expr = self.node.expr
        sympy = _sympy()
        return SymInt(SymNode(sympy.sign(expr) * sympy.floor(sympy.Abs(expr)), int, hint))


class SymBool(SymBase):
    """A symbolic boolean (the result of comparing symbolic values)."""

    __slots__ = ()

    def _logic(self, other, op_expr, op_hint):
        if not isinstance(other, (bool, SymBool)):
            return NotImplemented
        a_expr, a_hint = _expr_and_hint(self)
        b_expr, b_hint = _expr_and_hint(other)
        hint = None if a_hint is None or b_hint is None else op_hint(a_hint, b_hint)
        return SymBool(SymNode(op_expr(a_expr, b_expr), bool, hint))

    def __and__(self, other):
        return self._logic(other, lambda a, b: _sympy().And(a, b), lambda a, b: a and b)

    __rand__ = __and__

    def __or__(self, other):
        return self._logic(other, lambda a, b: _sympy().Or(a, b), lambda a, b: a or b)

    __ror__ = __or__

    def __invert__(self):
        return sym_not(self)


# --------------------------------------------------------------------------- sym_* functions

def sym_int(a):
    """int(a) for plain numbers; a SymInt (truncated toward zero) for symbolic ones."""
    if isinstance(a, SymInt):
        return a
    if isinstance(a, SymFloat):
        return math.trunc(a)
    return builtins.int(a)


def sym_float(a):
    """`a` as a float: a SymFloat for a symbolic value, a Python float otherwise."""
    if isinstance(a, SymFloat):
        return a
    if isinstance(a, SymBase):
        hint = None if a.node.hint is None else float(a.node.hint)
        return SymFloat(SymNode(a.node.expr * 1.0, float, hint))
    return builtins.float(a)


def _n_ary(plain, sympy_name, values):
    if all(_is_plain(v) for v in values):
        result = plain(values)
        # As arithmetic does: one float among the operands makes the result a float.
        if type(result) is not float and any(type(v) is float for v in values):
            return builtins.float(result)
        return result
    sympy = _sympy()
    exprs, hints = zip(*(_expr_and_hint(v) for v in values))
    kind = float if any(_pytype(v) is float for v in values) else int
    hint = None if any(h is None for h in hints) else plain(list(hints))
    return _wrap(SymNode(getattr(sympy, sympy_name)(*exprs), kind, hint))


def sym_max(a, b):
    """max(a, b), symbolic when either is."""
    return _n_ary(builtins.max, "Max", [a, b])


def sym_min(a, b):
    """min(a, b), symbolic when either is."""
    return _n_ary(builtins.min, "Min", [a, b])


def sym_sum(args):
    """The sum of `args` as one n-ary node (not a chain of binary additions)."""
    args = list(args)
    if not args:
        return 0
    return _n_ary(builtins.sum, "Add", args)


def sym_not(a):
    """Logical not of `a`, symbolic when `a` is."""
    if isinstance(a, SymBool):
        hint = None if a.node.hint is None else not a.node.hint
        return SymBool(SymNode(_sympy().Not(a.node.expr), bool, hint))
    return not a


def sym_ite(b, t, f):
    """`t if b else f`, symbolic when `b` is a SymBool."""
    if isinstance(b, SymBool):
        sympy = _sympy()
        t_expr, t_hint = _expr_and_hint(t)
        f_expr, f_hint = _expr_and_hint(f)
        hint = None if b.node.hint is None else (t_hint if b.node.hint else f_hint)
        return _wrap(SymNode(sympy.Piecewise((t_expr, b.node.expr), (f_expr, True)),
                             _result_type(t, f), hint))
    return t if b else f
