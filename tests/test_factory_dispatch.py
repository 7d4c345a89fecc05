"""Every tensor-making call is a registry op that a mode sees: factories, random ops (their
generator among the arguments), data given to tensor(), detach, copies. A logging
TorchDispatchMode must see the same ops, in the same order, in ember as in PyTorch; random ops replayed from the recorded arguments, with the
generator back in its recorded state, give the same numbers."""
from __future__ import annotations

import contextlib
import warnings

import numpy as np
import pytest

import ember
from ember.utils._python_dispatch import TorchDispatchMode as EmberDispatchMode

torch = pytest.importorskip("torch")
from torch.utils._python_dispatch import TorchDispatchMode


class EmberLog(EmberDispatchMode):
    """Record (op entry, every schema argument) of each op a TorchDispatchMode sees."""

    def __init__(self):
        super().__init__()
        self.seen = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        op = getattr(func, "op", func)          # an in-place form stands for its op entry
        self.seen.append((op, op.bind(args, kwargs or {})))
        return func(*args, **(kwargs or {}))


@contextlib.contextmanager
def ember_log():
    """Record (op, args) of every call the dispatcher runs inside the block."""
    log = EmberLog()
    with log:
        yield log.seen


class TorchLog(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.seen = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.seen.append(func)
        return func(*args, **(kwargs or {}))


# ember registers the functional form of an in-place sampler (as PyTorch's functionalisation
# does): `uniform` for uniform_, `normal_functional` for normal_.
_SAME_OP = {"normal_functional": "normal"}


def _name(base: str) -> str:
    base = base.rstrip("_")
    return _SAME_OP.get(base, base)


def _torch_names(fn, inputs):
    log = TorchLog()
    with warnings.catch_warnings(), log:
        warnings.simplefilter("ignore")
        fn(torch, *inputs)
    return [_name(f.overloadpacket.__name__) for f in log.seen]


def _ember_names(fn, inputs):
    with warnings.catch_warnings(), ember_log() as seen:
        warnings.simplefilter("ignore")
        fn(ember, *inputs)
    return [_name(op.schema.name) for op, _ in seen]


def _inputs(lib):
    """x (requires grad), y and p (probabilities), made before the logging starts."""
    values = np.array([0.2, 0.5, 0.9], np.float32)
    return (lib.tensor(values).requires_grad_(True), lib.tensor(values + 1.0),
            lib.tensor(values))


PROGRAMS = {
    "zeros": lambda L, x, y, p: L.zeros(2, 3),
    "zeros requires_grad": lambda L, x, y, p: L.zeros(2, requires_grad=True),
    "ones": lambda L, x, y, p: L.ones(2, dtype=L.int32),
    "full": lambda L, x, y, p: L.full((2,), 3.0),
    "empty": lambda L, x, y, p: L.empty(2, 3),
    "empty channels_last": lambda L, x, y, p: L.empty(1, 2, 3, 4,
                                                      memory_format=L.channels_last),
    "empty_strided": lambda L, x, y, p: L.empty_strided((2, 2), (1, 2)),
    "zeros_like": lambda L, x, y, p: L.zeros_like(x),
    "ones_like": lambda L, x, y, p: L.ones_like(y, dtype=L.float64),
    "empty_like": lambda L, x, y, p: L.empty_like(y),
    "full_like": lambda L, x, y, p: L.full_like(y, 2.0),
    "new_zeros": lambda L, x, y, p: y.new_zeros(2),
    "new_ones": lambda L, x, y, p: y.new_ones((2, 2)),
    "new_empty": lambda L, x, y, p: y.new_empty(2),
    "new_full": lambda L, x, y, p: y.new_full((2,), 1.0),
    "arange": lambda L, x, y, p: L.arange(1, 5, 2),
    "linspace": lambda L, x, y, p: L.linspace(0, 1, 5),
    "logspace": lambda L, x, y, p: L.logspace(0, 1, 5),
    "eye": lambda L, x, y, p: L.eye(3, 2),
    "range": lambda L, x, y, p: L.range(0, 3),
    "scalar_tensor": lambda L, x, y, p: L.scalar_tensor(3),
    "tensor": lambda L, x, y, p: L.tensor([1.0, 2.0, 3.0]),
    "tensor 0-d": lambda L, x, y, p: L.tensor(3.0),
    "as_tensor": lambda L, x, y, p: L.as_tensor([1.0, 2.0]),
    "as_tensor numpy": lambda L, x, y, p: L.as_tensor(np.ones(2)),
    "asarray": lambda L, x, y, p: L.asarray([1.0, 2.0]),
    "from_numpy": lambda L, x, y, p: L.from_numpy(np.ones(2)),
    "tensor of a tensor": lambda L, x, y, p: L.tensor(y),
    "tensor float16": lambda L, x, y, p: L.tensor([1, 2], dtype=L.float16),
    "as_tensor of a tensor": lambda L, x, y, p: L.as_tensor(y),
    "as_tensor of a tensor float64": lambda L, x, y, p: L.as_tensor(y, dtype=L.float64),
    "asarray of a tensor": lambda L, x, y, p: L.asarray(y),
    "new_tensor": lambda L, x, y, p: y.new_tensor([1.0]),
    "new_tensor of a tensor": lambda L, x, y, p: y.new_tensor(y),
    "Tensor(2, 3)": lambda L, x, y, p: L.Tensor(2, 3),
    "Tensor(list)": lambda L, x, y, p: L.Tensor([1.0, 2.0]),
    "new(2)": lambda L, x, y, p: y.new(2),
    "rand": lambda L, x, y, p: L.rand(2),
    "randn": lambda L, x, y, p: L.randn(2, 3),
    "rand generator": lambda L, x, y, p: L.rand(2, generator=L.Generator().manual_seed(1)),
    "randint": lambda L, x, y, p: L.randint(1, 5, (2,)),
    "randperm": lambda L, x, y, p: L.randperm(4),
    "rand_like": lambda L, x, y, p: L.rand_like(y),
    "randn_like": lambda L, x, y, p: L.randn_like(y),
    "randint_like": lambda L, x, y, p: L.randint_like(y, 5),
    "normal tensors": lambda L, x, y, p: L.normal(y, p),
    "normal tensor float": lambda L, x, y, p: L.normal(y, 2.0),
    "normal float tensor": lambda L, x, y, p: L.normal(0.0, p),
    "normal floats": lambda L, x, y, p: L.normal(0.0, 1.0, (2,)),
    "bernoulli": lambda L, x, y, p: L.bernoulli(p),
    "bernoulli p": lambda L, x, y, p: L.bernoulli(y, 0.5),
    "multinomial": lambda L, x, y, p: L.multinomial(p, 2),
    "poisson": lambda L, x, y, p: L.poisson(p),
    "uniform_": lambda L, x, y, p: L.empty(3).uniform_(),
    "normal_": lambda L, x, y, p: L.empty(3).normal_(),
    "bernoulli_": lambda L, x, y, p: L.empty(3).bernoulli_(0.5),
    "bernoulli_ tensor": lambda L, x, y, p: L.empty(3).bernoulli_(p),
    "random_": lambda L, x, y, p: L.empty(3).random_(0, 5),
    "exponential_": lambda L, x, y, p: L.empty(3).exponential_(),
    "geometric_": lambda L, x, y, p: L.empty(3).geometric_(0.5),
    "log_normal_": lambda L, x, y, p: L.empty(3).log_normal_(),
    "cauchy_": lambda L, x, y, p: L.empty(3).cauchy_(),
    "dropout mask from rand_like": lambda L, x, y, p: y * (L.rand_like(y) > 0.5),
    "dropout mask from bernoulli_": lambda L, x, y, p: y * L.empty_like(y).bernoulli_(0.5),
    "detach": lambda L, x, y, p: x.detach(),
    "detach_": lambda L, x, y, p: (x * 2).detach_(),
    "to meta": lambda L, x, y, p: y.to("meta"),
    "to float64": lambda L, x, y, p: y.double(),
    "copy_": lambda L, x, y, p: L.empty(3).copy_(y),
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_a_mode_sees_the_ops_torch_dispatch_sees(name):
    fn = PROGRAMS[name]
    expected = _torch_names(fn, _inputs(torch))
    assert _ember_names(fn, _inputs(ember)) == expected


def test_a_small_program_shows_its_factories_random_masks_data_and_detach():
    x = ember.ones(4, requires_grad=True)
    with ember_log() as seen:
        buffer = ember.zeros(4)
        noise = ember.randn(4)
        mask = ember.rand(4) > 0.5
        keep = ember.bernoulli(ember.full((4,), 0.5))
        scale = ember.tensor([1.0, 2.0, 3.0, 4.0])
        like = ember.zeros_like(x)
        frozen = x.detach()
        (buffer + noise * mask * keep * scale + like + frozen).sum()
    names = [op.name for op, _ in seen]
    for expected in ("zeros", "randn", "rand", "full", "bernoulli", "lift_fresh", "zeros_like",
                     "detach"):
        assert expected in names, f"{expected} not seen in {names}"
    rand_args = next(args for op, args in seen if op.name == "rand")
    assert rand_args[0] == (4,)
    assert "generator" in [a.name for a in next(op for op, _ in seen
                                                 if op.name == "rand").schema.arguments]


def _seeded(seen):
    return [(op, args) for op, args in seen if "nondeterministic_seeded" in op.tags]


def test_random_ops_replay_from_their_generator_argument():
    generator = ember.Generator().manual_seed(5)
    probs = ember.full((6,), 0.5)
    state = generator.get_state()
    with ember_log() as seen:
        drawn = [
            ember.randn(3, generator=generator), ember.rand(2, 2, generator=generator),
            ember.randint(0, 9, (4,), generator=generator),
            ember.randperm(5, generator=generator),
            ember.rand_like(probs, generator=generator),
            ember.normal(probs, 1.0, generator=generator),
            ember.bernoulli(probs, generator=generator),
            ember.multinomial(probs, 3, generator=generator),
            ember.empty(4).uniform_(-1, 1, generator=generator),
            ember.empty(4).bernoulli_(0.3, generator=generator),
            ember.empty(4).exponential_(generator=generator),
        ]
    calls = _seeded(seen)
    assert len(calls) == len(drawn)
    assert all(generator in args for _, args in calls)
    generator.set_state(state)
    replayed = [op(*args) for op, args in calls]
    for got, expected in zip(replayed, drawn):
        np.testing.assert_array_equal(got.numpy(), expected.numpy())
    # Without restoring the state the replay draws new numbers (nothing was baked in).
    again = [op(*args) for op, args in calls]
    assert not all(np.array_equal(a.numpy(), b.numpy()) for a, b in zip(again, drawn))


def test_random_ops_without_a_generator_replay_from_the_default_one():
    state = ember.get_rng_state()
    with ember_log() as seen:
        drawn = [ember.randn(4), ember.empty(3).normal_(), ember.rand_like(ember.ones(2))]
    calls = _seeded(seen)
    assert [args[1] if op.name in ("randn", "rand_like") else args[-1]
            for op, args in calls] == [None, None, None]
    ember.set_rng_state(state)
    for (op, args), expected in zip(calls, drawn):
        np.testing.assert_array_equal(op(*args).numpy(), expected.numpy())


def test_factories_keep_autograd_and_device_options():
    with ember_log():
        made = ember.zeros(2, requires_grad=True)
        meta = ember.randn(2, 3, device="meta")
        like = ember.ones_like(meta)
    assert made.requires_grad and made.is_leaf
    assert meta.device.type == "meta" and like.device.type == "meta"
    assert like.shape == (2, 3)


def test_detach_shares_data_and_version_but_not_history():
    for lib in (torch, ember):
        x = lib.ones(3, requires_grad=True)
        y = (x * 2).detach()
        z = x.detach()
        z.add_(1)
        assert (y.requires_grad, y.grad_fn, y._base) == (False, None, None)
        assert x._version == 1 and z._version == 1
        assert float(x.detach().sum()) == 6.0
