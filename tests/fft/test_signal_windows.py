"""ember.signal.windows against torch.signal.windows: values, options and errors."""
from __future__ import annotations

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")

NAMES = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine",
         "general_hamming", "hamming", "hann", "kaiser", "nuttall"]
EXTRA = {"general_cosine": {"a": [0.5, 0.3, 0.2]}, "general_hamming": {"alpha": 0.6},
         "kaiser": {"beta": 4.0}, "gaussian": {"std": 0.7}, "exponential": {"tau": 2.0}}


def test_names_are_pytorchs():
    assert ember.signal.windows.__all__ == torch.signal.windows.__all__


@pytest.mark.parametrize("name", NAMES)
def test_values_match_pytorch(name):
    for M in (0, 1, 2, 5, 8):
        for sym in (True, False):
            for dtype in ("float32", "float64"):
                for extra in ({}, EXTRA.get(name, {})):
                    if name == "general_cosine" and not extra:
                        continue
                    got = getattr(ember.signal.windows, name)(
                        M, sym=sym, dtype=getattr(ember, dtype), **extra)
                    expected = getattr(torch.signal.windows, name)(
                        M, sym=sym, dtype=getattr(torch, dtype), **extra)
                    assert tuple(got.shape) == tuple(expected.shape)
                    assert str(got.dtype).split(".")[-1] == dtype
                    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-6,
                                               atol=1e-6, err_msg=f"{name}({M}, sym={sym})")


def test_exponential_center_and_requires_grad():
    got = ember.signal.windows.exponential(7, center=2.0, sym=False)
    expected = torch.signal.windows.exponential(7, center=2.0, sym=False)
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-6)
    window = ember.signal.windows.hann(6, requires_grad=True)
    assert window.requires_grad == torch.signal.windows.hann(6, requires_grad=True).requires_grad


ERRORS = [
    ("hann", (-1,), {}, "requires non-negative window length, got M=-1"),
    ("hann", (4,), {"dtype": "int64"}, "expects float32 or float64 dtypes"),
    ("blackman", (4,), {"dtype": "float16"}, "expects float32 or float64 dtypes"),
    ("gaussian", (4,), {"std": 0.0}, "Standard deviation must be positive"),
    ("exponential", (4,), {"tau": -1.0}, "Tau must be positive"),
    ("exponential", (4,), {"center": 1.0}, "Center must be None for symmetric windows"),
    ("kaiser", (4,), {"beta": -1.0}, "beta must be non-negative"),
    ("general_cosine", (4,), {"a": []}, "Coefficients cannot be empty"),
]


@pytest.mark.parametrize("name,args,kwargs,match", ERRORS, ids=[e[3][:30] for e in ERRORS])
def test_errors_as_pytorch(name, args, kwargs, match):
    for lib in (ember, torch):
        options = {k: getattr(lib, v) if k == "dtype" else v for k, v in kwargs.items()}
        with pytest.raises(ValueError, match=match):
            getattr(lib.signal.windows, name)(*args, **options)
