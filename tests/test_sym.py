"""Symbolic scalars behave like Python numbers, and the sym_* helpers degrade to plain Python."""
import math

import pytest

import ember
from ember._sym import symbol

pytest.importorskip("sympy")


def test_symint_arithmetic_tracks_expression_and_hint():
    s0, s1 = symbol("s0", 6), symbol("s1", 4)
    total = s0 * 2 + s1 - 1
    assert isinstance(total, ember.SymInt)
    assert str(total) == "2*s0 + s1 - 1"
    assert int(total) == 15 and total.__index__() == 15
    assert isinstance(s0 / s1, ember.SymFloat) and float(s0 / s1) == 1.5
    assert int(s0 // s1) == 1 and int(s0 % s1) == 2 and int(s1 ** 2) == 16
    assert int(-s0) == -6 and int(abs(-s0)) == 6
    assert int(3 + s0) == 9 and int(10 - s0) == 4 and int(2 * s0) == 12
    assert float(s0 * 0.5) == 3.0 and isinstance(s0 * 0.5, ember.SymFloat)
    assert list(range(10))[s1] == 4      # usable as an index


def test_comparisons_give_symbools():
    s0, s1 = symbol("s0", 6), symbol("s1", 4)
    assert isinstance(s0 > s1, ember.SymBool)
    assert bool(s0 > s1) and not bool(s0 < s1) and bool(s0 >= 6) and bool(s0 == 6)
    assert bool((s0 > s1) & (s1 > 2)) and bool(~(s0 < s1))


def test_unknown_operands_return_not_implemented():
    s0 = symbol("s0", 2)
    assert s0.__add__("x") is NotImplemented
    assert s0.__lt__(object()) is NotImplemented
    with pytest.raises(TypeError):
        s0 + "x"
    with pytest.raises(TypeError):
        hash(s0)


def test_no_hint_means_no_guess():
    unknown = symbol("u0")
    with pytest.raises(RuntimeError, match="data-dependent"):
        int(unknown + 1)


def test_sym_functions_on_plain_numbers_are_plain():
    assert ember.sym_int(3.7) == 3 and type(ember.sym_int(3.7)) is int
    assert ember.sym_float(2) == 2.0 and type(ember.sym_float(2)) is float
    assert ember.sym_max(2, 5) == 5 and ember.sym_min(2, 5) == 2
    assert ember.sym_sum([1, 2, 3]) == 6 and ember.sym_sum([]) == 0
    assert ember.sym_not(True) is False
    assert ember.sym_ite(True, "a", "b") == "a" and ember.sym_ite(0, 1, 2) == 2


def test_sym_functions_on_symbols():
    s0, s1 = symbol("s0", 6), symbol("s1", 4)
    assert int(ember.sym_max(s0, s1)) == 6 and str(ember.sym_max(s0, s1)) == "Max(s0, s1)"
    assert int(ember.sym_min(s0, 3)) == 3
    total = ember.sym_sum([s0, s1, 1])
    assert str(total) == "s0 + s1 + 1" and int(total) == 11
    assert total.node.expr.func.__name__ == "Add" and len(total.node.expr.args) == 3
    assert int(ember.sym_ite(s0 > s1, s0, s1)) == 6
    assert bool(ember.sym_not(s0 > s1)) is False
    assert int(ember.sym_int(s0 / s1)) == 1
    assert float(ember.sym_float(s0)) == 6.0
    assert math.floor(s0 / s1).__int__() == 1


def test_plain_numbers_never_load_sympy():
    import subprocess
    import sys
    code = ("import sys, ember\n"
            "r = (ember.sym_int(3.7), ember.sym_float(2), ember.sym_max(2, 5), ember.sym_min(2.5, 1),"
            " ember.sym_sum([1, 2, 3]), ember.sym_not(0), ember.sym_ite(False, 1, 2))\n"
            "print(r, 'sympy' in sys.modules)\n"
            "from ember._sym import symbol\n"
            "s = symbol('s0', 3)\n"
            "print(int(ember.sym_max(s, 2)), 'sympy' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.stdout.split("\n")[:2] == ["(3, 2.0, 5, 1.0, 6, True, 2) False", "3 True"], \
        done.stderr


@pytest.mark.parametrize("name,args", [
    ("sym_int", (3.7,)), ("sym_int", (-3.7,)), ("sym_float", (2,)), ("sym_max", (2, 5)),
    ("sym_max", (2.5, 1)), ("sym_min", (2, 5.0)), ("sym_sum", ([1, 2, 3],)),
    ("sym_sum", ([1.5, 2],)), ("sym_not", (True,)), ("sym_not", (0,)),
    ("sym_ite", (True, 1, 2)), ("sym_ite", (False, 1.0, 2.0)),
])
def test_sym_functions_on_plain_numbers_match_pytorch(name, args):
    torch = pytest.importorskip("torch")
    ours, theirs = getattr(ember, name)(*args), getattr(torch, name)(*args)
    assert ours == theirs and type(ours) is type(theirs)
