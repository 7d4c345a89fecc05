"""NOTE [the gradient layout contract]: a leaf's `.grad` against PyTorch's: dense with the
leaf's strides, never an expanded or aliased view, accumulated in place into the same object,
and a new object with history under create_graph."""
import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def both(fn):
    return fn(ember), fn(torch)


def as_list(t):
    return None if t is None else np.asarray(t.detach().numpy()).tolist()


LEAVES = {
    "contiguous": lambda lib: lib.arange(12.).reshape(3, 4),
    "transposed": lambda lib: lib.arange(12.).reshape(3, 4).t(),
    "permuted 3-d": lambda lib: lib.arange(24.).reshape(2, 3, 4).permute(2, 0, 1),
    "strided slice (not dense)": lambda lib: lib.arange(24.).reshape(3, 8)[:, ::2],
    "scalar": lambda lib: lib.tensor(2.0),
}
LOSSES = {
    "sum (expanded gradient)": lambda p: p.sum(),
    "mul": lambda p: (p * 3).sum(),
    "matmul": lambda p: (p @ p.new_ones(p.shape[-1:])).sum() if p.ndim else p * 2,
    "used twice": lambda p: (p * p).sum() + p.sum(),
}


@pytest.mark.parametrize("loss", LOSSES, ids=list(LOSSES))
@pytest.mark.parametrize("leaf", LEAVES, ids=list(LEAVES))
def test_first_grad_is_dense_with_the_leafs_strides(leaf, loss):
    def run(lib):
        p = LEAVES[leaf](lib).clone() if leaf == "scalar" else LEAVES[leaf](lib)
        p.requires_grad_()
        LOSSES[loss](p).backward()
        g = p.grad
        g.zero_()               # writes into .grad must work (it is never an expanded view)
        g.add_(1)
        return (g.stride(), p.stride(), g.is_contiguous(), as_list(g))
    ours, theirs = both(run)
    assert ours == theirs


def test_later_gradients_accumulate_into_the_same_grad_object():
    def run(lib):
        p = lib.ones(3, 2, requires_grad=True)
        (p * 2).sum().backward()
        first, address = p.grad, p.grad.data_ptr()
        version = first._version
        (p * p).sum().backward()
        p.sum().backward()
        return (p.grad is first, p.grad.data_ptr() == address, p.grad._version > version,
                as_list(p.grad))
    ours, theirs = both(run)
    assert ours == theirs


def test_zero_grad_then_accumulate():
    def run(lib):
        p = lib.arange(4., requires_grad=True)
        p.sum().backward()
        p.grad.zero_()
        (p * p).sum().backward()
        return as_list(p.grad)
    ours, theirs = both(run)
    assert ours == theirs


def test_one_gradient_reaching_two_leaves_is_not_shared():
    def run(lib):
        a = lib.ones(3, requires_grad=True)
        b = lib.ones(3, requires_grad=True)
        (a + b).backward(lib.ones(3) * 2)
        shared = a.grad.data_ptr() == b.grad.data_ptr()
        a.grad.add_(5)
        return shared, as_list(a.grad), as_list(b.grad)
    ours, theirs = both(run)
    assert ours == theirs


def test_a_gradient_the_user_holds_is_copied():
    def run(lib):
        p = lib.zeros(3, requires_grad=True)
        given = lib.ones(3)
        (p * 1).backward(given)
        p.grad.add_(1)
        return (p.grad is given, p.grad.data_ptr() == given.data_ptr(), as_list(given))
    ours, theirs = both(run)
    assert ours == theirs


def test_a_retained_nonleaf_gradient_is_not_aliased_by_the_leaf():
    def run(lib):
        x = lib.ones(3, requires_grad=True)
        y = x + 0
        y.retain_grad()
        (y * lib.tensor([1., 2., 3.])).sum().backward()
        x.grad.zero_()
        return as_list(x.grad), as_list(y.grad), x.grad.data_ptr() == y.grad.data_ptr()
    ours, theirs = both(run)
    assert ours == theirs


def test_create_graph_gives_a_new_grad_with_history():
    def run(lib):
        p = lib.tensor([1., 2.], requires_grad=True)
        g0 = lib.autograd.grad((p ** 3).sum(), p, create_graph=True)[0]
        p.grad = None
        (p ** 3).sum().backward(create_graph=True)
        first = p.grad
        (p ** 2).sum().backward(create_graph=True)
        second = p.grad
        (h,) = lib.autograd.grad(second.sum(), p)
        return (first is second, first.grad_fn is not None, second.grad_fn is not None,
                as_list(g0), as_list(second), as_list(h))
    ours, theirs = both(run)
    assert ours == theirs


def test_hooks_see_and_change_the_gradient_before_accumulation():
    def run(lib):
        seen = []
        p = lib.ones(2, requires_grad=True)
        p.register_hook(lambda g: g * 10)
        p.register_post_accumulate_grad_hook(lambda t: seen.append(as_list(t.grad)))
        (p * 2).sum().backward()
        (p * 3).sum().backward()
        return seen, as_list(p.grad)
    ours, theirs = both(run)
    assert ours == theirs
