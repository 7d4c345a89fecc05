"""Every optimizer against PyTorch's, step for step: the same parameters and gradients give the
same parameters and state; state dicts pass between the two libraries and training continues
identically."""
import numpy as np
import pytest
import torch

import ember

# (name, kwargs) pairs; each runs on float32 and float64 parameters.
CASES = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.3, "weight_decay": 0.1}),
    ("SGD", {"lr": 0.05, "momentum": 0.8, "nesterov": True, "maximize": True}),
    ("Adam", {}),
    ("Adam", {"lr": 0.01, "betas": (0.8, 0.9), "weight_decay": 0.1, "amsgrad": True}),
    ("Adam", {"lr": 0.01, "maximize": True, "decoupled_weight_decay": True,
              "weight_decay": 0.2}),
    ("AdamW", {"lr": 0.02}),
    ("AdamW", {"lr": 0.02, "amsgrad": True, "weight_decay": 0.5}),
    ("RMSprop", {}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.5, "centered": True, "weight_decay": 0.1}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.01, "initial_accumulator_value": 0.5}),
    ("Adagrad", {"weight_decay": 0.1, "maximize": True}),
    ("Adamax", {"lr": 0.02, "weight_decay": 0.1}),
    ("NAdam", {"lr": 0.02}),
    ("NAdam", {"lr": 0.02, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("NAdam", {"lr": 0.02, "weight_decay": 0.1, "momentum_decay": 0.01}),
    ("RAdam", {"lr": 0.02}),
    ("RAdam", {"lr": 0.02, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("Adadelta", {}),
    ("Adadelta", {"lr": 0.5, "rho": 0.8, "weight_decay": 0.1}),
    ("ASGD", {"lr": 0.05, "t0": 2}),
    ("ASGD", {"weight_decay": 0.1, "lambd": 0.01}),
    ("Rprop", {}),
    ("Rprop", {"lr": 0.05, "etas": (0.3, 1.5), "step_sizes": (1e-3, 0.2), "maximize": True}),
    ("Adafactor", {}),
    ("Adafactor", {"lr": 0.05, "weight_decay": 0.1, "eps": (1e-20, 1e-3), "d": 2.0,
                   "maximize": True}),
]


def _shapes():
    return [(3, 4), (5,), (2, 1, 3), ()]


def _values(shape, seed, dtype):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape).astype(dtype)


def _grads(step, dtype):
    return [_values(s, 100 + 7 * step + i, dtype) for i, s in enumerate(_shapes())]


def _make(lib, dtype, names=False):
    params = [lib.nn.Parameter(lib.tensor(_values(s, i, dtype))) for i, s in enumerate(_shapes())]
    return params


def _set_grads(lib, params, step, dtype):
    for p, g in zip(params, _grads(step, dtype)):
        p.grad = lib.tensor(g)


def _tol(dtype):
    return dict(rtol=2e-5, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-11, atol=1e-13)


def _assert_state_equal(e_opt, t_opt, dtype):
    e_sd, t_sd = e_opt.state_dict(), t_opt.state_dict()
    assert e_sd["param_groups"] == t_sd["param_groups"]
    assert sorted(e_sd["state"]) == sorted(t_sd["state"])
    for index, t_state in t_sd["state"].items():
        e_state = e_sd["state"][index]
        assert list(e_state) == list(t_state)
        for key, t_value in t_state.items():
            e_value = e_state[key]
            if isinstance(t_value, torch.Tensor):
                assert str(e_value.dtype).split(".")[1] == str(t_value.dtype).split(".")[1], key
                np.testing.assert_allclose(e_value.numpy(), t_value.numpy(), **_tol(dtype))
            else:
                assert e_value == t_value


def _run(name, kwargs, dtype, steps, e_opt=None, t_opt=None, e_params=None, t_params=None,
         start=0):
    if e_opt is None:
        e_params, t_params = _make(ember, dtype), _make(torch, dtype)
        e_opt = getattr(ember.optim, name)(e_params, **kwargs)
        t_opt = getattr(torch.optim, name)(t_params, **kwargs)
    for step in range(start, start + steps):
        _set_grads(ember, e_params, step, dtype)
        _set_grads(torch, t_params, step, dtype)
        e_opt.step()
        t_opt.step()
        for e, t in zip(e_params, t_params):
            np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), **_tol(dtype))
    _assert_state_equal(e_opt, t_opt, dtype)
    return e_opt, t_opt, e_params, t_params


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("name,kwargs", CASES, ids=[f"{n}-{i}" for i, (n, _) in
                                                     enumerate(CASES)])
def test_steps_match_pytorch(name, kwargs, dtype):
    _run(name, kwargs, dtype, steps=8)


def _to_torch_state(sd):
    return {"state": {i: {k: torch.tensor(v.numpy()) if isinstance(v, ember.Tensor) else v
                          for k, v in s.items()} for i, s in sd["state"].items()},
            "param_groups": sd["param_groups"]}


def _to_ember_state(sd):
    return {"state": {i: {k: ember.tensor(v.numpy()) if isinstance(v, torch.Tensor) else v
                          for k, v in s.items()} for i, s in sd["state"].items()},
            "param_groups": sd["param_groups"]}


@pytest.mark.parametrize("name,kwargs", CASES[1:2] + CASES[5:6] + CASES[8:9])
def test_state_dicts_cross_between_libraries(name, kwargs):
    dtype = np.float64
    e_opt, t_opt, e_params, t_params = _run(name, kwargs, dtype, steps=3)
    # PyTorch's state into a fresh ember optimizer (and ember's into a fresh torch one); both
    # continue as the originals do.
    e_params2 = [ember.nn.Parameter(ember.tensor(t.detach().numpy())) for t in t_params]
    t_params2 = [torch.nn.Parameter(torch.tensor(e.detach().numpy())) for e in e_params]
    e_opt2 = getattr(ember.optim, name)(e_params2, **kwargs)
    t_opt2 = getattr(torch.optim, name)(t_params2, **kwargs)
    e_opt2.load_state_dict(_to_ember_state(t_opt.state_dict()))
    t_opt2.load_state_dict(_to_torch_state(e_opt.state_dict()))
    _run(name, kwargs, dtype, steps=3, e_opt=e_opt2, t_opt=t_opt, e_params=e_params2,
         t_params=t_params, start=3)
    _run(name, kwargs, dtype, steps=3, e_opt=e_opt, t_opt=t_opt2, e_params=e_params,
         t_params=t_params2, start=3)


def test_param_groups_state_dict_and_repr_match():
    def build(lib):
        a = lib.nn.Parameter(lib.ones(2))
        b = lib.nn.Parameter(lib.ones(3))
        return lib.optim.SGD([{"params": [a]}, {"params": [b], "lr": 1.0}], lr=0.1,
                             momentum=0.9)
    e, t = build(ember), build(torch)
    assert e.state_dict() == t.state_dict()
    assert repr(e) == repr(t)
    named_e = ember.optim.Adam([("w", ember.nn.Parameter(ember.ones(1)))])
    named_t = torch.optim.Adam([("w", torch.nn.Parameter(torch.ones(1)))])
    assert named_e.state_dict() == named_t.state_dict()


def _error(lib, fn):
    try:
        fn(lib)
    except Exception as exc:  # noqa: BLE001 - the class and message are compared
        return type(exc).__name__, str(exc)
    return None


@pytest.mark.parametrize("case", [
    lambda lib: lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], lr=-1),
    lambda lib: lib.optim.SGD([], lr=1),
    lambda lib: lib.optim.SGD(lib.nn.Parameter(lib.ones(1)), lr=1),
    lambda lib: lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], lr=1, nesterov=True),
    lambda lib: lib.optim.SGD([lib.ones(2) * lib.ones(2, requires_grad=True)], lr=1),
    lambda lib: lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], momentum=-1),
    lambda lib: lib.optim.Adam([lib.nn.Parameter(lib.ones(1))], betas=(1.0, 0.9)),
    lambda lib: lib.optim.Adam([lib.nn.Parameter(lib.ones(1))], eps=-1),
    lambda lib: lib.optim.Adam({lib.nn.Parameter(lib.ones(1))}),
    lambda lib: lib.optim.Adafactor([lib.nn.Parameter(lib.ones(1))], d=0.5),
    lambda lib: lib.optim.Adafactor([lib.nn.Parameter(lib.ones(1))], beta2_decay=0.5),
    lambda lib: lib.optim.SparseAdam([lib.nn.Parameter(lib.ones(1))], lr=0),
    lambda lib: lib.optim.LBFGS([{"params": [lib.nn.Parameter(lib.ones(1))]},
                                 {"params": [lib.nn.Parameter(lib.ones(1))]}]),
])
def test_bad_arguments_raise_as_pytorch(case):
    assert _error(ember, case) == _error(torch, case)


def test_sparse_adam_refuses_dense_gradients_as_pytorch():
    def run(lib):
        p = lib.nn.Parameter(lib.ones(3))
        opt = lib.optim.SparseAdam([p])
        p.grad = lib.ones(3)
        return _error(lib, lambda _: opt.step()), opt.state_dict()
    assert run(ember) == run(torch)


def test_load_state_dict_mismatch_errors_match():
    def case(lib, groups):
        p = lib.nn.Parameter(lib.ones(1))
        opt = lib.optim.SGD([p], lr=0.1)
        other = lib.optim.SGD([{"params": [lib.nn.Parameter(lib.ones(1))]}] * 0 + groups(lib),
                              lr=0.1)
        opt.load_state_dict(other.state_dict())
    two = lambda lib: [{"params": [lib.nn.Parameter(lib.ones(1))]},
                       {"params": [lib.nn.Parameter(lib.ones(1))]}]
    wide = lambda lib: [{"params": [lib.nn.Parameter(lib.ones(1)),
                                    lib.nn.Parameter(lib.ones(1))]}]
    for groups in (two, wide):
        assert _error(ember, lambda lib: case(lib, groups)) == \
            _error(torch, lambda lib: case(lib, groups))


def test_step_hooks_closure_and_zero_grad():
    for lib in (ember, torch):
        p = lib.nn.Parameter(lib.ones(2))
        opt = lib.optim.SGD([p], lr=0.5)
        calls = []
        h1 = opt.register_step_pre_hook(lambda o, a, k: calls.append("pre"))
        opt.register_step_post_hook(lambda o, a, k: calls.append("post"))

        def closure():
            opt.zero_grad()
            loss = (p * p).sum()
            loss.backward()
            return loss
        loss = opt.step(closure)
        h1.remove()
        opt.step(closure)
        assert calls == ["pre", "post", "post"]
        assert loss.item() == 2.0
        np.testing.assert_allclose(p.detach().numpy(), [0.0, 0.0])
        opt.zero_grad(set_to_none=False)
        assert p.grad is not None and float(p.grad.abs().sum()) == 0.0
        opt.zero_grad()
        assert p.grad is None


def test_update_bumps_version_so_autograd_sees_it():
    p = ember.nn.Parameter(ember.ones(2))
    y = (p * p).sum()
    p.grad = ember.ones(2)
    ember.optim.SGD([p], lr=0.1).step()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


@pytest.mark.parametrize("line_search", [None, "strong_wolfe"])
def test_lbfgs_matches_pytorch(line_search):
    def run(lib):
        x = lib.nn.Parameter(lib.tensor([-1.5, 2.0], dtype=lib.float64))
        w = lib.nn.Parameter(lib.tensor([[0.5, -0.3], [0.2, 0.8]], dtype=lib.float64))
        opt = lib.optim.LBFGS([x, w], lr=0.8, max_iter=7, history_size=4,
                              line_search_fn=line_search)

        def closure():
            opt.zero_grad()
            a, b = x[0], x[1]
            loss = (1 - a) ** 2 + 10 * (b - a * a) ** 2 + ((w @ x) ** 2).sum() * 0.1
            loss.backward()
            return loss
        losses = [float(opt.step(closure)) for _ in range(4)]
        state = opt.state[x]
        return losses, x.detach().numpy(), w.detach().numpy(), state["func_evals"], \
            state["n_iter"]
    ours, theirs = run(ember), run(torch)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-9)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-8, atol=1e-10)
    assert ours[3:] == theirs[3:]
