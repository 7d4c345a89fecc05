"""The composite backward ops autograd records, lowered to fused loops
(`ember/_inductor/lowering_backward.py`), and reshapes read through index maps by groups
(NOTE [reshape index maps by groups] in ember/_inductor/ir.py): each compiled graph against
PyTorch's eager ops on the same inputs, with no extern call left for the lowered op."""
import re

import numpy as np
import pytest
import torch

import ember
from ember._inductor import compile_fx, cpp_builder, metrics
from ember.fx.experimental.proxy_tensor import make_fx

pytestmark = pytest.mark.skipif(cpp_builder.compiler() is None, reason="no C compiler")


def _arrays(shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(np.float32) for s in shapes]


def _compiled(f, arrays):
    args = [ember.tensor(a) for a in arrays]
    metrics.reset()
    fn = compile_fx(make_fx(f)(*args), args)
    out = fn(*args)
    assert metrics.compile_failures == 0 and metrics.eager_fallbacks == 0
    return fn, out


def _check(fn_source, op_name, outs, expected):
    assert not re.search(rf"_f\d+\(", fn_source), f"{op_name} left as an extern call"
    for o, e in zip(outs, expected):
        if e is None:
            assert o is None
            continue
        np.testing.assert_allclose(o.numpy(), e.numpy(), rtol=1e-4, atol=1e-5)


LN_CASES = {
    "affine_3d": ((2, 5, 8), (8,), True, True, [True, True, True]),
    "two_dims": ((3, 4, 6), (4, 6), True, True, [True, True, True]),
    "no_affine": ((6, 16), (16,), False, False, [True, False, False]),
    "input_grad_only": ((4, 7, 9), (9,), True, True, [True, False, False]),
    "weight_grads_only": ((4, 9), (9,), True, True, [False, True, True]),
}


@pytest.mark.parametrize("name", sorted(LN_CASES))
def test_layer_norm_backward_matches_pytorch(name):
    shape, normalized, has_w, has_b, mask = LN_CASES[name]
    x, g, w, b = _arrays([shape, shape, normalized, normalized])
    lead = len(shape) - len(normalized)
    stats_shape = shape[:lead] + (1,) * len(normalized)
    tx = torch.tensor(x)
    _, tmean, trstd = torch.native_layer_norm(tx, list(normalized), None, None, 1e-5)
    mean, rstd = tmean.numpy(), trstd.numpy()
    assert mean.shape == stats_shape
    expected = torch.ops.aten.native_layer_norm_backward(
        torch.tensor(g), tx, list(normalized), tmean, trstd,
        torch.tensor(w) if has_w else None, torch.tensor(b) if has_b else None, mask)

    def f(g, x, mean, rstd, w, b):
        return ember.ops.aten.native_layer_norm_backward.default(
            g, x, list(normalized), mean, rstd, w if has_w else None, b if has_b else None,
            mask)
    fn, outs = _compiled(f, [g, x, mean, rstd, w, b])
    _check(fn.source, "native_layer_norm_backward", outs, expected)


@pytest.mark.parametrize("dim", [-1, 0, 1])
@pytest.mark.parametrize("log", [False, True], ids=["softmax", "log_softmax"])
def test_softmax_backward_matches_pytorch(dim, log):
    x, g = _arrays([(4, 6, 10), (4, 6, 10)])
    tx = torch.tensor(x)
    y = torch.log_softmax(tx, dim) if log else torch.softmax(tx, dim)
    op = "_log_softmax_backward_data" if log else "_softmax_backward_data"
    expected = getattr(torch.ops.aten, op)(torch.tensor(g), y, dim, torch.float32)

    def f(g, y):
        return getattr(ember.ops.aten, op).default(g, y, dim, ember.float32)
    fn, out = _compiled(f, [g, y.numpy()])
    _check(fn.source, op, [out], [expected])


RESHAPES = {
    "merge_split": (lambda lib: lambda x: (x.reshape(4, 3, 10) * 2).reshape(12, 10).sum(0),
                    (12, 10), True),
    "split_merge": (lambda lib: lambda x: (x.reshape(2, 6, 5, 2) + 1).reshape(12, 10),
                    (12, 10), True),
    "regroup": (lambda lib: lambda x: x.exp().reshape(6, 20).reshape(8, 15) + 1, (12, 10),
                False),
    "with_ones": (lambda lib: lambda x: x.reshape(1, 3, 1, 4, 10).sum(3) * 2, (12, 10),
                  True),
    "transposed_then_merged": (
        lambda lib: lambda x: x.t().reshape(5, 24).exp().reshape(10, 12).sum(1), (12, 10),
        False),
}


@pytest.mark.parametrize("name", sorted(RESHAPES))
def test_reshape_index_maps_match_pytorch(name):
    build, shape, dense = RESHAPES[name]
    (x,) = _arrays([shape])
    expected = build(torch)(torch.tensor(x))
    from ember._decomp import core_aten_decompositions
    args = [ember.tensor(x)]
    metrics.reset()
    fn = compile_fx(make_fx(build(ember), core_aten_decompositions())(*args), args)
    np.testing.assert_allclose(fn(*args).numpy(), expected.numpy(), rtol=1e-5, atol=1e-5)
    assert metrics.compile_failures == 0
    if dense:   # dims only merged or split over a dense buffer: no flat-position division
        assert "%" not in fn.kernel_source, fn.kernel_source
