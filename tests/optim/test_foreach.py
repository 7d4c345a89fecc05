"""The batched ("foreach") update of every element-wise optimizer (`_foreach_*` ops over flat
state, NOTE [optimizer updates as ops]) against PyTorch's optimizers: many parameters of mixed
shapes and dtypes, parameters without gradients, parameters joining late, state dicts crossing
between the two libraries (also through files), `.data` replaced, and foreach=True/False both."""
import io

import numpy as np
import pytest
import torch

import ember

SHAPES = [(4, 3), (5,), (), (2, 1, 3), (6, 2), (1,), (3, 3, 2)]
DTYPES = ["float32", "float64", "float32", "float32", "float64", "float32", "float64"]

CASES = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.2, "weight_decay": 0.1}),
    ("SGD", {"lr": 0.05, "momentum": 0.8, "nesterov": True, "maximize": True}),
    ("Adam", {"lr": 0.01}),
    ("Adam", {"lr": 0.01, "betas": (0.8, 0.9), "weight_decay": 0.1, "amsgrad": True,
              "maximize": True}),
    ("AdamW", {"lr": 0.02, "weight_decay": 0.3}),
    ("AdamW", {"lr": 0.02, "amsgrad": True}),
    ("RMSprop", {"lr": 0.01}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.5, "centered": True, "weight_decay": 0.1,
                 "maximize": True}),
    ("RMSprop", {"lr": 0.01, "alpha": 0.3, "momentum": 0.9}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.01, "initial_accumulator_value": 0.5}),
    ("Adagrad", {"lr": 0.1, "weight_decay": 0.1, "maximize": True}),
    ("Adamax", {"lr": 0.02}),
    ("Adamax", {"lr": 0.02, "betas": (0.3, 0.9), "weight_decay": 0.1, "maximize": True}),
    ("NAdam", {"lr": 0.02}),
    ("NAdam", {"lr": 0.02, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("NAdam", {"lr": 0.02, "betas": (0.7, 0.9), "weight_decay": 0.1, "momentum_decay": 0.01,
               "maximize": True}),
    ("RAdam", {"lr": 0.02}),
    ("RAdam", {"lr": 0.02, "betas": (0.3, 0.5), "weight_decay": 0.1,
               "decoupled_weight_decay": True}),
    ("RAdam", {"lr": 0.02, "betas": (0.8, 0.9), "weight_decay": 0.1, "maximize": True}),
    ("Adadelta", {}),
    ("Adadelta", {"lr": 0.5, "rho": 0.8, "weight_decay": 0.1, "maximize": True}),
    ("ASGD", {"lr": 0.05, "t0": 2}),
    ("ASGD", {"lr": 0.05, "weight_decay": 0.1, "lambd": 0.01, "t0": 0, "maximize": True}),
    ("Rprop", {}),
    ("Rprop", {"lr": 0.05, "etas": (0.3, 1.5), "step_sizes": (1e-3, 0.2), "maximize": True}),
]
IDS = [f"{name}-{i}" for i, (name, _) in enumerate(CASES)]
# PyTorch's foreach ASGD computes the next `eta` in float32 tensor ops (a pow among them,
# whose last bit differs between kernels) and multiplies float64 parameters by it: there the
# float64 parameters are compared to float32's tolerance.
FLOAT32_ETA = {"ASGD"}


def _values(shape, seed, dtype):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _params(lib):
    return [lib.nn.Parameter(lib.tensor(_values(s, i, d)))
            for i, (s, d) in enumerate(zip(SHAPES, DTYPES))]


def _has_grad(step, i):
    # parameter 1 never has a gradient; parameter 3 only from step 2 on (it joins late, so
    # its step count differs from the others'); parameter 5 skips every third step
    return i != 1 and not (i == 3 and step < 2) and not (i == 5 and step % 3 == 0)


def _set_grads(lib, params, step):
    for i, p in enumerate(params):
        p.grad = lib.tensor(_values(SHAPES[i], 100 + 11 * step + i, DTYPES[i])) \
            if _has_grad(step, i) else None


def _tol(t, loose=False):
    return {"rtol": 2e-5, "atol": 1e-6} if t.dtype == torch.float32 or loose else \
        {"rtol": 1e-11, "atol": 1e-13}


def _compare(e_params, t_params, e_opt, t_opt, loose=False):
    for e, t in zip(e_params, t_params):
        np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), **_tol(t, loose))
    e_sd, t_sd = e_opt.state_dict(), t_opt.state_dict()
    assert sorted(e_sd["state"]) == sorted(t_sd["state"])
    for index, t_state in t_sd["state"].items():
        e_state = e_sd["state"][index]
        assert list(e_state) == list(t_state)
        for key, t_value in t_state.items():
            e_value = e_state[key]
            assert str(e_value.dtype).split(".")[1] == str(t_value.dtype).split(".")[1]
            assert tuple(e_value.shape) == tuple(t_value.shape)
            np.testing.assert_allclose(e_value.numpy(), t_value.numpy(),
                                       **_tol(t_value, loose))


def _steps(e_params, t_params, e_opt, t_opt, steps, start=0, loose=False):
    for step in range(start, start + steps):
        _set_grads(ember, e_params, step)
        _set_grads(torch, t_params, step)
        e_opt.step()
        t_opt.step()
        _compare(e_params, t_params, e_opt, t_opt, loose)


@pytest.mark.parametrize("foreach", [None, True, False])
@pytest.mark.parametrize("name,kwargs", CASES, ids=IDS)
def test_many_mixed_parameters_match_pytorch(name, kwargs, foreach):
    e_params, t_params = _params(ember), _params(torch)
    e_opt = getattr(ember.optim, name)(e_params, foreach=foreach, **kwargs)
    t_opt = getattr(torch.optim, name)(t_params, foreach=foreach, **kwargs)
    _steps(e_params, t_params, e_opt, t_opt, steps=6, loose=foreach and name in FLOAT32_ETA)


def test_flat_path_is_taken_and_state_tensors_are_views_of_one_buffer():
    from ember._ops.foreach_layout import flat_of
    params = _params(ember)
    opt = ember.optim.Adam(params)
    _set_grads(ember, params, 4)
    opt.step()
    with_grad = [p for i, p in enumerate(params) if _has_grad(4, i)]
    for dtype in ("float32", "float64"):
        group = [p for p in with_grad if str(p.dtype) == f"ember.{dtype}"]
        for key in ("step", "exp_avg", "exp_avg_sq"):
            flat = flat_of([opt.state[p][key]._data for p in group])
            assert flat is not None and flat.dtype.name == (
                "float32" if key == "step" else dtype), key


@pytest.mark.parametrize("name", sorted({name for name, _ in CASES}))
def test_every_optimizer_keeps_its_state_as_views_of_flat_buffers(name):
    """keep_flat (NOTE [optimizer updates as ops]): each state entry of a (dtype) group is a
    view of one buffer, 0-d entries (step, NAdam's mu_product, ASGD's eta and mu) included."""
    from ember._ops.foreach_layout import flat_of
    params = _params(ember)
    opt = getattr(ember.optim, name)(params, **({"momentum": 0.9} if name == "SGD" else {}))
    for step in (2, 3):
        _set_grads(ember, params, step)
        opt.step()
    with_grad = [p for i, p in enumerate(params) if _has_grad(3, i)]
    for dtype in ("float32", "float64"):
        group = [p for p in with_grad if str(p.dtype) == f"ember.{dtype}"]
        assert len(group) >= 2 and opt.state[group[0]]
        for key in opt.state[group[0]]:
            assert flat_of([opt.state[p][key]._data for p in group]) is not None, key


def _through_file(lib_from, lib_to, state_dict):
    buffer = io.BytesIO()
    lib_from.save(state_dict, buffer)
    buffer.seek(0)
    return lib_to.load(buffer)


CROSSING = [1, 4, 5, 8, 11, 13, 15, 19, 21, 22, 25]


@pytest.mark.parametrize("name,kwargs", [CASES[i] for i in CROSSING],
                         ids=[IDS[i] for i in CROSSING])
def test_state_dicts_cross_between_libraries_through_files(name, kwargs):
    e_params, t_params = _params(ember), _params(torch)
    e_opt = getattr(ember.optim, name)(e_params, **kwargs)
    t_opt = getattr(torch.optim, name)(t_params, **kwargs)
    _steps(e_params, t_params, e_opt, t_opt, steps=3)
    # each library's state continues in a fresh optimizer of the other library
    e_params2 = [ember.nn.Parameter(ember.tensor(t.detach().numpy())) for t in t_params]
    t_params2 = [torch.nn.Parameter(torch.tensor(e.detach().numpy())) for e in e_params]
    e_opt2 = getattr(ember.optim, name)(e_params2, **kwargs)
    t_opt2 = getattr(torch.optim, name)(t_params2, **kwargs)
    e_opt2.load_state_dict(_through_file(torch, ember, t_opt.state_dict()))
    t_opt2.load_state_dict(_through_file(ember, torch, e_opt.state_dict()))
    # (loading casts floating state entries other than `step` to the parameter's dtype, in
    # both libraries: NAdam's mu_product, ASGD's eta and mu; so the loaded pair is compared)
    _steps(e_params2, t_params2, e_opt2, t_opt2, steps=3, start=3)


def test_load_state_dict_into_a_stepped_optimizer_rebuilds_the_buffers():
    e_params, t_params = _params(ember), _params(torch)
    e_opt = ember.optim.Adam(e_params, lr=0.01)
    t_opt = torch.optim.Adam(t_params, lr=0.01)
    _steps(e_params, t_params, e_opt, t_opt, steps=2)
    saved = t_opt.state_dict()
    saved = {"state": {i: {k: ember.tensor(v.numpy()) for k, v in s.items()}
                       for i, s in saved["state"].items()},
             "param_groups": saved["param_groups"]}
    _steps(e_params, t_params, e_opt, t_opt, steps=1, start=2)     # ember moves on
    e_opt.load_state_dict(saved)                                   # and back
    for e, t in zip(e_params, t_params):
        e.data = ember.tensor(t.detach().numpy())                  # .data replaced
    t_opt.load_state_dict(t_opt.state_dict())
    t_state = {i: {k: v.clone() for k, v in s.items()} for i, s in saved["state"].items()}
    t_opt.load_state_dict({"state": {i: {k: torch.tensor(v.numpy()) for k, v in s.items()}
                                     for i, s in t_state.items()},
                           "param_groups": saved["param_groups"]})
    _steps(e_params, t_params, e_opt, t_opt, steps=3, start=3)


def test_flat_update_bumps_versions_so_autograd_sees_it():
    p = ember.nn.Parameter(ember.ones(2))
    y = (p * p).sum()
    p.grad = ember.ones(2)
    ember.optim.Adam([p], lr=0.1).step()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


def test_user_replacing_a_state_entry_is_respected():
    e_params, t_params = _params(ember), _params(torch)
    e_opt = ember.optim.SGD(e_params, lr=0.1, momentum=0.9)
    t_opt = torch.optim.SGD(t_params, lr=0.1, momentum=0.9)
    _steps(e_params, t_params, e_opt, t_opt, steps=2)
    e_opt.state[e_params[0]]["momentum_buffer"] = ember.zeros(SHAPES[0], dtype=ember.float32)
    t_opt.state[t_params[0]]["momentum_buffer"] = torch.zeros(SHAPES[0])
    _steps(e_params, t_params, e_opt, t_opt, steps=2, start=2)
