"""Transforms, constraints and biject_to / transform_to against PyTorch: forward, inverse,
log |det J| (and its gradient), shapes, signs, domains, equality and caching."""
import numpy as np
import pytest
import torch

import ember


def _transforms(lib):
    T = lib.distributions.transforms
    shift = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64)
    scale = lib.tensor([1.5, -0.5, 2.0], dtype=lib.float64)
    return {
        "exp": (T.ExpTransform(), (4, 3)),
        "power": (T.PowerTransform(lib.tensor(2.5, dtype=lib.float64)), (4, 3)),
        "sigmoid": (T.SigmoidTransform(), (4, 3)),
        "softplus": (T.SoftplusTransform(), (4, 3)),
        "tanh": (T.TanhTransform(), (4, 3)),
        "abs": (T.AbsTransform(), (4, 3)),
        "affine": (T.AffineTransform(shift, scale), (4, 3)),
        "affine number": (T.AffineTransform(1.0, -2.0), (4, 3)),
        "affine event": (T.AffineTransform(shift, scale, event_dim=1), (4, 3)),
        "softmax": (T.SoftmaxTransform(), (4, 3)),
        "stick breaking": (T.StickBreakingTransform(), (4, 3)),
        "lower cholesky": (T.LowerCholeskyTransform(), (4, 3, 3)),
        "corr cholesky": (T.CorrCholeskyTransform(), (4, 3)),
        "compose": (T.ComposeTransform([T.AffineTransform(shift, scale), T.ExpTransform()]),
                    (4, 3)),
        "compose empty": (T.ComposeTransform([]), (4, 3)),
        "independent": (T.IndependentTransform(T.SigmoidTransform(), 1), (4, 3)),
        "reshape": (T.ReshapeTransform((3,), (3, 1)), (4, 3)),
        "cat": (T.CatTransform([T.ExpTransform(), T.SigmoidTransform()], dim=1,
                               lengths=[1, 2]), (4, 3)),
        "stack": (T.StackTransform([T.ExpTransform(), T.TanhTransform(), T.ExpTransform()],
                                   dim=1), (4, 3)),
        "inverse of exp": (T.ExpTransform().inv, (4, 3)),
        "cdf": (T.CumulativeDistributionTransform(lib.distributions.Normal(0.0, 1.0)),
                (4, 3)),
    }


_INPUTS = {"inverse of exp": lambda rng, shape: rng.uniform(0.5, 2.0, shape),
           "power": lambda rng, shape: rng.uniform(0.5, 2.0, shape)}


@pytest.mark.parametrize("name", sorted(_transforms(torch)))
def test_transform_against_pytorch(name):
    mine, shape = _transforms(ember)[name]
    theirs, _ = _transforms(torch)[name]
    rng = np.random.default_rng(0)
    x_np = _INPUTS.get(name, lambda rng, shape: rng.normal(size=shape))(rng, shape)
    x_mine = ember.tensor(x_np, requires_grad=True)
    x_theirs = torch.tensor(x_np, requires_grad=True)
    y_mine, y_theirs = mine(x_mine), theirs(x_theirs)
    np.testing.assert_allclose(y_mine.detach().numpy(), y_theirs.detach().numpy(), rtol=1e-6,
                               atol=1e-12)
    np.testing.assert_allclose(mine.inv(y_mine).detach().numpy(),
                               theirs.inv(y_theirs).detach().numpy(), rtol=1e-6, atol=1e-9)
    assert tuple(mine.forward_shape(shape)) == tuple(theirs.forward_shape(shape))
    assert tuple(mine.inverse_shape(tuple(y_theirs.shape))) == tuple(
        theirs.inverse_shape(y_theirs.shape))
    assert mine.bijective == theirs.bijective
    assert repr(mine.domain) == repr(theirs.domain)
    assert repr(mine.codomain) == repr(theirs.codomain)
    try:
        expected = theirs.log_abs_det_jacobian(x_theirs, y_theirs)
    except NotImplementedError:
        with pytest.raises(NotImplementedError):
            mine.log_abs_det_jacobian(x_mine, y_mine)
        return
    got = mine.log_abs_det_jacobian(x_mine, y_mine)
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-6,
                               atol=1e-10)
    (expected.sum() + y_theirs.sum()).backward()
    (got.sum() + y_mine.sum()).backward()
    np.testing.assert_allclose(x_mine.grad.numpy(), x_theirs.grad.numpy(), rtol=1e-5,
                               atol=1e-10)


def test_signs_equality_and_inverse_identity():
    T = ember.distributions.transforms
    exp = T.ExpTransform()
    assert exp.inv.inv is exp
    assert exp == T.ExpTransform() and exp != T.SigmoidTransform()
    assert exp.inv == T.ExpTransform().inv
    assert T.AffineTransform(1.0, -2.0).sign == -1
    assert T.AffineTransform(1.0, 2.0) == T.AffineTransform(1.0, 2.0)
    assert T.ComposeTransform([exp, T.AffineTransform(0.0, -3.0)]).sign == -1
    assert T.PowerTransform(ember.tensor(2.0)) == T.PowerTransform(ember.tensor(2.0))
    assert repr(T.ComposeTransform([exp, T.TanhTransform()])) == repr(
        torch.distributions.transforms.ComposeTransform(
            [torch.distributions.transforms.ExpTransform(),
             torch.distributions.transforms.TanhTransform()]))


def test_cache_returns_the_very_input():
    tanh = ember.distributions.transforms.TanhTransform(cache_size=1)
    x = ember.tensor([30.0, -30.0], dtype=ember.float64)
    y = tanh(x)
    assert tanh(x) is y and tanh.inv(y) is x
    with pytest.raises(ValueError, match="cache_size must be 0 or 1"):
        ember.distributions.transforms.ExpTransform(cache_size=2)
    assert ember.distributions.transforms.ExpTransform().with_cache(1)._cache_size == 1


def _constraints(lib):
    C = lib.distributions.constraints
    return {
        "real": C.real, "positive": C.positive, "nonnegative": C.nonnegative,
        "unit_interval": C.unit_interval, "boolean": C.boolean,
        "interval": C.interval(-1.0, 2.0), "half_open": C.half_open_interval(-1.0, 1.0),
        "greater_than": C.greater_than(1.0), "greater_than_eq": C.greater_than_eq(1.0),
        "less_than": C.less_than(0.5), "integer_interval": C.integer_interval(0, 3),
        "nonnegative_integer": C.nonnegative_integer, "positive_integer": C.positive_integer,
        "simplex": C.simplex, "one_hot": C.one_hot, "real_vector": C.real_vector,
        "independent": C.independent(C.positive, 1), "multinomial": C.multinomial(3),
        "lower_triangular": C.lower_triangular, "lower_cholesky": C.lower_cholesky,
        "corr_cholesky": C.corr_cholesky, "square": C.square, "symmetric": C.symmetric,
        "cat": C.cat([C.positive, C.real], dim=1, lengths=[1, 2]),
        "stack": C.stack([C.positive, C.real, C.unit_interval], dim=1),
    }


def _constraint_inputs():
    rng = np.random.default_rng(0)
    simplex = rng.uniform(size=(4, 3))
    simplex /= simplex.sum(-1, keepdims=True)
    lower = np.tril(rng.normal(size=(4, 3, 3)))
    corr = np.linalg.cholesky(np.corrcoef(rng.normal(size=(3, 10))))
    return [rng.normal(size=(4, 3)) * 2, rng.integers(-1, 4, (4, 3)).astype(float), simplex,
            np.eye(3)[[0, 2, 1, 1]], lower, np.abs(lower) + np.eye(3), corr,
            np.array([[1.0, 2.0, 0.0], [1.0, 1.0, 1.0], [np.nan, 0.0, 1.0], [0.5, 0.2, 0.1]])]


@pytest.mark.parametrize("name", sorted(_constraints(torch)))
def test_constraint_checks_and_reprs_against_pytorch(name):
    mine, theirs = _constraints(ember)[name], _constraints(torch)[name]
    assert repr(mine) == repr(theirs)
    assert mine.is_discrete == theirs.is_discrete
    assert mine.event_dim == theirs.event_dim
    for value in _constraint_inputs():
        if value.ndim < theirs.event_dim or (name in ("cat", "stack") and value.ndim != 2):
            continue      # (not a value the constraint is defined for)
        try:
            expected = theirs.check(torch.tensor(value))
        except (RuntimeError, IndexError, ValueError) as error:
            with pytest.raises(type(error)):
                mine.check(ember.tensor(value))
            continue
        got = mine.check(ember.tensor(value))
        np.testing.assert_array_equal(got.numpy(), expected.numpy())


def test_dependent_constraints():
    C = ember.distributions.constraints
    assert C.is_dependent(C.dependent) and not C.is_dependent(C.real)
    with pytest.raises(ValueError, match="Cannot determine validity of dependent constraint"):
        C.dependent.check(ember.zeros(1))
    with pytest.raises(NotImplementedError):
        C.dependent.event_dim  # noqa: B018
    assert C.dependent(is_discrete=True, event_dim=1).event_dim == 1
    support = ember.distributions.Uniform(0.0, 1.0).support
    assert repr(support) == "Interval(lower_bound=0.0, upper_bound=1.0)"
    assert C.is_dependent(ember.distributions.Uniform.support)


@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
def test_constraint_registry_against_pytorch(registry):
    rng = np.random.default_rng(1)
    mine_constraints, theirs_constraints = _constraints(ember), _constraints(torch)
    for name in sorted(theirs_constraints):
        theirs_c, mine_c = theirs_constraints[name], mine_constraints[name]
        try:
            theirs_t = getattr(torch.distributions, registry)(theirs_c)
        except NotImplementedError:
            with pytest.raises(NotImplementedError, match="Cannot transform"):
                getattr(ember.distributions, registry)(mine_c)
            continue
        mine_t = getattr(ember.distributions, registry)(mine_c)
        assert repr(mine_t) == repr(theirs_t), name
        shape = (4, 3) if name != "lower_cholesky" else (4, 3, 3)
        x = rng.normal(size=shape)
        y_mine = mine_t(ember.tensor(x))
        y_theirs = theirs_t(torch.tensor(x))
        np.testing.assert_allclose(y_mine.numpy(), y_theirs.numpy(), rtol=1e-6, atol=1e-12)
        assert bool(mine_c.check(y_mine).all()), name


def test_registry_refuses_non_constraints():
    with pytest.raises(TypeError, match="Expected constraint to be either a Constraint"):
        ember.distributions.biject_to.register(int, lambda c: None)
