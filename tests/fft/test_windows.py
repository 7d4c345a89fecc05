"""The window functions against PyTorch's: values (the half types to the bit, NOTE [windows
round each step]), dtypes, options and errors."""
from __future__ import annotations

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")

WINDOWS = ["hann_window", "hamming_window", "blackman_window", "bartlett_window",
           "kaiser_window"]
DTYPES = ["float32", "float64", "float16", "bfloat16"]


def _numpy(t):
    return t.detach().float().numpy() if "bfloat16" in str(t.dtype) else t.detach().numpy()


@pytest.mark.parametrize("name", WINDOWS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_values_match_pytorch(name, dtype):
    for n in (0, 1, 2, 5, 8, 33):
        for periodic in (True, False):
            got = getattr(ember, name)(n, periodic, dtype=getattr(ember, dtype))
            expected = getattr(torch, name)(n, periodic, dtype=getattr(torch, dtype))
            assert str(got.dtype).split(".")[-1] == dtype and got.shape == expected.shape
            exact = dtype in ("float16", "bfloat16")
            np.testing.assert_allclose(_numpy(got), _numpy(expected), rtol=0,
                                       atol=0 if exact else 1e-6, err_msg=f"{name}({n})")


def test_extra_parameters_and_defaults():
    cases = [("hamming_window", (7, True, 0.5, 0.3)), ("hamming_window", (6, False, 0.6)),
             ("kaiser_window", (9, False, 5.0)), ("kaiser_window", (8,)),
             ("hann_window", (10,))]
    for name, args in cases:
        got, expected = getattr(ember, name)(*args), getattr(torch, name)(*args)
        np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=0, atol=1e-6)
        assert got.dtype is ember.float32
    ember.set_default_dtype(ember.float64)
    assert ember.hann_window(4).dtype is ember.float64


def test_requires_grad_and_device_options():
    window = ember.hann_window(5, requires_grad=True, device="cpu")
    assert window.requires_grad and window.is_leaf
    assert ember.blackman_window(5, device="meta").device.type == "meta"
    assert ember.kaiser_window(5, device="meta").shape == (5,)


@pytest.mark.parametrize("name", WINDOWS)
def test_errors_as_pytorch(name):
    for lib in (ember, torch):
        fn = getattr(lib, name)
        with pytest.raises(RuntimeError, match=f"{name} requires non-negative window_length, "
                                               "got window_length=-1"):
            fn(-1)
        with pytest.raises(RuntimeError, match=f"{name} expects floating point dtypes, got: "
                                               "TensorOptions\\(dtype=long int"):
            fn(3, dtype=lib.int64)
        with pytest.raises(NotImplementedError, match="not implemented for 'ComplexFloat'"):
            fn(3, dtype=lib.complex64)
