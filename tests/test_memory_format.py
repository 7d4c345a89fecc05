"""Memory formats against PyTorch: the strides `contiguous(memory_format=...)`, `to(...)`,
`clone`, `empty` and the `*_like` factories give, and `is_contiguous(memory_format=...)`."""
from __future__ import annotations

import warnings

import pytest

import ember

torch = pytest.importorskip("torch")


def _run(fn, lib):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn(lib), None
        except Exception as exc:  # noqa: BLE001 -- the class is what we compare
            return None, exc


def _nchw(L):
    return L.arange(120.0).reshape(2, 3, 4, 5)


def _cl(L):
    return _nchw(L).contiguous(memory_format=L.channels_last)


# Each case gives a stride tuple, a bool, or raises.
CASES = {
    "contiguous channels_last": lambda L: _cl(L).stride(),
    "contiguous channels_last_3d": lambda L: L.zeros(2, 3, 4, 5, 6).contiguous(
        memory_format=L.channels_last_3d).stride(),
    "contiguous of channels_last is a copy": lambda L: _cl(L).contiguous().stride(),
    "channels_last is kept when asked again": lambda L: _cl(L).contiguous(
        memory_format=L.channels_last).stride(),
    "size-1 dims": lambda L: L.zeros(1, 3, 1, 1).contiguous(
        memory_format=L.channels_last).stride(),
    "is_contiguous channels_last": lambda L: (_cl(L).is_contiguous(),
                                              _cl(L).is_contiguous(memory_format=L.channels_last),
                                              _nchw(L).is_contiguous(
                                                  memory_format=L.channels_last)),
    "is_contiguous of other ranks": lambda L: L.zeros(3).is_contiguous(
        memory_format=L.channels_last),
    "is_contiguous size-1 channels": lambda L: L.zeros(2, 1, 4, 5).is_contiguous(
        memory_format=L.channels_last),
    "wrong rank": lambda L: L.zeros(3).contiguous(memory_format=L.channels_last),
    "wrong rank 3d": lambda L: L.zeros(2, 3, 4, 5).contiguous(memory_format=L.channels_last_3d),
    "preserve on a copy": lambda L: L.zeros(3, 4).t().contiguous(
        memory_format=L.preserve_format),
    "preserve when contiguous": lambda L: L.zeros(3, 4).contiguous(
        memory_format=L.preserve_format).stride(),
    "not a memory format": lambda L: L.zeros(3).contiguous(memory_format=3),
    "to(memory_format=)": lambda L: _nchw(L).to(memory_format=L.channels_last).stride(),
    "to(dtype, memory_format=)": lambda L: _nchw(L).to(
        L.float64, memory_format=L.channels_last).stride(),
    "to(dtype) preserves": lambda L: _cl(L).to(L.float64).stride(),
    "float() preserves": lambda L: _cl(L).double().stride(),
    "to contiguous_format": lambda L: _cl(L).to(memory_format=L.contiguous_format).stride(),
    "clone preserves": lambda L: _cl(L).clone().stride(),
    "clone of a transposed slice": lambda L: L.zeros(3, 4).t()[::2].clone().stride(),
    "clone of a flipped view": lambda L: L.zeros(3, 4).flip(0).clone().stride(),
    "clone channels_last": lambda L: _nchw(L).clone(memory_format=L.channels_last).stride(),
    "empty channels_last": lambda L: L.empty(2, 3, 4, 5, memory_format=L.channels_last).stride(),
    "empty channels_last on meta": lambda L: L.empty(
        2, 3, 4, 5, memory_format=L.channels_last, device="meta").stride(),
    "empty wrong rank": lambda L: L.empty(2, 3, 4, memory_format=L.channels_last),
    "empty preserve": lambda L: L.empty(2, 3, memory_format=L.preserve_format),
    "zeros takes no memory_format": lambda L: L.zeros(2, 3, memory_format=L.channels_last),
    "empty_like transposed": lambda L: L.empty_like(L.zeros(3, 2).t()).stride(),
    "zeros_like transposed": lambda L: L.zeros_like(L.zeros(3, 2).t()).stride(),
    "ones_like channels_last": lambda L: L.ones_like(_cl(L)).stride(),
    "full_like transposed": lambda L: L.full_like(L.zeros(3, 2).t(), 2).stride(),
    "rand_like transposed": lambda L: L.rand_like(L.zeros(3, 2).t()).stride(),
    "randint_like transposed": lambda L: L.randint_like(L.zeros(3, 2).t(), 5).stride(),
    "randn_like channels_last": lambda L: L.randn_like(
        _nchw(L), memory_format=L.channels_last).stride(),
    "like of a non-dense view": lambda L: L.empty_like(
        _nchw(L).permute(0, 2, 3, 1)[:, ::2]).stride(),
    "like contiguous_format": lambda L: L.zeros_like(
        L.zeros(3, 2).t(), memory_format=L.contiguous_format).stride(),
    "like with a wrong rank": lambda L: L.zeros_like(L.ones(3), memory_format=L.channels_last),
}


@pytest.mark.parametrize("name", list(CASES))
def test_memory_format_matches_torch(name):
    fn = CASES[name]
    expected, torch_error = _run(fn, torch)
    got, ember_error = _run(fn, ember)
    if torch_error is not None:
        assert isinstance(ember_error, type(torch_error)), (
            f"torch raised {type(torch_error).__name__}: {torch_error}; ember gave "
            f"{ember_error!r}")
        return
    assert ember_error is None, f"ember raised {ember_error!r}"
    assert got == expected


def test_channels_last_copy_keeps_values():
    x = ember.arange(120.0).reshape(2, 3, 4, 5)
    y = x.contiguous(memory_format=ember.channels_last)
    assert y.stride() == (60, 1, 15, 3)
    assert ember.equal(x, y)
    z = ember.zeros_like(y, memory_format=ember.channels_last).copy_(y)
    assert z.stride() == y.stride() and ember.equal(z, x)


def test_like_factories_keep_values_and_requires_grad():
    x = ember.zeros(3, 2).t()
    assert ember.full_like(x, 7).tolist() == [[7.0] * 3] * 2
    assert ember.ones_like(x).sum().item() == 6
    assert ember.rand_like(x, requires_grad=True).requires_grad
