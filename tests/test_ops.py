"""Every op in the OpInfo table against PyTorch: values, dtypes and shapes (contiguous and
non-contiguous inputs), the Tensor method, the meta rule, in-place and out= variants, and the
exception class on bad input."""
from __future__ import annotations

import dataclasses
import importlib
import pkgutil

import numpy as np
import pytest

import ember
from opinfo import core
from opinfo.core import T, to_lib

torch = pytest.importorskip("torch")


def _collect():
    infos = []
    import opinfo
    for module in pkgutil.iter_modules(opinfo.__path__):
        if module.name.startswith("infos_"):
            infos.extend(importlib.import_module(f"opinfo.{module.name}").OPINFOS)
    return infos


OPINFOS = _collect()
CASES = [pytest.param(info, d, id=f"{info.name}-{d}") for info in OPINFOS for d in info.dtypes]


def _noncontig(value):
    if isinstance(value, T):
        return dataclasses.replace(value, noncontig=True)
    if isinstance(value, list):
        return [_noncontig(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_noncontig(v) for v in value)
    return value


def _samples(info, dtype_name):
    make = core.make_maker(0)
    for sample in info.samples(make, dtype_name):
        yield sample
        nc = core.Sample(_noncontig(sample.args), _noncontig(sample.kwargs),
                         sample.name + "/noncontig", sample.inplace_ok)
        if nc.args != sample.args:
            yield nc


def _run(fn, lib, sample, device=None):
    args = to_lib(sample.args, lib, device)
    kwargs = to_lib(sample.kwargs, lib, device)
    try:
        return fn(*args, **kwargs), None
    except Exception as exc:  # noqa: BLE001 -- the class is what we compare
        return None, exc


def _compare(info, dtype_name, sample, ember_fn, torch_fn, where, device=None):
    expected, torch_error = _run(torch_fn, torch, sample)
    got, ember_error = _run(ember_fn, ember, sample, device)
    if torch_error is not None:
        assert ember_error is not None, (
            f"{where}: torch raised {type(torch_error).__name__}: {torch_error}; ember did not")
        assert isinstance(ember_error, type(torch_error)) or issubclass(
            type(torch_error), type(ember_error)), (
            f"{where}: torch raised {type(torch_error).__name__}, ember raised "
            f"{type(ember_error).__name__}: {ember_error}")
        return None, None
    if ember_error is not None:
        raise AssertionError(f"{where}: ember raised {type(ember_error).__name__}: "
                             f"{ember_error}") from ember_error
    return got, expected


@pytest.mark.parametrize("info,dtype_name", CASES)
def test_values(info, dtype_name):
    atol, rtol = info.tol(dtype_name)
    for sample in _samples(info, dtype_name):
        where = f"{info.name}[{dtype_name}] {sample.name}"
        got, expected = _compare(info, dtype_name, sample, info.function(ember),
                                 info.function(torch), where)
        if expected is not None:
            core.assert_same(got, expected, atol, rtol, where, info.compare_values)


def _method(lib, name):
    def call(self, *args, **kwargs):
        return getattr(self, name)(*args, **kwargs)
    return call


@pytest.mark.parametrize("info,dtype_name", [c for c in CASES if c.values[0].method
                                             and c.values[0].call is None])
def test_method(info, dtype_name):
    atol, rtol = info.tol(dtype_name)
    for sample in _samples(info, dtype_name):
        if not sample.args or not isinstance(sample.args[0], T):
            continue
        where = f"Tensor.{info.name}[{dtype_name}] {sample.name}"
        got, expected = _compare(info, dtype_name, sample, _method(ember, info.name),
                                 _method(torch, info.name), where)
        if expected is not None:
            core.assert_same(got, expected, atol, rtol, where, info.compare_values)


@pytest.mark.parametrize("info,dtype_name", [c for c in CASES if c.values[0].supports_meta])
def test_meta(info, dtype_name):
    for sample in _samples(info, dtype_name):
        where = f"{info.name}[{dtype_name}] {sample.name} on meta"
        expected, torch_error = _run(info.function(torch), torch, sample)
        if torch_error is not None:
            continue
        got, ember_error = _run(info.function(ember), ember, sample, device="meta")
        assert ember_error is None, f"{where}: {type(ember_error).__name__}: {ember_error}"
        _assert_meta_matches(got, expected, where)


def _assert_meta_matches(got, expected, where):
    if isinstance(expected, (tuple, list)):
        assert len(got) == len(expected), where
        for g, e in zip(got, expected):
            _assert_meta_matches(g, e, where)
        return
    if isinstance(expected, torch.Tensor):
        assert got.device.type == "meta", f"{where}: result is on {got.device}"
        assert tuple(got.shape) == tuple(expected.shape), (
            f"{where}: meta shape {tuple(got.shape)} != {tuple(expected.shape)}")
        assert core.dtype_name(got.dtype) == core.dtype_name(expected.dtype), (
            f"{where}: meta dtype {got.dtype} != {expected.dtype}")


@pytest.mark.parametrize("info,dtype_name", [c for c in CASES if c.values[0].inplace])
def test_inplace(info, dtype_name):
    atol, rtol = info.tol(dtype_name)
    name = info.name + "_"
    for sample in _samples(info, dtype_name):
        if not sample.inplace_ok or not isinstance(sample.args[0], T):
            continue
        where = f"Tensor.{name}[{dtype_name}] {sample.name}"
        got, expected = _compare(info, dtype_name, sample, _method(ember, name),
                                 _method(torch, name), where)
        if expected is not None:
            core.assert_same(got, expected, atol, rtol, where, info.compare_values)


@pytest.mark.parametrize("info,dtype_name", [c for c in CASES if c.values[0].supports_out])
def test_out(info, dtype_name):
    atol, rtol = info.tol(dtype_name)
    for sample in _samples(info, dtype_name):
        expected, torch_error = _run(info.function(torch), torch, sample)
        if torch_error is not None or not isinstance(expected, torch.Tensor):
            continue
        where = f"{info.name}(out=)[{dtype_name}] {sample.name}"
        ember_out = ember.empty(tuple(expected.shape),
                                dtype=getattr(ember, core.dtype_name(expected.dtype)))
        got, ember_error = _run(info.function(ember), ember,
                                dataclasses.replace(sample, kwargs={**sample.kwargs,
                                                                    "out": ember_out}))
        assert ember_error is None, f"{where}: {type(ember_error).__name__}: {ember_error}"
        assert got is ember_out, f"{where}: out= must return the out tensor"
        core.assert_same(ember_out, expected, atol, rtol, where, info.compare_values)


ERROR_CASES = [pytest.param(info, id=info.name) for info in OPINFOS if info.errors]


@pytest.mark.parametrize("info", ERROR_CASES)
def test_errors(info):
    make = core.make_maker(0)
    for err in info.errors(make):
        where = f"{info.name} {err.sample.name}"
        _, torch_error = _run(info.function(torch), torch, err.sample)
        assert isinstance(torch_error, err.error), (
            f"{where}: the table says torch raises {err.error.__name__}, but it raised "
            f"{type(torch_error).__name__ if torch_error else 'nothing'}")
        _, ember_error = _run(info.function(ember), ember, err.sample)
        assert isinstance(ember_error, err.error), (
            f"{where}: ember raised {type(ember_error).__name__ if ember_error else 'nothing'}"
            f", expected {err.error.__name__}")
        assert not isinstance(ember_error, (np.exceptions.AxisError,)), where
        assert err.match in str(ember_error), (
            f"{where}: message {str(ember_error)!r} should mention {err.match!r}")
