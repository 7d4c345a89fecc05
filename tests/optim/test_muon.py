"""optim.Muon and optim.swap_in_optimizer_params_and_state against PyTorch."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from tests._capability import MATCHED

import ember

SHAPES = [(6, 4), (3, 8), (5, 5)]


def _values(shape, seed, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _run_steps(lib, kwargs, steps=4, dtype=np.float32):
    params = [lib.nn.Parameter(lib.tensor(_values(s, i, dtype))) for i, s in enumerate(SHAPES)]
    optimizer = lib.optim.Muon(params, **kwargs)
    for step in range(steps):
        for i, p in enumerate(params):
            p.grad = lib.tensor(_values(p.shape, 100 + 7 * step + i, dtype))
        optimizer.step()
    buffers = [optimizer.state[p]["momentum_buffer"].numpy() for p in params]
    return [p.detach().numpy() for p in params], buffers


@pytest.mark.parametrize("kwargs", [
    {},
    {"lr": 0.02, "momentum": 0.9},
    {"lr": 0.05, "nesterov": False, "weight_decay": 0.0},
    {"lr": 0.01, "adjust_lr_fn": "match_rms_adamw", "ns_steps": 3},
    {"lr": 0.01, "ns_coefficients": (2.0, -1.5, 0.5), "eps": 1e-5},
])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_steps_match_torch(kwargs, dtype):
    got_params, got_buffers = _run_steps(ember, kwargs, dtype=dtype)
    expected_params, expected_buffers = _run_steps(torch, kwargs, dtype=dtype)
    for got, expected in zip(got_buffers, expected_buffers):
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-7)
    # The Newton-Schulz iteration in bfloat16 gives PyTorch's bits (NOTE [addmm rounds once])
    # where PyTorch's addmm fuses (AVX2/AVX-512, tests/_capability.py). Elsewhere an element of
    # an update (below 2: a bfloat16 ulp of at most 2**-7) may round the other way, and each
    # of the 4 steps moves a parameter by the update times lr * max(1, rows / cols) ** 0.5
    # (at most lr * 1.25 here).
    drift = 0 if MATCHED else 4 * kwargs.get("lr", 1e-3) * 1.25 * 2.0 ** -7
    for got, expected in zip(got_params, expected_params):
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-7 + drift)


@pytest.mark.parametrize("shape", [(6, 4), (3, 8), (40, 30)])
def test_orthogonalisation_is_torch_bit_for_bit(shape):
    from torch.optim._muon import _zeropower_via_newtonschulz

    from ember.optim.muon import orthogonalise
    matrix = _values(shape, 4)
    got = orthogonalise(ember, ember.tensor(matrix), (3.4445, -4.7750, 2.0315), 5, 1e-7)
    expected = _zeropower_via_newtonschulz(torch.tensor(matrix), (3.4445, -4.7750, 2.0315), 5,
                                           1e-7)
    assert got.dtype == ember.bfloat16
    np.testing.assert_array_equal(got.float().numpy(), expected.float().numpy())


def test_update_is_nearly_orthogonal():
    """The orthogonalised update's singular values lie near one (about 0.5 to 1.5)."""
    from ember.optim.muon import orthogonalise
    matrix = ember.tensor(_values((8, 5), 3))
    update = orthogonalise(ember, matrix, (3.4445, -4.7750, 2.0315), 5, 1e-7).float()
    singular = np.linalg.svd(update.numpy(), compute_uv=False)
    assert np.all((singular > 0.4) & (singular < 1.6)), singular


@pytest.mark.parametrize("case", [
    lambda lib, p: lib.optim.Muon([p], lr=-1.0),
    lambda lib, p: lib.optim.Muon([p], momentum=-0.1),
    lambda lib, p: lib.optim.Muon([p], weight_decay=-0.1),
    lambda lib, p: lib.optim.Muon([p], adjust_lr_fn="other"),
    lambda lib, p: lib.optim.Muon([lib.nn.Parameter(lib.zeros(3))]),
])
def test_bad_arguments_raise_torch_errors(case):
    outcomes = []
    for lib in (ember, torch):
        with pytest.raises(Exception) as caught:
            case(lib, lib.nn.Parameter(lib.zeros(2, 2)))
        outcomes.append((caught.type, str(caught.value).replace("torch.", "ember.")))
    assert outcomes[0] == outcomes[1]


def test_state_dict_round_trips_through_torch():
    _, _ = _run_steps(ember, {"lr": 0.02})
    params = [ember.nn.Parameter(ember.tensor(_values(s, i))) for i, s in enumerate(SHAPES)]
    optimizer = ember.optim.Muon(params, lr=0.02)
    for p in params:
        p.grad = ember.ones(p.shape)
    optimizer.step()
    state = optimizer.state_dict()
    assert state["param_groups"][0]["ns_coefficients"] == (3.4445, -4.775, 2.0315)
    assert sorted(state["param_groups"][0]) == sorted(
        torch.optim.Muon([torch.nn.Parameter(torch.zeros(2, 2))]).state_dict()["param_groups"][0])


# --------------------------------------------------------------------------- swap-in

def _swap_case(lib):
    """Two SGD-with-momentum steps on swapped-in tensors, then one on the live ones."""
    params = [lib.nn.Parameter(lib.tensor(_values(s, i))) for i, s in enumerate(SHAPES[:2])]
    optimizer = lib.optim.SGD(params, lr=0.1, momentum=0.9)
    for p in params:
        p.grad = lib.ones(p.shape)
    optimizer.step()
    live_before = [p.detach().clone() for p in params]
    other = {f"p{i}": lib.tensor(_values(s, 50 + i)) for i, s in enumerate(SHAPES[:2])}
    for t in other.values():
        t.grad = lib.full(t.shape, 0.5)
    saved = optimizer.state_dict()
    swap_state = {"state": {k: {"momentum_buffer": v["momentum_buffer"].clone()}
                            for k, v in saved["state"].items()},
                  "param_groups": [dict(g, lr=0.2) for g in saved["param_groups"]]}
    with lib.optim.swap_in_optimizer_params_and_state(optimizer, other, swap_state):
        inside_lr = optimizer.param_groups[0]["lr"]
        optimizer.step()
    after_lr = optimizer.param_groups[0]["lr"]
    untouched = [bool((a == p.detach()).all()) for a, p in zip(live_before, params)]
    return ([t.numpy() for t in other.values()],
            [v["momentum_buffer"].numpy() for v in swap_state["state"].values()],
            inside_lr, after_lr, untouched, optimizer.param_groups[0]["params"][0] is params[0])


def test_swap_in_steps_the_given_tensors_and_restores_the_live_ones():
    got, expected = _swap_case(ember), _swap_case(torch)
    for g, e in zip(got[0] + got[1], expected[0] + expected[1]):
        np.testing.assert_allclose(g, e, rtol=1e-6)
    assert got[2:] == expected[2:]


@pytest.mark.parametrize("mutate", [
    lambda sd: sd.update(state=[]),
    lambda sd: sd.update(param_groups={}),
    lambda sd: sd["param_groups"].append({}),
    lambda sd: sd["param_groups"][0].update(params=["a"]),
    lambda sd: sd["param_groups"][0].update(extra=1),
    lambda sd: sd["state"].update({7: {}}),
])
def test_swap_in_refuses_malformed_state_as_torch(mutate):
    outcomes = []
    for lib in (ember, torch):
        p = lib.nn.Parameter(lib.zeros(2, 2))
        optimizer = lib.optim.SGD([p], lr=0.1, momentum=0.9)
        p.grad = lib.ones(2, 2)
        optimizer.step()
        sd = optimizer.state_dict()
        mutate(sd)
        swap = lib.optim.swap_in_optimizer_params_and_state
        with pytest.raises(RuntimeError) as caught, swap(optimizer, {"p": p}, sd):
            pass
        outcomes.append(str(caught.value))
    assert outcomes[0] == outcomes[1]
