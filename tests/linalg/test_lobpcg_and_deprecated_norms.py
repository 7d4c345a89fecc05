"""ember.lobpcg, ember.nuclear_norm and ember.frobenius_norm against PyTorch."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import ember


def _spd(m, seed=0):
    rng = np.random.default_rng(seed)
    M = rng.standard_normal((m, m))
    return M @ M.T + np.eye(m)


def _aligned(u, v):
    """Eigenvectors agree up to sign and scale: |u_i . v_i| = |u_i| |v_i|."""
    u = u / np.linalg.norm(u, axis=-2, keepdims=True)
    v = v / np.linalg.norm(v, axis=-2, keepdims=True)
    return np.abs(np.abs(np.einsum("...mi,...mi->...i", u, v)) - 1).max()


# --------------------------------------------------------------------------- lobpcg

@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("method", [None, "basic", "ortho"])
@pytest.mark.parametrize(("dtype", "tolerance"), [("float64", 1e-9), ("float32", 2e-3)])
def test_lobpcg_finds_torch_eigenpairs(largest, method, dtype, tolerance):
    A = _spd(30)
    results = []
    for lib in (ember, torch):
        lib.manual_seed(0)
        values, vectors = lib.lobpcg(lib.tensor(A).to(getattr(lib, dtype)), k=3,
                                     largest=largest, method=method)
        assert values.dtype == getattr(lib, dtype) and tuple(vectors.shape) == (30, 3)
        results.append((values.double().numpy(), vectors.double().numpy()))
    (got_values, got_vectors), (expected_values, expected_vectors) = results
    exact = np.linalg.eigvalsh(A)
    exact = exact[::-1][:3] if largest else exact[:3]
    np.testing.assert_allclose(got_values, expected_values, rtol=tolerance)
    np.testing.assert_allclose(got_values, exact, rtol=tolerance)
    assert _aligned(got_vectors, expected_vectors) < tolerance * 10


def test_lobpcg_generalised_batched_and_given_start():
    A = _spd(24, seed=1)
    B = np.diag(np.random.default_rng(2).uniform(1, 2, 24))
    start = np.random.default_rng(3).standard_normal((24, 2))
    batch = np.stack([A, A + 2 * np.eye(24)])
    results = []
    for lib in (ember, torch):
        lib.manual_seed(0)
        general = lib.lobpcg(lib.tensor(A), B=lib.tensor(B), k=2, largest=False)
        started = lib.lobpcg(lib.tensor(A), X=lib.tensor(start))
        batched = lib.lobpcg(lib.tensor(batch), k=2)
        results.append([t.numpy() for pair in (general, started, batched) for t in pair])
    for index, (got, expected) in enumerate(zip(*results)):
        if index % 2 == 0:
            np.testing.assert_allclose(got, expected, rtol=1e-9)
        else:
            assert _aligned(got, expected) < 1e-7


def test_lobpcg_gradient_matches_torch():
    A = _spd(20, seed=4)
    weights = np.random.default_rng(5).standard_normal((20, 2))
    grads = []
    for lib in (ember, torch):
        lib.manual_seed(0)
        a = lib.tensor(A, requires_grad=True)
        values, vectors = lib.lobpcg(a, k=2)
        vectors = vectors * lib.sign(vectors[:1])      # a sign-independent loss
        (values.sum() + (vectors * lib.tensor(weights)).sum()).backward()
        grads.append(a.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("case", [
    lambda lib: lib.lobpcg(lib.zeros(4, 5)),
    lambda lib: lib.lobpcg(lib.eye(5), k=2),
    lambda lib: lib.lobpcg(lib.eye(6), B=lib.eye(5)),
])
def test_lobpcg_bad_calls(case):
    outcomes = []
    for lib in (ember, torch):
        with pytest.raises(Exception) as caught:
            case(lib)
        message = str(caught.value).replace("torch.", "").replace("ember.", "")
        outcomes.append((caught.type, message))
    assert outcomes[0] == outcomes[1]


# --------------------------------------------------------------------------- norms

@pytest.mark.parametrize("call", [
    lambda lib, a: lib.nuclear_norm(a),
    lambda lib, a: lib.nuclear_norm(a, True),
    lambda lib, a: lib.nuclear_norm(a, keepdim=True),
    lambda lib, a: lib.nuclear_norm(a, [0, 1]),
    lambda lib, a: lib.nuclear_norm(a, dim=(1, 0), keepdim=True),
    lambda lib, a: lib.frobenius_norm(a, [0]),
    lambda lib, a: lib.frobenius_norm(a, (0, 1), True),
    lambda lib, a: lib.frobenius_norm(a, dim=[1]),
    lambda lib, a: lib.frobenius_norm(a, ()),
])
@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 4)])
def test_deprecated_norms_equal_torch(call, shape):
    data = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    results = []
    for lib in (ember, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a = lib.tensor(data, requires_grad=True)
            try:
                value = call(lib, a)
            except RuntimeError:
                results.append(None)
                continue
            value.sum().backward()
            results.append((value.detach().numpy(), a.grad.numpy()))
    if results[1] is None:
        assert results[0] is None
        return
    for got, expected in zip(*results):
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("case", [
    lambda lib: lib.nuclear_norm(lib.arange(3.)),
    lambda lib: lib.frobenius_norm(lib.zeros(2, 2, 2), [0, 1, 2]),
    lambda lib: lib.frobenius_norm(lib.zeros(2, 2)),
    lambda lib: lib.nuclear_norm(lib.zeros(3, 3), True, True),
    lambda lib: lib.nuclear_norm(lib.zeros(3, 3), [0]),
])
def test_deprecated_norms_bad_calls(case):
    classes = []
    for lib in (ember, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(Exception) as caught:
                case(lib)
        classes.append(caught.type)
    assert classes[0] is classes[1]


def test_deprecated_norms_warn_once_with_torch_text():
    texts = []
    for lib in (ember, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.nuclear_norm(lib.ones(2, 2))
            lib.frobenius_norm(lib.ones(2, 2), [0])
        texts.append(sorted(str(w.message).split(" (Triggered")[0] for w in caught))
    # PyTorch warns once per process: an earlier test may have used up its warning
    assert set(texts[1]) <= set(texts[0]) and len(texts[0]) <= 2


def test_out_is_written():
    out = ember.empty(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = ember.nuclear_norm(ember.eye(3), out=out)
    assert result is out and out.item() == pytest.approx(3.0)
