"""ember.masked against torch.masked: values, dtypes and gradients, with partly and fully
masked-out slices (NOTE [masked identity] in ember/masked/_reductions.py)."""
import math
import warnings

import numpy as np
import pytest
import torch

import ember

# A 3x4 input whose row 1 is fully masked out; column 2 is fully masked out as well.
_MASK = np.array([[True, False, False, True],
                  [False, False, False, False],
                  [True, True, False, False]])
_VALUES = np.array([[1.5, -2.0, 0.5, 3.0],
                    [0.25, 4.0, -1.0, 2.0],
                    [-0.5, 1.0, 2.5, -3.0]])

# (name, positional args after input, keyword args)
_CASES = [
    ("sum", (1,), {}), ("sum", ((0, 1),), {"keepdim": True}), ("sum", (), {}),
    ("prod", (1,), {}), ("prod", (None,), {}), ("cumsum", (1,), {}), ("cumprod", (0,), {}),
    ("amax", (1,), {}), ("amax", (0,), {"keepdim": True}), ("amin", (1,), {}),
    ("argmax", (1,), {}), ("argmin", (0,), {}), ("argmax", (), {}),
    ("mean", (1,), {}), ("mean", (), {}), ("median", (1,), {}),
    ("norm", (2.0, 1), {}), ("norm", (1.0, 0), {}), ("norm", (math.inf, 1), {}),
    ("norm", (-math.inf, 1), {}), ("norm", (0.5, None), {}),
    ("var", (1,), {}), ("var", (0,), {"unbiased": False}), ("std", (1,), {"correction": 0}),
    ("std", (None,), {"keepdim": True}),
    ("softmax", (1,), {}), ("log_softmax", (1,), {}), ("softmin", (0,), {}),
    ("normalize", (2.0, 1), {}), ("normalize", (1.0, 0), {"eps": 1e-3}),
    ("logsumexp", (1,), {}), ("logsumexp", ((0, 1),), {}),
]


def _pair(dtype=torch.float64, requires_grad=False):
    t = torch.tensor(_VALUES, dtype=dtype, requires_grad=requires_grad)
    e = ember.tensor(_VALUES, dtype=getattr(ember, str(dtype).split(".")[1]),
                     requires_grad=requires_grad)
    return t, e


def _call(module, name, x, args, kwargs, mask):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")      # torch.masked warns that it is a prototype
        return getattr(module, name)(x, *args, **kwargs, mask=mask)


def _compare(actual, expected):
    assert str(actual.dtype).replace("ember", "torch") == str(expected.dtype)
    np.testing.assert_allclose(actual.detach().numpy(), expected.detach().numpy(),
                               rtol=1e-10, atol=1e-12, equal_nan=True)


@pytest.mark.parametrize("name,args,kwargs", _CASES)
@pytest.mark.parametrize("with_mask", [True, False])
def test_values_and_gradients_match_torch(name, args, kwargs, with_mask):
    t_x, e_x = _pair(requires_grad=name not in ("argmax", "argmin"))
    t_mask = torch.tensor(_MASK) if with_mask else None
    e_mask = ember.tensor(_MASK) if with_mask else None
    expected = _call(torch.masked, name, t_x, args, kwargs, t_mask)
    actual = _call(ember.masked, name, e_x, args, kwargs, e_mask)
    _compare(actual, expected)
    if not expected.requires_grad:
        return
    weights = np.linspace(0.5, 1.5, expected.numel()).reshape(tuple(expected.shape))
    finite = torch.isfinite(expected).numpy()
    weights = np.where(finite, weights, 0.0)     # keep NaN/inf outputs out of the gradient
    t_grad, = torch.autograd.grad((torch.where(torch.tensor(finite), expected, 0) *
                                   torch.tensor(weights)).sum(), t_x)
    e_out = ember.where(ember.tensor(finite), actual, 0) * ember.tensor(weights)
    e_grad, = ember.autograd.grad(e_out.sum(), e_x)
    _compare(e_grad, t_grad)


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64, torch.uint8, torch.bool,
                                   torch.float32])
@pytest.mark.parametrize("name", ["sum", "prod", "amax", "amin", "argmax", "argmin"])
def test_integer_and_bool_dtypes_match_torch(name, dtype):
    values = (np.abs(_VALUES) * 2).astype(np.int64)
    t_x = torch.tensor(values).to(dtype)
    e_x = ember.tensor(values).to(getattr(ember, str(dtype).split(".")[1]))
    if dtype == torch.bool and name in ("amax", "amin", "argmax", "argmin"):
        # torch.masked has no identity for a bool max or min: both raise.
        with pytest.raises(NotImplementedError):
            _call(torch.masked, name, t_x, (1,), {}, torch.tensor(_MASK))
        with pytest.raises(NotImplementedError):
            _call(ember.masked, name, e_x, (1,), {}, ember.tensor(_MASK))
        return
    expected = _call(torch.masked, name, t_x, (1,), {}, torch.tensor(_MASK))
    actual = _call(ember.masked, name, e_x, (1,), {}, ember.tensor(_MASK))
    _compare(actual, expected)


def test_mask_broadcasts_and_non_bool_masks_count_as_bool():
    t_x, e_x = _pair()
    row = np.array([1, 0, 0, 2])
    expected = _call(torch.masked, "sum", t_x, (1,), {}, torch.tensor(row))
    actual = _call(ember.masked, "sum", e_x, (1,), {}, ember.tensor(row))
    _compare(actual, expected)


def test_logaddexp_masks_each_side():
    t_x, e_x = _pair()
    t_y, e_y = _pair()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = torch.masked.logaddexp(t_x, t_y.flip(0), input_mask=torch.tensor(_MASK),
                                          other_mask=torch.tensor(_MASK[::-1].copy()))
    actual = ember.masked.logaddexp(e_x, e_y.flip(0), input_mask=ember.tensor(_MASK),
                                    other_mask=ember.tensor(_MASK[::-1].copy()))
    _compare(actual, expected)


@pytest.mark.parametrize("call", [
    lambda m, x, mask: m.mean(x.long(), 1, mask=mask),
    lambda m, x, mask: m.sum(x, (1, 1), mask=mask),
    lambda m, x, mask: m.sum(x, 5, mask=mask),
    lambda m, x, mask: m.median(x.long(), 1, mask=mask),
    lambda m, x, mask: m.sum(x, 1, mask=mask[None]),
])
def test_errors_match_torch_classes(call):
    t_x, e_x = _pair()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as expected:
            call(torch.masked, t_x, torch.tensor(_MASK))
    with pytest.raises(type(expected.value)):
        call(ember.masked, e_x, ember.tensor(_MASK))
