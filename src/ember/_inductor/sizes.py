"""Sizes the generated C takes as arguments: NOTE [symbolic sizes in kernels].

NOTE [symbolic sizes in kernels]: a graph with dynamic dimensions (NOTE [dynamic dimensions]
in ember/_dynamo/dynamic.py) is still lowered once per set of input sizes (make_fx and the
lowering are Python and cheap), but its kernels should not be compiled again for each: the C
compiler is what costs. So while such a graph is lowered, each dynamic input dimension is a
`SymSize`: an int holding this call's size (every Python decision is made with it, as for a
static size) that prints, in C, as a name (`ks0`, `ks1` ...), a kernel argument. Sums,
products and quotients of them print as C expressions of the names. Shapes made anywhere in
the IR (`ir.Buffer`, `Pointwise`, `Reduction`, `View`) go through `symbolic`, which puts the
names back on plain ints equal to a dynamic size or to a product of consecutive dims of an
input holding one (a flattened batch).
Why this is always right: the C of a variant is generated from that variant's own lowering,
and every name it prints stands for a value equal to the int it replaces; the names' values
are passed with each call. Two size sets whose C text comes out the same therefore share one
compiled object (the kernel cache is keyed by the text), and when some decision differs (a
parallel pragma, a size that matched no name) the text differs and that variant is compiled:
sharing is a saving, never a condition of correctness.
"""
from __future__ import annotations

import re
import threading

_local = threading.local()
NAME = re.compile(r"\bks(\d+)\b")


def _expr(v) -> str:
    return v.expr if type(v) is SymSize else str(int(v))


class SymSize(int):
    """An int (this variant's size) whose `str` is a C expression over the kernel's size
    arguments; `repr` stays the number (the Python wrapper prints sizes with it)."""

    def __new__(cls, value, expr):
        obj = int.__new__(cls, value)
        obj.expr = expr
        return obj

    def __str__(self):
        return self.expr

    def __format__(self, spec):
        return self.expr if not spec else format(int(self), spec)

    def __repr__(self):
        return int.__repr__(self)

    def __reduce__(self):
        return (int, (int(self),))

    def _op(self, other, op, value, identity=None):
        if not isinstance(other, int) or isinstance(other, bool):
            return NotImplemented
        if identity is not None and type(other) is not SymSize and other == identity:
            return self
        return SymSize(value, f"({_expr(self)}{op}{_expr(other)})")

    def __mul__(self, other):
        if type(other) is not SymSize and other == 0:
            return 0
        return self._op(other, "*", int(self) * int(other), 1)

    def __rmul__(self, other):
        if type(other) is not SymSize and isinstance(other, int) and other == 0:
            return 0
        if type(other) is not SymSize and isinstance(other, int) and other == 1:
            return self
        if not isinstance(other, int):
            return NotImplemented
        return SymSize(int(other) * int(self), f"({_expr(other)}*{self.expr})")

    def __add__(self, other):
        return self._op(other, "+", int(self) + int(other), 0)

    def __radd__(self, other):
        if not isinstance(other, int):
            return NotImplemented
        if type(other) is not SymSize and other == 0:
            return self
        return SymSize(int(other) + int(self), f"({_expr(other)}+{self.expr})")

    def __sub__(self, other):
        return self._op(other, "-", int(self) - int(other), 0)

    def __rsub__(self, other):
        if not isinstance(other, int):
            return NotImplemented
        return SymSize(int(other) - int(self), f"({_expr(other)}-{self.expr})")

    def __floordiv__(self, other):
        # Sizes are never negative: C's `/` on them is Python's `//`.
        return self._op(other, "/", int(self) // int(other), 1)

    __hash__ = int.__hash__


class symbols:
    """`with symbols(table):` while a graph is lowered; `table` maps a size to its SymSize."""

    def __init__(self, table):
        self.table = table

    def __enter__(self):
        self.old = getattr(_local, "table", None)
        _local.table = self.table

    def __exit__(self, *exc):
        _local.table = self.old


def active() -> bool:
    return bool(getattr(_local, "table", None))


def symbolic(shape) -> tuple:
    """`shape` with each plain int that equals a dynamic size (or a product of consecutive
    dims holding one) replaced by its SymSize; unchanged outside `symbols`."""
    table = getattr(_local, "table", None)
    if not table:
        return tuple(shape)
    return tuple(s if type(s) is SymSize else table.get(s, s) for s in shape)


def input_table(shapes_and_dims):
    """From [(shape, dynamic dims)] of the graph's inputs: the SymSize shapes of the inputs
    and the lookup table (first come, first kept)."""
    table, shapes, count = {}, [], 0
    for shape, dims in shapes_and_dims:
        new = []
        for d, size in enumerate(shape):
            if d in dims:
                size = SymSize(size, f"ks{count}")
                count += 1
                table.setdefault(int(size), size)
            new.append(size)
        shapes.append(tuple(new))
        if dims:
            for start in range(len(new)):
                run = new[start]
                for end in range(start + 1, len(new)):
                    run = run * new[end]
                    if type(run) is SymSize and int(run) >= 2:
                        table.setdefault(int(run), run)
    return shapes, table


def size_args(code: str) -> list:
    """The size argument names a kernel's C reads, in order (`ks0`, `ks3` ...)."""
    return [f"ks{n}" for n in sorted({int(m) for m in NAME.findall(code)})]
