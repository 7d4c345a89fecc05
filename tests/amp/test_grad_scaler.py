"""GradScaler against PyTorch's on the CPU: the same scale sequence, skipped steps, unscaled
gradients, state dicts and errors."""
import math

import numpy as np
import pytest
import torch

import ember


def _run(lib, grads_per_step, **kwargs):
    p = lib.nn.Parameter(lib.tensor([1.0, -2.0, 3.0]))
    opt = lib.optim.SGD([p], lr=0.1)
    scaler = lib.amp.GradScaler("cpu", **kwargs)
    trace = []
    for grad in grads_per_step:
        loss = scaler.scale((p * lib.tensor(grad)).sum())
        loss.backward()
        scaler.unscale_(opt)
        unscaled = p.grad.clone()
        scaler.step(opt)
        scaler.update()
        trace.append((scaler.get_scale(), p.detach().clone().tolist(), unscaled.tolist(),
                      scaler.state_dict()))
        opt.zero_grad()
    return trace


def test_scale_sequence_matches_pytorch():
    grads = [[1.0, 2.0, 3.0], [math.inf, 0.0, 1.0], [0.5, 0.5, 0.5], [1.0, math.nan, 1.0],
             [2.0, 2.0, 2.0], [1.0, 1.0, 1.0], [3.0, 1.0, 0.0]]
    kwargs = {"init_scale": 1024.0, "growth_interval": 2, "backoff_factor": 0.25}
    ours, theirs = _run(ember, grads, **kwargs), _run(torch, grads, **kwargs)
    for a, b in zip(ours, theirs):
        assert a[0] == b[0] and a[3] == b[3]
        np.testing.assert_allclose(a[1], b[1], rtol=1e-6)
        np.testing.assert_array_equal(np.isfinite(a[2]), np.isfinite(b[2]))
        np.testing.assert_allclose(np.nan_to_num(a[2]), np.nan_to_num(b[2]), rtol=1e-6)


def _error(lib, fn):
    try:
        fn(lib)
    except Exception as exc:  # noqa: BLE001 - class and message compared
        return type(exc).__name__, str(exc)
    return None


def _scaled_step(lib):
    p = lib.nn.Parameter(lib.ones(2))
    opt = lib.optim.SGD([p], lr=0.1)
    scaler = lib.amp.GradScaler("cpu")
    scaler.scale(p.sum()).backward()
    return scaler, opt


@pytest.mark.parametrize("case", [
    lambda lib: lib.amp.GradScaler("cpu", growth_factor=0.5),
    lambda lib: lib.amp.GradScaler("cpu", backoff_factor=2.0),
    lambda lib: lib.amp.GradScaler("cpu").step(lib.optim.SGD([lib.nn.Parameter(
        lib.ones(1))], lr=0.1)),
    lambda lib: lib.amp.GradScaler("cpu").update(),
    lambda lib: (lambda s, o: (s.unscale_(o), s.unscale_(o)))(*_scaled_step(lib)),
    lambda lib: (lambda s, o: (s.step(o), s.step(o)))(*_scaled_step(lib)),
    lambda lib: (lambda s, o: (s.step(o), s.unscale_(o)))(*_scaled_step(lib)),
    lambda lib: (lambda s, o: s.step(o, closure=lambda: 0))(*_scaled_step(lib)),
    lambda lib: lib.amp.GradScaler("cpu").scale("loss"),
    lambda lib: lib.amp.GradScaler("cpu").load_state_dict({}),
])
def test_misuse_raises_as_pytorch(case):
    assert _error(ember, case) == _error(torch, case)


def test_disabled_scaler_is_transparent_and_state_round_trips():
    scaler = ember.amp.GradScaler("cpu", enabled=False)
    x = ember.ones(2)
    assert scaler.scale(x) is x and scaler.get_scale() == 1.0 and scaler.state_dict() == {}
    a = ember.amp.GradScaler("cpu", init_scale=8.0)
    b = ember.amp.GradScaler("cpu")
    b.load_state_dict(a.state_dict())
    assert b.state_dict() == a.state_dict() == torch.amp.GradScaler(
        "cpu", init_scale=8.0).state_dict()
