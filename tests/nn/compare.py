"""Shared checks of an ember module against the same PyTorch module: copy PyTorch's weights
into ember's, run both on the same input, compare outputs, input and parameter gradients,
state_dict keys/shapes/dtypes and repr."""
from __future__ import annotations

import numpy as np
import torch

import ember


def to_ember(t: torch.Tensor, requires_grad: bool | None = None) -> ember.Tensor:
    """A torch tensor's values as an ember tensor (same dtype), optionally requiring grad."""
    e = ember.from_numpy(t.detach().cpu().numpy().copy()) if t.dtype != torch.bfloat16 else \
        ember.tensor(t.detach().float().numpy()).to(ember.bfloat16)
    if requires_grad if requires_grad is not None else t.requires_grad:
        e.requires_grad_(True)
    return e


def to_numpy(t) -> np.ndarray:
    if isinstance(t, torch.Tensor):
        return t.detach().cpu().numpy()
    return t.detach().numpy()


def copy_state(torch_module: torch.nn.Module, ember_module: ember.nn.Module) -> None:
    """Load torch_module's state_dict (parameters and buffers) into ember_module."""
    state = {k: to_ember(v, requires_grad=False) for k, v in torch_module.state_dict().items()}
    ember_module.load_state_dict(state)


def assert_same_state_layout(torch_module, ember_module) -> None:
    """state_dict keys (in order), shapes and dtypes equal."""
    t_state = torch_module.state_dict()
    e_state = ember_module.state_dict()
    assert list(t_state) == list(e_state)
    for key in t_state:
        assert tuple(t_state[key].shape) == tuple(e_state[key].shape), key
        assert str(t_state[key].dtype) == str(e_state[key].dtype).replace("ember", "torch"), key
    t_params = [n for n, _ in torch_module.named_parameters()]
    e_params = [n for n, _ in ember_module.named_parameters()]
    assert t_params == e_params


def assert_close(actual, expected, rtol=None, atol=None, what="") -> None:
    actual = to_numpy(actual)
    expected = to_numpy(expected)
    assert actual.shape == expected.shape, (what, actual.shape, expected.shape)
    if rtol is None:
        rtol = 1e-4 if expected.dtype in (np.float32, np.complex64) else 1e-7
    if atol is None:
        atol = 1e-5 if expected.dtype in (np.float32, np.complex64) else 1e-9
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol, err_msg=what)


def _flat_outputs(out):
    if isinstance(out, (tuple, list)):
        result = []
        for item in out:
            result.extend(_flat_outputs(item))
        return result
    if out is None:
        return []
    return [out]


def check_module(torch_module, ember_module, *inputs, rtol=None, atol=None,
                 check_repr=True, backward=True) -> None:
    """Copy weights torch → ember, compare layout, repr, outputs and all gradients.

    `inputs` are torch tensors (floating ones get requires_grad when `backward`)."""
    assert_same_state_layout(torch_module, ember_module)
    if check_repr:
        assert repr(ember_module) == repr(torch_module)
    copy_state(torch_module, ember_module)
    ember_module.train(torch_module.training)
    t_inputs = [x.detach().clone().requires_grad_(backward and x.is_floating_point())
                if isinstance(x, torch.Tensor) else x for x in inputs]
    e_inputs = [to_ember(x) if isinstance(x, torch.Tensor) else x for x in t_inputs]
    t_out = _flat_outputs(torch_module(*t_inputs))
    e_out = _flat_outputs(ember_module(*e_inputs))
    assert len(t_out) == len(e_out)
    for i, (e, t) in enumerate(zip(e_out, t_out)):
        assert str(e.dtype).replace("ember", "torch") == str(t.dtype), (i, e.dtype, t.dtype)
        assert_close(e, t, rtol, atol, what=f"output {i}")
    if not backward:
        return
    t_total = sum((o.float() * (k + 1)).sum() for k, o in enumerate(t_out) if o.requires_grad)
    e_total = sum((o.float() * (k + 1)).sum() for k, o in enumerate(e_out) if o.requires_grad)
    t_total.backward()
    e_total.backward()
    for i, (e, t) in enumerate(zip(e_inputs, t_inputs)):
        if isinstance(t, torch.Tensor) and t.requires_grad:
            assert (e.grad is None) == (t.grad is None), f"input {i} grad presence"
            if t.grad is not None:
                assert_close(e.grad, t.grad, rtol, atol, what=f"input {i} grad")
    t_params = dict(torch_module.named_parameters())
    for name, e_param in ember_module.named_parameters():
        t_grad = t_params[name].grad
        assert (e_param.grad is None) == (t_grad is None), f"{name} grad presence"
        if t_grad is not None:
            assert_close(e_param.grad, t_grad, rtol, atol, what=f"{name} grad")
