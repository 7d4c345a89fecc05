"""Bit-for-bit agreement with PyTorch on signed zeros (remainder, clamp) and on `number / x`
(PyTorch's reciprocal-then-multiply), and pow's refusal of an exponent past the half range."""
import numpy as np
import pytest
import torch

import ember

FLOAT_DTYPES = ["float32", "float64", "float16", "bfloat16"]


def _bits(tensor):
    """(values as float64, sign bits, NaN mask) of an ember or torch tensor."""
    values = tensor.detach().double().numpy()
    return values, np.signbit(values), np.isnan(values)


def assert_same_bits(actual, expected):
    assert str(actual.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    got, got_sign, got_nan = _bits(actual)
    want, want_sign, want_nan = _bits(expected)
    np.testing.assert_array_equal(got_nan, want_nan)
    np.testing.assert_array_equal(got[~want_nan], want[~want_nan])
    np.testing.assert_array_equal(got_sign[~want_nan], want_sign[~want_nan])


DIVIDENDS = [-4.0, 4.0, -0.0, 0.0, -3.0, 3.0, 1.5, -1.5, -6.0, 6.0]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("divisor", [2.0, -2.0, 3.0, -3.0, 1.5, -1.5, 0.0, -0.0])
def test_remainder_zero_takes_the_dividends_sign(dtype, divisor):
    results = []
    for lib in (ember, torch):
        x = lib.tensor(DIVIDENDS, dtype=getattr(lib, dtype))
        d = lib.tensor(divisor, dtype=getattr(lib, dtype))
        results.append([lib.remainder(x, divisor), lib.remainder(x, d), x % divisor,
                        lib.remainder(x, d.expand(x.shape)),
                        lib.remainder(divisor, x), divisor % x])
    for got, want in zip(*results):
        assert_same_bits(got, want)


def _clamp_cases(lib, dtype):
    x = lib.tensor([-0.0, 0.0, -1.0, 1.0, float("nan")], dtype=getattr(lib, dtype))
    out = []
    for low, high in [(-0.0, 0.0), (0.0, -0.0), (-0.0, None), (0.0, None), (None, -0.0),
                      (None, 0.0), (0.0, 0.0), (-0.0, -0.0)]:
        out.append(lib.clamp(x, low, high))
        low_t = None if low is None else lib.full_like(x, low)
        high_t = None if high is None else lib.full_like(x, high)
        out.append(lib.clamp(x, low_t, high_t))
        if high is None:
            out += [lib.clamp_min(x, low), lib.clamp_min(x, low_t)]
        if low is None:
            out += [lib.clamp_max(x, high), lib.clamp_max(x, high_t)]
    return out


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_clamp_keeps_an_input_equal_to_its_bound(dtype):
    for got, want in zip(_clamp_cases(ember, dtype), _clamp_cases(torch, dtype)):
        assert_same_bits(got, want)


NUMBERS = [3.0, -2.5, 7.1, 0.1, 1e5, 3, 1.0]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_number_over_half_tensor_is_reciprocal_times_number(dtype):
    bits = np.arange(65536, dtype=np.uint16).view(np.int16)
    x_torch = torch.from_numpy(bits).view(getattr(torch, dtype))
    x_ember = ember.from_numpy(bits).view(getattr(ember, dtype))
    for number in NUMBERS:
        assert_same_bits(number / x_ember, number / x_torch)
    # the other divisions divide as before
    y_torch, y_ember = x_torch[::97], x_ember[::97]
    assert_same_bits(x_ember / 3.0, x_torch / 3.0)
    assert_same_bits(y_ember / y_ember.flip(0), y_torch / y_torch.flip(0))
    assert_same_bits(ember.div(3.0, y_ember), torch.div(3.0, y_torch))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_number_over_tensor_is_reciprocal_times_number(dtype):
    values = np.random.default_rng(0).standard_normal(2000) * 10
    x_torch = torch.tensor(values).to(getattr(torch, dtype))
    x_ember = ember.tensor(values).to(getattr(ember, dtype))
    for number in NUMBERS:
        assert_same_bits(number / x_ember, number / x_torch)


def test_number_over_tensor_records_reciprocal_and_mul():
    x_torch = torch.tensor([2.0, -3.0], requires_grad=True)
    x_ember = ember.tensor([2.0, -3.0], requires_grad=True)
    y_torch, y_ember = 3.0 / x_torch, 3.0 / x_ember
    assert type(y_ember.grad_fn).__name__ == type(y_torch.grad_fn).__name__ == "MulBackward0"
    y_torch.sum().backward()
    y_ember.sum().backward()
    assert_same_bits(x_ember.grad, x_torch.grad)


@pytest.mark.parametrize("dtype,exponent", [("float16", 1e5), ("float16", -70000.0),
                                            ("float16", 65520.0), ("float16", 2 ** 20),
                                            ("bfloat16", 1e39)])
def test_pow_refuses_a_number_exponent_past_the_half_range(dtype, exponent):
    forms = [lambda lib, x: lib.pow(x, exponent), lambda lib, x: x ** exponent,
             lambda lib, x: x.pow(exponent), lambda lib, x: x.clone().pow_(exponent)]
    for lib in (torch, ember):
        x = lib.tensor([1.0, 2.0], dtype=getattr(lib, dtype))
        for form in forms:
            with pytest.raises(RuntimeError, match="without overflow"):
                form(lib, x)
    # the type's largest value, infinity and a number base are taken
    for exponent_within in (65504.0 if dtype == "float16" else 3e38, float("inf")):
        assert_same_bits(ember.pow(ember.tensor([0.5, 2.0], dtype=getattr(ember, dtype)),
                                   exponent_within),
                         torch.pow(torch.tensor([0.5, 2.0], dtype=getattr(torch, dtype)),
                                   exponent_within))
    assert_same_bits(ember.pow(1e5, ember.tensor([0.5, 2.0], dtype=getattr(ember, dtype))),
                     torch.pow(1e5, torch.tensor([0.5, 2.0], dtype=getattr(torch, dtype))))
