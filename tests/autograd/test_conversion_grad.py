"""Gradients through copies and conversions (src/ember/_ops/conversion.py) against PyTorch's:
clone, Tensor.to / double / float, contiguous and copy_ (see NOTE [copy_ under autograd])."""
import warnings

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")

X = np.array([[1.5, -2.0, 0.25], [3.0, 0.5, -1.0]])
W = np.array([[0.5, 1.0, -2.0], [1.5, -0.5, 3.0]])


def both(fn):
    """Run fn(lib) for ember and torch and return both results."""
    return fn(ember), fn(torch)


def value(t):
    if t is None:
        return None
    t = t.detach()
    if hasattr(t, "resolve_conj"):
        t = t.resolve_conj()
    return (str(t.dtype).rpartition(".")[2], np.asarray(t.numpy()).tolist())


def grads_of(lib, make_output, inputs):
    """(dtype name, values) of d(sum(output * W))/d(inputs)."""
    out = make_output()
    weights = lib.tensor(W).to(out.dtype)
    loss = (out * weights).sum()
    if loss.dtype.is_complex:
        loss = loss.real
    return [value(g) for g in lib.autograd.grad(loss, inputs, allow_unused=True)]


def test_clone_passes_the_gradient_through():
    def run(lib):
        x = lib.tensor(X, requires_grad=True)
        y = x * 2
        return grads_of(lib, lambda: y.clone() * y, [x]), y.clone().grad_fn.name()
    ours, theirs = both(run)
    assert ours == theirs


@pytest.mark.parametrize("source,target", [
    ("float32", "float64"), ("float64", "float32"), ("float64", "float16"),
    ("float32", "bfloat16"), ("float64", "complex128"),
])
def test_to_dtype_casts_the_gradient_back(source, target):
    def run(lib):
        x = lib.tensor(X, dtype=getattr(lib, source), requires_grad=True)
        return grads_of(lib, lambda: x.to(getattr(lib, target)) * 3, [x])
    ours, theirs = both(run)
    assert ours == theirs


def test_complex_to_real_keeps_the_real_part_of_the_gradient():
    def run(lib):
        x = lib.tensor(X + 1j * W, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return grads_of(lib, lambda: x.to(lib.float64) ** 2, [x])
    ours, theirs = both(run)
    assert ours == theirs


def test_double_float_and_to_keyword_forms():
    def run(lib):
        x = lib.tensor(X, dtype=lib.float32, requires_grad=True)
        y = lib.tensor(X, dtype=lib.float64, requires_grad=True)
        return (grads_of(lib, lambda: x.double() * x.to(dtype=lib.float64), [x]),
                grads_of(lib, lambda: y.float() + y.to(lib.float32), [y]),
                x.double().grad_fn.name(), x.to(lib.float32) is x)
    ours, theirs = both(run)
    assert ours == theirs


def test_to_an_integer_dtype_is_not_differentiable():
    def run(lib):
        x = lib.tensor(X, requires_grad=True)
        y = x.to(lib.int64)
        return y.requires_grad, y.grad_fn
    ours, theirs = both(run)
    assert ours == theirs


def test_contiguous_of_a_transpose():
    def run(lib):
        x = lib.tensor(X, requires_grad=True)
        y = x.t().contiguous()
        return grads_of(lib, lambda: y.t() * x, [x]), y.is_contiguous()
    ours, theirs = both(run)
    assert ours == theirs


def test_clone_and_to_double_pass_gradcheck():
    x = ember.tensor(X, requires_grad=True)
    for fn in (lambda t: t.clone() * t, lambda t: t.to(ember.float64) ** 2,
               lambda t: t.t().contiguous() * 2):
        assert ember.autograd.gradcheck(fn, (x,))
        assert ember.autograd.gradgradcheck(fn, (x,))


def test_copy_gives_src_the_gradient_and_dst_old_history_none():
    def run(lib):
        a = lib.tensor(X, requires_grad=True)
        src = lib.tensor(W, requires_grad=True)
        dst = a * 2
        dst.copy_(src * 3)
        return (grads_of(lib, lambda: dst * dst, [a, src]), dst.grad_fn.next_functions[1][0]
                .name(), dst._version)
    ours, theirs = both(run)
    assert ours[0] == theirs[0]
    assert ours[1:] == theirs[1:]


def test_copy_broadcasts_and_casts_the_gradient_back_to_src():
    def run(lib):
        src = lib.tensor([1.0, -2.0, 0.5], dtype=lib.float32, requires_grad=True)
        dst = lib.zeros(2, 3, dtype=lib.float64)
        dst.copy_(src)
        return grads_of(lib, lambda: dst * 2, [src]), dst.requires_grad
    ours, theirs = both(run)
    assert ours == theirs


def test_copy_into_a_view_of_a_non_leaf():
    def run(lib):
        a = lib.tensor(X, requires_grad=True)
        src = lib.tensor([4.0, 5.0, 6.0], requires_grad=True)
        base = a * 1
        base[1].copy_(src)
        return grads_of(lib, lambda: base ** 2, [a, src])
    ours, theirs = both(run)
    assert ours == theirs


def test_copy_from_a_constant_cuts_dst_off_its_history():
    def run(lib):
        a = lib.tensor(X, requires_grad=True)
        dst = a * 2
        dst.copy_(lib.tensor(W))
        return grads_of(lib, lambda: dst * a, [a]), dst.requires_grad
    ours, theirs = both(run)
    assert ours == theirs


def test_copy_into_a_leaf_that_requires_grad():
    for lib in (ember, torch):
        leaf = lib.tensor(X, requires_grad=True)
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
            leaf.copy_(lib.tensor(W))
        with lib.no_grad():
            leaf.copy_(lib.tensor(W))
        assert leaf.grad_fn is None and leaf.requires_grad
        assert value(leaf) == value(torch.tensor(W))


def test_copy_passes_gradcheck():
    src = ember.tensor(W[0], requires_grad=True)
    a = ember.tensor(X, requires_grad=True)

    def fn(a, src):
        dst = a * 1
        dst[0].copy_(src * src)
        whole = a * 1
        whole.copy_(dst * src)
        return whole * a

    assert ember.autograd.gradcheck(fn, (a, src))
    assert ember.autograd.gradgradcheck(fn, (a, src))
