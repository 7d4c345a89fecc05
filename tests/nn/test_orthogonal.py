"""nn.utils.parametrizations.orthogonal against PyTorch's: the same weights (from the same
seed) for each map, shape and use_trivialization, gradients, and assignment."""
import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def _build(lib, shape, **kwargs):
    lib.manual_seed(0)
    layer = lib.nn.Linear(shape[1], shape[0], bias=False)
    return lib.nn.utils.parametrizations.orthogonal(layer, **kwargs)


CASES = [((4, 4), {}), ((5, 3), {}), ((3, 5), {}),
         ((4, 4), {"orthogonal_map": "cayley"}), ((5, 3), {"orthogonal_map": "matrix_exp"}),
         ((4, 4), {"orthogonal_map": "householder"}),
         ((5, 3), {"orthogonal_map": "householder", "use_trivialization": False})]


@pytest.mark.parametrize("shape,kwargs", CASES)
def test_orthogonal_weight_and_gradient_match_torch(shape, kwargs):
    weights, grads = [], []
    for lib in (torch, ember):
        layer = _build(lib, shape, **kwargs)
        weight = layer.weight
        weights.append(weight.detach().numpy())
        (weight * lib.arange(weight.numel()).reshape(weight.shape)).sum().backward()
        grads.append(layer.parametrizations.weight.original.grad.numpy())
    np.testing.assert_allclose(weights[1], weights[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-4, atol=1e-5)
    k = min(shape)
    w = weights[1] if shape[0] >= shape[1] else weights[1].T
    np.testing.assert_allclose(w.T @ w, np.eye(k), atol=1e-5)


def test_assigning_an_orthogonal_matrix_keeps_it():
    q = np.linalg.qr(np.random.default_rng(1).standard_normal((4, 4)))[0].astype(np.float32)
    results = []
    for lib in (torch, ember):
        layer = _build(lib, (4, 4))
        layer.weight = lib.tensor(q)
        results.append(layer.weight.detach().numpy())
    np.testing.assert_allclose(results[1], results[0], atol=1e-5)
    np.testing.assert_allclose(results[1], q, atol=1e-5)


def test_bad_map_and_vector_raise_as_torch():
    for lib in (torch, ember):
        with pytest.raises(ValueError, match="orthogonal_map has to be one of"):
            _build(lib, (3, 3), orthogonal_map="qr")
        with pytest.raises(ValueError, match="Expected a matrix"):
            lib.nn.utils.parametrizations.orthogonal(lib.nn.LayerNorm(3))
