"""ember.fx.experimental.proxy_tensor.make_fx against torch's make_fx on the same functions
(cases.py): the same ATen ops in the same order, the same placeholder and constant names, the
same shapes, dtypes and strides in meta['val'], and a GraphModule that computes what the
function computes."""
import numpy as np
import pytest
from tests.inductor.cases import CASES

import ember
from ember._decomp import core_aten_decompositions as ember_core
from ember.fx.experimental.proxy_tensor import make_fx as ember_make_fx

torch = pytest.importorskip("torch")
from torch._decomp import core_aten_decompositions as torch_core
from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx


def _inputs(shapes, seed=0):
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    return ([ember.tensor(a) for a in arrays], [torch.tensor(a) for a in arrays])


# ember's core table does not decompose these yet (PyTorch's does): torch's trace is made
# without them, so both graphs keep the op itself.
NOT_DECOMPOSED_BY_EMBER = ["nll_loss_forward"]


def _torch_table():
    table = torch_core()
    for name in NOT_DECOMPOSED_BY_EMBER:
        for overload in getattr(torch.ops.aten, name).overloads():
            table.pop(getattr(getattr(torch.ops.aten, name), overload), None)
    return table


def _trace(make, shapes, mode, decompose):
    e_args, t_args = _inputs(shapes)
    egm = ember_make_fx(make(ember), ember_core() if decompose else None,
                        tracing_mode=mode)(*e_args)
    tgm = torch_make_fx(make(torch), _torch_table() if decompose else None,
                        tracing_mode=mode)(*t_args)
    return egm, tgm, e_args, t_args


def _summary(gm):
    """(op, name of placeholders/get_attrs or target, val shape, dtype, stride) per node."""
    rows = []
    for node in gm.graph.nodes:
        if node.op == "output":
            continue
        target = node.name if node.op in ("placeholder", "get_attr") else str(node.target)
        val = node.meta.get("val")
        meta = None
        if hasattr(val, "shape"):
            meta = (tuple(val.shape), str(val.dtype).split(".")[-1], tuple(val.stride()))
        rows.append((node.op, target, meta))
    return rows


@pytest.mark.parametrize("decompose", [True, False], ids=["core_aten", "no_table"])
@pytest.mark.parametrize("mode", ["real", "fake"])
@pytest.mark.parametrize("name,make,shapes", CASES, ids=[c[0] for c in CASES])
def test_graph_matches_torch_make_fx(name, make, shapes, mode, decompose):
    egm, tgm, _, _ = _trace(make, shapes, mode, decompose=decompose)
    assert _summary(egm) == _summary(tgm)


@pytest.mark.parametrize("name,make,shapes", CASES, ids=[c[0] for c in CASES])
def test_graph_module_computes_the_function(name, make, shapes):
    egm, _, e_args, t_args = _trace(make, shapes, "real", decompose=True)
    got = egm(*e_args)
    expected = make(torch)(*t_args)
    got = got if isinstance(got, tuple) else (got,)
    expected = expected if isinstance(expected, tuple) else (expected,)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert tuple(g.shape) == tuple(e.shape)
        assert str(g.dtype).split(".")[-1] == str(e.dtype).split(".")[-1]
        np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-5, atol=1e-5)


def test_constants_are_get_attrs_held_by_the_module():
    def f(x):
        return x + ember.tensor([1.0, 2.0, 3.0])
    gm = ember_make_fx(f)(ember.zeros(3))
    attrs = [n.target for n in gm.graph.nodes if n.op == "get_attr"]
    assert attrs == ["_tensor_constant0"]
    assert gm._tensor_constant0.tolist() == [1.0, 2.0, 3.0]
    assert gm(ember.ones(3)).tolist() == [2.0, 3.0, 4.0]


def test_varargs_placeholders_are_named_arg_i():
    gm = ember_make_fx(lambda *args: args[0] * args[1])(ember.ones(2), ember.ones(2))
    names = [n.name for n in gm.graph.nodes if n.op == "placeholder"]
    tgm = torch_make_fx(lambda *args: args[0] * args[1])(torch.ones(2), torch.ones(2))
    assert names == [n.name for n in tgm.graph.nodes if n.op == "placeholder"]


def test_symbolic_tracing_is_refused_by_name():
    with pytest.raises(NotImplementedError, match="symbolic"):
        ember_make_fx(lambda x: x + 1, tracing_mode="symbolic")(ember.ones(2))


def test_unknown_tracing_mode_is_refused_as_torch_does():
    with pytest.raises(AssertionError):
        ember_make_fx(lambda x: x, tracing_mode="nope")
    with pytest.raises(AssertionError):
        torch_make_fx(lambda x: x, tracing_mode="nope")


def test_fake_tracing_runs_no_kernel():
    # A fake trace of a data-dependent op is refused as PyTorch refuses it.
    from ember._subclasses.fake_tensor import DynamicOutputShapeException
    with pytest.raises(DynamicOutputShapeException):
        ember_make_fx(lambda x: x.nonzero(), tracing_mode="fake")(ember.ones(3))


def _closure_over_a_module(lib):
    lib.manual_seed(0)
    linear = lib.nn.Linear(4, 3)
    c = lib.ones(3)
    return lambda x: linear(x) + c + lib.tensor([1.0, 2.0, 3.0])


@pytest.mark.parametrize("mode", ["real", "fake"])
def test_parameters_and_captured_tensors_are_named_as_torch_names_them(mode):
    e_args, t_args = _inputs([(2, 4)])
    allow = mode == "fake"
    egm = ember_make_fx(_closure_over_a_module(ember), tracing_mode=mode,
                        _allow_non_fake_inputs=allow)(*e_args)
    tgm = torch_make_fx(_closure_over_a_module(torch), tracing_mode=mode,
                        _allow_non_fake_inputs=allow)(*t_args)
    assert _summary(egm) == _summary(tgm)


def test_fake_tracing_refuses_captured_real_tensors_without_the_flag():
    with pytest.raises(AssertionError, match="allow_non_fake_inputs"):
        ember_make_fx(_closure_over_a_module(ember), tracing_mode="fake")(ember.ones(2, 4))
    with pytest.raises(AssertionError, match="allow_non_fake_inputs"):
        torch_make_fx(_closure_over_a_module(torch), tracing_mode="fake")(torch.ones(2, 4))
