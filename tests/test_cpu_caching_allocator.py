"""The CPU caching allocator (NOTE [CPU caching allocator]): large kernel results reuse freed
buffers, never one that anything still refers to; `ember.cpu.empty_cache` / `memory_stats`.
Values are checked against PyTorch (the oracle) on the same inputs."""
import numpy as np
import pytest
import torch

import ember
from ember._backends import cpu_allocator

N = 256          # a (256, 256) float32 result is 256 KiB: pooled


@pytest.fixture
def fresh_cache():
    ember.cpu.empty_cache()
    yield
    ember.cpu.empty_cache()


def _pair(seed, shape=(N, N)):
    values = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return ember.from_numpy(values.copy()), torch.from_numpy(values.copy())


def test_freed_result_is_reused(fresh_cache):
    (a, ta), (b, tb) = _pair(0), _pair(1)
    first = a @ b
    ptr = first.data_ptr()
    del first
    second = a @ b
    assert second.data_ptr() == ptr
    np.testing.assert_allclose(second.numpy(), (ta @ tb).numpy(), rtol=1e-5, atol=1e-4)
    assert ember.cpu.memory_stats()["num_alloc_hits"] >= 1


def test_buffer_a_view_still_uses_is_not_reused(fresh_cache):
    (a, ta), (b, tb) = _pair(2), _pair(3)
    first = a @ b
    row = first[3]                  # a view keeps the buffer
    exported = (a @ a).numpy()      # so does an array exported to NumPy
    ptrs = {first.data_ptr(), exported.ctypes.data}
    del first
    others = [a @ b, b @ a, b @ b]
    assert not ptrs & {t.data_ptr() for t in others}
    np.testing.assert_allclose(row.numpy(), (ta @ tb)[3].numpy(), rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(exported, (ta @ ta).numpy(), rtol=1e-5, atol=1e-4)


def test_saved_tensors_keep_their_buffers(fresh_cache):
    (a, ta), (b, tb) = _pair(4), _pair(5)
    a.requires_grad_(True)
    ta.requires_grad_(True)
    h = ember.nn.functional.gelu(a @ b)       # gelu saves the product
    th = torch.nn.functional.gelu(ta @ tb)
    for _ in range(3):
        _ = (b @ b) @ b                       # churn the cache between forward and backward
    h.sum().backward()
    th.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), rtol=1e-4, atol=1e-3)


def test_pooled_kernels_match_pytorch(fresh_cache):
    (x, tx), (y, ty) = _pair(6, (64, 8, 128)), _pair(7, (64, 8, 128))
    mask = np.random.default_rng(8).random((8, 128)) < 0.5
    for _ in range(2):          # the second round runs on reused buffers
        got = [ember.cat([x, y], 1), x.masked_fill(ember.from_numpy(mask), -1.5),
               x.transpose(0, 1).clone(memory_format=ember.contiguous_format),
               x.transpose(0, 1).reshape(8, -1), ember.nn.functional.gelu(x),
               ember.nn.functional.linear(x, y[:16, 0], y[0, 0, :16])]
        want = [torch.cat([tx, ty], 1), tx.masked_fill(torch.from_numpy(mask), -1.5),
                tx.transpose(0, 1).clone(memory_format=torch.contiguous_format),
                tx.transpose(0, 1).reshape(8, -1), torch.nn.functional.gelu(tx),
                torch.nn.functional.linear(tx, ty[:16, 0], ty[0, 0, :16])]
        for g, w in zip(got, want):
            assert tuple(g.shape) == tuple(w.shape) and g.is_contiguous()
            np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-5, atol=1e-5)
        del got


def test_empty_cache_releases_only_free_buffers(fresh_cache):
    (a, _), (b, _) = _pair(9), _pair(10)
    kept, dropped = a @ b, b @ a
    del dropped
    assert ember.cpu.memory_reserved() == 2 * N * N * 4
    assert ember.cpu.memory_allocated() == N * N * 4
    ember.cpu.empty_cache()
    assert ember.cpu.memory_reserved() == ember.cpu.memory_allocated() == N * N * 4
    stats = ember.cpu.memory_stats()
    assert stats["inactive_split_bytes.all.current"] == 0
    assert stats["num_device_free"] >= 1
    del kept


def test_limit_bounds_the_cache(fresh_cache):
    (a, ta), (b, tb) = _pair(11), _pair(12)
    old = cpu_allocator.limit
    try:
        ember.cpu.set_cache_limit(0)
        before = ember.cpu.memory_stats()["num_ooms"]
        got = a @ b
        assert ember.cpu.memory_reserved() == 0
        assert ember.cpu.memory_stats()["num_ooms"] == before + 1
        np.testing.assert_allclose(got.numpy(), (ta @ tb).numpy(), rtol=1e-5, atol=1e-4)
    finally:
        ember.cpu.set_cache_limit(old)
    with pytest.raises(ValueError):
        ember.cpu.set_cache_limit(-1)


def test_size_classes_waste_at_most_an_eighth():
    for nbytes in (65536, 65537, 100_000, 3 * 2**20 + 5, 2**30 - 1):
        size = cpu_allocator.size_class(nbytes)
        assert nbytes <= size <= nbytes * 1.125
