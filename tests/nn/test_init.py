"""ember.nn.init against torch.nn.init: gains, fans, deterministic fills, the random calls each
initialiser makes (replayed from one shared source, so the values must agree exactly), bounds
and statistics with ember's own generator, and errors."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch
from tests.nn.compare import to_numpy

import ember
from ember.nn import init

NONLINEARITIES = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
                  "conv_transpose2d", "conv_transpose3d", "sigmoid", "tanh", "relu",
                  "leaky_relu", "selu"]


@pytest.mark.parametrize("name", NONLINEARITIES)
def test_calculate_gain_matches_torch(name):
    assert init.calculate_gain(name) == torch.nn.init.calculate_gain(name)


@pytest.mark.parametrize("param", [None, 0.2, 3, 0])
def test_leaky_relu_gain_takes_slope(param):
    assert init.calculate_gain("leaky_relu", param) == \
        torch.nn.init.calculate_gain("leaky_relu", param)


@pytest.mark.parametrize("args", [("leaky_relu", True), ("leaky_relu", "x"), ("gelu",),
                                  ("Relu",)])
def test_calculate_gain_errors(args):
    with pytest.raises(ValueError) as expected:
        torch.nn.init.calculate_gain(*args)
    with pytest.raises(ValueError) as actual:
        init.calculate_gain(*args)
    assert str(actual.value) == str(expected.value)


@pytest.mark.parametrize("shape", [(3, 4), (5, 2, 3), (4, 3, 2, 2), (2, 3, 1, 2, 3)])
def test_fans_match_torch(shape):
    expected = torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(shape))
    assert init._calculate_fan_in_and_fan_out(ember.empty(shape)) == expected
    for mode in ("fan_in", "fan_out", "FAN_OUT"):
        assert init._calculate_correct_fan(ember.empty(shape), mode) == \
            torch.nn.init._calculate_correct_fan(torch.empty(shape), mode)


def _same_error(torch_call, ember_call, exception=ValueError):
    with pytest.raises(exception) as expected:
        torch_call(torch)
    with pytest.raises(exception) as actual:
        ember_call(ember)
    assert str(actual.value) == str(expected.value)


@pytest.mark.parametrize("case", [
    lambda lib, mod: mod._calculate_fan_in_and_fan_out(lib.empty(3)),
    lambda lib, mod: mod._calculate_correct_fan(lib.empty(3, 4), "fan_avg"),
    lambda lib, mod: mod.kaiming_uniform_(lib.empty(3, 4), mode="fan"),
    lambda lib, mod: mod.xavier_uniform_(lib.empty(3)),
    lambda lib, mod: mod.eye_(lib.empty(3, 4, 5)),
    lambda lib, mod: mod.dirac_(lib.empty(3, 4)),
    lambda lib, mod: mod.dirac_(lib.empty(3, 4, 3), groups=2),
    lambda lib, mod: mod.orthogonal_(lib.empty(3)),
    lambda lib, mod: mod.sparse_(lib.empty(3, 4, 2), 0.5),
    lambda lib, mod: mod.kaiming_normal_(lib.empty(3, 4), nonlinearity="swish"),
])
def test_errors_match_torch(case):
    _same_error(lambda lib: case(lib, torch.nn.init), lambda lib: case(lib, init))


def test_eye_matches_torch():
    for shape in [(3, 5), (4, 2), (3, 3)]:
        expected = torch.nn.init.eye_(torch.empty(shape))
        np.testing.assert_array_equal(to_numpy(init.eye_(ember.empty(shape))), to_numpy(expected))


@pytest.mark.parametrize("shape,groups", [((4, 2, 3), 1), ((6, 3, 3, 4), 2), ((4, 4, 3, 3, 2), 4),
                                          ((2, 5, 3, 3), 1)])
def test_dirac_matches_torch(shape, groups):
    expected = torch.nn.init.dirac_(torch.empty(shape), groups)
    actual = init.dirac_(ember.empty(shape), groups)
    np.testing.assert_array_equal(to_numpy(actual), to_numpy(expected))


def test_constant_ones_zeros_match_torch():
    for name, args in [("constant_", (0.25,)), ("ones_", ()), ("zeros_", ())]:
        expected = getattr(torch.nn.init, name)(torch.full((2, 3), 7.0), *args)
        actual = getattr(init, name)(ember.full((2, 3), 7.0), *args)
        np.testing.assert_array_equal(to_numpy(actual), to_numpy(expected))


def test_initialisers_work_under_grad_on_parameters_and_return_their_argument():
    weight = ember.nn.Parameter(ember.empty(4, 3))
    for fill in (init.uniform_, init.normal_, init.trunc_normal_, init.xavier_uniform_,
                 init.xavier_normal_, init.kaiming_uniform_, init.kaiming_normal_,
                 init.orthogonal_, init.zeros_, init.ones_, init.eye_,
                 lambda t: init.constant_(t, 2.0), lambda t: init.sparse_(t, 0.5)):
        assert fill(weight) is weight
        assert weight.grad_fn is None and weight.requires_grad and weight.is_leaf


# -- the random calls, replayed --------------------------------------------------------------
#
# Both frameworks' random fill methods are replaced by one recorder that logs each call (method,
# arguments) and fills from a NumPy stream seeded identically on both sides. Identical logs and
# identical results mean ember draws exactly as PyTorch does: with PyTorch-identical random
# streams, the values will agree.

class _Replay:
    def __init__(self, lib, log):
        self.lib = lib
        self.log = log
        self.stream = np.random.default_rng(1234)

    def _fill(self, tensor, values):
        values = self.lib.from_numpy(np.asarray(values, dtype=to_numpy(tensor).dtype).copy())
        tensor.copy_(values.reshape(tensor.shape))
        return tensor

    def uniform_(self, tensor, a=0.0, b=1.0, *, generator=None):
        self.log.append(("uniform_", tuple(tensor.shape), float(a), float(b)))
        return self._fill(tensor, self.stream.uniform(a, b, tuple(tensor.shape)))

    def normal_(self, tensor, mean=0.0, std=1.0, *, generator=None):
        self.log.append(("normal_", tuple(tensor.shape), float(mean), float(std)))
        return self._fill(tensor, self.stream.normal(mean, std, tuple(tensor.shape)))

    def randperm(self, n, **kwargs):
        self.log.append(("randperm", n))
        return self.lib.from_numpy(self.stream.permutation(n))


def _replayed(monkeypatch, lib, call):
    log = []
    replay = _Replay(lib, log)
    monkeypatch.setattr(lib.Tensor, "uniform_",
                        lambda self, *args, **kwargs: replay.uniform_(self, *args, **kwargs))
    monkeypatch.setattr(lib.Tensor, "normal_",
                        lambda self, *args, **kwargs: replay.normal_(self, *args, **kwargs))
    monkeypatch.setattr(lib, "randperm", replay.randperm)
    result = to_numpy(call(lib)).copy()
    monkeypatch.undo()
    return log, result


REPLAYED = {
    "uniform_": lambda lib, mod, t: mod.uniform_(t, -0.5, 2.0),
    "normal_": lambda lib, mod, t: mod.normal_(t, 1.0, 0.5),
    "trunc_normal_wide": lambda lib, mod, t: mod.trunc_normal_(t, 0.0, 1.0, -1.0, 1.5),
    "trunc_normal_narrow": lambda lib, mod, t: mod.trunc_normal_(t, 0.0, 1.0, 1.5, 3.0),
    "trunc_normal_far": lambda lib, mod, t: mod.trunc_normal_(t, 0.3, 0.2, -0.3, -0.1),
    "xavier_uniform_": lambda lib, mod, t: mod.xavier_uniform_(t, gain=2.0),
    "xavier_normal_": lambda lib, mod, t: mod.xavier_normal_(t),
    "kaiming_uniform_": lambda lib, mod, t: mod.kaiming_uniform_(t, a=math.sqrt(5)),
    "kaiming_uniform_relu_out": lambda lib, mod, t: mod.kaiming_uniform_(
        t, mode="fan_out", nonlinearity="relu"),
    "kaiming_normal_": lambda lib, mod, t: mod.kaiming_normal_(t, a=0.1, mode="fan_out"),
    "orthogonal_": lambda lib, mod, t: mod.orthogonal_(t, gain=1.5),
    "orthogonal_wide": lambda lib, mod, t: mod.orthogonal_(t.reshape(2, 12)),
    "sparse_": lambda lib, mod, t: mod.sparse_(t.reshape(6, 4), 0.4, std=0.2),
}


@pytest.mark.parametrize("name", list(REPLAYED))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_random_calls_and_values_match_torch(monkeypatch, name, dtype):
    def run(lib):
        mod = torch.nn.init if lib is torch else init
        tensor = lib.empty(6, 2, 2, dtype=getattr(lib, dtype))
        return REPLAYED[name](lib, mod, tensor)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch_log, expected = _replayed(monkeypatch, torch, run)
        ember_log, actual = _replayed(monkeypatch, ember, run)
    assert torch_log and ember_log == torch_log
    tolerance = 1e-6 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(actual, expected, rtol=tolerance, atol=tolerance)


# -- ember's own generator: bounds and statistics ----------------------------------------------

def test_generator_argument_makes_draws_reproducible():
    for fill in (init.uniform_, init.normal_, init.trunc_normal_, init.xavier_uniform_,
                 init.kaiming_normal_, init.orthogonal_):
        first, second = ember.Generator(), ember.Generator()
        first.manual_seed(3)
        second.manual_seed(3)
        a = fill(ember.empty(5, 4), generator=first)
        b = fill(ember.empty(5, 4), generator=second)
        np.testing.assert_array_equal(to_numpy(a), to_numpy(b))


def test_kaiming_and_xavier_bounds_and_spread():
    weight = ember.empty(200, 300)
    init.kaiming_uniform_(weight, a=math.sqrt(5))
    bound = 1 / math.sqrt(300)
    values = to_numpy(weight)
    assert values.min() >= -bound and values.max() <= bound and values.max() > 0.95 * bound
    init.kaiming_normal_(weight, mode="fan_out", nonlinearity="relu")
    assert abs(to_numpy(weight).std() - math.sqrt(2 / 200)) < 0.003
    init.xavier_normal_(weight, gain=2.0)
    assert abs(to_numpy(weight).std() - 2 * math.sqrt(2 / 500)) < 0.003


def test_trunc_normal_stays_inside_bounds():
    for a, b in [(-2.0, 2.0), (1.0, 3.0), (-0.1, 0.1)]:
        values = to_numpy(init.trunc_normal_(ember.empty(50, 40), 0.0, 1.0, a, b))
        assert values.min() >= a and values.max() <= b


def test_orthogonal_gives_orthonormal_rows_or_columns():
    tall = to_numpy(init.orthogonal_(ember.empty(6, 3), gain=2.0))
    np.testing.assert_allclose(tall.T @ tall, 4 * np.eye(3), atol=1e-5)
    wide = to_numpy(init.orthogonal_(ember.empty(2, 3, 2)).reshape(2, 6))
    np.testing.assert_allclose(wide @ wide.T, np.eye(2), atol=1e-5)


def test_sparse_zeroes_the_fraction_of_each_column():
    values = to_numpy(init.sparse_(ember.empty(10, 4), sparsity=0.3))
    assert ((values == 0).sum(axis=0) == 3).all()


def test_zero_element_kaiming_warns_and_does_nothing():
    for lib, mod in [(torch, torch.nn.init), (ember, init)]:
        with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
            mod.kaiming_uniform_(lib.empty(0, 3))


def test_trunc_normal_warns_when_mean_is_far_from_the_interval():
    with pytest.warns(UserWarning, match="mean is more than 2 std"):
        init.trunc_normal_(ember.empty(3), mean=5.0, std=1.0, a=-1.0, b=1.0)


def test_deprecated_names_warn_and_fill():
    assert sorted(init.__all__) == sorted(torch.nn.init.__all__)
    with pytest.warns(FutureWarning, match=r"`nn.init.constant` is now deprecated in favor of "
                                           r"`nn.init.constant_`."):
        result = init.constant(ember.empty(2), 3.0)
    assert to_numpy(result).tolist() == [3.0, 3.0]
