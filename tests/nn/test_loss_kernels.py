"""The elementwise losses' own kernels (NOTE [elementwise loss kernels]) against PyTorch: values
and gradients in every float dtype (the half types round where PyTorch's kernels round, so the
arithmetic-only losses agree bit for bit), result dtypes of mixed operands, and the errors."""
from __future__ import annotations

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")

_LOSSES = ("mse_loss", "smooth_l1_loss", "huber_loss", "soft_margin_loss",
           "binary_cross_entropy", "binary_cross_entropy_with_logits")
# Only + - * / and comparisons: no transcendental whose last bit depends on the CPU's kernels.
_ARITHMETIC = ("mse_loss", "smooth_l1_loss", "huber_loss")
_DTYPES = ("float16", "bfloat16", "float32", "float64")


def _operands(name, n=600, seed=0):
    rng = np.random.default_rng(seed)
    if name == "binary_cross_entropy":
        return rng.random(n).astype(np.float32), rng.random(n).astype(np.float32)
    if name == "soft_margin_loss":
        return (rng.standard_normal(n).astype(np.float32),
                np.sign(rng.standard_normal(n)).astype(np.float32))
    return ((rng.standard_normal(n) * 2).astype(np.float32),
            (rng.standard_normal(n) * 2).astype(np.float32))


def _run(lib, name, a, b, dtype, reduction, kwargs):
    x = lib.from_numpy(a.copy()).to(getattr(lib, dtype)).requires_grad_()
    t = lib.from_numpy(b.copy()).to(getattr(lib, dtype))
    out = getattr(lib.nn.functional, name)(x, t, reduction=reduction, **kwargs)
    g = np.linspace(-1, 1, out.numel()).astype(np.float32).reshape(tuple(out.shape))
    out.backward(lib.from_numpy(g).to(getattr(lib, dtype)))
    return (out.detach().to(lib.float64).numpy(), x.grad.to(lib.float64).numpy(),
            str(out.dtype).split(".")[-1])


@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("name", _LOSSES)
def test_values_and_gradients_match_torch(name, reduction, dtype):
    a, b = _operands(name)
    kwargs = {"beta": 0.6} if name == "smooth_l1_loss" else \
        {"delta": 0.8} if name == "huber_loss" else {}
    ours = _run(ember, name, a, b, dtype, reduction, kwargs)
    theirs = _run(torch, name, a, b, dtype, reduction, kwargs)
    assert ours[2] == theirs[2]
    exact = (name in _ARITHMETIC and dtype in ("float16", "bfloat16"),
             # (huber's gradient: PyTorch's vectorised loop and its scalar tail multiply delta
             # in different orders, and the tail's length is the CPU's vector width)
             name in ("mse_loss", "smooth_l1_loss") and dtype in ("float16", "bfloat16"))
    for k, (got, want) in enumerate(zip(ours[:2], theirs[:2])):
        if exact[k] and (k == 1 or reduction == "none"):
            np.testing.assert_array_equal(got, want)
        else:
            # A float32 reduction's order and the transcendental functions' last bits are the
            # CPU kernels' own (tests/_capability.py); one unit in the last place of the dtype.
            eps = {"float16": 2 ** -10, "bfloat16": 2 ** -7, "float32": 2 ** -23,
                   "float64": 2 ** -52}[dtype]
            np.testing.assert_allclose(got, want, rtol=4 * eps, atol=4 * eps)


@pytest.mark.parametrize("name", ["mse_loss", "smooth_l1_loss", "huber_loss",
                                  "soft_margin_loss"])
@pytest.mark.parametrize("dtypes", [("float32", "float64"), ("float64", "float32"),
                                    ("float16", "float32"), ("float32", "int64"),
                                    ("int64", "int64")])
def test_mixed_dtypes_match_torch(name, dtypes):
    outcomes = []
    for lib in (ember, torch):
        x = lib.arange(4).to(getattr(lib, dtypes[0])) * 0.5
        t = lib.ones(4).to(getattr(lib, dtypes[1]))
        try:
            outcomes.append(str(getattr(lib.nn.functional, name)(x, t).dtype).split(".")[-1])
        except Exception as error:  # noqa: BLE001 (either side may refuse; compared)
            outcomes.append((type(error), str(error)))
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.functional.binary_cross_entropy(lib.tensor([0.5, 1.5]),
                                                       lib.tensor([0.5, 0.5])),
    lambda lib: lib.nn.functional.binary_cross_entropy(lib.tensor([0.5, 0.5]),
                                                       lib.tensor([2.0, 0.5])),
    lambda lib: lib.nn.functional.binary_cross_entropy(lib.tensor([0.5, float("nan")]),
                                                       lib.tensor([2.0, 0.5])),
    lambda lib: lib.nn.functional.smooth_l1_loss(lib.ones(2), lib.ones(2), beta=-1.0),
    lambda lib: lib.nn.functional.huber_loss(lib.ones(2), lib.ones(2), delta=0.0),
    lambda lib: lib.nn.functional.mse_loss(lib.ones(3, 4), lib.ones(5)),
    lambda lib: lib.nn.functional.soft_margin_loss(lib.ones(2),
                                                   lib.ones(2, requires_grad=True)),
])
def test_errors_match_torch(call):
    outcomes = []
    for lib in (ember, torch):
        with pytest.raises(Exception) as info:
            call(lib)
        outcomes.append((info.type, str(info.value)))
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("name", ["mse_loss", "smooth_l1_loss", "huber_loss",
                                  "soft_margin_loss", "binary_cross_entropy_with_logits"])
def test_double_backward_matches_torch(name):
    a, b = _operands(name, n=6, seed=3)
    results = []
    for lib in (ember, torch):
        x = lib.from_numpy(a.astype(np.float64)).requires_grad_()
        t = lib.from_numpy(b.astype(np.float64))
        loss = getattr(lib.nn.functional, name)(x, t)
        (g,) = lib.autograd.grad(loss, x, create_graph=True)
        (gg,) = lib.autograd.grad((g * lib.arange(6.0, dtype=lib.float64)).sum(), x)
        results.append(gg.detach().numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-12, atol=1e-12)
