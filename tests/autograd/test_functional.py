"""ember.autograd.functional (jacobian, hessian, vjp, jvp, hvp, vhp) against
torch.autograd.functional on the same inputs: values, return structures, errors."""
import numpy as np
import pytest

import ember
import ember.autograd.functional as EF

torch = pytest.importorskip("torch")
import torch.autograd.functional as TF  # noqa: E402


def to_np(x):
    if isinstance(x, (tuple, list)):
        return tuple(to_np(v) for v in x)
    return np.asarray(x.detach().numpy())


def structure(x):
    """Nesting of tuples with shapes at the leaves."""
    if isinstance(x, (tuple, list)):
        return type(x).__name__, tuple(structure(v) for v in x)
    return tuple(x.shape)


def assert_same(ours, theirs):
    assert structure(ours) == structure(theirs)
    for a, b in zip(_leaves(ours), _leaves(theirs)):
        np.testing.assert_allclose(to_np(a), to_np(b), rtol=1e-6, atol=1e-8)


def _leaves(x):
    if isinstance(x, (tuple, list)):
        return [leaf for v in x for leaf in _leaves(v)]
    return [x]


def make(rng, *shapes):
    arrays = [rng.standard_normal(s) for s in shapes]
    return (tuple(ember.tensor(a) for a in arrays), tuple(torch.tensor(a) for a in arrays))


def f_single(x):
    return (x * x).exp() / (x + 3.0)


def f_pair(x, y):
    return x * y + x.sum(), (y * y).sum(1)


def scalar_f(x, y):
    return ((x * x * y).sum() + (y * y * y).sum()) / 3.0


@pytest.mark.parametrize("vectorize", [False, True])
def test_jacobian_single_input_single_output(rng, vectorize):
    (x,), (tx,) = make(rng, (3,))
    assert_same(EF.jacobian(f_single, x, vectorize=vectorize),
                TF.jacobian(f_single, tx, vectorize=vectorize))


def test_jacobian_tuple_inputs_and_outputs(rng):
    ins, tins = make(rng, (2, 3), (2, 3))
    ours = EF.jacobian(f_pair, ins)
    theirs = TF.jacobian(f_pair, tins)
    assert_same(ours, theirs)


def test_jacobian_tuple_inputs_single_output(rng):
    ins, tins = make(rng, (2, 3), (2, 3))
    assert_same(EF.jacobian(lambda x, y: x * y, ins), TF.jacobian(lambda x, y: x * y, tins))


def test_jacobian_forward_mode_matches_reverse(rng):
    ins, tins = make(rng, (2, 3), (2, 3))
    ours = EF.jacobian(f_pair, ins, vectorize=True, strategy="forward-mode")
    theirs = TF.jacobian(f_pair, tins, vectorize=True, strategy="forward-mode")
    assert_same(ours, theirs)


def test_jacobian_unused_input_gives_zeros_and_strict_raises(rng):
    ins, tins = make(rng, (2,), (3,))
    assert_same(EF.jacobian(lambda x, y: x * 2.0, ins), TF.jacobian(lambda x, y: x * 2.0, tins))
    for lib, args in ((EF, ins), (TF, tins)):
        with pytest.raises(RuntimeError, match="Output 0 of the user-provided function is "
                                               "independent of input 1"):
            lib.jacobian(lambda x, y: x * 2.0, args, strict=True)


def test_jacobian_create_graph_keeps_graph(rng):
    (x,), (tx,) = make(rng, (3,))
    x.requires_grad_()
    tx.requires_grad_()
    ours = EF.jacobian(f_single, x, create_graph=True)
    theirs = TF.jacobian(f_single, tx, create_graph=True)
    assert ours.requires_grad and theirs.requires_grad
    g, = ember.autograd.grad(ours.sum(), x)
    tg, = torch.autograd.grad(theirs.sum(), tx)
    np.testing.assert_allclose(to_np(g), to_np(tg), rtol=1e-6)


def test_jacobian_results_are_detached_without_create_graph(rng):
    (x,), _ = make(rng, (3,))
    x.requires_grad_()
    assert not EF.jacobian(f_single, x).requires_grad


@pytest.mark.parametrize("strategy", ["reverse-mode", "forward-mode"])
def test_hessian(rng, strategy):
    ins, tins = make(rng, (2, 2), (2, 2))
    vectorize = strategy == "forward-mode"
    ours = EF.hessian(scalar_f, ins, vectorize=vectorize, outer_jacobian_strategy=strategy)
    theirs = TF.hessian(scalar_f, tins, vectorize=vectorize, outer_jacobian_strategy=strategy)
    assert_same(ours, theirs)
    (x,), (tx,) = make(rng, (3,))
    assert_same(EF.hessian(lambda a: (a * a * a).sum(), x),
                TF.hessian(lambda a: (a * a * a).sum(), tx))


def test_hessian_rejects_non_scalar(rng):
    (x,), (tx,) = make(rng, (3,))
    for lib, a in ((EF, x), (TF, tx)):
        with pytest.raises(RuntimeError, match="should contain a single element"):
            lib.hessian(lambda t: t * t, a)


@pytest.mark.parametrize("create_graph", [False, True])
def test_vjp(rng, create_graph):
    ins, tins = make(rng, (2, 3), (2, 3))
    v = (np.ones((2, 3)), rng.standard_normal(2))
    ev = tuple(ember.tensor(a) for a in v)
    tv = tuple(torch.tensor(a) for a in v)
    ours = EF.vjp(f_pair, ins, ev, create_graph=create_graph)
    theirs = TF.vjp(f_pair, tins, tv, create_graph=create_graph)
    assert_same(ours, theirs)
    # A single Tensor in, a single Tensor out; v may be None for one element.
    (x,), (tx,) = make(rng, (3,))
    assert_same(EF.vjp(lambda a: a.sum(), x), TF.vjp(lambda a: a.sum(), tx))


def test_vjp_unused_input_is_zero(rng):
    ins, tins = make(rng, (2,), (2,))
    v = ember.ones(2)
    ours = EF.vjp(lambda x, y: x * 3.0, ins, v)
    theirs = TF.vjp(lambda x, y: x * 3.0, tins, torch.ones(2))
    assert_same(ours, theirs)
    for lib, args, vv in ((EF, ins, v), (TF, tins, torch.ones(2))):
        with pytest.raises(RuntimeError, match="independent of input 1. This is not allowed "
                                               "in strict mode"):
            lib.vjp(lambda x, y: x * 3.0, args, vv, strict=True)


def test_vjp_errors(rng):
    (x,), (tx,) = make(rng, (3,))
    for lib, a, bad in ((EF, x, ember.ones(2)), (TF, tx, torch.ones(2))):
        with pytest.raises(RuntimeError, match=r"v has invalid size: should be .*\[3\]\) but "
                                               r"got .*\[2\]\)\."):
            lib.vjp(f_single, a, bad)
        with pytest.raises(RuntimeError, match="The vector v can only be None if the "
                                               "user-provided function returns a single Tensor "
                                               "with a single element."):
            lib.vjp(f_single, a)
        with pytest.raises(TypeError, match="The inputs given to vjp must be either a Tensor "
                                            "or a tuple of Tensors but the value at index 1 has "
                                            "type <class 'int'>."):
            lib.vjp(f_single, (a, 3), bad)
        with pytest.raises(TypeError, match="but the given inputs has type <class 'list'>"):
            lib.vjp(f_single, [a], bad)
        with pytest.raises(RuntimeError, match="v is a tuple of invalid length: should be 2 "
                                               "but got 1."):
            lib.vjp(lambda t: (t, t * 2), a, (a,))
        with pytest.raises(RuntimeError, match="Output 0 of the user-provided function does "
                                               "not require gradients"):
            lib.vjp(lambda t: t.detach(), a, a, strict=True)


@pytest.mark.parametrize("create_graph", [False, True])
def test_jvp(rng, create_graph):
    ins, tins = make(rng, (2, 3), (2, 3))
    v = tuple(rng.standard_normal((2, 3)) for _ in range(2))
    ours = EF.jvp(f_pair, ins, tuple(ember.tensor(a) for a in v), create_graph=create_graph)
    theirs = TF.jvp(f_pair, tins, tuple(torch.tensor(a) for a in v), create_graph=create_graph)
    assert_same(ours, theirs)
    (x,), (tx,) = make(rng, ())
    assert_same(EF.jvp(f_single, x), TF.jvp(f_single, tx))


def test_jvp_errors(rng):
    (x,), (tx,) = make(rng, (3,))
    for lib, a in ((EF, x), (TF, tx)):
        with pytest.raises(RuntimeError, match="The vector v can only be None if the input to "
                                               "the user-provided function is a single Tensor "
                                               "with a single element."):
            lib.jvp(f_single, a)
        with pytest.raises(RuntimeError, match="The given v should contain a single Tensor."):
            lib.jvp(f_single, a, (a, a))


def test_hvp_and_vhp(rng):
    ins, tins = make(rng, (2, 2), (2, 2))
    v = tuple(rng.standard_normal((2, 2)) for _ in range(2))
    ev = tuple(ember.tensor(a) for a in v)
    tv = tuple(torch.tensor(a) for a in v)
    assert_same(EF.hvp(scalar_f, ins, ev), TF.hvp(scalar_f, tins, tv))
    assert_same(EF.vhp(scalar_f, ins, ev), TF.vhp(scalar_f, tins, tv))
    (x,), (tx,) = make(rng, (3,))
    vx = ember.ones(3)
    cube = lambda a: (a * a * a).sum()  # noqa: E731
    assert_same(EF.hvp(cube, x, vx), TF.hvp(cube, tx, torch.ones(3)))
    assert_same(EF.vhp(cube, x, vx), TF.vhp(cube, tx, torch.ones(3)))


def test_hvp_strict_rejects_linear_function(rng):
    (x,), (tx,) = make(rng, (3,))
    for lib, a, v in ((EF, x, ember.ones(3)), (TF, tx, torch.ones(3))):
        with pytest.raises(RuntimeError, match="the jacobian of the user-provided function "
                                               "with respect to input 0 is independent"):
            lib.hvp(lambda t: t.sum(), a, v, strict=True)
        with pytest.raises(RuntimeError, match="The function given to vhp should return a "
                                               "single Tensor"):
            lib.vhp(lambda t: (t.sum(), t.sum()), a, v)
