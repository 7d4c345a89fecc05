"""ember.special against torch.special: the same public names, the aliases that are the same
functions as ember's own, node names, and the argument errors of the wrappers."""
import pytest
import torch

import ember


def test_special_has_every_public_name_of_torch_special():
    assert sorted(ember.special.__all__) == sorted(torch.special.__all__)
    for name in torch.special.__all__:
        assert callable(getattr(ember.special, name)), name


def test_torch_level_names_of_the_family_exist_where_torch_has_them():
    for name in ("igamma", "igammac", "mvlgamma", "xlogy", "i0", "sinc", "polygamma"):
        assert hasattr(ember, name) == hasattr(torch, name), name
        assert hasattr(ember.Tensor, name) == hasattr(torch.Tensor, name), name
        assert hasattr(ember.Tensor, name + "_") == hasattr(torch.Tensor, name + "_"), name
    for name in torch.special.__all__:
        assert hasattr(ember, f"special_{name}") == hasattr(torch, f"special_{name}"), name


@pytest.mark.parametrize("name", ["entr", "erfcx", "i0e", "i1", "i1e", "ndtr", "ndtri",
                                  "log_ndtr", "gammaln", "psi", "expit"])
def test_node_names_match_pytorch(name):
    e = getattr(ember.special, name)(ember.tensor([0.5], requires_grad=True))
    t = getattr(torch.special, name)(torch.tensor([0.5], requires_grad=True))
    assert type(e.grad_fn).__name__ == type(t.grad_fn).__name__


@pytest.mark.parametrize("name", ["bessel_j0", "airy_ai", "modified_bessel_k1",
                                  "chebyshev_polynomial_t"])
def test_functions_without_gradients_give_results_that_do_not_require_grad(name):
    args = (3,) if "polynomial" in name else ()
    e = getattr(ember.special, name)(ember.tensor([0.5], requires_grad=True), *args)
    t = getattr(torch.special, name)(torch.tensor([0.5], requires_grad=True), *args)
    assert e.requires_grad == t.requires_grad is False


@pytest.mark.parametrize("call", [
    lambda lib: lib.special.erfcx(1.0),
    lambda lib: lib.special.zeta(2.0, 3.0),
    lambda lib: lib.special.gammainc(lib.ones(2), 2.0),
    lambda lib: lib.special.chebyshev_polynomial_t(0.5, 3),
    lambda lib: lib.mvlgamma(lib.ones(2), 1.5),
    lambda lib: lib.mvlgamma(lib.ones(2), 0),
])
def test_bad_arguments_raise_pytorchs_exception_class(call):
    with pytest.raises(Exception) as expected:
        call(torch)
    with pytest.raises(expected.type):
        call(ember)


@pytest.mark.parametrize("name, message", [("zeta", "zeta"), ("gammainc", "igamma: input")])
def test_derivatives_pytorch_lacks_raise_not_implemented(name, message):
    b = ember.tensor([1.5], requires_grad=True)
    (grad_b,) = ember.autograd.grad(getattr(ember.special, name)(ember.tensor([2.5]), b), b)
    tb = torch.tensor([1.5], requires_grad=True)
    (expected,) = torch.autograd.grad(getattr(torch.special, name)(torch.tensor([2.5]), tb), tb)
    assert grad_b.item() == pytest.approx(expected.item(), rel=1e-6)
    # (ember runs the formula of every input that requires grad, even one that autograd.grad
    # does not ask for, so `a` alone requires grad here.)
    a = ember.tensor([2.5], requires_grad=True)
    out = getattr(ember.special, name)(a, ember.tensor([1.5]))
    with pytest.raises(NotImplementedError, match=f"the derivative for '{message}'"):
        ember.autograd.grad(out.sum(), a)
