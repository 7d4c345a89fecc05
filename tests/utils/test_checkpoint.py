"""ember.utils.checkpoint against torch.utils.checkpoint: same gradients as without
checkpointing, both variants, RNG preservation, warnings and errors."""
import warnings

import numpy as np
import pytest

import ember
from ember.utils import checkpoint as eck

torch = pytest.importorskip("torch")
import torch.utils.checkpoint as tck


def setup(lib, seed=0):
    rng = np.random.default_rng(seed)
    w = lib.tensor(rng.standard_normal(4), requires_grad=True)
    x = lib.tensor(rng.standard_normal(4), requires_grad=True)
    return w, x


def block(w):
    def fn(x, scale=1.0):
        return ((x * w).exp() * x + w) * scale
    return fn


def np_(t):
    return t.detach().numpy()


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_gradients_match_plain_and_torch(use_reentrant):
    results = []
    for lib, ck in ((ember, eck), (torch, tck)):
        w, x = setup(lib)
        out = ck.checkpoint(block(w), x, use_reentrant=use_reentrant)
        (out * out).sum().backward()
        results.append((np_(out), np_(x.grad), np_(w.grad)))
        w2, x2 = setup(lib)
        plain = block(w2)(x2)
        (plain * plain).sum().backward()
        for a, b in zip(results[-1], (np_(plain), np_(x2.grad), np_(w2.grad))):
            np.testing.assert_allclose(a, b, rtol=1e-12)
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_non_reentrant_supports_grad_kwargs_and_double_backward():
    results = []
    for lib, ck in ((ember, eck), (torch, tck)):
        w, x = setup(lib)
        out = ck.checkpoint(block(w), x, scale=3.0, use_reentrant=False)
        g, = lib.autograd.grad(out.sum(), x, create_graph=True)
        gg = lib.autograd.grad(g.sum(), (x, w))
        results.append([np_(g)] + [np_(t) for t in gg])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_missing_use_reentrant_warns_and_defaults_to_reentrant():
    for lib, ck in ((ember, eck), (torch, tck)):
        w, x = setup(lib)
        with pytest.warns(UserWarning, match="the use_reentrant parameter should be passed "
                                             "explicitly"):
            out = ck.checkpoint(block(w), x)
        assert type(out.grad_fn).__name__ == "CheckpointFunctionBackward"


def test_reentrant_errors_and_warnings():
    for lib, ck in ((ember, eck), (torch, tck)):
        w, x = setup(lib)
        with pytest.raises(ValueError, match="Unexpected keyword arguments: scale"):
            ck.checkpoint(block(w), x, scale=2.0, use_reentrant=True)
        with pytest.raises(ValueError, match="Passing `context_fn` or `debug` is only "
                                             "supported when use_reentrant=False."):
            ck.checkpoint(block(w), x, use_reentrant=True, debug=True)
        with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
            ck.checkpoint(block(w), x.detach(), use_reentrant=True)
        with pytest.raises(ValueError, match="determinism_check should be one of"):
            ck.checkpoint(block(w), x, use_reentrant=False, determinism_check="bogus")


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_rng_state_is_replayed_in_recomputation(use_reentrant):
    x = ember.ones(5, requires_grad=True)

    def noisy(t):
        return t * ember.rand(5)
    ember.manual_seed(3)
    out = eck.checkpoint(noisy, x, use_reentrant=use_reentrant)
    after_forward = ember.rand(1)
    out.sum().backward()
    # The gradient is the mask the forward drew, and backward left the RNG stream alone.
    np.testing.assert_allclose(np_(x.grad), np_(out), rtol=1e-12)
    ember.manual_seed(3)
    ember.rand(5)
    np.testing.assert_allclose(np_(after_forward), np_(ember.rand(1)))


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_checkpoint_sequential(use_reentrant):
    results = []
    for lib, ck in ((ember, eck), (torch, tck)):
        w, x = setup(lib)
        fns = [lambda t: t * w, lambda t: t.exp(), lambda t: t * t, lambda t: t + w,
               lambda t: t * 0.5]
        out = ck.checkpoint_sequential(fns, 2, x, use_reentrant=use_reentrant)
        out.sum().backward()
        results.append((np_(out), np_(x.grad), np_(w.grad)))
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="Unexpected keyword arguments: bogus"):
            eck.checkpoint_sequential([lambda t: t], 1, ember.ones(2), use_reentrant=True,
                                      bogus=1)
