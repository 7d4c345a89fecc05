"""ember.testing.make_tensor against torch.testing.make_tensor: under the same seed the same
values (ember draws PyTorch's CPU stream; within a stated bound on the CPU capabilities ember
does not follow, tests/_capability.py), strides, flags and errors."""
from __future__ import annotations

import pytest

import ember

torch = pytest.importorskip("torch")

from tests._capability import UNIFORM_ULPS, assert_same_draws

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64", "complex64", "complex128"]
FLOATS = {"float16", "bfloat16", "float32", "float64", "complex64", "complex128"}


def _both(seed, *shape, **kwargs):
    dtype = kwargs.pop("dtype")
    ember.manual_seed(seed)
    got = ember.testing.make_tensor(*shape, dtype=getattr(ember, dtype), device="cpu", **kwargs)
    torch.manual_seed(seed)
    expected = torch.testing.make_tensor(*shape, dtype=getattr(torch, dtype), device="cpu",
                                         **kwargs)
    return got, expected


def _values(t):
    return (t.float() if str(t.dtype).endswith("bfloat16") else t).detach().numpy()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("options", [{}, {"low": -1, "high": 1}, {"noncontiguous": True},
                                     {"exclude_zero": True, "low": 0, "high": 2}],
                         ids=["defaults", "low-high", "noncontiguous", "exclude_zero"])
def test_same_values_and_strides_as_pytorch(dtype, options):
    got, expected = _both(3, 2, 3, dtype=dtype, **options)
    assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    assert_same_draws(_values(got), _values(expected), UNIFORM_ULPS)
    assert got.stride() == expected.stride()
    assert got.is_contiguous() == expected.is_contiguous()


@pytest.mark.parametrize("dtype", ["float16", "float32", "complex64", pytest.param(
    "float64", marks=pytest.mark.xfail(strict=True, reason=(
        "ember's float64 uniform_(-1e300, 1e300) gives nan (its (to - from) overflows in "
        "_ops/random_transforms.py), PyTorch's does not")))])
def test_huge_range_draws_half_and_doubles(dtype):
    got, expected = _both(5, 4, dtype=dtype, low=-1e300, high=1e300)
    assert_same_draws(_values(got), _values(expected), UNIFORM_ULPS)


def test_shape_forms_memory_format_and_grad():
    got, expected = _both(1, (2, 3, 4, 5), dtype="float32", memory_format=None,
                          requires_grad=True)
    assert got.shape == (2, 3, 4, 5) and got.requires_grad and got.is_leaf
    got, expected = _both(1, [2, 3, 4, 5], dtype="float32")
    assert_same_draws(_values(got), _values(expected), UNIFORM_ULPS)
    ember.manual_seed(0)
    last = ember.testing.make_tensor(2, 3, 4, 5, dtype=ember.float32, device="cpu",
                                     memory_format=ember.channels_last)
    torch.manual_seed(0)
    reference = torch.testing.make_tensor(2, 3, 4, 5, dtype=torch.float32, device="cpu",
                                          memory_format=torch.channels_last)
    assert last.stride() == reference.stride()
    assert not ember.testing.make_tensor(3, dtype=ember.int64, device="cpu").requires_grad


ERRORS = [
    ({"dtype": "int64", "requires_grad": True}, ValueError, "requires_grad=True` is not"),
    ({"dtype": "float32", "low": 2, "high": 1}, ValueError, "`low` must be less than `high`"),
    ({"dtype": "float32", "low": float("nan")}, ValueError, "cannot be NaN"),
    ({"dtype": "uint8", "low": 300, "high": 400}, ValueError, "The value interval"),
    ({"dtype": "float32", "noncontiguous": True, "memory_format": "channels_last"}, ValueError,
     "mutually exclusive"),
]


@pytest.mark.parametrize("options,error,match", ERRORS, ids=lambda v: str(v)[:40])
def test_errors_as_pytorch(options, error, match):
    for lib in (ember, torch):
        kwargs = dict(options, dtype=getattr(lib, options["dtype"]))
        if "memory_format" in kwargs:
            kwargs["memory_format"] = getattr(lib, kwargs["memory_format"])
        with pytest.raises(error, match=match):
            lib.testing.make_tensor(2, 3, 4, 5, device="cpu", **kwargs)


def test_equal_bounds_warn_for_floats():
    for lib in (ember, torch):
        with pytest.warns(FutureWarning, match="low==high"):
            lib.testing.make_tensor(3, dtype=lib.float32, device="cpu", low=1, high=1)
