"""In-place ops through views under autograd (NOTE [in-place through a view]), against PyTorch."""
import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def rounded(t):
    return None if t is None else np.round(t.detach().numpy().astype(np.float64), 5).tolist()


def both(fn):
    return fn(ember), fn(torch)


def test_write_through_a_column_view_rewires_the_base():
    def run(lib):
        x = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        w = lib.tensor([10.0, 20.0], requires_grad=True)
        y = x * 2
        v = y[:, 1]
        v.mul_(w)
        names = (y.grad_fn.name(), v.grad_fn.name())
        (y * y).sum().backward()
        return names, rounded(x.grad), rounded(w.grad)
    ours, theirs = both(run)
    assert ours == theirs


def test_write_into_a_view_of_a_plain_tensor_gives_it_history():
    def run(lib):
        w = lib.tensor([10.0, 20.0], requires_grad=True)
        z = lib.zeros(4)
        z[1:3].add_(w)
        flags = (z.requires_grad, z.is_leaf, z.grad_fn.name())
        (z * lib.arange(4.0)).sum().backward()
        return flags, rounded(w.grad)
    ours, theirs = both(run)
    assert ours == theirs


def test_write_through_a_transposed_view():
    def run(lib):
        a = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        b = a * a
        b.t().mul_(lib.tensor([[1.0, 2.0], [3.0, 4.0]]))
        (b * lib.tensor([[1.0, -1.0], [2.0, 0.5]])).sum().backward()
        return rounded(a.grad)
    ours, theirs = both(run)
    assert ours == theirs


def test_view_used_after_the_write_reads_the_new_history():
    def run(lib):
        x = lib.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        y = x.exp()
        y = y * 1.0
        v = y[1:3]
        v.add_(1.0)
        v.mul_(3.0)
        (v.sum() + y.sum() * 2).backward()
        return rounded(x.grad)
    ours, theirs = both(run)
    assert ours == theirs


def test_view_of_a_leaf_refuses_in_place():
    for lib in (ember, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        with pytest.raises(RuntimeError, match="view of a leaf Variable"):
            x[0:1].mul_(2)


def test_views_made_before_a_write_see_the_new_history():
    def run(lib):
        x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        y = x * 1
        row, column = y[0], y[:, 1]
        y.mul_(2)
        (row.sum() * 3 + (column * column).sum()).backward()
        return rounded(x.grad)
    ours, theirs = both(run)
    assert ours == theirs


def test_overlapping_view_after_a_write_through_another_view():
    def run(lib):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        z = x.exp() * 1
        first, second = z[0:2], z[1:3]
        first.mul_(10)
        second.sum().backward()
        return rounded(x.grad)
    ours, theirs = both(run)
    assert ours == theirs
