"""ember.func (grad, vjp, jvp, jacrev, jacfwd, hessian, vmap, functional_call) against
torch.func on the same inputs."""
import numpy as np
import pytest

import ember
import ember.func as ef

torch = pytest.importorskip("torch")
import torch.func as tf  # noqa: E402


def leaves(x):
    if isinstance(x, (tuple, list)):
        return [leaf for v in x for leaf in leaves(v)]
    if isinstance(x, dict):
        return [leaf for k in sorted(x) for leaf in leaves(x[k])]
    return [x]


def structure(x):
    if isinstance(x, (tuple, list)):
        return type(x).__name__, tuple(structure(v) for v in x)
    if isinstance(x, dict):
        return {k: structure(v) for k, v in x.items()}
    return tuple(x.shape)


def assert_same(ours, theirs):
    assert structure(ours) == structure(theirs)
    for a, b in zip(leaves(ours), leaves(theirs)):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-6,
                                   atol=1e-9)


def pair(rng, *shapes):
    arrays = [rng.standard_normal(s) for s in shapes]
    return [ember.tensor(a) for a in arrays], [torch.tensor(a) for a in arrays]


def loss(x, y):
    return ((x * y).exp() + x * x).sum() / 4.0


def test_grad_argnums_and_has_aux(rng):
    (x, y), (tx, ty) = pair(rng, (3,), (3,))
    assert_same(ef.grad(loss)(x, y), tf.grad(loss)(tx, ty))
    assert_same(ef.grad(loss, argnums=(0, 1))(x, y), tf.grad(loss, argnums=(0, 1))(tx, ty))
    assert_same(ef.grad(loss, argnums=-1)(x, y), tf.grad(loss, argnums=-1)(tx, ty))

    def with_aux(a, b):
        return loss(a, b), {"double": a * 2.0}
    assert_same(ef.grad(with_aux, has_aux=True)(x, y), tf.grad(with_aux, has_aux=True)(tx, ty))
    assert_same(ef.grad_and_value(loss)(x, y), tf.grad_and_value(loss)(tx, ty))


def test_grad_of_pytree_argument_and_unused_leaf(rng):
    (x, y), (tx, ty) = pair(rng, (2,), (2,))

    def f(params):
        return (params["w"] * params["w"]).sum()
    assert_same(ef.grad(f)({"w": x, "b": y}), tf.grad(f)({"w": tx, "b": ty}))


def test_grad_results_are_detached_and_inputs_untouched(rng):
    (x, y), _ = pair(rng, (3,), (3,))
    g = ef.grad(loss)(x, y)
    assert not g.requires_grad and not x.requires_grad and x.grad is None


def test_nested_grad_gives_higher_derivatives(rng):
    (x,), (tx,) = pair(rng, ())

    def cube(a):
        return a * a * a
    assert_same(ef.grad(ef.grad(cube))(x), tf.grad(tf.grad(cube))(tx))
    assert_same(ef.grad(ef.grad(ef.grad(cube)))(x), tf.grad(tf.grad(tf.grad(cube)))(tx))


def test_grad_inside_closure_has_no_perturbation_confusion(rng):
    (x,), (tx,) = pair(rng, ())

    def outer(lib):
        def f(a):
            return a * lib.func.grad(lambda b: a * b)(a)
        return f
    assert_same(ef.grad(outer(ember))(x), tf.grad(outer(torch))(tx))


def test_grad_sees_through_to_caller_autograd(rng):
    (x, y), (tx, ty) = pair(rng, (3,), (3,))
    x.requires_grad_()
    tx.requires_grad_()
    ef.grad(loss)(x, y).sum().backward()
    tf.grad(loss)(tx, ty).sum().backward()
    assert_same(x.grad, tx.grad)


def test_grad_errors(rng):
    (x, y), (tx, ty) = pair(rng, (3,), (3,))
    for lib, a, b in ((ef, x, y), (tf, tx, ty)):
        with pytest.raises(RuntimeError, match="Expected f\\(\\*args\\) to return a scalar "
                                               "Tensor, got tensor with 1 dims"):
            lib.grad(lambda s, t: s * t)(a, b)
        with pytest.raises(RuntimeError, match="Got argnum=2, but only 2 positional inputs"):
            lib.grad(loss, argnums=2)(a, b)
        with pytest.raises(RuntimeError, match="argnums must be non-empty"):
            lib.grad(loss, argnums=())(a, b)
        with pytest.raises(RuntimeError, match="output of function f should be a tuple"):
            lib.grad(loss, has_aux=True)(a, b)


def test_vjp(rng):
    (x, y), (tx, ty) = pair(rng, (2, 3), (2, 3))

    def f(a, b):
        return {"p": a * b, "q": (a.exp(),)}
    out, fn = ef.vjp(f, x, y)
    tout, tfn = tf.vjp(f, tx, ty)
    assert_same(out, tout)
    cot = {"p": ember.ones(2, 3), "q": (x,)}
    tcot = {"p": torch.ones(2, 3), "q": (tx,)}
    assert_same(fn(cot), tfn(tcot))
    assert_same(fn(cot), tfn(tcot))  # callable more than once
    with pytest.raises(RuntimeError, match="Expected pytree structure of cotangents to be the "
                                           "same as pytree structure of outputs"):
        fn({"p": ember.ones(2, 3)})


def test_jvp(rng):
    (x, y, u, v), (tx, ty, tu, tv) = pair(rng, (3,), (3,), (3,), (3,))

    def f(a, b):
        return a * b.exp(), (a * a).sum()
    assert_same(ef.jvp(f, (x, y), (u, v)), tf.jvp(f, (tx, ty), (tu, tv)))
    for lib, a, t in ((ef, x, u), (tf, tx, tu)):
        with pytest.raises(RuntimeError, match="Expected primals to be a tuple"):
            lib.jvp(f, a, (t,))
        with pytest.raises(RuntimeError, match="Expected primals and tangents to have the same "
                                               "python structure"):
            lib.jvp(f, (a, a), (t,))


@pytest.mark.parametrize("name", ["jacrev", "jacfwd"])
def test_jacobians(rng, name):
    (x, y), (tx, ty) = pair(rng, (2, 3), (3,))

    def f(a, b):
        return {"m": a * b, "s": (a * a).sum(0)}
    assert_same(getattr(ef, name)(f)(x, y), getattr(tf, name)(f)(tx, ty))
    assert_same(getattr(ef, name)(f, argnums=(0, 1))(x, y),
                getattr(tf, name)(f, argnums=(0, 1))(tx, ty))


def test_hessian(rng):
    (x, y), (tx, ty) = pair(rng, (3,), (3,))
    assert_same(ef.hessian(loss)(x, y), tf.hessian(loss)(tx, ty))
    assert_same(ef.hessian(loss, argnums=(0, 1))(x, y), tf.hessian(loss, argnums=(0, 1))(tx, ty))


def test_vmap_in_dims_out_dims_and_pytrees(rng):
    (x, y, z), (tx, ty, tz) = pair(rng, (4, 3), (3, 4), (3,))

    def f(a, b, c):
        return {"sum": a * b + c, "pair": (a.sum(), b)}
    assert_same(ef.vmap(f, in_dims=(0, 1, None))(x, y, z),
                tf.vmap(f, in_dims=(0, 1, None))(tx, ty, tz))
    dims = {"sum": 1, "pair": (0, -1)}
    assert_same(ef.vmap(f, in_dims=(0, 1, None), out_dims=dims)(x, y, z),
                tf.vmap(f, in_dims=(0, 1, None), out_dims=dims)(tx, ty, tz))

    def g(d):
        return d["a"] * d["b"][0]
    assert_same(ef.vmap(g, in_dims=({"a": 0, "b": [1]},))({"a": x, "b": [y]}),
                tf.vmap(g, in_dims=({"a": 0, "b": [1]},))({"a": tx, "b": [ty]}))


def test_vmap_composes_with_grad(rng):
    (x, y), (tx, ty) = pair(rng, (4, 3), (4, 3))
    assert_same(ef.vmap(ef.grad(loss))(x, y), tf.vmap(tf.grad(loss))(tx, ty))
    assert_same(ef.grad(lambda a: ef.vmap(lambda r: (r * r.exp()).sum())(a).sum())(x),
                tf.grad(lambda a: tf.vmap(lambda r: (r * r.exp()).sum())(a).sum())(tx))
    assert_same(ef.vmap(ef.jacrev(lambda r: r * r))(x), tf.vmap(tf.jacrev(lambda r: r * r))(tx))


def test_vmap_errors(rng):
    (x, y), (tx, ty) = pair(rng, (2, 3), (3, 3))
    for lib, a, b in ((ef, x, y), (tf, tx, ty)):
        with pytest.raises(ValueError, match=r"vmap: Expected all tensors to have the same size "
                                             r"in the mapped dimension, got sizes \[2, 3\] for "
                                             r"the mapped dimension"):
            lib.vmap(lambda s, t: s)(a, b)
        with pytest.raises(ValueError, match="in_dims is not compatible with the structure of "
                                             "`inputs`"):
            lib.vmap(lambda s, t: s, in_dims=(0, 0, 0))(a, b)
        with pytest.raises(ValueError, match="Got in_dim=2 for some input, but that input is a "
                                             "Tensor of dimensionality 2"):
            lib.vmap(lambda s: s, in_dims=2)(a)
        with pytest.raises(ValueError, match="vmap: Expected at least one Tensor to vmap over"):
            lib.vmap(lambda s: s, in_dims=(None,))(a)
        with pytest.raises(ValueError, match="We cannot vmap over non-Tensor arguments"):
            lib.vmap(lambda s, n: s, in_dims=(0, 0))(a, 3)
        with pytest.raises(ValueError, match="must only return Tensors, got type <class 'int'>"):
            lib.vmap(lambda s: 3)(a)


class Linear:
    """A hand-made module: attribute paths and named_parameters/named_buffers."""

    def __init__(self, lib, rng, inner=True):
        self.weight = lib.tensor(rng.standard_normal((2, 3)), requires_grad=True)
        self.scale = lib.tensor(2.0, dtype=lib.float64)
        self.child = Linear(lib, rng, inner=False) if inner else None

    def named_parameters(self, remove_duplicate=True):
        yield "weight", self.weight
        if self.child is not None:
            for name, p in self.child.named_parameters(remove_duplicate):
                yield "child." + name, p

    def named_buffers(self, remove_duplicate=True):
        yield "scale", self.scale

    def __call__(self, x):
        out = (self.weight * x).sum(1) * self.scale
        return out if self.child is None else out + self.child(x)


def test_functional_call_swaps_and_restores(rng):
    mod = Linear(ember, np.random.default_rng(1), inner=True)
    x = ember.ones(3)
    original = mod.weight
    w = ember.zeros(2, 3)
    out = ef.functional_call(mod, {"weight": w, "child.weight": w}, x)
    np.testing.assert_allclose(out.numpy(), [0.0, 0.0])
    assert mod.weight is original
    out = ef.functional_call(mod, ({"weight": w}, {"scale": ember.tensor(0.0)}), (x,))
    np.testing.assert_allclose(out.detach().numpy(), mod.child(x).detach().numpy())

    with pytest.raises(RuntimeError, match="Missing key\\(s\\): 'child.weight', 'scale'."):
        ef.functional_call(mod, {"weight": w}, x, strict=True)
    with pytest.raises(ValueError, match="appeared in multiple dictionaries"):
        ef.functional_call(mod, ({"weight": w}, {"weight": w}), x)
    assert mod.weight is original


def test_functional_call_gradients_match_torch(rng):
    mod = Linear(ember, np.random.default_rng(2))
    tmod = Linear(torch, np.random.default_rng(2))
    params = {k: v.detach() for k, v in mod.named_parameters()}
    ours = ef.grad(lambda p: ef.functional_call(mod, p, (ember.ones(3),)).sum())(params)
    names = [k for k, _ in tmod.named_parameters()]
    theirs = torch.autograd.grad(tmod(torch.ones(3)).sum(),
                                 [p for _, p in tmod.named_parameters()])
    assert_same(ours, dict(zip(names, theirs)))
