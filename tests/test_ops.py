"""Every op in the OpInfo table against PyTorch: values, dtypes and shapes (contiguous and
non-contiguous inputs), the Tensor method, the meta rule, in-place and out= variants, and the
exception class on bad input."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from opinfo import collect, core
from opinfo.core import T

import ember

torch = pytest.importorskip("torch")


OPINFOS, CASES = collect.OPINFOS, collect.CASES
_samples, _run = collect.samples, collect.run


def _compare(info, dtype_name, sample, ember_fn, torch_fn, where, device=None):
    """(ember result, torch result, ember inputs, torch inputs); results None where both
    libraries raised (the same class)."""
    expected, torch_error, torch_inputs = _run(torch_fn, torch, sample)
    got, ember_error, ember_inputs = _run(ember_fn, ember, sample, device)
    if torch_error is not None:
        assert ember_error is not None, (
            f"{where}: torch raised {type(torch_error).__name__}: {torch_error}; ember did not")
        # PyTorch's class or a subclass of it (as `except` clauses written for PyTorch see
        # it), never a base class: an ember ValueError where PyTorch raises IndexError fails.
        assert core.raises_torch_class(ember_error, torch_error), (
            f"{where}: torch raised {type(torch_error).__name__}, ember raised "
            f"{type(ember_error).__name__}: {ember_error}")
        return None, None, None, None
    if ember_error is not None:
        raise AssertionError(f"{where}: ember raised {type(ember_error).__name__}: "
                             f"{ember_error}") from ember_error
    return got, expected, collect.tensors_in(ember_inputs), collect.tensors_in(torch_inputs)


def _check_result(info, dtype_name, sample, got, expected, inputs, where):
    """Values, then the layout (aliasing, strides) against PyTorch's."""
    core.assert_same(got, expected, where=where, compare_values=info.compare_values,
                     tolerance=info.tolerance_for(dtype_name))
    return collect.run_declared(info, "layout", sample.name, where, lambda: core.assert_same_layout(
        got, expected, *inputs, where))


@pytest.mark.parametrize("info,dtype_name", CASES)
def test_values(info, dtype_name):
    compared = 0
    for sample in _samples(info, dtype_name):
        where = f"{info.name}[{dtype_name}] {sample.name}"
        got, expected, *inputs = _compare(info, dtype_name, sample, info.function(ember),
                                          info.function(torch), where)
        if expected is not None:       # else both raised the same class: compared too
            _check_result(info, dtype_name, sample, got, expected, inputs, where)
        compared += 1
    assert compared > 0, f"{info.name}[{dtype_name}]: no samples"


def _method(lib, name):
    def call(self, *args, **kwargs):
        return getattr(self, name)(*args, **kwargs)
    return call


@pytest.mark.parametrize("info,dtype_name", [c for c in CASES if c.values[0].method
                                             and c.values[0].call is None])
def test_method(info, dtype_name):
    compared = 0
    for sample in _samples(info, dtype_name):
        if not sample.args or not isinstance(sample.args[0], T):
            continue       # no tensor to call the method on (e.g. a list of tensors)
        where = f"Tensor.{info.name}[{dtype_name}] {sample.name}"
        got, expected, *inputs = _compare(info, dtype_name, sample, _method(ember, info.name),
                                          _method(torch, info.name), where)
        if expected is not None:       # else both raised the same class: compared too
            _check_result(info, dtype_name, sample, got, expected, inputs, where)
        compared += 1
    assert compared > 0, f"Tensor.{info.name}[{dtype_name}]: no sample has a tensor first"


@pytest.mark.parametrize("info,dtype_name", [c for c in CASES if c.values[0].supports_meta])
def test_meta(info, dtype_name):
    compared = 0
    for sample in _samples(info, dtype_name):
        where = f"{info.name}[{dtype_name}] {sample.name} on meta"
        expected, torch_error, _ = _run(info.function(torch), torch, sample)
        if torch_error is not None:
            continue       # an error sample: test_values compares the exceptions
        got, ember_error, _ = _run(info.function(ember), ember, sample, device="meta")
        assert ember_error is None, f"{where}: {type(ember_error).__name__}: {ember_error}"
        _assert_meta_matches(got, expected, where)
        compared += 1
    _skip_if_all_raised(compared, dtype_name)


def _skip_if_all_raised(compared, dtype_name):
    if compared == 0:
        pytest.skip(f"PyTorch raises on every {dtype_name} sample (test_values compares the "
                    "exceptions)")


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
    name = info.name + "_"
    compared = 0
    for sample in _samples(info, dtype_name):
        if not sample.inplace_ok or not isinstance(sample.args[0], T):
            continue       # the result would not fit in args[0] (the table says so)
        where = f"Tensor.{name}[{dtype_name}] {sample.name}"
        got, expected, ember_inputs, torch_inputs = _compare(
            info, dtype_name, sample, _method(ember, name), _method(torch, name), where)
        if expected is not None:       # else both raised the same class: compared too
            core.assert_same(got, expected, where=where, compare_values=info.compare_values,
                             tolerance=info.tolerance_for(dtype_name))
            assert expected is torch_inputs[0], where
            assert got is ember_inputs[0], f"{where}: must return self"
        compared += 1
    assert compared > 0, f"{name}[{dtype_name}]: no sample runs in place"


@pytest.mark.parametrize("info,dtype_name", [c for c in CASES if c.values[0].supports_out])
def test_out(info, dtype_name):
    compared = 0
    computed = 0
    for sample in _samples(info, dtype_name):
        expected, torch_error, _ = _run(info.function(torch), torch, sample)
        if torch_error is not None:
            continue       # an error sample: test_values compares the exceptions
        computed += 1
        several = isinstance(expected, (tuple, list))
        results = tuple(expected) if several else (expected,)
        if not all(isinstance(r, torch.Tensor) for r in results):
            continue
        where = f"{info.name}(out=)[{dtype_name}] {sample.name}"
        # Multi-output ops (max.dim, sort, frexp ...) take a tuple of out tensors.
        ember_outs = tuple(ember.empty(tuple(r.shape), dtype=getattr(ember, core.dtype_name(
            r.dtype))) for r in results)
        out = ember_outs if several else ember_outs[0]
        pointers = [o.untyped_storage().data_ptr() for o in ember_outs]
        got, ember_error, _ = _run(info.function(ember), ember, dataclasses.replace(
            sample, kwargs={**sample.kwargs, "out": out}))
        torch_outs = tuple(torch.empty_like(r) for r in results)
        _, torch_error, _ = _run(info.function(torch), torch, dataclasses.replace(
            sample, kwargs={**sample.kwargs, "out": torch_outs if several else torch_outs[0]}))
        if torch_error is not None:
            # An overload without out= (sum over everything, a number first, as_tuple=True):
            # ember may be more lenient there.
            continue
        assert ember_error is None, f"{where}: {type(ember_error).__name__}: {ember_error}"
        if several:
            assert len(got) == len(ember_outs) and all(
                g is o for g, o in zip(got, ember_outs)), f"{where}: out= must return the outs"
        else:
            assert got is out, f"{where}: out= must return the out tensor"
        # An out tensor of the right shape is written in place, not given new memory.
        assert [o.untyped_storage().data_ptr() for o in ember_outs] == pointers or any(
            o.numel() == 0 for o in ember_outs), f"{where}: out= replaced the out's storage"
        core.assert_same(ember_outs, results, where=where, compare_values=info.compare_values,
                         tolerance=info.tolerance_for(dtype_name))
        compared += 1
    _skip_if_all_raised(computed, dtype_name)
    assert compared > 0, f"{info.name}(out=)[{dtype_name}]: torch takes no out= (supports_out)"


ERROR_CASES = [pytest.param(info, id=info.name) for info in OPINFOS if info.errors]


@pytest.mark.parametrize("info", ERROR_CASES)
def test_errors(info):
    make = core.make_maker(0)
    for err in info.errors(make):
        where = f"{info.name} {err.sample.name}"
        _, torch_error, _ = _run(info.function(torch), torch, err.sample)
        assert isinstance(torch_error, err.error), (
            f"{where}: the table says torch raises {err.error.__name__}, but it raised "
            f"{type(torch_error).__name__ if torch_error else 'nothing'}")
        _, ember_error, _ = _run(info.function(ember), ember, err.sample)
        assert ember_error is not None and core.raises_torch_class(ember_error, torch_error), (
            f"{where}: ember raised {type(ember_error).__name__ if ember_error else 'nothing'}"
            f", torch {type(torch_error).__name__}")
        assert not isinstance(ember_error, (np.exceptions.AxisError,)), where
        assert err.match in str(ember_error), (
            f"{where}: message {str(ember_error)!r} should mention {err.match!r}")
