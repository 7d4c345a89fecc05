"""A Python number (or a wider zero-dim tensor) beside a float16 / bfloat16 tensor is first
converted to the tensor's dtype, as PyTorch converts every operand to the common dtype before
computing (NOTE [half operands round first]); mul and div read it at full precision. Compared
with PyTorch bit for bit, over the comparisons and the binary arithmetic."""
import math

import numpy as np
import pytest
import torch

import ember

HALF_TYPES = ["float16", "bfloat16"]
NUMBERS = [0.1, 1e-8, 1e6, 2 ** 31, 65536.0, 1.0001, 0.3, -2.5e-5, 1e300, 3]
ROUNDING = ["add", "sub", "rsub", "eq", "ne", "lt", "le", "gt", "ge", "remainder", "fmod",
            "atan2", "hypot", "pow", "maximum", "minimum"]
# Not compared here: the sign of a zero from maximum / minimum (PyTorch's loops differ), pow's
# refusal of an exponent past the half type's range and bfloat16's integer powers, logaddexp's
# last-bit rounding, `number / x` (PyTorch's __rtruediv__ is reciprocal(x) * number, rounded
# twice); none is about the number's conversion.
_SIGNED_ZEROS_DIFFER = ("maximum", "minimum")
UNROUNDED = ["mul", "div", "floor_divide", "true_divide"]


def _values(lib, dtype):
    rng = np.random.default_rng(0)
    values = (rng.standard_normal(400) * 3).tolist() + [math.inf, -0.0, 0.0, 65504.0, 0.1,
                                                          70000.0, 2 ** 31, math.nan]
    return lib.tensor(values, dtype=getattr(lib, dtype))


def _assert_bitwise(got, want, signed_zeros=True):
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    got = got.float().numpy() if got.dtype != ember.bool else got.numpy()
    want = want.float().numpy() if want.dtype != torch.bool else want.numpy()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(np.where(np.isnan(got), 0, got),
                                  np.where(np.isnan(want), 0, want))
    if got.dtype.kind == "f" and signed_zeros:
        numbers = ~np.isnan(want)
        np.testing.assert_array_equal(np.signbit(got[numbers]), np.signbit(want[numbers]))


def _call(lib, name, x, number):
    if name in ("maximum", "minimum", "atan2", "hypot", "logaddexp"):
        number = lib.tensor(number, dtype=lib.float64)     # these take no Python number
    return getattr(lib, name)(x, number)


def _compare_op(name, dtype):
    for number in NUMBERS:
        if name == "pow" and (abs(number) > 6e4 or dtype == "bfloat16" and number == 3):
            continue
        _assert_bitwise(_call(ember, name, _values(ember, dtype), number),
                        _call(torch, name, _values(torch, dtype), number),
                        signed_zeros=name not in _SIGNED_ZEROS_DIFFER)


@pytest.mark.parametrize("name", [n for n in ROUNDING if n not in ("maximum", "minimum")])
def test_number_beside_a_half_tensor_is_rounded_to_it(name):
    for dtype in HALF_TYPES:
        _compare_op(name, dtype)


def test_maximum_minimum_round_a_zero_dim_operand_while_mul_and_div_keep_it():
    # sub rounds 0.1 to float16 (h - 0.1 is 0 at h = float16(0.1)); mul, div and
    # floor_divide read it unrounded (inf * 1e-8 is inf, not inf * 0).
    for dtype in HALF_TYPES:
        for name in ["sub", "maximum", "minimum"] + UNROUNDED:
            _compare_op(name, dtype)


@pytest.mark.parametrize("dtype", HALF_TYPES)
def test_number_first_and_dunders(dtype):
    for number in NUMBERS:
        for op in (lambda x: number < x, lambda x: number == x, lambda x: number - x,
                   lambda x: x != number, lambda x: x >= number, lambda x: number + x,
                   lambda x: number * x, lambda x: x / number, lambda x: x % number):
            _assert_bitwise(op(_values(ember, dtype)), op(_values(torch, dtype)),
                            signed_zeros=False)


def test_in_place_forms_round_the_number_too():
    for name in ("add_", "sub_", "mul_", "div_", "remainder_"):
        got, want = _values(ember, "float16"), _values(torch, "float16")
        getattr(got, name)(0.1)
        getattr(want, name)(0.1)
        _assert_bitwise(got, want, signed_zeros=name != "remainder_")


def test_zero_dim_double_tensor_beside_a_half_tensor():
    for number in (0.1, 1e6, 65536.0):
        for name in ("eq", "lt", "add", "mul"):
            got = getattr(ember, name)(_values(ember, "float16"), ember.tensor(number,
                                                                               dtype=ember.float64))
            want = getattr(torch, name)(_values(torch, "float16"), torch.tensor(number,
                                                                                dtype=torch.float64))
            _assert_bitwise(got, want)


def test_examples_from_the_issue():
    h = ember.tensor([1.0, 70000.0], dtype=ember.float16)
    assert (h > 2 ** 31).tolist() == [False, False]
    assert (h == 65536.0).tolist() == [False, True]
