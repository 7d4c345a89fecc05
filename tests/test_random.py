"""Random numbers: generators and seeding, and every random op's dtype, shape, support and
errors against PyTorch, plus statistical checks and reproducibility within ember. The values
themselves are compared with PyTorch's in test_random_torch_stream.py."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def _run(fn, lib):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn(lib), None
        except Exception as exc:  # noqa: BLE001 -- the class is what we compare
            return None, exc


SHAPE_CASES = [
    lambda L: L.rand(2, 3), lambda L: L.rand((2, 3), dtype=L.float64),
    lambda L: L.rand(4, dtype=L.float16), lambda L: L.rand(3, dtype=L.complex64),
    lambda L: L.rand(0), lambda L: L.rand(2, dtype=L.int64), lambda L: L.rand(-1),
    lambda L: L.randn(2, 3), lambda L: L.randn(3, dtype=L.bfloat16),
    lambda L: L.randn(3, dtype=L.complex128), lambda L: L.randn(2, dtype=L.int32),
    lambda L: L.rand(2, requires_grad=True),
    lambda L: L.randint(5, (3,)), lambda L: L.randint(2, 5, (3, 2)),
    lambda L: L.randint(2, 5, (3,), dtype=L.float32), lambda L: L.randint(0, 2, (3,), dtype=L.bool),
    lambda L: L.randint(5, 2, (3,)), lambda L: L.randint(0, 300, (3,), dtype=L.uint8),
    lambda L: L.randint(-5, 5, size=(4,), dtype=L.int8),
    lambda L: L.rand_like(L.ones(2, 3, dtype=L.float64)), lambda L: L.rand_like(L.ones(2).long()),
    lambda L: L.randn_like(L.ones(2, dtype=L.float16)),
    lambda L: L.randint_like(L.ones(2), 5), lambda L: L.randint_like(L.ones(2).int(), 2, 5),
    lambda L: L.randperm(5), lambda L: L.randperm(5, dtype=L.float32), lambda L: L.randperm(0),
    lambda L: L.randperm(-1), lambda L: L.randperm(300, dtype=L.int8),
    lambda L: L.normal(L.zeros(3), L.ones(3)), lambda L: L.normal(L.zeros(2, 3), L.ones(3)),
    lambda L: L.normal(L.zeros(3, dtype=L.float64), 2.0), lambda L: L.normal(0.0, L.ones(3)),
    lambda L: L.normal(0.0, 1.0, (2, 3)), lambda L: L.normal(0.0, 1.0, (2,), dtype=L.float64),
    lambda L: L.normal(L.zeros(3), -1.0), lambda L: L.normal(L.zeros(3), -L.ones(3)),
    lambda L: L.normal(L.zeros(3).long(), 1.0),
    lambda L: L.bernoulli(L.full((3,), 0.5)), lambda L: L.bernoulli(L.ones(3), 0.3),
    lambda L: L.bernoulli(L.full((3,), 1.5)), lambda L: L.bernoulli(L.ones(3).long()),
    lambda L: L.full((2, 2), 0.5, dtype=L.float64).bernoulli(),
    lambda L: L.multinomial(L.tensor([0.1, 0.2, 0.7]), 2),
    lambda L: L.multinomial(L.ones(4, 3), 5, replacement=True),
    lambda L: L.tensor([1.0, 0.0, 3.0]).multinomial(2),
    lambda L: L.multinomial(L.ones(3), 5), lambda L: L.multinomial(L.tensor([-1.0, 1.0]), 1),
    lambda L: L.multinomial(L.zeros(3), 1), lambda L: L.multinomial(L.ones(2, 2, 3), 1),
    lambda L: L.multinomial(L.ones(3).long(), 1), lambda L: L.multinomial(L.ones(3), 0),
    lambda L: L.poisson(L.full((3,), 2.0)), lambda L: L.poisson(L.full((3,), -2.0)),
    lambda L: L.poisson(L.full((3,), 2)),
    lambda L: L.empty(3).uniform_(2, 5), lambda L: L.empty(3).uniform_(5, 2),
    lambda L: L.empty(3).long().uniform_(), lambda L: L.empty(3).normal_(0, -1),
    lambda L: L.empty(3).long().normal_(), lambda L: L.empty(3, dtype=L.float64).normal_(2, 3),
    lambda L: L.empty(3).random_(), lambda L: L.empty(3, dtype=L.int8).random_(5),
    lambda L: L.empty(3).random_(2, 5), lambda L: L.empty(3).random_(5, 2),
    lambda L: L.empty(3, dtype=L.bool).random_(), lambda L: L.empty(3).long().bernoulli_(0.5),
    lambda L: L.empty(2, 3).bernoulli_(L.full((3,), 0.2)), lambda L: L.empty(3).bernoulli_(1.5),
    lambda L: L.empty(3).exponential_(2.0), lambda L: L.empty(3).exponential_(-2.0),
    lambda L: L.empty(3).long().exponential_(),
    lambda L: L.empty(3).geometric_(0.5), lambda L: L.empty(3).long().geometric_(0.5),
    lambda L: L.empty(3).geometric_(1.5), lambda L: L.empty(3).log_normal_(),
    lambda L: L.empty(3).log_normal_(1, -2), lambda L: L.empty(3).long().log_normal_(),
    lambda L: L.empty(3).cauchy_(), lambda L: L.empty(3).long().cauchy_(),
    lambda L: L.empty(3).cauchy_(0, -1), lambda L: L.empty(3, requires_grad=True).uniform_(),
    lambda L: L.rand(2, 3, device="meta"), lambda L: L.randn(4, device="meta").normal_(),
    # Samples of inputs that require grad require grad too (their gradient is zero).
    lambda L: L.bernoulli(L.rand(3, requires_grad=True)),
    lambda L: L.bernoulli(L.rand(3, requires_grad=True), 0.5),
    lambda L: L.normal(L.zeros(3, requires_grad=True), L.ones(3)),
    lambda L: L.normal(L.zeros(3, requires_grad=True), 2.0),
    lambda L: L.normal(0.0, L.ones(3, requires_grad=True)),
    lambda L: L.poisson(L.rand(3, requires_grad=True)),
    lambda L: L.multinomial(L.rand(3, requires_grad=True), 2),
    lambda L: L.rand_like(L.rand(3, requires_grad=True)),
    lambda L: (L.rand(3, requires_grad=True) * 1).uniform_(),
    lambda L: (L.rand(3, requires_grad=True) * 1).normal_(),
    lambda L: (L.rand(3, requires_grad=True) * 1).bernoulli_(0.5),
    lambda L: (L.rand(3, requires_grad=True) * 1).exponential_(),
    lambda L: L.rand(3, requires_grad=True).normal_(),
    # Meta tensors: shapes, dtypes and argument checks without numbers.
    lambda L: L.empty(2, 3, device="meta").bernoulli_(0.5),
    lambda L: L.empty(2, 3, device="meta").uniform_(3, 1),
    lambda L: L.randint(0, 5, (2,), device="meta"), lambda L: L.randperm(3, device="meta"),
    lambda L: L.normal(L.zeros(2, device="meta"), 1.0),
    lambda L: L.rand_like(L.empty(2, device="meta")),
    lambda L: L.randint_like(L.empty(2, device="meta"), 3),
    lambda L: L.bernoulli(L.empty(2, device="meta")),
    lambda L: L.multinomial(L.empty(2, 3, device="meta"), 2),
    lambda L: L.rand(2, out=L.empty(0, dtype=L.float64)),
    lambda L: L.randn(2, 2, generator=L.Generator(), dtype=L.float64),
]


@pytest.mark.parametrize("case", range(len(SHAPE_CASES)))
def test_dtype_shape_and_errors_match_torch(case):
    fn = SHAPE_CASES[case]
    expected, torch_error = _run(fn, torch)
    got, ember_error = _run(fn, ember)
    if torch_error is not None:
        assert ember_error is not None, f"torch raised {torch_error!r}; ember did not"
        assert isinstance(ember_error, type(torch_error)), f"{ember_error!r} vs {torch_error!r}"
        return
    assert ember_error is None, f"ember raised {ember_error!r}"
    assert tuple(got.shape) == tuple(expected.shape)
    assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    assert got.requires_grad == expected.requires_grad
    assert got.device.type == expected.device.type


def _draw_all(generator=None):
    kw = {} if generator is None else {"generator": generator}
    return [
        ember.rand(5, **kw), ember.randn(5, **kw), ember.randint(0, 9, (5,), **kw),
        ember.randperm(6, **kw), ember.normal(0.0, 1.0, (5,), **kw),
        ember.normal(ember.zeros(5), ember.ones(5), **kw),
        ember.bernoulli(ember.full((5,), 0.5), **kw),
        ember.multinomial(ember.ones(6), 3, **kw), ember.poisson(ember.full((5,), 3.0), **kw),
        ember.empty(5).uniform_(**kw), ember.empty(5).normal_(**kw),
        ember.empty(5).random_(**kw), ember.empty(5).exponential_(**kw),
        ember.empty(5).geometric_(0.3, **kw), ember.empty(5).log_normal_(**kw),
        ember.empty(5).cauchy_(**kw), ember.empty(5).bernoulli_(**kw),
        ember.rand_like(ember.ones(5), **kw), ember.randn_like(ember.ones(5), **kw),
        ember.randint_like(ember.ones(5), 9, **kw),
    ]


def _same(a, b):
    return all(np.array_equal(x.numpy(), y.numpy()) for x, y in zip(a, b))


def test_manual_seed_reproduces_every_op():
    ember.manual_seed(1234)
    first = _draw_all()
    ember.manual_seed(1234)
    assert _same(first, _draw_all())
    ember.manual_seed(4321)
    assert not _same(first, _draw_all())


def test_rng_state_round_trips():
    ember.manual_seed(7)
    state = ember.get_rng_state()
    assert state.dtype is ember.uint8 and state.ndim == 1
    first = _draw_all()
    ember.set_rng_state(state)
    assert _same(first, _draw_all())
    assert ember.initial_seed() == 7


def test_generators_are_independent_of_the_default():
    g = ember.Generator().manual_seed(99)
    ember.manual_seed(0)
    a = _draw_all(g)
    ember.rand(10)                   # the default stream moving doesn't touch g
    g2 = ember.Generator().manual_seed(99)
    assert _same(a, _draw_all(g2))
    state = g.get_state()
    b = _draw_all(g)
    assert _same(b, _draw_all(ember.Generator().set_state(state)))


def test_generator_api_matches_torch():
    g, tg = ember.Generator(), torch.Generator()
    assert g.initial_seed() == tg.initial_seed()
    assert g.device.type == tg.device.type == "cpu"
    assert g.manual_seed(5) is g
    assert g.manual_seed(-1).initial_seed() == tg.manual_seed(-1).initial_seed()
    new = g.seed()
    assert isinstance(new, int) and g.initial_seed() == new
    assert isinstance(ember.seed(), int)
    bad_calls = [lambda L: L.Generator().manual_seed(1.5),
                 lambda L: L.Generator().manual_seed(2 ** 64),
                 lambda L: L.Generator().set_state(L.zeros(3)),
                 lambda L: L.Generator().set_state([1]),
                 lambda L: L.Generator().set_state(L.zeros(3, dtype=L.uint8)),
                 lambda L: L.Generator("meta")]
    for bad in bad_calls:
        _, torch_error = _run(bad, torch)
        _, ember_error = _run(bad, ember)
        assert type(ember_error) is type(torch_error), (ember_error, torch_error)


N = 100_000


@pytest.mark.parametrize("draw,mean,std", [
    (lambda: ember.rand(N), 0.5, (1 / 12) ** 0.5),
    (lambda: ember.randn(N, dtype=ember.float64), 0.0, 1.0),
    (lambda: ember.randn(N, dtype=ember.complex64).abs().pow(2), 1.0, None),
    (lambda: ember.normal(3.0, 2.0, (N,)), 3.0, 2.0),
    (lambda: ember.normal(ember.full((N,), -1.0), 0.5), -1.0, 0.5),
    (lambda: ember.empty(N).uniform_(-2, 4), 1.0, 6 / 12 ** 0.5),
    (lambda: ember.empty(N).normal_(1, 3), 1.0, 3.0),
    (lambda: ember.empty(N).exponential_(2.0), 0.5, 0.5),
    (lambda: ember.empty(N).geometric_(0.25), 4.0, (0.75 / 0.25 ** 2) ** 0.5),
    (lambda: ember.empty(N).log_normal_(0.0, 0.5).log(), 0.0, 0.5),
    (lambda: ember.bernoulli(ember.full((N,), 0.3)), 0.3, (0.3 * 0.7) ** 0.5),
    (lambda: ember.empty(N).bernoulli_(0.8), 0.8, (0.8 * 0.2) ** 0.5),
    (lambda: ember.poisson(ember.full((N,), 4.0)), 4.0, 2.0),
    (lambda: ember.randint(0, 10, (N,)).double(), 4.5, (99 / 12) ** 0.5),
])
def test_distributions(draw, mean, std):
    ember.manual_seed(0)
    values = draw().double().numpy()
    assert abs(values.mean() - mean) < 0.02 * max(1.0, abs(mean) + (std or 1.0))
    if std is not None:
        assert abs(values.std() - std) < 0.02 * max(1.0, std)


def test_supports():
    ember.manual_seed(0)
    assert ((ember.rand(N) >= 0) & (ember.rand(N) < 1)).all()
    assert (ember.rand(N, dtype=ember.float16) < 1).all()
    r = ember.randint(-3, 4, (N,))
    assert r.min().item() == -3 and r.max().item() == 3
    assert sorted(ember.randperm(50).tolist()) == list(range(50))
    x = ember.empty(N, dtype=ember.int8).random_()
    assert x.min().item() >= 0 and x.max().item() == 127
    f = ember.empty(N).random_(2, 5)
    assert set(np.unique(f.numpy()).tolist()) == {2.0, 3.0, 4.0}
    assert ember.empty(N).cauchy_().isfinite().all()
    assert (ember.empty(N).geometric_(0.5) >= 1).all()


def test_multinomial():
    ember.manual_seed(0)
    weights = ember.tensor([1.0, 0.0, 3.0])
    draws = ember.multinomial(weights, N, replacement=True).numpy()
    assert not (draws == 1).any()
    assert abs((draws == 2).mean() - 0.75) < 0.01
    rows = ember.multinomial(ember.tensor([[1.0, 1.0, 0.0, 1.0]] * 200), 3)
    for row in rows.tolist():
        assert sorted(row) == [0, 1, 3]
    first = ember.multinomial(ember.tensor([0.05, 0.9, 0.05]).expand(2000, 3), 1)
    assert (first == 1).double().mean().item() > 0.85


def test_samples_give_zero_gradients_like_torch():
    for lib in (torch, ember):
        x = lib.full((3,), 0.5, requires_grad=True)
        total = lib.bernoulli(x).sum() + lib.normal(x, 1.0).sum() + (x * 1).uniform_().sum()
        total.backward()
        assert x.grad.tolist() == [0.0, 0.0, 0.0]


def test_random_like_keeps_the_input_layout_like_torch():
    for make in (lambda L: L.empty(2, 3).t(), lambda L: L.empty(1, 2, 3, 4).to(
            memory_format=L.channels_last)):
        for name in ("rand_like", "randn_like"):
            expected = getattr(torch, name)(make(torch)).stride()
            assert getattr(ember, name)(make(ember)).stride() == expected
        assert ember.randint_like(make(ember), 5).stride() == torch.randint_like(
            make(torch), 5).stride()


def test_randint_takes_low_and_high_by_keyword_as_pytorch():
    import torch
    for args, kwargs in [((), {"high": 5, "size": (6,)}),
                         ((), {"low": 2, "high": 9, "size": (2, 3)}),
                         ((2,), {"high": 5, "size": (4,)})]:
        ours = ember.randint(*args, generator=ember.Generator().manual_seed(3), **kwargs)
        theirs = torch.randint(*args, generator=torch.Generator().manual_seed(3), **kwargs)
        assert ours.tolist() == theirs.tolist()


def test_random_module_and_fork_rng_as_torch():
    import torch

    draws = []
    for T in (torch, ember):
        T.random.manual_seed(3)
        assert T.random.initial_seed() == 3
        outside_before = T.rand(2)
        with T.random.fork_rng():
            inside = T.rand(3)
        outside_after = T.rand(2)
        with T.random.fork_rng(enabled=False):
            T.rand(1)
        state = T.random.get_rng_state()
        T.random.set_rng_state(state)
        draws.append([outside_before.tolist(), inside.tolist(), outside_after.tolist(),
                      T.rand(2).tolist(), state.dtype == T.uint8, tuple(state.shape)])
    assert draws[1] == draws[0]
    assert ember.random.default_generator is ember.default_generator
