"""Kernels taking a dynamic graph's sizes as arguments (NOTE [symbolic sizes in kernels] in
ember/_inductor/sizes.py): a new size of a dynamic dimension runs the compiled C already
built, with values equal to PyTorch eager's and as many captures as torch.compile makes for
the same sequence of sizes."""
import numpy as np
import pytest
import torch
from tests.dynamo.common import same_values

import ember
from ember._inductor import cpp_builder, metrics
from ember._inductor.sizes import SymSize, input_table, size_args, symbolic, symbols

needs_cc = pytest.mark.skipif(cpp_builder.compiler() is None, reason="no C compiler")


def _builds():
    """C compiled or loaded from disk: what a new size must not cause."""
    return metrics.cpp_compiles + metrics.disk_cache_hits


def reduce_chain(lib):
    return lambda x, y: (x * y).sum() + (x.exp() * 2).mean()


def softmax_rows(lib):
    return lambda x: lib.nn.functional.softmax(x * 0.5, dim=-1).sum(0)


def layer_norm_gelu(lib):
    def f(x, w, b):
        return lib.nn.functional.gelu(lib.nn.functional.layer_norm(x, (16,), w, b))
    return f


def linear_flatten(lib):
    def f(x, w):
        return lib.nn.functional.relu(x @ w).flatten(0, 1).mean(0)
    return f


def column_sums(lib):
    return lambda x: (x * x).sum(0) + x.amax(0)


PROGRAMS = {
    "reduce_chain": (reduce_chain, lambda n: [(n,), (n,)], [0, 1]),
    "softmax_rows": (softmax_rows, lambda n: [(n, 24)], [0]),
    "layer_norm_gelu": (layer_norm_gelu, lambda n: [(n, 16), (16,), (16,)], [0]),
    "linear_flatten": (linear_flatten, lambda n: [(3, n, 8), (8, 12)], [0]),
    "column_sums": (column_sums, lambda n: [(n, 32)], [0]),
}
SIZES = (5, 9, 17, 64, 6)


def _inputs(lib, shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [lib.tensor(rng.standard_normal(s).astype(np.float32)) for s in shapes]


def _counting(lib, fn, dynamic):
    graphs = []
    if lib is ember:
        from ember._dynamo.backends import inductor as compiler
    else:
        def compiler(gm, example_inputs):
            return gm.forward

    def backend(gm, example_inputs):
        graphs.append(gm)
        return compiler(gm, example_inputs)
    lib._dynamo.reset()
    return lib.compile(fn, backend=backend, dynamic=dynamic), graphs


@needs_cc
@pytest.mark.parametrize("dynamic", [True, None])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_new_sizes_reuse_the_compiled_kernels(name, dynamic):
    build, shapes, _ = PROGRAMS[name]
    metrics.reset()
    fn, graphs = _counting(ember, build(ember), dynamic)
    builds, results = [], []
    for n in SIZES:
        before = _builds()
        results.append(fn(*_inputs(ember, shapes(n), seed=n)))
        builds.append(_builds() - before)
    expected = [build(torch)(*_inputs(torch, shapes(n), seed=n)) for n in SIZES]
    same_values(results, expected)
    theirs, their_graphs = _counting(torch, build(torch), dynamic)
    for n in SIZES:
        theirs(*_inputs(torch, shapes(n), seed=n))
    assert len(graphs) == len(their_graphs)
    # dynamic=True: one build, at the first size; automatic dynamic (None): the first size
    # compiles a static graph, the second the dynamic one, and no later size builds C.
    first = 1 if dynamic else 2
    assert all(b == 0 for b in builds[first:]), builds
    assert metrics.eager_fallbacks == 0 and metrics.compile_failures == 0


@needs_cc
def test_kernels_take_the_dynamic_sizes_as_arguments():
    from ember._inductor import compile_fx
    x = ember.randn(7, 24)
    gm = ember.fx.symbolic_trace(softmax_rows(ember))
    call = compile_fx(gm, [x], dynamic_dims=[frozenset({0})])
    assert "int64_t ks0" in call.kernel_source
    assert "24" in call.kernel_source          # the static width stays a constant
    same_values(call(x), softmax_rows(torch)(torch.tensor(x.numpy())))


@needs_cc
def test_a_size_past_the_parallel_threshold_shares_the_kernel():
    # the parallel pragma of a dynamic loop decides at run time (its `if` clause)
    metrics.reset()
    fn, _ = _counting(ember, reduce_chain(ember), True)
    fn(*_inputs(ember, [(8,), (8,)]))
    before = _builds()
    args = _inputs(ember, [(100000,), (100000,)], seed=3)
    out = fn(*args)
    assert _builds() == before
    expected = reduce_chain(torch)(*_inputs(torch, [(100000,), (100000,)], seed=3))
    np.testing.assert_allclose(out.item(), expected.item(), rtol=1e-4)


def test_sym_size_prints_c_and_counts_as_its_value():
    a, b = SymSize(6, "ks0"), SymSize(4, "ks1")
    assert a == 6 and repr(a) == "6" and f"{a}" == "ks0" and hash(a) == hash(6)
    assert str(a * b) == "(ks0*ks1)" and a * b == 24
    assert str(2 * a) == "(2*ks0)" and str(a + 1) == "(ks0+1)" and str(a // 2) == "(ks0/2)"
    assert 1 * a is a and a * 1 is a and a + 0 is a and a * 0 == 0
    assert str(a - b) == "(ks0-ks1)" and a - b == 2
    shapes, table = input_table([((6, 5), {0}), ((3,), set())])
    assert [str(s) for s in shapes[0]] == ["ks0", "5"] and shapes[1] == (3,)
    assert str(table[30]) == "(ks0*5)"           # a flattened (6, 5) is a size too
    with symbols(table):
        assert [str(s) for s in symbolic((30, 6, 7))] == ["(ks0*5)", "ks0", "7"]
    assert symbolic((30, 6)) == (30, 6) and type(symbolic((6,))[0]) is int
    assert size_args("x[ks3] + ks0*ks3; kss1") == ["ks0", "ks3"]
