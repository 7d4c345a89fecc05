"""NOTE [inference graphs skip AOT autograd] (ember/_dynamo/backends.py): a module compiled
with the inductor backend and called under no_grad is compiled as a plain forward graph (no
AOT autograd), with eager's values; called with grad on it recompiles through AOT autograd
and its parameters get PyTorch's gradients."""
import numpy as np
import pytest
import torch

import ember
from ember._functorch import aot_autograd
from ember._inductor import cpp_builder

pytestmark = pytest.mark.skipif(cpp_builder.compiler() is None, reason="no C compiler")


def _net(lib):
    lib.manual_seed(0)
    net = lib.nn.Sequential(lib.nn.Linear(6, 16), lib.nn.LayerNorm(16), lib.nn.GELU(),
                            lib.nn.Linear(16, 3))
    return net


def _copy(src, dst):
    for (_, p), (_, q) in zip(src.named_parameters(), dst.named_parameters()):
        with torch.no_grad():
            q.copy_(torch.tensor(p.detach().numpy()))


def test_no_grad_call_compiles_without_aot_then_grad_call_recompiles(monkeypatch):
    built = []
    real = aot_autograd.aot_module_simplified

    def counting(*args, **kwargs):
        built.append(1)
        return real(*args, **kwargs)
    monkeypatch.setattr(aot_autograd, "aot_module_simplified", counting)
    net, tnet = _net(ember), _net(torch)
    _copy(net, tnet)
    ember._dynamo.reset()
    compiled = ember.compile(net)
    x = np.random.default_rng(0).standard_normal((5, 6)).astype(np.float32)
    with ember.no_grad():
        out = compiled(ember.tensor(x))
        out = compiled(ember.tensor(x))
    assert not built and not out.requires_grad
    with torch.no_grad():
        expected = tnet(torch.tensor(x))
    np.testing.assert_allclose(out.numpy(), expected.numpy(), rtol=1e-4, atol=1e-5)
    loss = compiled(ember.tensor(x)).sum()          # grad on: through AOT autograd
    assert built
    loss.backward()
    tnet(torch.tensor(x)).sum().backward()
    for (name, p), (_, q) in zip(net.named_parameters(), tnet.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-4, atol=1e-5,
                                   err_msg=name)
