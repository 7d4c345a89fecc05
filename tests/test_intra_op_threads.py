"""Kernels split over ember's intra-op threads (NOTE [kernels split over the intra-op threads]):
each gives the same bits with set_num_threads(1) and (2), matches PyTorch, and really splits
at 2 threads (a spy counts the runs); small inputs run whole; BLAS's thread count comes back
after a split that pinned it; nested splits on the pool's threads run serially."""
import numpy as np
import pytest
import torch

import ember
import ember.nn.functional as F
from ember._core import threads
from ember._ops import nn_conv, nn_norm_rows, softmax_rows, special_fast_erf


@pytest.fixture
def thread_counts():
    before = ember.get_num_threads()
    yield (1, 2)
    ember.set_num_threads(before)


@pytest.fixture
def split_runs(monkeypatch):
    """How many runs each split handed out (the spy wraps threads.run_parts where kernels
    call it, and nn_conv's parallel_map)."""
    runs = []
    run_parts = threads.run_parts

    def spy_parts(fn, ranges):
        runs.append(len(ranges))
        return run_parts(fn, ranges)

    def spy_map(fn, items):
        items = list(items)
        runs.append(len(items))
        return threads.parallel_map(fn, items)
    for module in (softmax_rows, nn_norm_rows, special_fast_erf):
        monkeypatch.setattr(module, "run_parts", spy_parts)
    monkeypatch.setattr(nn_conv, "parallel_map", spy_map)
    monkeypatch.setattr(threads, "run_parts", spy_parts)    # (cpu_allocator's batched matmul)
    return runs


def _run_at(counts, runs, fn):
    """fn()'s NumPy results at each thread count, with how many runs the kernels split into."""
    results = []
    for count in counts:
        ember.set_num_threads(count)
        runs.clear()
        results.append(([np.array(t.detach().numpy()) for t in fn()], list(runs)))
    return results


def _same_bits_and_split(results):
    (one, one_runs), (two, two_runs) = results
    assert one_runs == [] or set(one_runs) == {1}
    assert two_runs and max(two_runs) >= 2, two_runs
    for a, b in zip(one, two):
        assert a.dtype == b.dtype and a.shape == b.shape
        assert np.array_equal(a, b, equal_nan=True)
    return two


def assert_close(got, expected, rtol=None, atol=None):
    expected = expected.detach().numpy() if isinstance(expected, torch.Tensor) else expected
    single = expected.dtype == np.float32
    np.testing.assert_allclose(got, expected, rtol=rtol or (1e-4 if single else 1e-7),
                               atol=atol or (1e-5 if single else 1e-9))


def _data(shape, dtype=np.float32, seed=0, scale=3.0):
    values = (np.random.default_rng(seed).standard_normal(shape) * scale).astype(dtype)
    values.flat[7] = 40.0           # far in a tail
    return values


def test_gelu_and_its_backward_split(thread_counts, split_runs):
    x, g = _data((8, 256, 512)), _data((8, 256, 512), seed=1, scale=1.0)

    def run():
        e_x = ember.tensor(x, requires_grad=True)
        y = F.gelu(e_x)
        return [y] + list(ember.autograd.grad(y, e_x, ember.tensor(g)))
    y, dx = _same_bits_and_split(_run_at(thread_counts, split_runs, run))
    t_x = torch.tensor(x, requires_grad=True)
    t_y = torch.nn.functional.gelu(t_x)
    (t_dx,) = torch.autograd.grad(t_y, t_x, torch.tensor(g))
    assert_close(y, t_y.detach().numpy())
    assert_close(dx, t_dx.numpy())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(64, 4, 64, 64), (600, 1000), (520, 1024)])
def test_softmax_log_softmax_and_backwards_split(thread_counts, split_runs, dtype, shape):
    x, g = _data(shape, dtype), _data(shape, dtype, seed=1, scale=1.0)
    x.flat[100] = -np.inf

    def run():
        out = []
        for op in (F.softmax, F.log_softmax):
            e_x = ember.tensor(x, requires_grad=True)
            y = op(e_x, -1)
            out += [y] + list(ember.autograd.grad(y, e_x, ember.tensor(g)))
        return out
    ours = _same_bits_and_split(_run_at(thread_counts, split_runs, run))
    theirs = []
    for op in (torch.softmax, torch.log_softmax):
        t_x = torch.tensor(x, requires_grad=True)
        t_y = op(t_x, -1)
        theirs += [t_y.detach().numpy(), torch.autograd.grad(t_y, t_x, torch.tensor(g))[0]]
    for got, expected in zip(ours, theirs):
        assert_close(got, np.asarray(expected))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,normalized", [((32, 64, 512), (512,)),
                                              ((4099, 300), (300,)),
                                              ((16, 40, 50, 33), (50, 33))])
def test_layer_norm_and_backward_split(thread_counts, split_runs, dtype, shape, normalized):
    x, g = _data(shape, dtype) + 1, _data(shape, dtype, seed=1, scale=1.0)
    w, b = _data(normalized, dtype, seed=2), _data(normalized, dtype, seed=3)

    def run():
        tensors = [ember.tensor(a, requires_grad=True) for a in (x, w, b)]
        y = F.layer_norm(tensors[0], normalized, tensors[1], tensors[2])
        return [y] + list(ember.autograd.grad(y, tensors, ember.tensor(g)))
    ours = _same_bits_and_split(_run_at(thread_counts, split_runs, run))
    t = [torch.tensor(a, requires_grad=True) for a in (x, w, b)]
    t_y = torch.nn.functional.layer_norm(t[0], normalized, t[1], t[2])
    theirs = [t_y] + list(torch.autograd.grad(t_y, t, torch.tensor(g)))
    tolerance = {"rtol": 1e-4, "atol": 1e-3} if dtype == np.float32 else {}
    for got, expected in zip(ours, theirs):
        assert_close(got, expected.detach().numpy(), **tolerance)


@pytest.mark.parametrize("a_shape,b_shape", [((16, 4, 64, 64), (16, 4, 64, 64)),
                                             ((8, 3, 200, 130), (8, 3, 130, 150)),
                                             ((6, 700, 80), (6, 80, 700))])
def test_batched_matmul_splits_its_stack(thread_counts, split_runs, a_shape, b_shape):
    a, b = _data(a_shape, scale=1.0), _data(b_shape, seed=1, scale=1.0)

    def run():
        e_a, e_b = ember.tensor(a, requires_grad=True), ember.tensor(b, requires_grad=True)
        y = ember.matmul(e_a, e_b)
        return [y]
    (y,) = _same_bits_and_split(_run_at(thread_counts, split_runs, run))
    assert_close(y, (torch.tensor(a) @ torch.tensor(b)).numpy(), rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("stride,padding", [(1, 1), (2, 0)])
def test_one_group_convolution_chunks_on_the_pool(thread_counts, split_runs, stride, padding):
    x, w = _data((16, 16, 32, 32), scale=1.0), _data((24, 16, 3, 3), seed=1, scale=0.2)

    def run():
        e_x, e_w = ember.tensor(x, requires_grad=True), ember.tensor(w, requires_grad=True)
        y = F.conv2d(e_x, e_w, stride=stride, padding=padding)
        g = ember.tensor(_data(tuple(y.shape), seed=2, scale=1.0))
        return [y] + list(ember.autograd.grad(y, (e_x, e_w), g))
    ours = _same_bits_and_split(_run_at(thread_counts, split_runs, run))
    t_x, t_w = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    t_y = torch.nn.functional.conv2d(t_x, t_w, stride=stride, padding=padding)
    t_g = torch.tensor(_data(tuple(t_y.shape), seed=2, scale=1.0))
    theirs = [t_y] + list(torch.autograd.grad(t_y, (t_x, t_w), t_g))
    for got, expected in zip(ours, theirs):
        assert_close(got, expected.detach().numpy(), rtol=1e-4, atol=1e-3)


def test_small_inputs_run_whole(thread_counts, split_runs):
    ember.set_num_threads(2)
    x = ember.randn(16, 64, 128, requires_grad=True)
    y = F.layer_norm(F.gelu(ember.softmax(x, -1)), (128,))
    y.sum().backward()
    ember.matmul(ember.randn(16, 4, 64, 32), ember.randn(16, 4, 32, 64))
    assert set(split_runs) <= {1}
    assert threads.parts(1000, 4096) == [(0, 1000)]
    assert threads.parts(1000, 10, 64) == [(0, 512), (512, 1000)]


def test_blas_threads_come_back_after_a_pinned_split(thread_counts):
    pytest.importorskip("threadpoolctl")
    controllers = threads._blas_controllers()      # the BLAS libraries NumPy had loaded
    assert controllers

    def blas_counts():
        return [c.get_num_threads() for c in controllers]
    ember.set_num_threads(2)
    before = blas_counts()
    with threads.one_blas_thread():
        seen = blas_counts()
        with threads.one_blas_thread():
            assert blas_counts() == seen
    assert set(seen) == {1}
    assert blas_counts() == before
    F.conv2d(ember.randn(16, 16, 16, 16), ember.randn(16, 16, 3, 3), padding=1)
    assert blas_counts() == before


def test_splits_on_the_pool_threads_run_there(thread_counts):
    # A run that splits again (softmax's rows summed by a threaded sum) must not wait on
    # tasks queued behind the pool's busy threads: inside the pool the inner split is serial.
    ember.set_num_threads(8)
    inner = []

    def outer(start, stop):
        inner.append((threads.parts(stop - start, 2),
                      threads.parallel_map(lambda i: i * i, range(4))))
        return start
    assert threads.run_parts(outer, threads.parts(16, 2)) == [0, 2, 4, 6, 8, 10, 12, 14]
    on_pool = [ranges for ranges, _ in inner if len(ranges) == 1]
    assert len(on_pool) >= 7       # every run but the calling thread's
    assert all(squares == [0, 1, 4, 9] for _, squares in inner)
