"""Activation layers and their functional forms against PyTorch: outputs, gradients, repr,
in-place forms and errors."""
import numpy as np
import pytest
import torch
from tests._capability import NORMAL_FILL_ULPS, assert_same_draws
from tests.nn.compare import assert_close, check_module, to_ember

import ember

# (constructor arguments as a string evaluated against both libraries' nn)
MODULES = [
    "ReLU()", "ReLU(inplace=True)", "ReLU6()", "LeakyReLU(0.2)", "LeakyReLU(inplace=True)",
    "PReLU()", "PReLU(3, init=0.1)", "ELU(alpha=0.5)", "SELU()", "CELU(alpha=2.0)", "GELU()",
    "GELU(approximate='tanh')", "SiLU()", "Mish()", "Sigmoid()", "Tanh()",
    "Hardtanh(-2.0, 1.5)", "Hardsigmoid()", "Hardswish()", "Hardshrink(0.3)",
    "Softshrink(0.3)", "Tanhshrink()", "Softsign()", "Softplus(beta=2.0, threshold=3.0)",
    "Threshold(0.1, -2.0)", "GLU(2)", "LogSigmoid()", "Softmax(dim=1)", "LogSoftmax(dim=-1)",
    "Softmin(dim=0)", "Softmax2d()", "RReLU(0.1, 0.3)",
]


def _input(dtype, shape=(2, 3, 4)):
    rng = np.random.default_rng(0)
    values = rng.standard_normal(shape) * 3
    values.flat[0] = 25.0   # above softplus's threshold and in the saturated ranges
    return torch.tensor(values, dtype=dtype)


@pytest.mark.parametrize("spec", MODULES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_module_matches_torch(spec, dtype):
    t_module = eval(f"torch.nn.{spec}").to(dtype)
    e_module = eval(f"ember.nn.{spec}").to(getattr(ember, str(dtype).split(".")[1]))
    if "RReLU" in spec:             # random in training: compare the eval form
        t_module.eval()
        e_module.eval()
    inplace = "inplace=True" in spec
    x = _input(dtype)
    if inplace:
        # An in-place layer on a leaf that requires grad is an error in both; check values.
        check_module(t_module, e_module, x, backward=False)
    else:
        check_module(t_module, e_module, x)


@pytest.mark.parametrize("spec", ["ReLU()", "GELU()", "Softplus()", "Hardswish()", "ELU()"])
def test_unbatched_input(spec):
    check_module(eval(f"torch.nn.{spec}"), eval(f"ember.nn.{spec}"), _input(torch.float64, (5,)))


@pytest.mark.parametrize("name, args", [
    ("relu_", ()), ("elu_", (0.7,)), ("leaky_relu_", (0.3,)), ("hardtanh_", (-0.5, 0.5)),
    ("threshold_", (0.2, 5.0)), ("selu_", ()), ("celu_", (1.5,)),
])
def test_inplace_functional_forms(name, args):
    t = _input(torch.float64)
    e = to_ember(t)
    t_out = getattr(torch.nn.functional, name)(t, *args)
    e_out = getattr(ember.nn.functional, name)(e, *args)
    assert e_out is e and t_out is t
    assert_close(e, t)


def test_inplace_result_gradient_matches():
    # elu_ on a non-leaf: the gradient comes from the result left in place.
    base_t = _input(torch.float64).requires_grad_()
    base_e = to_ember(base_t)
    t_out = torch.nn.functional.elu_(base_t * 1.0, 0.5)
    e_out = ember.nn.functional.elu_(base_e * 1.0, 0.5)
    t_out.sum().backward()
    e_out.sum().backward()
    assert_close(base_e.grad, base_t.grad)


def test_rrelu_training_slopes_in_range():
    x = ember.full((1000,), -1.0)
    y = ember.nn.functional.rrelu(x, 0.1, 0.3, training=True)
    slopes = -y.numpy()
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3
    assert slopes.std() > 0.03          # really random
    ember.manual_seed(3)
    a = ember.nn.functional.rrelu(x, training=True)
    ember.manual_seed(3)
    b = ember.nn.functional.rrelu(x, training=True)
    assert np.array_equal(a.numpy(), b.numpy())


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
@pytest.mark.parametrize("seed", [0, 7])
def test_rrelu_training_draws_torchs_slopes(dtype, seed):
    """NOTE [rrelu's stream]: the same seed gives PyTorch's slopes, and the gradient is
    grad * slope; the module and the in-place form too."""
    results = []
    for lib in (torch, ember):
        lib.manual_seed(seed)
        x = lib.randn(9, 37, dtype=getattr(lib, dtype)).requires_grad_()
        y = lib.nn.functional.rrelu(x, 0.05, 0.8, training=True)
        y.backward(lib.ones_like(y))
        module = lib.nn.RReLU(0.2, 0.25).train()
        z = lib.randn(5, 3, dtype=getattr(lib, dtype))
        module(z)
        w = lib.randn(4, 6, dtype=getattr(lib, dtype))
        lib.nn.functional.rrelu(w, training=True, inplace=True)
        results.append([t.detach().float().numpy() for t in (y, x.grad, module(z), w)])
    # The float32 normals (a fill of 16 or more) are exact under AVX2/AVX-512 only.
    ulps = NORMAL_FILL_ULPS if dtype == "float32" else 0
    for got, want in zip(results[1], results[0]):
        assert_same_draws(got, want, ulps)


@pytest.mark.parametrize("dtype", ["int64", "float16"])
def test_rrelu_training_refuses_what_torch_refuses(dtype):
    for lib in (torch, ember):
        with pytest.raises(NotImplementedError, match="rrelu_with_noise_out_cpu"):
            lib.nn.functional.rrelu(lib.ones(3, dtype=getattr(lib, dtype)), training=True)


def test_softmax_implicit_dim_warns_like_torch():
    x = _input(torch.float32, (3, 4))
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
        t_out = torch.nn.functional.softmax(x)
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
        e_out = ember.nn.functional.softmax(to_ember(x))
    assert_close(e_out, t_out)


@pytest.mark.parametrize("call", [
    lambda F, x: F.glu(x, 1),
    lambda F, x: F.gelu(x, approximate="nope"),
    lambda F, x: F.prelu(x, x.new_ones(2)),
    lambda F, x: F.elu(x.long()),
    lambda F, x: F.hardtanh(x, 2.0, 1.0),
])
def test_errors_match_torch(call):
    x = _input(torch.float32, (2, 3))
    with pytest.raises(Exception) as t_error:
        call(torch.nn.functional, x)
    with pytest.raises(t_error.type):
        call(ember.nn.functional, to_ember(x))
