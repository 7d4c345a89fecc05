"""Views feeding extern calls handed over as strided NumPy views (NOTE [strided aliases for
extern calls] in ember/_inductor/lowering.py) and float mm/bmm through np.matmul (NOTE
[matmul without the dispatcher] in wrapper.py): the generated wrapper replays no view op
where the layout is known, and every result equals PyTorch eager's."""
import re

import numpy as np
import pytest
import torch

import ember
from ember._decomp import core_aten_decompositions
from ember._inductor import compile_fx, cpp_builder, metrics
from ember.fx.experimental.proxy_tensor import make_fx

pytestmark = pytest.mark.skipif(cpp_builder.compiler() is None, reason="no C compiler")


def linear_t(lib):
    return lambda x, w, b: lib.relu(x @ w.t() + b) @ w


def attention(lib):
    def f(x, w):
        b, t, d = 2, 8, 16
        q, k, v = (x @ w).split(d, dim=2)
        q = q.view(b, t, 4, 4).transpose(1, 2)
        k = k.view(b, t, 4, 4).transpose(1, 2)
        v = v.view(b, t, 4, 4).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)).softmax(-1)
        return (att @ v).transpose(1, 2).reshape(b, t, d)
    return f


def clone_then_view(lib):
    # the clone lowers to no copy: the view after it must not read the permuted layout
    return lambda x, w: (x.t().contiguous().view(4, 6) * 2) @ w


def offset_slices(lib):
    return lambda x, w: (x[1:, 2:] @ w[2:, :3]) + x[:-1, :-2].sum()


CASES = {
    "linear_t": (linear_t, [(5, 6), (3, 6), (3,)]),
    "attention": (attention, [(2, 8, 16), (16, 48)]),
    "clone_then_view": (clone_then_view, [(6, 4), (6, 5)]),
    "offset_slices": (offset_slices, [(6, 7), (7, 4)]),
}


def _inputs(lib, shapes):
    rng = np.random.default_rng(0)
    return [lib.tensor(rng.standard_normal(s).astype(np.float32)) for s in shapes]


@pytest.mark.parametrize("name", sorted(CASES))
def test_extern_arguments_match_pytorch(name):
    build, shapes = CASES[name]
    args = _inputs(ember, shapes)
    metrics.reset()
    gm = make_fx(build(ember), core_aten_decompositions())(*args)
    fn = compile_fx(gm, args)
    expected = build(torch)(*_inputs(torch, shapes))
    np.testing.assert_allclose(fn(*args).numpy(), expected.numpy(), rtol=1e-4, atol=1e-5)
    assert metrics.compile_failures == 0 and metrics.eager_fallbacks == 0
    if name in ("linear_t", "attention"):
        assert "_matmul(" in fn.source
        assert not re.search(r"view\d+ = _f", fn.source)     # no view op replayed
    if name == "attention":     # NOTE [batched matmul on the unmerged views]: no head merge
        assert "r_view" not in fn.source and "(2, 4, 8, 4)" in fn.source


def test_a_graph_output_that_is_an_extern_view_keeps_eager_values():
    f = lambda x, w: (x @ w).t()     # noqa: E731
    args = _inputs(ember, [(3, 4), (4, 5)])
    fn = compile_fx(make_fx(f, core_aten_decompositions())(*args), args)
    out = fn(*args)
    expected = f(*_inputs(torch, [(3, 4), (4, 5)]))
    assert tuple(out.shape) == tuple(expected.shape)
    np.testing.assert_allclose(out.numpy(), expected.numpy(), rtol=1e-5, atol=1e-6)
