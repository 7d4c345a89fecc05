"""`ember._foreach_*` against PyTorch's: every function with each of its overloads, the
in-place forms, the argument errors, and gradients through the out-of-place forms."""
import numpy as np
import pytest
import torch

import ember

RNG = np.random.default_rng(0)
FLOATS = [RNG.uniform(0.5, 2.0, (2, 3)).astype(np.float32),
          RNG.uniform(0.5, 2.0, (4,)).astype(np.float32)]
INTS = [np.array([1, 5, -3]), np.array([[2, 0], [7, 1]])]
UNARY = ["abs", "acos", "asin", "atan", "ceil", "cos", "cosh", "erf", "erfc", "exp", "expm1", "floor", "frac", "lgamma", "log", "log10", "log1p", "log2", "neg", "reciprocal", "round", "rsqrt", "sigmoid", "sign", "sin", "sinh", "sqrt", "tan", "tanh", "trunc"]
BINARY = ["add", "sub", "mul", "div", "clamp_min", "clamp_max", "maximum", "minimum", "pow"]


def _lists(T):
    """Fresh lists for one framework: a, b, c floats of equal shapes, i integers."""
    a = [T.tensor(x) for x in FLOATS]
    b = [T.tensor(x * 0.5 + 0.25) for x in FLOATS]
    c = [T.tensor(x[::-1].copy()) for x in FLOATS]
    i = [T.tensor(x) for x in INTS]
    acos = [T.tensor(x / 2.5) for x in FLOATS]        # inside acos/asin's domain
    return {"T": T, "a": a, "b": b, "c": c, "i": i, "u": acos}


CALLS = (
    [f"T._foreach_{n}(u)" for n in UNARY] +
    [f"T._foreach_{n}_(u)" for n in UNARY] +
    [f"T._foreach_{n}(a, b)" for n in BINARY] +
    [f"T._foreach_{n}(a, 1.5)" for n in BINARY] +
    [f"T._foreach_{n}(a, [0.5, 2])" for n in BINARY] +
    [f"T._foreach_{n}_(a, b)" for n in BINARY] +
    [f"T._foreach_{n}_(a, 0.75)" for n in BINARY] +
    [f"T._foreach_{n}_(a, [3, 0.5])" for n in BINARY] +
    [f"T._foreach_{n}(a, T.tensor(2.0))" for n in BINARY] +
    [f"T._foreach_{n}(i, 2)" for n in BINARY] +
    [f"T._foreach_{n}(i, 2.5)" for n in BINARY] +
    [f"T._foreach_{n}_(i, 2.5)" for n in BINARY] +
    [f"T._foreach_{n}(i, True)" for n in BINARY] +
    [f"T._foreach_{n}(a, 'x')" for n in BINARY] +
    [f"T._foreach_{n}(a[0], 1)" for n in BINARY] +
    [f"T._foreach_{n}(a, b[:1])" for n in BINARY] +
    [f"T._foreach_{n}(a, [1])" for n in BINARY] +
    [f"T._foreach_{n}(a, T.ones(2))" for n in BINARY] +
    [f"T._foreach_{n}(a, b, alpha=2)" for n in BINARY] +
    [f"T._foreach_{n}(a, 1, alpha=2)" for n in BINARY] +
    [f"T._foreach_{n}([], 1)" for n in BINARY] +
    [f"T._foreach_{n}(a, [1, b[0]])" for n in BINARY] +
    [f"T._foreach_{n}(a, [b[1], b[0]])" for n in BINARY] +
    ["T._foreach_add(a, T.tensor(3.0), alpha=2)", "T._foreach_sub_(a, b, alpha=0.5)",
     "T._foreach_add(tuple(a), 1)", "T._foreach_add([a[0], 3], 1)",
     "T._foreach_sub([T.tensor([True])], 1)", "T._foreach_neg([T.tensor([True])])",
     "T._foreach_frac(i)", "T._foreach_exp(i)", "T._foreach_div(i, 2)",
     "T._foreach_abs_([T.ones(2).expand(2, 2)])",
     "T._foreach_pow(2.0, a)", "T._foreach_pow(2, [])",
     "T._foreach_maximum_(i, 2.5)", "T._foreach_clamp_min_(i, 2.5)",
     "T._foreach_clamp_max(a, T.tensor(1.0))", "T._foreach_lerp(a, b, T.tensor(0.25))"] +
    [f"T._foreach_{n}(a, b, c)" for n in ("addcmul", "addcdiv")] +
    [f"T._foreach_{n}(a, b, c, 0.5)" for n in ("addcmul", "addcdiv")] +
    [f"T._foreach_{n}(a, b, c, [2, 0.5])" for n in ("addcmul", "addcdiv")] +
    [f"T._foreach_{n}(a, b, c, T.tensor([2.0, -1.0]))" for n in ("addcmul", "addcdiv")] +
    [f"T._foreach_{n}_(a, b, c, [2, 0.5])" for n in ("addcmul", "addcdiv")] +
    [f"T._foreach_{n}(a, b, c, T.tensor([1.0, 2.0, 3.0]))" for n in ("addcmul", "addcdiv")] +
    [f"T._foreach_{n}(a, b, c, T.tensor(2.0))" for n in ("addcmul", "addcdiv")] +
    [f"T._foreach_{n}(a, b, c[:1])" for n in ("addcmul", "addcdiv")] +
    ["T._foreach_lerp(a, b, 0.3)", "T._foreach_lerp(a, b, [0.3, 0.9])", "T._foreach_lerp(a, b, c)",
     "T._foreach_lerp_(a, b, 0.3)", "T._foreach_lerp_(a, b, c)", "T._foreach_lerp(a, b, [0.5])",
     "T._foreach_norm(a)", "T._foreach_norm(a, 1)", "T._foreach_norm(a, float('inf'))",
     "T._foreach_norm(a, 0)", "T._foreach_norm(a, dtype=T.float64)", "T._foreach_norm(i)",
     "T._foreach_powsum(a)", "T._foreach_powsum(a, 3)",
     "T._foreach_max(a)", "T._foreach_max(i)", "T._foreach_max([T.ones(0)])",
     "T._foreach_mm([T.ones(2, 3)], [T.ones(3, 2)])", "T._foreach_mm([T.ones(2, 3)], [])",
     "T._foreach_clone(a)", "T._foreach_copy_(a, c)", "T._foreach_copy_(a, [c[1], c[0]])",
     "T._foreach_zero_(a)", "T._foreach_zero_([])", "T._foreach_norm(5)"])


def _run(call, T):
    space = _lists(T)
    try:
        result = eval(call, {}, space)
    except Exception as exc:  # noqa: BLE001 (the class is what is compared)
        return type(exc), None, space
    return None, result, space


def _arrays(value):
    if value is None:
        return None
    return [np.asarray(t.detach().numpy() if hasattr(t, "detach") else t) for t in value]


@pytest.mark.parametrize("call", CALLS)
def test_foreach_matches_torch(call):
    torch_error, torch_result, torch_space = _run(call, torch)
    ember_error, ember_result, ember_space = _run(call, ember)
    assert ember_error is torch_error, (ember_error, torch_error)
    if torch_error is not None:
        return
    assert type(ember_result) is type(torch_result)
    assert (ember_result is ember_space["a"]) == (torch_result is torch_space["a"])
    for got, want in zip(_arrays(ember_result), _arrays(torch_result), strict=True):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    for key in ("a", "b", "c", "i", "u"):          # what the in-place forms wrote
        for got, want in zip(_arrays(ember_space[key]), _arrays(torch_space[key]), strict=True):
            np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_foreach_gradients_and_leaf_rule():
    grads = []
    for T in (torch, ember):
        x = [T.tensor(v, requires_grad=True) for v in FLOATS]
        y = [T.tensor(v * 0.5) for v in FLOATS]
        out = T._foreach_addcmul(T._foreach_mul(x, 3.0), x, y, 0.5)
        sum(o.sum() for o in T._foreach_exp(out)).backward()
        grads.append([g.grad.numpy() for g in x])
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
            T._foreach_mul_(x, 2.0)
    for got, want in zip(grads[1], grads[0]):
        np.testing.assert_allclose(got, want, rtol=1e-5)
