"""Helpers of the CUDA tests: the skip mark, and comparisons of a 'cuda' result with ember's own
CPU result (the oracle on the GPU machine: its PyTorch may be another version, and these tests
must not depend on PyTorch's CUDA).

NOTE [no __init__ in tests/cuda]: this folder has no `__init__.py` on purpose. With one it
would be a package named `cuda` first on `sys.path`, and it would shadow the `cuda` namespace
package of NVIDIA's cuda-bindings / cuda-pathfinder, which CuPy imports. Module names here are
therefore unique in the whole suite (`test_cuda_*.py`, `cuda_support.py`).
"""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import ember

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if TESTS not in sys.path:       # the op table (tests/opinfo) when tests/cuda runs alone
    sys.path.insert(0, TESTS)

AVAILABLE = ember.cuda.is_available()
REASON = ("CUDA is not available: ember.cuda.is_available() is False (the CUDA back-end needs "
          "CuPy and an NVIDIA GPU)")
requires_cuda = pytest.mark.skipif(not AVAILABLE, reason=REASON)


def host(t):
    """A tensor of any device as a NumPy array (bfloat16 widened to float32)."""
    if t.dtype is ember.bfloat16:
        t = t.float()
    return np.asarray(t.detach().cpu().numpy())


def assert_on_cuda(value, where=""):
    """Every tensor in `value` (nested tuples / lists) lives on a CUDA device."""
    if isinstance(value, (tuple, list)):
        for v in value:
            assert_on_cuda(v, where)
    elif isinstance(value, ember.Tensor):
        assert value.device.type == "cuda", f"{where}: result is on {value.device}"


def assert_same(got, expected, atol=1e-5, rtol=1e-4, where="", check_device=True):
    """`got` (computed on 'cuda') against `expected` (computed on 'cpu'): the same structure,
    shapes, dtypes and, within tolerance, values; tensors of `got` on CUDA."""
    if isinstance(expected, (tuple, list)):
        assert isinstance(got, (tuple, list)), f"{where}: expected a sequence, got {type(got)}"
        assert len(got) == len(expected), f"{where}: {len(got)} results, cpu {len(expected)}"
        for i, (g, e) in enumerate(zip(got, expected)):
            assert_same(g, e, atol, rtol, f"{where}[{i}]", check_device)
        return
    if isinstance(expected, ember.Tensor):
        assert isinstance(got, ember.Tensor), f"{where}: expected a Tensor, got {type(got)}"
        if check_device:
            assert got.device.type == "cuda", f"{where}: result is on {got.device}"
        assert tuple(got.shape) == tuple(expected.shape), (
            f"{where}: shape {tuple(got.shape)} != cpu {tuple(expected.shape)}")
        assert got.dtype == expected.dtype, f"{where}: dtype {got.dtype} != cpu {expected.dtype}"
        if got.is_sparse or got.layout != ember.strided:
            got, expected = got.to_dense(), expected.to_dense()
        np.testing.assert_allclose(host(got), host(expected), atol=atol, rtol=rtol,
                                   equal_nan=True, err_msg=where)
        return
    if isinstance(expected, float):
        np.testing.assert_allclose(got, expected, atol=atol, rtol=rtol, equal_nan=True,
                                   err_msg=where)
        return
    assert got == expected, f"{where}: {got!r} != cpu {expected!r}"


def to_cuda(value):
    """`value` with every tensor (nested tuples / lists / dicts) copied to 'cuda'."""
    if isinstance(value, ember.Tensor):
        return value.to("cuda")
    if isinstance(value, (list, tuple)):
        return type(value)(to_cuda(v) for v in value)
    if isinstance(value, dict):
        return {k: to_cuda(v) for k, v in value.items()}
    return value
