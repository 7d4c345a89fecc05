"""Dynamic sizes (NOTE [dynamic dimensions] in ember/_dynamo/dynamic.py): `dynamic=True`,
automatic dynamic after a size changes (`dynamic=None`), `dynamic=False`; compiles counted
against torch.compile with the same setting and the same sequence of sizes, results against
PyTorch eager."""
import numpy as np
import pytest
import torch
from tests.dynamo.common import same_values

import ember
from ember._inductor import cpp_builder


def counting(lib, fn, dynamic):
    graphs = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward
    lib._dynamo.reset()
    return lib.compile(fn, backend=backend, dynamic=dynamic), graphs


def _inputs(lib, shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [lib.tensor(rng.standard_normal(s).astype(np.float32)) for s in shapes]


def pointwise(lib):
    return lambda x: (x * 2).sum(0)


def reads_sizes(lib):
    def f(x):
        b, n = x.shape
        return x.view(b // 2, 2 * n).softmax(-1) * (1.0 / n ** 0.5) + x.size(0)
    return f


def branches_on_size(lib):
    def f(x):
        if x.shape[0] > 5:           # a size in control flow: that size is static again
            return x + 1
        return x - 1
    return f


def size_of_a_computed_tensor(lib):
    def f(x, w):
        y = x @ w
        return y.reshape(-1, y.shape[-1] * 2)
    return f


PROGRAMS = {"pointwise": (pointwise, lambda n: [(n, 3)]),
            # (b // 2 never 1: PyTorch specializes a computed size of 1, ember needs not)
            "reads_sizes": (reads_sizes, lambda n: [(2 * n + 2, 3)]),
            "branches_on_size": (branches_on_size, lambda n: [(n, 3)]),
            "size_of_a_computed_tensor": (size_of_a_computed_tensor,
                                          lambda n: [(2 * n, 3), (3, 4)])}
SIZES = (4, 5, 6, 7, 1, 8, 3)


@pytest.mark.parametrize("dynamic", [None, True, False])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_compiles_per_size_sequence_like_pytorch(name, dynamic):
    build, shapes = PROGRAMS[name]
    counts, results = {}, {}
    for lib in (torch, ember):
        fn, graphs = counting(lib, build(lib), dynamic)
        with torch._dynamo.config.patch(recompile_limit=16):
            results[lib] = [fn(*_inputs(lib, shapes(n))) for n in SIZES]
        counts[lib] = len(graphs)
    assert counts[ember] == counts[torch]
    same_values(results[ember], results[torch])
    expected = [build(torch)(*_inputs(torch, shapes(n))) for n in SIZES]
    same_values(results[ember], expected)


def test_automatic_dynamic_logs_one_recompile_then_none(caplog):
    import logging
    fn, graphs = counting(ember, pointwise(ember), None)
    with caplog.at_level(logging.DEBUG, logger="ember._dynamo.recompiles"):
        for n in (4, 5, 6, 9):
            fn(ember.ones(n, 3))
    assert len(graphs) == 2
    said = [r.getMessage() for r in caplog.records if "Recompiling" in r.getMessage()]
    assert len(said) == 1 and "TENSOR_MATCH L['x']" in said[0]


def test_other_facts_still_recompile_a_dynamic_graph():
    fn, graphs = counting(ember, pointwise(ember), True)
    fn(ember.ones(4, 3))
    fn(ember.ones(5, 3))                       # reused
    fn(ember.ones(5, 3, dtype=ember.float64))  # dtype: a new graph
    fn(ember.ones(3, 5).t())                   # not contiguous: a new, static graph
    fn(ember.ones(5, 3))                       # the first graph again
    assert len(graphs) == 3


def test_parameters_stay_static():
    for lib in (torch, ember):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.ReLU())
        fn, graphs = counting(lib, model, True)
        outs = [fn(lib.ones(n, 3)) for n in (2, 5, 7)]
        assert [tuple(o.shape) for o in outs] == [(2, 4), (5, 4), (7, 4)]
        assert len(graphs) == 1


def gpt_step(lib):
    from tests.aot.models import CharGPT
    lib.manual_seed(0)
    return CharGPT(block=16)


def test_char_gpt_new_batch_and_length_reuse_one_graph():
    from tests.aot.models import loss_of
    model = gpt_step(ember)
    fn, graphs = counting(ember, model, True)
    for b, t in ((4, 8), (3, 12), (5, 16)):
        idx = ember.randint(0, 27, (b, t))
        target = ember.randint(0, 27, (b, t))
        loss = loss_of("char_gpt", fn(idx), target)
        loss.backward()
        expected = loss_of("char_gpt", model(idx), target)
        np.testing.assert_allclose(loss.item(), expected.item(), rtol=1e-5)
    assert len(graphs) == 1


@pytest.mark.skipif(cpp_builder.compiler() is None, reason="no C compiler")
def test_inductor_compiles_a_variant_per_size_without_recapture():
    from ember._inductor import metrics
    ember._dynamo.reset()
    metrics.reset()
    fn = ember.compile(lambda x: (x.exp() * 2).sum(-1), dynamic=True)
    for n in (4, 6, 4, 9):
        x = ember.randn(n, 8)
        same_values(fn(x), torch.tensor(x.numpy()).exp().mul(2).sum(-1))
    assert metrics.eager_fallbacks == 0
    assert metrics.compile_failures == 0
