"""ember's gamma, Dirichlet, poisson and binomial draw PyTorch's numbers for one seed and leave
the generator in PyTorch's state, cached Box-Muller normal included (NOTE [rejection samplers
on PyTorch's stream], random_chain.py)."""
import numpy as np
import pytest
import torch
from tests._capability import MATCHED, NORMAL_FILL_ULPS, assert_same_draws

import ember
from ember._ops import random_chain, random_rejection


@pytest.fixture(autouse=True)
def _exact_rejection_sampling():
    """These tests compare the numbers, so they run with ember's exact samplers on (NOTE
    [exact rejection streams are opt-in])."""
    ember.random.set_exact_rejection_sampling(True)
    yield
    ember.random.set_exact_rejection_sampling(False)


def _same_stream(ember_draw, torch_draw, seed, warm_up=0):
    """Both libraries from `seed`, after `warm_up` scalar normals (randn of that many numbers:
    an odd count leaves a normal cached), then the draw twice (the second continues from the
    state the first left)."""
    tg, eg = torch.Generator().manual_seed(seed), ember.Generator().manual_seed(seed)
    if warm_up:
        torch.randn(warm_up, generator=tg, dtype=torch.float64)
        ember.randn(warm_up, generator=eg, dtype=ember.float64)
    for _ in range(2):
        expected = torch_draw(tg).numpy()
        got = ember_draw(eg).numpy()
        assert got.dtype == expected.dtype and got.shape == expected.shape
        np.testing.assert_array_equal(got, expected)
        assert bytes(eg.get_state().numpy()) == bytes(tg.get_state().numpy())


def _pair(values, dtype, shape=None):
    array = np.asarray(values, dtype=dtype)
    if shape is not None:
        array = np.broadcast_to(array, shape)
    return ember.tensor(np.ascontiguousarray(array)), torch.tensor(np.ascontiguousarray(array))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("alpha", [[0.3], [1.0], [2.5], [7.0], [150.0], [0.0], [0.05, 4.0],
                                   [0.7, 1.0, 2.0, 0.0, 3.5]])
@pytest.mark.parametrize("seed", [0, 11])
def test_standard_gamma(dtype, alpha, seed):
    e, t = _pair(alpha, dtype, (300, len(alpha)))
    _same_stream(lambda g: ember._standard_gamma(e, generator=g),
                 lambda g: torch._standard_gamma(t, generator=g), seed, warm_up=seed % 2 + 1)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_standard_gamma_few_values_in_no_order(dtype):
    values = np.random.default_rng(4).choice([0.4, 1.5, 6.0], size=(37, 11))
    e, t = _pair(values, dtype)
    _same_stream(lambda g: ember._standard_gamma(e, generator=g),
                 lambda g: torch._standard_gamma(t, generator=g), 3, warm_up=1)


@pytest.mark.parametrize("shape", [(), (1,), (5,), (4, 1), (2, 3, 4)])
def test_standard_gamma_shapes(shape):
    e, t = _pair(np.full(shape, 1.7), "float32")
    _same_stream(lambda g: ember._standard_gamma(e, generator=g),
                 lambda g: torch._standard_gamma(t, generator=g), 5)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("width", [2, 3, 5, 17, 40])
def test_dirichlet(dtype, width):
    concentration = np.random.default_rng(width).random(width) * 3 + 0.1
    e, t = _pair(concentration, dtype, (60, width))
    _same_stream(lambda g: ember._sample_dirichlet(e, generator=g),
                 lambda g: torch._sample_dirichlet(t, generator=g), width, warm_up=1)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("rate", [[3.0], [9.99], [10.0], [37.5], [1e4], [0.0, 12.0],
                                  [0.5, 2.0, 20.0]])
def test_poisson(dtype, rate):
    e, t = _pair(rate, dtype, (400, len(rate)))
    _same_stream(lambda g: ember.poisson(e, generator=g),
                 lambda g: torch.poisson(t, generator=g), 7)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("count, prob", [(5.0, 0.3), (1.0, 0.5), (30.0, 0.2), (100.0, 0.3),
                                         (1000.0, 0.9), (20.0, 0.7), (3.0, 0.95),
                                         (1e6, 0.4), (0.0, 0.5), (7.0, 0.0), (7.0, 1.0)])
def test_binomial(dtype, count, prob):
    counts, probs = _pair(count, dtype, (500,)), _pair(prob, dtype, (500,))
    _same_stream(lambda g: ember.binomial(counts[0], probs[0], generator=g),
                 lambda g: torch.binomial(counts[1], probs[1], generator=g), 9)


def test_binomial_broadcasts_count_and_prob():
    counts, probs = _pair([[4.0], [60.0]], "float32"), _pair([0.2, 0.5, 0.8], "float32")
    _same_stream(lambda g: ember.binomial(counts[0].expand(2, 3), probs[0].expand(2, 3),
                                          generator=g),
                 lambda g: torch.binomial(counts[1].expand(2, 3), probs[1].expand(2, 3),
                                          generator=g), 2)


@pytest.mark.parametrize("family", ["Gamma", "Beta", "Chi2", "StudentT", "Dirichlet"])
def test_distributions_sample_pytorchs_numbers(family):
    def build(lib):
        make = getattr(lib.distributions, family)
        a, b = lib.tensor([0.6, 2.5]), lib.tensor([1.5, 0.8])
        return {"Gamma": lambda: make(a, b), "Beta": lambda: make(a, b),
                "Chi2": lambda: make(a), "StudentT": lambda: make(a, b, b),
                "Dirichlet": lambda: make(a)}[family]()
    ember.manual_seed(13)
    torch.manual_seed(13)
    got = build(ember).sample((200,)).numpy()
    expected = build(torch).sample((200,)).numpy()
    assert bytes(ember.get_rng_state().numpy()) == bytes(torch.get_rng_state().numpy())
    if family == "StudentT" and not MATCHED:
        _assert_student_t_matches(got, expected)
    else:
        np.testing.assert_array_equal(got, expected)


def _assert_student_t_matches(got, expected):
    """StudentT is loc + scale * X * k, X the float32 normal fill drawn first, k from the
    chi-squared draws. Off AVX2/AVX-512 (tests/_capability.py) X is within the fill's bound;
    k is the same: ember's values are PyTorch's with ember's X in place of PyTorch's, to the
    few roundings of the product and the sum."""
    normals = []
    for lib in (ember, torch):
        lib.manual_seed(13)
        normals.append(lib.empty(200, 2).normal_().numpy())
    assert_same_draws(*normals, NORMAL_FILL_ULPS)
    normals = [x.astype(np.float64) for x in normals]
    loc = scale = np.array([1.5, 0.8])                # StudentT(a, b, b)
    k = (expected - loc) / scale / normals[1]
    product = scale * normals[0] * k
    bound = 4 * np.spacing(np.maximum(np.abs(product), np.abs(got)).astype(np.float32))
    assert (np.abs(got - (loc + product)) <= bound).all()


class _ShortBlocks(random_rejection.Gamma):
    """Blocks far too short, so the path runs past each one and the next continues it."""

    def draws_per_element(self, distinct):
        return 0.05


def test_paths_continue_across_blocks():
    tg, eg = torch.Generator().manual_seed(1), ember.Generator().manual_seed(1)
    torch.randn(1, generator=tg, dtype=torch.float64)
    ember.randn(1, generator=eg, dtype=ember.float64)
    alpha = np.resize(np.array([0.5, 3.0]), 2000)
    expected = torch._standard_gamma(torch.from_numpy(alpha), generator=tg).numpy()
    got = random_chain.sample(eg, alpha[:, None], _ShortBlocks(np.float64), np.float64)
    np.testing.assert_array_equal(got, expected)
    assert bytes(eg.get_state().numpy()) == bytes(tg.get_state().numpy())


def test_too_varied_parameters_take_numpys_sampler():
    """More distinct rates than the tables take (NOTE [rejection samplers on PyTorch's
    stream]): NumPy's sampler seeded by one 64-bit draw, numbers that follow the rates."""
    rates = np.linspace(1.0, 50.0, 20_000)
    eg, tg = ember.Generator().manual_seed(4), torch.Generator().manual_seed(4)
    got = ember.poisson(ember.tensor(rates), generator=eg).numpy()
    torch.empty(1, dtype=torch.float64).uniform_(generator=tg)   # one 64-bit draw
    assert bytes(eg.get_state().numpy()) == bytes(tg.get_state().numpy())
    assert abs(got.mean() - rates.mean()) < 0.2
    assert abs(((got - rates) ** 2 / rates).mean() - 1) < 0.1


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("alpha", [float("nan"), float("inf"), 1e-30, 1e30])
def test_standard_gamma_edge_alphas(dtype, alpha):
    e, t = _pair([alpha, 2.0], dtype, (40, 2))
    _same_stream(lambda g: ember._standard_gamma(e, generator=g),
                 lambda g: torch._standard_gamma(t, generator=g), 1)


def test_binomial_nan_probability():
    counts, probs = _pair([5.0, 30.0], "float64", (20, 2)), _pair([float("nan"), 0.4],
                                                                   "float64", (20, 2))
    _same_stream(lambda g: ember.binomial(counts[0], probs[0], generator=g),
                 lambda g: torch.binomial(counts[1], probs[1], generator=g), 6)


def test_exact_sampling_is_off_by_default_and_still_reproducible():
    ember.random.set_exact_rejection_sampling(False)
    assert not ember.random.is_exact_rejection_sampling_enabled()
    draws = []
    for _ in range(2):
        ember.manual_seed(5)
        draws.append(ember._standard_gamma(ember.full((50,), 2.5)).tolist())
    assert draws[0] == draws[1]
    torch.manual_seed(5)
    assert draws[0] != torch._standard_gamma(torch.full((50,), 2.5)).tolist()
