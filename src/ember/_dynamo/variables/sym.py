"""A size of a dynamic dimension during capture (NOTE [dynamic dimensions] in dynamic.py):
computed in the graph (`x.size(d)`, arithmetic on it) so that the graph stays right for
other sizes, and made static the moment Python needs its number."""
from __future__ import annotations

import operator

from ember._dynamo.variables.base import ConstantVariable

# Arithmetic that stays in the graph; anything else (comparisons, range(), an index, a
# format) reads `value`, which specializes.
_IN_PLACE = {operator.iadd: operator.add, operator.isub: operator.sub,
             operator.imul: operator.mul, operator.ifloordiv: operator.floordiv,
             operator.itruediv: operator.truediv, operator.imod: operator.mod,
             operator.ipow: operator.pow}
ARITHMETIC = frozenset({operator.add, operator.sub, operator.mul, operator.floordiv,
                        operator.truediv, operator.mod, operator.pow, *_IN_PLACE})


class SymSizeVariable(ConstantVariable):
    """`node` computes the value in the graph; `hint` is the value at this capture;
    `depends` are (input TensorVariable or None for every input, dims) it was read from.
    Reading `value` (what every constant use does) makes those dims static."""

    direct = None     # (input TensorVariable, dim) for the size itself (not arithmetic on it)

    def __init__(self, output, node, hint, depends):
        self.output = output
        self.node = node
        self.hint = hint
        self.depends = depends
        self.source = None

    @property
    def value(self):
        for var, dims in self.depends:
            self.output.specialize(var, dims)
        return self.hint

    def __repr__(self):
        return f"SymSizeVariable({self.node}, hint={self.hint})"


COMPARISONS = frozenset({operator.lt, operator.le, operator.gt, operator.ge, operator.eq,
                         operator.ne})


def compare(output, op, left, right):
    """An input's dynamic size compared with an int: the answer is a constant, guarded as a
    relation (SIZE_RELATION: `x.size(0) > 5` stays true) rather than the size made static."""
    sym, other, flipped = (left, right, False) if symbolic(left) else (right, left, True)
    value = other.as_constant()
    result = op(value, sym.hint) if flipped else op(sym.hint, value)
    var, dim = sym.direct
    output.add_size_relation(var, dim, op, value, flipped, result)
    return ConstantVariable(result)


def symbolic(value) -> bool:
    return type(value) is SymSizeVariable


def arithmetic(output, op, args):
    """`op(*args)` with a SymSizeVariable among `args`: a new one computed in the graph."""
    op = _IN_PLACE.get(op, op)
    hints = [a.hint if symbolic(a) else a.as_constant() for a in args]
    nodes = [a.node if symbolic(a) else a.as_constant() for a in args]
    depends = [d for a in args if symbolic(a) for d in a.depends]
    node = output.graph.call_function(op, tuple(nodes))
    return SymSizeVariable(output, node, op(*hints), depends)
