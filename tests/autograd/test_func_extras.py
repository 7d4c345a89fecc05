"""ember.func's linearize, functionalize, stack_module_state (the model-ensembling recipe
with vmap and functional_call), replace_all_batch_norm_modules_, debug_unwrap and rearrange,
against torch.func on the same inputs."""
import copy

import numpy as np
import pytest

import ember
import ember.func as ef

torch = pytest.importorskip("torch")
import torch.func as tf


def close(ours, theirs, rtol=1e-6, atol=1e-9):
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=rtol,
                               atol=atol)


def both(rng, *shapes):
    arrays = [rng.standard_normal(s) for s in shapes]
    return [ember.tensor(a) for a in arrays], [torch.tensor(a) for a in arrays]


# --------------------------------------------------------------------------- linearize

def test_linearize_value_and_jvp_for_several_tangents(rng):
    (x, y), (tx, ty) = both(rng, (3, 2), (2,))

    def f(a, b):
        return (a.sin() * b).exp(), {"s": (a * a).sum(0) + b}

    out, jvp_fn = ef.linearize(f, x, y)
    tout, tjvp_fn = tf.linearize(f, tx, ty)
    close(out[0], tout[0])
    close(out[1]["s"], tout[1]["s"])
    for _ in range(3):      # the linear graph is reused, not consumed
        (u, v), (tu, tv) = both(rng, (3, 2), (2,))
        ours, theirs = jvp_fn(u, v), tjvp_fn(tu, tv)
        close(ours[0], theirs[0])
        close(ours[1]["s"], theirs[1]["s"])
        assert not ours[0].requires_grad


def test_linearize_output_independent_of_an_input(rng):
    (x, y), (tx, ty) = both(rng, (3,), (3,))
    _out, jvp_fn = ef.linearize(lambda a, b: (a * 2, b.detach()), x, y)
    _tout, tjvp_fn = tf.linearize(lambda a, b: (a * 2, b.detach()), tx, ty)
    for ours, theirs in zip(jvp_fn(y, x), tjvp_fn(ty, tx)):
        close(ours, theirs)


def test_linearize_checks_the_tangents(rng):
    (x,), (tx,) = both(rng, (3,))
    _, jvp_fn = ef.linearize(ember.sin, x)
    _, tjvp_fn = tf.linearize(torch.sin, tx)
    for ours, theirs in (((ember.ones(4, dtype=ember.float64),), (torch.ones(4, dtype=torch.float64),)),
                         ((ember.ones(3),), (torch.ones(3),)),
                         ((ember.ones(3), ember.ones(3)), (torch.ones(3), torch.ones(3)))):
        with pytest.raises(RuntimeError) as theirs_error:
            tjvp_fn(*theirs)
        with pytest.raises(RuntimeError) as ours_error:
            jvp_fn(*ours)
        assert str(theirs_error.value).split(" ")[0] == str(ours_error.value).split(" ")[0]


# --------------------------------------------------------------------------- functionalize

def test_functionalize_keeps_results_and_input_mutations(rng):
    (x,), (tx,) = both(rng, (4,))

    def f(a):
        b = a.clone()
        b.view(2, 2).add_(1.0)
        a.mul_(2.0)
        return b * a

    close(ef.functionalize(f)(x), tf.functionalize(f)(tx))
    close(x, tx)        # the mutation of the input reached the caller
    close(ef.functionalize(f, remove="mutations_and_views")(x),
          tf.functionalize(f, remove="mutations_and_views")(tx))
    with pytest.raises(RuntimeError, match="received invalid argument for remove=views"):
        tf.functionalize(f, remove="views")
    with pytest.raises(RuntimeError, match="received invalid argument for remove=views"):
        ef.functionalize(f, remove="views")


def _mutate_then_view(x):
    x.add_(1)
    return x


def _view_then_mutate(x):
    y = x.view(2, 2)
    y.add_(1)
    return y


def _fresh_and_its_view(x):
    y = x * 1
    return y, y.view(2, 2)


ALIASING = {
    "identity": lambda x: x,
    "view": lambda x: x.view(2, 2),
    "pair_with_view": lambda x: (x * 2, x[:2]),
    "mutated_identity": _mutate_then_view,
    "mutated_view": _view_then_mutate,
    "outputs_alias_each_other": _fresh_and_its_view,
}


@pytest.mark.parametrize("remove", ["mutations", "mutations_and_views"])
@pytest.mark.parametrize("case", list(ALIASING))
def test_functionalize_aliasing_as_torch(case, remove):
    def aliasing(lib, f):
        x = lib.zeros(4)
        outs = f.functionalize(ALIASING[case], remove=remove)(x)
        outs = outs if isinstance(outs, tuple) else (outs,)
        shares = [[a.data_ptr() == b.data_ptr() for b in (x,) + outs] for a in outs]
        return [o is x for o in outs], shares, x.tolist(), [o.tolist() for o in outs]

    assert aliasing(ember, ef) == aliasing(torch, tf)


# --------------------------------------------------------------------------- ensembles

def _net_class(lib):
    """The same two-layer module class on either library (one class per library, since
    stack_module_state wants models of one class)."""
    nn = lib.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.l1 = nn.Linear(3, 4)
            self.bn = nn.BatchNorm1d(4)
            self.l2 = nn.Linear(4, 2)

        def forward(self, x):
            return self.l2(self.bn(self.l1(x)).relu())

    return Net


def _copy_weights(ember_model, torch_model):
    with ember.no_grad():
        for (name, p), (tname, tp) in zip(ember_model.state_dict().items(),
                                          torch_model.state_dict().items()):
            assert name == tname
            p.copy_(ember.tensor(tp.numpy()))


def test_stack_module_state_ensemble_recipe_runs_with_vmap(rng):
    torch_net, ember_net = _net_class(torch), _net_class(ember)
    torch_models = [torch_net().eval() for _ in range(3)]
    ember_models = [ember_net().eval() for _ in range(3)]
    for em, tm in zip(ember_models, torch_models):
        _copy_weights(em, tm)
    params, buffers = ef.stack_module_state(ember_models)
    tparams, tbuffers = tf.stack_module_state(torch_models)
    assert list(params) == list(tparams) and list(buffers) == list(tbuffers)
    for name in tparams:
        close(params[name], tparams[name])
        assert params[name].is_leaf and params[name].requires_grad
    for name in tbuffers:
        close(buffers[name], tbuffers[name])
        assert not buffers[name].requires_grad

    data = rng.standard_normal((5, 3)).astype(np.float32)
    base, tbase = copy.deepcopy(ember_models[0]).to("meta"), torch_models[0]

    def run(p, b, x):
        return ef.functional_call(base, (p, b), (x,))

    def trun(p, b, x):
        return tf.functional_call(tbase, (p, b), (x,))

    out = ef.vmap(run, in_dims=(0, 0, None))(params, buffers, ember.tensor(data))
    tout = tf.vmap(trun, in_dims=(0, 0, None))(tparams, tbuffers, torch.tensor(data))
    assert tuple(out.shape) == (3, 5, 2)
    close(out, tout, rtol=1e-5, atol=1e-6)
    # the stacked parameters train: gradients reach them, not the original models
    out.sum().backward()
    tout.sum().backward()
    close(params["l1.weight"].grad, tparams["l1.weight"].grad, rtol=1e-5, atol=1e-6)
    assert ember_models[0].l1.weight.grad is None


def test_stack_module_state_refusals():
    for lib, f in ((torch, tf), (ember, ef)):
        with pytest.raises(RuntimeError, match="Expected at least one model, got 0"):
            f.stack_module_state([])
        with pytest.raises(RuntimeError, match="same class"):
            f.stack_module_state([lib.nn.Linear(2, 2), lib.nn.Conv1d(2, 2, 1)])
        with pytest.raises(RuntimeError, match="same training/eval mode"):
            f.stack_module_state([lib.nn.Linear(2, 2), lib.nn.Linear(2, 2).eval()])
        frozen = lib.nn.Linear(2, 2)
        frozen.weight.requires_grad_(False)
        with pytest.raises(RuntimeError, match="Expected weight from each model to have the "
                                               "same .requires_grad"):
            f.stack_module_state([lib.nn.Linear(2, 2), frozen])


def test_replace_all_batch_norm_modules_():
    for lib, f in ((torch, tf), (ember, ef)):
        root = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.BatchNorm1d(3),
                                 lib.nn.Sequential(lib.nn.BatchNorm2d(3)))
        assert f.replace_all_batch_norm_modules_(root) is root
        for bn in (root[1], root[2][0]):
            assert bn.running_mean is None and bn.running_var is None
            assert bn.num_batches_tracked is None and not bn.track_running_stats
        assert [n for n, _ in root.named_buffers()] == []


def test_debug_unwrap_of_a_plain_tensor_is_the_tensor():
    x = ember.ones(2)
    assert ef.debug_unwrap(x) is x and ef.debug_unwrap(x, recurse=False) is x


# --------------------------------------------------------------------------- rearrange

REARRANGE_CASES = [
    ((2, 3, 4, 5), "b h w c -> b h w c", {}),
    ((2, 3, 4, 5), "b h w c -> (b h) w c", {}),
    ((2, 3, 4, 5), "b h w c -> h (b w) c", {}),
    ((2, 3, 4, 5), "b h w c -> b c h w", {}),
    ((2, 3, 4, 5), "b h w c -> b (c h w)", {}),
    ((2, 4, 6, 5), "b (h1 h) (w1 w) c -> (b h1 w1) h w c", {"h1": 2, "w1": 2}),
    ((2, 4, 6, 5), "b (h h1) (w w1) c -> b h w (c h1 w1)", {"h1": 2, "w1": 3}),
    ((2, 3, 4, 5), "b ... c -> c ... b", {}),
    ((2, 3, 4, 5), "b ... -> b (...)", {}),
    ((2, 3, 4, 5), "... c -> c ...", {}),
    ((2, 3), "a b -> a 1 b ()", {}),
    ((2, 1, 3), "a 1 b -> b a", {}),
    ((2, 1, 3), "a () b -> (b 1 a)", {}),
]


@pytest.mark.parametrize("shape,pattern,lengths", REARRANGE_CASES)
def test_rearrange_matches_torch(rng, shape, pattern, lengths):
    data = rng.standard_normal(shape)
    close(ef.rearrange(ember.tensor(data), pattern, **lengths),
          tf.rearrange(torch.tensor(data), pattern, **lengths))


def test_rearrange_of_a_list_stacks_it(rng):
    data = rng.standard_normal((3, 2, 4))
    close(ef.rearrange([ember.tensor(d) for d in data], "n a b -> a (n b)"),
          tf.rearrange([torch.tensor(d) for d in data], "n a b -> a (n b)"))


def test_rearrange_keeps_the_gradient(rng):
    data = rng.standard_normal((2, 6))
    x, tx = ember.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    (ef.rearrange(x, "a (b c) -> c b a", c=2) ** 2).sum().backward()
    (tf.rearrange(tx, "a (b c) -> c b a", c=2) ** 2).sum().backward()
    close(x.grad, tx.grad)


@pytest.mark.parametrize("pattern,lengths", [
    ("a b c", {}), ("a b -> a -> b", {}), ("a b -> a", {}), ("a b -> a b c", {}),
    ("a a -> a", {}), ("a b c -> a b c", {}), ("a b -> b a", {"z": 2}),
    ("(a (b)) -> a b", {}), ("a b) -> a b", {}), ("(a b -> a b", {}), ("a 2 -> a", {}),
    ("a b -> (a ...)", {}), ("a (b ...) -> a b ...", {}), ("a .. -> a", {}),
    ("a _b -> a _b", {}), ("a b! -> a b!", {}), ("(a b) -> a b", {"a": 1.5}),
])
def test_rearrange_refuses_bad_patterns_as_torch(pattern, lengths):
    with pytest.raises(Exception) as theirs:
        tf.rearrange(torch.zeros(2, 3), pattern, **lengths)
    with pytest.raises(type(theirs.value), match=str(theirs.value).split("\n")[0][:30]
                       .replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        ef.rearrange(ember.zeros(2, 3), pattern, **lengths)
