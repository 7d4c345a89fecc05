"""The op table (tests/opinfo) on 'cuda': every sample of every op run by ember on the CPU and
on CUDA, the results compared (values within the op's tolerances, shapes, dtypes, the device),
and the gradients of the differentiable ops likewise. Skipped without CUDA.

How much runs (NOTE [op table budget on the GPU]): the first time CuPy meets a kernel it
compiles it (NVRTC, a tenth of a second or more), so a fresh machine pays for every distinct
kernel once. By default every float32 sample runs (contiguous and not), and for the other dtypes
the first two contiguous samples; EMBER_CUDA_OPTABLE=full runs every sample of every dtype.
"""
from __future__ import annotations

import os

import numpy as np
import pytest
from cuda_support import AVAILABLE, assert_same, requires_cuda
from opinfo import collect

import ember

pytestmark = requires_cuda

FULL = os.environ.get("EMBER_CUDA_OPTABLE") == "full"
CASES = collect.CASES if AVAILABLE else []      # nothing to collect without CUDA
REASON_EMPTY = "the op table has no samples to run here"


def _samples(info, dtype_name):
    if FULL or dtype_name == "float32":
        yield from collect.samples(info, dtype_name)
        return
    for k, sample in enumerate(collect.samples(info, dtype_name, noncontiguous=False)):
        if k == 2:
            return
        yield sample


def _tolerance(info, dtype_name):
    """The op's own tolerance, loosened for the GPU's math (other libm, other summation
    orders, fused multiply-adds): at least 1e-4 in float32, 1e-9 in float64 and 1.6e-2 in
    the half types."""
    atol, rtol = info.tol(dtype_name)
    floor = {"float32": 1e-4, "complex64": 1e-4, "float64": 1e-9, "complex128": 1e-9,
             "float16": 1.6e-2, "bfloat16": 1.6e-2}.get(
        dtype_name, 0)
    return max(atol, floor), max(rtol, floor)


def _run_both(fn, sample):
    """(cpu outcome, cuda outcome): each (result, exception, inputs), the same seed before each
    (ember draws one random stream for every device)."""
    ember.manual_seed(0)
    on_cpu = collect.run(fn, ember, sample)
    ember.manual_seed(0)
    on_cuda = collect.run(fn, ember, sample, "cuda")
    return on_cpu, on_cuda


def _has_tensor(value):
    return bool(collect.tensors_in(value))


@pytest.mark.parametrize("info,dtype_name", CASES)
def test_values_match_cpu(info, dtype_name):
    atol, rtol = _tolerance(info, dtype_name)
    failures, compared = [], 0
    for sample in _samples(info, dtype_name):
        where = f"{info.name}[{dtype_name}] {sample.name}"
        (expected, cpu_error, _), (got, cuda_error, (args, kwargs)) = _run_both(
            info.function(ember), sample)
        compared += 1
        if cpu_error is not None:
            if cuda_error is None or not isinstance(cuda_error, type(cpu_error)):
                failures.append(f"{where}: cpu raised {type(cpu_error).__name__}, cuda "
                                f"{type(cuda_error).__name__ if cuda_error else 'nothing'}")
            continue
        if cuda_error is not None:
            failures.append(f"{where}: cuda raised {type(cuda_error).__name__}: "
                            f"{str(cuda_error)[:160]}")
            continue
        try:
            if not _has_tensor((args, kwargs)):
                # A factory without a device argument: it ran on the CPU both times.
                assert_same(got, expected, atol, rtol, where, check_device=False)
            elif info.compare_values:
                assert_same(got, expected, atol, rtol, where)
            else:
                _assert_same_layout_only(got, expected, where)
        except AssertionError as error:
            failures.append(f"{where}: {_first_line(error)}")
    if compared == 0:
        pytest.skip(REASON_EMPTY)
    assert not failures, f"{len(failures)} of {compared} samples differ; first: {failures[0]}"


def _first_line(error):
    """An assertion's message in one line: NumPy's starts with the tolerance, then the
    mismatch counts on the following lines."""
    lines = [line.strip() for line in str(error).strip().splitlines() if line.strip()]
    useful = [line for line in lines if line.startswith(("Mismatched", "Max abs"))]
    return " ".join((lines[:1] if not useful else []) + useful)[:240]


def _assert_same_layout_only(got, expected, where):
    if isinstance(expected, (tuple, list)):
        assert len(got) == len(expected), where
        for g, e in zip(got, expected):
            _assert_same_layout_only(g, e, where)
    elif isinstance(expected, ember.Tensor):
        assert isinstance(got, ember.Tensor), where
        assert got.device.type == "cuda", f"{where}: result is on {got.device}"
        assert got.shape == expected.shape and got.dtype == expected.dtype, where


GRAD_CASES = [c for c in CASES if c.values[0].supports_autograd and c.values[1] == "float32"]


@pytest.mark.parametrize("info,dtype_name", GRAD_CASES)
def test_grads_match_cpu(info, dtype_name):
    """ember.autograd.grad on CUDA against the same on the CPU, same grad_outputs."""
    atol, rtol = _tolerance(info, dtype_name)
    rng = np.random.default_rng(1)
    failures, compared = [], 0
    for sample in _samples(info, dtype_name):
        sample = collect.with_grad(sample, info)
        where = f"grad {info.name}[{dtype_name}] {sample.name}"
        if info.known_for("grad", sample.name) is not None:
            continue        # the table leaves this sample's gradient out (and says why)
        seed = int(rng.integers(1 << 30))
        results = []
        for device in (None, "cuda"):
            ember.manual_seed(0)
            out, error, (args, _) = collect.run(info.function(ember), ember, sample, device)
            if error is not None:
                results.append(error)
                continue
            outs = [o for o in (out if isinstance(out, (tuple, list)) else (out,))
                    if isinstance(o, ember.Tensor) and o.requires_grad]
            inputs = collect.grad_inputs(args)
            if not outs or not inputs:
                results.append(None)
                continue
            seeds = np.random.default_rng(seed)
            grad_outputs = [ember.tensor(seeds.standard_normal(tuple(o.shape))).to(
                o.dtype).to(o.device) for o in outs]
            try:
                results.append(ember.autograd.grad(outs, inputs, grad_outputs,
                                                   allow_unused=True))
            except Exception as exc:  # noqa: BLE001 -- reported below with its class
                results.append(exc)
        expected, got = results
        if isinstance(expected, Exception) or expected is None:
            continue        # no gradient on the CPU either: nothing to compare
        compared += 1
        if isinstance(got, Exception) or got is None:
            failures.append(f"{where}: cuda backward: {type(got).__name__}: {str(got)[:160]}")
            continue
        for k, (g, e) in enumerate(zip(got, expected)):
            try:
                if e is None:
                    assert g is None or not bool((g != 0).any()), f"{where} input {k}"
                else:
                    assert g is not None, f"{where}: no gradient for input {k}"
                    assert_same(g, e, atol * 10, rtol * 10, f"{where} input {k}")
            except AssertionError as error:
                failures.append(f"{where} input {k}: {_first_line(error)}")
    if compared == 0:
        pytest.skip("no sample has a gradient on the CPU")
    assert not failures, f"{len(failures)} of {compared} samples differ; first: {failures[0]}"
