"""Gradients of every differentiable op in the OpInfo table: reverse mode against PyTorch's
(every sample, float32 and float64), against finite differences (ember's gradcheck and
gradgradcheck, float64), and forward-mode tangents against PyTorch's forward AD.

Tensors inside a list argument (cat, stack, einsum ...) count as inputs like any other. A
sample a check leaves out is a skipped test item whose reason the report shows (`-rs`):
declared in the table (`Skip`, `XFail`) or over the finite-difference budget below.
"""
from __future__ import annotations

import numpy as np
import pytest
from opinfo import collect, core
from opinfo.core import T, to_lib

import ember

torch = pytest.importorskip("torch")

# NOTE [finite-difference budget]: gradcheck evaluates the op twice per real input element
# and runs one backward per output element; gradgradcheck does that for the backward itself,
# over the inputs and the grad_outputs. The budgets (real input elements, plus output
# elements for gradgradcheck) keep the whole table within a few seconds; a larger sample is
# still compared with PyTorch's gradient (test_grad) and tangent (test_forward_ad).
GRADCHECK_BUDGET = 64
GRADGRADCHECK_BUDGET = 24

DIFFERENTIABLE = [info for info in collect.OPINFOS if info.supports_autograd]
GRAD_CASES = [c for c in collect.CASES if c.values[0].supports_autograd
              and c.values[1] in ("float32", "float64")]


def _is_tensor(value, lib):
    return isinstance(value, lib.Tensor)


def _differentiable_outputs(result, lib):
    outs = result if isinstance(result, (tuple, list)) else (result,)
    return [o for o in outs if _is_tensor(o, lib) and o.requires_grad]


def _assert_same_error(ember_error, torch_error, where):
    assert ember_error is not None, (
        f"{where}: torch raised {type(torch_error).__name__}: {torch_error}; ember did not")
    assert core.raises_torch_class(ember_error, torch_error), (
        f"{where}: torch raised {type(torch_error).__name__}, ember "
        f"{type(ember_error).__name__}: {ember_error}")


@pytest.mark.parametrize("info,dtype_name", GRAD_CASES)
def test_grad(info, dtype_name):
    """ember.autograd.grad against torch.autograd.grad, same inputs and grad_outputs."""
    tolerance = info.tolerance_for(dtype_name, factor=core.GRAD_FACTOR)
    rng = np.random.default_rng(1)
    compared = 0
    for sample in collect.samples(info, dtype_name):
        sample = collect.with_grad(sample, info)
        where = f"grad {info.name}[{dtype_name}] {sample.name}"
        seeds_rng = np.random.default_rng(rng.integers(1 << 30))
        compared += bool(collect.run_declared(info, "grad", sample.name, where, lambda: _check_grad(
            info, sample, seeds_rng, tolerance, where)))
    assert compared > 0, f"grad {info.name}[{dtype_name}]: no sample has a differentiable output"


def _check_grad(info, sample, rng, tolerance, where):
    t_out, t_error, (t_args, _) = collect.run(info.function(torch), torch, sample)
    e_out, e_error, (e_args, _) = collect.run(info.function(ember), ember, sample)
    if t_error is not None:
        _assert_same_error(e_error, t_error, where)
        return False
    assert e_error is None, f"{where}: ember raised {type(e_error).__name__}: {e_error}"
    t_outs, e_outs = _differentiable_outputs(t_out, torch), _differentiable_outputs(e_out, ember)
    # Also the check that requires_grad reaches the same outputs in both libraries.
    assert len(e_outs) == len(t_outs), f"{where}: {len(e_outs)} differentiable outputs"
    if not t_outs:
        return False
    seeds = [rng.standard_normal(tuple(o.shape)).astype(core.to_numpy(o).dtype) for o in t_outs]
    expected = torch.autograd.grad(t_outs, collect.grad_inputs(t_args),
                                   [torch.tensor(s) for s in seeds], allow_unused=True)
    got = ember.autograd.grad(e_outs, collect.grad_inputs(e_args),
                              [ember.tensor(s) for s in seeds], allow_unused=True)
    for k, (g, e) in enumerate(zip(got, expected)):
        if e is None:
            assert g is None or not np.any(core.to_numpy(g)), f"{where}: input {k}"
            continue
        assert g is not None, f"{where}: no gradient for input {k}"
        core.assert_same(g, e, where=f"{where} input {k}", tolerance=tolerance)
    return True


# ------------------------------------------------------------------ finite differences


def _real_size(t: T) -> int:
    return t.array.size * (2 if t.array.dtype.kind == "c" else 1)


def _grad_arrays(value):
    if isinstance(value, T):
        return [value] if value.requires_grad else []
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _grad_arrays(v)]
    return []


def _declared_marks(info, check, sample, budget=None, extra_size=0):
    """The pytest marks for one check of one sample: the table's Skip / XFail, the budget."""
    known = info.known_for(check, sample.name)
    if isinstance(known, core.XFail):
        return [pytest.mark.xfail(reason=known.reason, strict=True)]
    if known is not None:
        return [pytest.mark.skip(reason=known.reason)]
    inputs = _grad_arrays(sample.args)
    if not inputs:
        return [pytest.mark.skip(reason="no floating tensor argument to differentiate")]
    if budget is None:
        return []
    if not all(np.isfinite(t.array).all() for t in inputs):
        return [pytest.mark.skip(reason="an input holds nan or inf: no finite differences")]
    size = sum(_real_size(t) for t in inputs) + extra_size
    if size > budget:
        return [pytest.mark.skip(reason=(
            f"{size} elements, over the {check} budget of {budget} (NOTE [finite-difference "
            "budget]); test_grad compares its gradient with PyTorch's"))]
    return []


def _output_size(info, sample):
    """Real elements of the differentiable outputs (PyTorch's, computed at collection)."""
    out, error, _ = collect.run(info.function(torch), torch, sample)
    if error is not None:
        return 0
    outs = _differentiable_outputs(out, torch)
    return sum(o.numel() * (2 if o.is_complex() else 1) for o in outs)


def _cases(check, budget=None, noncontiguous=False):
    cases = []
    for info in DIFFERENTIABLE:
        if "float64" not in info.dtypes or not getattr(info, check, True):
            continue
        for index, sample in enumerate(collect.samples(info, "float64", seed=2,
                                                       noncontiguous=noncontiguous)):
            sample = collect.with_grad(sample, info)
            extra = _output_size(info, sample) if check == "gradgradcheck" else 0
            marks = _declared_marks(info, check, sample, budget, extra)
            cases.append(pytest.param(info, sample, marks=marks,
                                      id=f"{info.name}-{index}-{sample.name}"))
    return cases


GRADCHECK_CASES = _cases("gradcheck", GRADCHECK_BUDGET)
GRADGRADCHECK_CASES = _cases("gradgradcheck", GRADGRADCHECK_BUDGET)
FORWARD_AD_CASES = _cases("forward_ad")


def _ember_function(info, sample):
    """(f, inputs): f(*inputs) calls the op with its differentiable tensors (list members
    too) taken from `inputs`, so gradcheck sees every one of them."""
    args, kwargs = to_lib(sample.args, ember), to_lib(sample.kwargs, ember)
    inputs = tuple(collect.grad_inputs(args))
    op = info.function(ember)

    def f(*grad_inputs):
        return op(*collect.substitute(args, iter(grad_inputs)), **kwargs)
    return f, inputs


def _skip_error_sample(info, sample):
    _, error, _ = collect.run(info.function(torch), torch, sample)
    if error is not None:
        pytest.skip(f"PyTorch raises {type(error).__name__} on this sample (test_grad "
                    "compares the exceptions)")


@pytest.mark.parametrize("info,sample", GRADCHECK_CASES)
def test_gradcheck(info, sample):
    _skip_error_sample(info, sample)
    f, inputs = _ember_function(info, sample)
    assert ember.autograd.gradcheck(f, inputs), f"{info.name} {sample.name}"


@pytest.mark.parametrize("info,sample", GRADGRADCHECK_CASES)
def test_gradgradcheck(info, sample):
    _skip_error_sample(info, sample)
    f, inputs = _ember_function(info, sample)
    assert ember.autograd.gradgradcheck(f, inputs), f"{info.name} {sample.name}"


@pytest.mark.parametrize("check,cases", [("gradcheck", GRADCHECK_CASES),
                                         ("gradgradcheck", GRADGRADCHECK_CASES),
                                         ("forward_ad", FORWARD_AD_CASES)])
def test_every_differentiable_op_is_checked(check, cases):
    """Each differentiable OpInfo has samples this check runs (not all skipped)."""
    running = {id(c.values[0]) for c in cases if not any(
        m.name == "skip" for m in c.marks)}
    missing = [info.name for info in DIFFERENTIABLE if "float64" in info.dtypes
               and getattr(info, check, True) and id(info) not in running]
    assert not missing, f"{check} runs no sample of {missing}"


# ------------------------------------------------------------------ forward AD


def _tangents(lib, info, sample, tangents):
    """The op's output tangents with `tangents` on its differentiable inputs."""
    fw = lib.autograd.forward_ad
    args, kwargs = to_lib(sample.args, lib), to_lib(sample.kwargs, lib)
    with fw.dual_level():
        duals = iter([fw.make_dual(t.detach(), lib.tensor(tangent))
                      for t, tangent in zip(collect.grad_inputs(args), tangents)])
        out = info.function(lib)(*collect.substitute(args, duals), **kwargs)
        outs = out if isinstance(out, (tuple, list)) else (out,)
        return [fw.unpack_dual(o).tangent for o in outs
                if _is_tensor(o, lib) and (o.dtype.is_floating_point or o.dtype.is_complex)]


def _finite_difference_tangent(info, sample, tangents, step=1e-6):
    """(f(x + step t) - f(x - step t)) / 2 step for each floating output, as torch tensors."""
    def outputs(sign):
        arrays = iter([t.array + sign * step * tangent
                       for t, tangent in zip(_grad_arrays(sample.args), tangents)])
        args = _with_arrays(sample.args, arrays)
        out = info.function(ember)(*to_lib(args, ember), **to_lib(sample.kwargs, ember))
        outs = out if isinstance(out, (tuple, list)) else (out,)
        return [core.to_numpy(o) for o in outs if _is_tensor(o, ember)
                and o.dtype.is_floating_point]
    plus, minus = outputs(1), outputs(-1)
    return [torch.tensor((p - m) / (2 * step)) for p, m in zip(plus, minus)]


def _with_arrays(value, arrays):
    if isinstance(value, T):
        return T(next(arrays), value.noncontig) if value.requires_grad else value
    if isinstance(value, list):
        return [_with_arrays(v, arrays) for v in value]
    if isinstance(value, tuple):
        return tuple(_with_arrays(v, arrays) for v in value)
    return value


@pytest.mark.parametrize("info,sample", FORWARD_AD_CASES)
def test_forward_ad(info, sample):
    """Forward-mode tangents (ember.autograd.forward_ad) against PyTorch's forward AD."""
    where = f"forward AD {info.name} {sample.name}"
    _, torch_error, _ = collect.run(info.function(torch), torch, sample)
    if torch_error is not None:
        _, ember_error, _ = collect.run(info.function(ember), ember, sample)
        _assert_same_error(ember_error, torch_error, where)
        return
    rng = np.random.default_rng(3)
    tangents = [rng.standard_normal(t.array.shape) for t in _grad_arrays(sample.args)]
    try:
        expected = _tangents(torch, info, sample, tangents)
    except Exception as exc:  # noqa: BLE001 -- the op itself ran (above): a gap in torch
        pytest.skip(f"PyTorch's forward AD fails here ({type(exc).__name__}: "
                    f"{str(exc)[:100]})")
    got = _tangents(ember, info, sample, tangents)
    assert len(got) == len(expected), f"{where}: {len(got)} tangents, torch {len(expected)}"
    compared = 0
    for k, (g, e) in enumerate(zip(got, expected)):
        numerical = e is None and g is not None and bool(np.any(core.to_numpy(g)))
        if numerical:
            # PyTorch gives none (scatter_reduce's prod): central differences instead.
            e = _finite_difference_tangent(info, sample, tangents)[k]
        if e is None:
            assert g is None or not np.any(core.to_numpy(g)), f"{where}: a tangent torch lacks"
            continue
        assert g is not None, f"{where}: no tangent"
        atol, rtol = (1e-5, 1e-3) if numerical else (1e-7, 1e-6)
        core.assert_same(g, e, atol, rtol, where + (" (vs finite differences)" * numerical))
        compared += 1
    if compared == 0:
        # Every output's tangent is absent in both (an integer-valued result, say).
        pytest.skip("PyTorch gives no output a tangent on this sample")


def test_known_declarations_name_real_samples():
    """Each Skip / XFail names a check and samples that exist, so none outlives its sample."""
    names = {}
    for info in collect.OPINFOS:
        found = names.setdefault(id(info), set())
        for d in info.dtypes:
            found.update(s.name for s in collect.samples(info, d, noncontiguous=False))
    for info in collect.OPINFOS:
        for known in info.known:
            assert known.check in core.CHECKS, f"{info.name}: unknown check {known.check!r}"
            shared = set().union(*(names[id(i)] for i in collect.OPINFOS if i.name == info.name))
            missing = set(known.samples) - shared
            assert not missing, f"{info.name}: {known.check} declares unknown samples {missing}"


LAYOUT_CASES = [pytest.param(info, id=info.name)
               for info in DIFFERENTIABLE if "float64" in info.dtypes]


@pytest.mark.parametrize("info", LAYOUT_CASES)
def test_accumulated_grad_layout(info):
    """`.grad` after backward() has PyTorch's strides (its layout contract: a dense leaf's
    gradient takes the leaf's strides, any other is row-major), on each sample's leaves."""
    compared = 0
    for sample in collect.samples(info, "float64"):
        sample = collect.with_grad(sample, info)
        grads = []
        for lib in (torch, ember):
            out, error, (args, _) = collect.run(info.function(lib), lib, sample)
            outs = [] if error is not None else _differentiable_outputs(out, lib)
            if not outs:
                break
            total = sum((o.abs() if o.is_complex() else o).sum() for o in outs)
            total.backward()
            grads.append([t.grad for t in collect.grad_inputs(args)])
        if len(grads) < 2:
            continue       # nothing differentiable here: test_grad checks that ember agrees
        where = f"{info.name} {sample.name}"
        for k, (t_grad, e_grad) in enumerate(zip(*grads)):
            if t_grad is None:
                continue
            assert e_grad is not None, f"{where}: no .grad on input {k}"
            # The contract speaks of the dims that have more than one element (PyTorch keeps
            # a stolen gradient's strides on size-1 dims, whatever its kernel gave them).
            e_strides = [s for s, n in zip(e_grad.stride(), e_grad.shape) if n != 1]
            t_strides = [s for s, n in zip(t_grad.stride(), t_grad.shape) if n != 1]
            assert e_strides == t_strides, (
                f"{where}: input {k} .grad strides {tuple(e_grad.stride())} != torch "
                f"{tuple(t_grad.stride())} (shape {tuple(t_grad.shape)})")
        compared += 1
    assert compared > 0, f"{info.name}: no sample has a differentiable output"
