"""Tensor attributes and small methods against PyTorch (src/ember/_ops/tensor_attributes.py
and misc_hashing.py): grad_dtype, name, module_load, map2_, hash_tensor, slice_inverse, and
native_norm / to_padded_tensor, which PyTorch's CPU refuses."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import ember

from .test_storage_methods import _same

# --------------------------------------------------------------------------- grad_dtype

def test_grad_dtype_defaults_to_the_dtype_and_casts_gradients():
    def case(lib):
        x = lib.zeros(2, requires_grad=True)
        default = str(x.grad_dtype)
        x.grad_dtype = lib.float64
        (x * 2).sum().backward()
        (x * 3).sum().backward()
        through_grad = lib.autograd.grad((x * 4).sum(), x)[0]
        y = lib.zeros(2, requires_grad=True)
        y.grad_dtype = None
        (y * 2).sum().backward()
        return [default.split(".")[1], str(x.grad_dtype).split(".")[1], x.grad,
                str(x.grad.dtype).split(".")[1], str(through_grad.dtype).split(".")[1],
                y.grad_dtype, str(y.grad.dtype).split(".")[1]]
    _same(case)


@pytest.mark.parametrize("case", [
    lambda lib: (lib.zeros(2, requires_grad=True) * 2).grad_dtype,
    lambda lib: setattr(lib.zeros(2, requires_grad=True) * 2, "grad_dtype", lib.float64),
    lambda lib: setattr(lib.zeros(2, requires_grad=True), "grad_dtype", "a"),
    lambda lib: setattr(lib.zeros(2, requires_grad=True), "grad",
                        lib.ones(2, dtype=lib.float64)),
])
def test_grad_dtype_errors(case):
    _same(case)


def test_assigning_a_grad_follows_grad_dtype():
    def case(lib):
        x = lib.zeros(2, requires_grad=True)
        x.grad_dtype = lib.float64
        outcomes = []
        for dtype in (lib.float32, lib.float64):
            try:
                x.grad = lib.ones(2, dtype=dtype)
                outcomes.append(str(x.grad.dtype))
            except RuntimeError as exc:
                outcomes.append(str(exc).split(".")[0])
        x.grad_dtype = None
        x.grad = lib.ones(2, dtype=lib.float16)
        outcomes.append(str(x.grad.dtype))
        try:
            x.grad_dtype = lib.float32
        except RuntimeError as exc:
            outcomes.append(str(exc).split(".")[0])
        return [o.replace("torch.", "").replace("ember.", "") for o in outcomes]
    _same(case)


# --------------------------------------------------------------------------- name, module_load

def test_name_is_none_and_read_only():
    _same(lambda lib: lib.zeros(2).name)
    _same(lambda lib: setattr(lib.zeros(2), "name", "a"), message=False)


@pytest.mark.parametrize("assign", [False, True])
def test_module_load(assign):
    def case(lib):
        param = lib.nn.Parameter(lib.zeros(3))
        value = lib.arange(3.)
        loaded = param.module_load(value, assign=assign)
        return [loaded, param.detach(), loaded.requires_grad, loaded is value,
                loaded.data_ptr() == value.data_ptr(), loaded.data_ptr() == param.data_ptr()]
    with torch.no_grad(), ember.no_grad():
        _same(case)


# --------------------------------------------------------------------------- map2_

@pytest.mark.parametrize("case", [
    lambda lib: lib.zeros(3).map2_(lib.ones(3), lib.full((3,), 2.), lambda a, b, c: a + b * c),
    lambda lib: lib.zeros(2, 3).map2_(lib.arange(3.), lib.ones(2, 1), lambda a, b, c: b - c),
    lambda lib: lib.zeros(2).map2_(lib.ones(2, dtype=lib.float64), lib.ones(2), lambda *v: 0),
    lambda lib: lib.zeros(2, requires_grad=True).map2_(lib.ones(2), lib.ones(2), lambda *v: 0),
    lambda lib: lib.zeros(2).map2_(lib.ones(2), 3, lambda *v: 0),
    lambda lib: lib.zeros(2).map2_(lib.ones(3), lib.ones(2), lambda *v: 0),
])
def test_map2(case):
    _same(case)


# --------------------------------------------------------------------------- hash_tensor

@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int32", "int64",
                                   "uint8", "bool", "int8", "int16", "complex64", "uint64"])
def test_hash_tensor_dtypes(dtype):
    values = np.array([1.5, -2.0, 3.25, 0.0, -7.0])
    _same(lambda lib: lib.hash_tensor(lib.tensor(values).to(getattr(lib, dtype))))


@pytest.mark.parametrize("case", [
    lambda lib, x: lib.hash_tensor(x, 1),
    lambda lib, x: lib.hash_tensor(x, [0, 1], keepdim=True),
    lambda lib, x: x.hash_tensor(dim=0, keepdim=True),
    lambda lib, x: lib.hash_tensor(x[0, 0]),
    lambda lib, x: lib.hash_tensor(x, mode=1),
    lambda lib, x: lib.hash_tensor(lib.zeros(0)),
    lambda lib, x: lib.hash_tensor(lib.zeros(0, 3), 0),
    lambda lib, x: lib.hash_tensor(lib.zeros(0, 3), 1),
    lambda lib, x: lib.hash_tensor(lib.tensor([float("nan"), -0.0])),
    lambda lib, x: lib.hash_tensor(x, -1, out=lib.empty(0, dtype=lib.uint64)),
    lambda lib, x: lib.hash_tensor(x.t(), 1),
])
def test_hash_tensor_dims_and_errors(case):
    data = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    _same(lambda lib: case(lib, lib.tensor(data)))


# --------------------------------------------------------------------------- slice_inverse

@pytest.mark.parametrize("case", [
    lambda lib, a: lib.slice_inverse(a[2:5], a, 0, 2, 5, 1),
    lambda lib, a: lib.slice_inverse(a[2:8:2], a, 0, 2, 8, 2),
    lambda lib, a: lib.slice_inverse(a.view(2, 5)[:, 1:3], a.view(2, 5), 1, 1, 3),
    lambda lib, a: a.view(2, 5)[:, 1:3].slice_inverse(a.view(2, 5), 1),
    lambda lib, a: lib.slice_inverse(lib.ones(2), a, 0, 1, 3, 1),
])
def test_slice_inverse(case):
    def run(lib):
        base = lib.arange(10.)
        result = case(lib, base)
        result.mul_(2)                      # a view: writes reach the base
        return [result, base, tuple(result.stride())]
    _same(run)


# --------------------------------------------------------------------------- refused on the CPU

@pytest.mark.parametrize("case", [
    lambda lib: lib.native_norm(lib.arange(4.)),
    lambda lib: lib.native_norm(lib.arange(4.), 2),
    lambda lib: lib.native_norm(lib.arange(4.), 1, [0], False, lib.float64),
    lambda lib: lib.zeros(3).to_padded_tensor(0.0),
    lambda lib: lib.zeros(3).to_padded_tensor(0.0, (3,)),
])
def test_cpu_refusals(case):
    got, expected = [], []
    for lib, into in ((ember, got), (torch, expected)):
        with pytest.raises(NotImplementedError) as caught:
            case(lib)
        into.append(str(caught.value)[:120])
    assert got == expected
