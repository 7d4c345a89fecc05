"""F.grouped_mm, F.scaled_mm, F.scaled_grouped_mm and the ScalingType / SwizzleType enums
against PyTorch's CPU."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import ember


def _arrays(*shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(np.float32) for s in shapes]


GROUPED = [
    ((8, 16), (2, 16, 32), [3, 8]),
    ((8, 16), (2, 16, 32), [3, 6]),           # rows past the last offset
    ((2, 8, 16), (2, 16, 32), None),
    ((8, 16), (16, 32), [5, 16]),
    ((2, 8, 16), (16, 32), [10, 32]),
]


@pytest.mark.parametrize(("shape_a", "shape_b", "offs"), GROUPED)
@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16"])
def test_grouped_mm_matches_torch(shape_a, shape_b, offs, dtype):
    a, b = _arrays(shape_a, shape_b)
    results = []
    for lib in (ember, torch):
        kwargs = {} if offs is None else {"offs": lib.tensor(offs, dtype=lib.int32)}
        out = lib.nn.functional.grouped_mm(lib.tensor(a).to(getattr(lib, dtype)),
                                           lib.tensor(b).to(getattr(lib, dtype)), **kwargs)
        results.append((str(out.dtype).split(".")[1], tuple(out.shape), out.float().numpy()))
    (got_dtype, got_shape, got), (dtype_, shape, expected) = results
    assert (got_dtype, got_shape) == (dtype_, shape)
    if shape_a == (8, 16) and offs == [3, 6]:        # PyTorch leaves those rows unwritten
        got, expected = got[:6], expected[:6]
    np.testing.assert_allclose(got, expected, rtol=1e-5 if dtype == "float32" else 1e-2,
                               atol=1e-5 if dtype == "float32" else 1e-2)


@pytest.mark.parametrize("case", [
    lambda lib, a, b, o: lib.nn.functional.grouped_mm(a, b, offs=o, out_dtype=lib.float64),
    lambda lib, a, b, o: lib.nn.functional.grouped_mm(a, b, offs=o, bias=lib.zeros(2, 32)),
    lambda lib, a, b, o: lib.nn.functional.grouped_mm(a, b),
    lambda lib, a, b, o: lib.nn.functional.grouped_mm(a, b, offs=o.long()),
])
def test_grouped_mm_errors(case):
    messages = []
    for lib in (ember, torch):
        a, b = (lib.tensor(x) for x in _arrays((8, 16), (2, 16, 32)))
        with pytest.raises(RuntimeError) as caught:
            case(lib, a, b, lib.tensor([3, 8], dtype=lib.int32))
        messages.append(str(caught.value))
    assert messages[0] == messages[1]


def _float8(lib, array, transposed=False):
    t = lib.tensor(array)
    if transposed:
        t = t.t().contiguous().t()
    return t.to(lib.float8_e4m3fn)


@pytest.mark.parametrize("recipe", ["TensorWise", "RowWise"])
@pytest.mark.parametrize("output_dtype", [None, "float32"])
@pytest.mark.parametrize("with_bias", [False, True])
def test_scaled_mm_matches_torch(recipe, output_dtype, with_bias):
    a, b = _arrays((16, 32), (32, 16))
    rng = np.random.default_rng(1)
    scales = ((np.float32(0.5), np.float32(2.0)) if recipe == "TensorWise" else
              (rng.uniform(0.5, 1.5, (16, 1)).astype(np.float32),
               rng.uniform(0.5, 1.5, (1, 16)).astype(np.float32)))
    bias = rng.standard_normal(16).astype(np.float32)
    results = []
    for lib in (ember, torch):
        F = lib.nn.functional
        kwargs = {}
        if output_dtype is not None:
            kwargs["output_dtype"] = getattr(lib, output_dtype)
        if with_bias:
            kwargs["bias"] = lib.tensor(bias).to(kwargs.get("output_dtype", lib.bfloat16))
        recipe_value = getattr(F.ScalingType, recipe)
        out = F.scaled_mm(_float8(lib, a), _float8(lib, b, transposed=True),
                          lib.tensor(scales[0]), recipe_value, lib.tensor(scales[1]),
                          recipe_value, **kwargs)
        results.append((str(out.dtype).split(".")[1], out.float().numpy()))
    assert results[0][0] == results[1][0]
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-2 if output_dtype is None
                               else 1e-6, atol=1e-5)


@pytest.mark.parametrize("case", [
    lambda lib, F, a, b: F.scaled_mm(a, b, lib.ones(16, 1), F.ScalingType.BlockWise1x128,
                                     lib.ones(1, 16), F.ScalingType.BlockWise1x128),
    lambda lib, F, a, b: F.scaled_mm(a, b, lib.ones(3, 1), F.ScalingType.RowWise,
                                     lib.ones(1, 16), F.ScalingType.RowWise),
    lambda lib, F, a, b: F.scaled_mm(a, b, lib.ones(1), F.ScalingType.TensorWise,
                                     lib.ones(1, 16), F.ScalingType.RowWise),
    lambda lib, F, a, b: F.scaled_mm(a, b[:16], lib.ones(1), F.ScalingType.TensorWise,
                                     lib.ones(1), F.ScalingType.TensorWise),
    lambda lib, F, a, b: F.scaled_mm(a, b, lib.ones(1, dtype=lib.float64),
                                     F.ScalingType.TensorWise, lib.ones(1),
                                     F.ScalingType.TensorWise),
    lambda lib, F, a, b: F.scaled_mm(a.float(), b.float(), lib.ones(1), F.ScalingType.TensorWise,
                                     lib.ones(1), F.ScalingType.TensorWise),
])
def test_scaled_mm_errors(case):
    messages = []
    for lib in (ember, torch):
        a, b = _arrays((16, 32), (32, 16))
        with pytest.raises(ValueError) as caught:
            case(lib, lib.nn.functional, _float8(lib, a), _float8(lib, b))
        messages.append(str(caught.value))
    assert messages[0] == messages[1]


def test_scaled_grouped_mm_has_no_cpu_kernel():
    messages = []
    for lib in (ember, torch):
        F = lib.nn.functional
        with pytest.raises(NotImplementedError) as caught:
            F.scaled_grouped_mm(lib.zeros(8, 16).to(lib.float8_e4m3fn),
                                lib.zeros(2, 16, 32).to(lib.float8_e4m3fn), lib.ones(8),
                                F.ScalingType.RowWise, lib.ones(2, 32), F.ScalingType.RowWise,
                                offs=lib.tensor([3, 8], dtype=lib.int32))
        messages.append(str(caught.value)[:150])
    assert messages[0] == messages[1]


def test_enums_match_torch():
    for name in ("ScalingType", "SwizzleType"):
        got, expected = (getattr(lib.nn.functional, name) for lib in (ember, torch))
        assert got.__name__ == expected.__name__
        assert {k: int(v) for k, v in got.__members__.items()} == \
            {k: int(v) for k, v in expected.__members__.items()}
