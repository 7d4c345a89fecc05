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
        if torch_error is not None:
            continue
        several = isinstance(expected, (tuple, list))
        results = tuple(expected) if several else (expected,)
        if not all(isinstance(r, torch.Tensor) for r in results):
            continue
        where = f"{info.name}(out=)[{dtype_name}] {sample.name}"
        # Multi-output ops (max.dim, sort, frexp ...) take a tuple of out tensors.
        ember_outs = tuple(ember.empty(tuple(r.shape), dtype=getattr(ember, core.dtype_name(
            r.dtype))) for r in results)
        out = ember_outs if several else ember_outs[0]
        got, ember_error = _run(info.function(ember), ember,
                                dataclasses.replace(sample, kwargs={**sample.kwargs, "out": out}))
        torch_outs = tuple(torch.empty_like(r) for r in results)
        _, torch_error = _run(info.function(torch), torch, dataclasses.replace(
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
        core.assert_same(ember_outs, results, atol, rtol, where, info.compare_values)


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


# --------------------------------------------------------------------------- autograd

GRAD_CASES = [c for c in CASES if c.values[0].supports_autograd
              and c.values[1] in ("float32", "float64")]


def _with_grad(sample, info):
    """The sample with requires_grad on its floating tensor arguments."""
    def mark(value, position):
        if isinstance(value, T) and value.array.dtype.kind in "fc":
            if info.grad_args is None or position in info.grad_args:
                return dataclasses.replace(value, requires_grad=True)
        return value
    args = tuple(mark(v, i) for i, v in enumerate(sample.args))
    return core.Sample(args, sample.kwargs, sample.name, sample.inplace_ok)


def _grad_inputs(args):
    found = []
    for v in args:
        if hasattr(v, "requires_grad") and v.requires_grad:
            found.append(v)
    return found


def _float_outputs(result, lib):
    outs = result if isinstance(result, (tuple, list)) else (result,)
    return [o for o in outs if isinstance(o, lib.Tensor) and o.requires_grad]


@pytest.mark.parametrize("info,dtype_name", GRAD_CASES)
def test_grad(info, dtype_name):
    """ember.autograd.grad against torch.autograd.grad, same inputs and grad_outputs."""
    atol, rtol = info.tol(dtype_name)
    rng = np.random.default_rng(1)
    for sample in _samples(info, dtype_name):
        sample = _with_grad(sample, info)
        where = f"grad {info.name}[{dtype_name}] {sample.name}"
        t_args, t_kwargs = to_lib(sample.args, torch), to_lib(sample.kwargs, torch)
        try:
            t_out = info.function(torch)(*t_args, **t_kwargs)
        except Exception:  # noqa: BLE001 -- value errors are test_values' business
            continue
        t_outs = _float_outputs(t_out, torch)
        t_ins = _grad_inputs(t_args)
        if not t_outs or not t_ins:
            continue
        seeds = [rng.standard_normal(tuple(o.shape)).astype(core.to_numpy(o).dtype)
                 for o in t_outs]
        expected = torch.autograd.grad(t_outs, t_ins, [torch.tensor(s) for s in seeds],
                                       allow_unused=True)
        e_args, e_kwargs = to_lib(sample.args, ember), to_lib(sample.kwargs, ember)
        e_outs = _float_outputs(info.function(ember)(*e_args, **e_kwargs), ember)
        assert len(e_outs) == len(t_outs), f"{where}: {len(e_outs)} differentiable outputs"
        got = ember.autograd.grad(e_outs, _grad_inputs(e_args),
                                  [ember.tensor(s) for s in seeds], allow_unused=True)
        for k, (g, e) in enumerate(zip(got, expected)):
            if e is None:
                assert g is None or not np.any(core.to_numpy(g)), f"{where}: input {k}"
                continue
            assert g is not None, f"{where}: no gradient for input {k}"
            core.assert_same(g, e, atol * 10, rtol * 10, f"{where} input {k}")


GRADCHECK_CASES = [pytest.param(info, id=info.name) for info in OPINFOS
                   if info.supports_autograd and info.gradcheck and "float64" in info.dtypes]


def _gradcheck_samples(info, limit=3):
    make = core.make_maker(2)
    found = []
    for sample in info.samples(make, "float64"):
        sample = _with_grad(sample, info)
        if any(isinstance(v, T) and v.requires_grad and v.array.size <= 12
               for v in sample.args) and all(
                not isinstance(v, T) or v.array.size <= 12 for v in sample.args):
            found.append(sample)
        if len(found) >= limit:
            break
    return found


@pytest.mark.parametrize("info", GRADCHECK_CASES)
def test_gradcheck(info):
    for sample in _gradcheck_samples(info):
        args = to_lib(sample.args, ember)
        kwargs = to_lib(sample.kwargs, ember)
        positions = [i for i, a in enumerate(args) if isinstance(a, ember.Tensor)
                     and a.requires_grad]
        fn = info.function(ember)

        def call(*grad_args, args=args, positions=positions, fn=fn, kwargs=kwargs):
            full = list(args)
            for p, a in zip(positions, grad_args):
                full[p] = a
            return fn(*full, **kwargs)
        inputs = tuple(args[p] for p in positions)
        assert ember.autograd.gradcheck(call, inputs), f"{info.name} {sample.name}"
        if info.gradgradcheck:
            assert ember.autograd.gradgradcheck(call, inputs), f"{info.name} {sample.name}"


@pytest.mark.parametrize("info", GRADCHECK_CASES)
def test_forward_ad(info):
    """Forward-mode tangents (ember.autograd.forward_ad) against PyTorch's forward AD."""
    rng = np.random.default_rng(3)
    checked = 0
    for sample in _gradcheck_samples(info):
        tangents = {i: rng.standard_normal(v.array.shape) for i, v in enumerate(sample.args)
                    if isinstance(v, T) and v.requires_grad}
        results = []
        for lib in (torch, ember):
            fw = lib.autograd.forward_ad
            args = list(to_lib(sample.args, lib))
            kwargs = to_lib(sample.kwargs, lib)
            try:
                with fw.dual_level():
                    for i, t in tangents.items():
                        args[i] = fw.make_dual(args[i].detach(), lib.tensor(t))
                    out = info.function(lib)(*args, **kwargs)
                    outs = out if isinstance(out, (tuple, list)) else (out,)
                    results.append([fw.unpack_dual(o).tangent for o in outs
                                    if isinstance(o, lib.Tensor) and o.dtype.is_floating_point])
            except (RuntimeError, NotImplementedError):
                if lib is ember:
                    raise
                break          # PyTorch has no forward derivative for this op or sample
        if len(results) < 2:
            continue
        expected, got = results
        assert len(got) == len(expected), f"{info.name} {sample.name}: output count"
        for g, e in zip(got, expected):
            if e is None:
                assert g is None or not np.any(core.to_numpy(g)), f"{info.name} {sample.name}"
                continue
            assert g is not None, f"{info.name} {sample.name}: no tangent"
            core.assert_same(g, e, 1e-7, 1e-6, f"forward AD {info.name} {sample.name}")
        checked += 1
