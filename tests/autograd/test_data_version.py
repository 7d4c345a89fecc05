"""`.data` reads and writes a tensor's memory with a version counter of its own, while
`.detach()` shares the tensor's (NOTE [.data has its own version counter],
src/ember/_core/storage.py), compared with PyTorch."""
from __future__ import annotations

import copy

import pytest
import torch

import ember


def both(case):
    """case(lib) for ember and torch: equal results, or the same error class and fragment."""
    results = []
    for lib in (ember, torch):
        try:
            results.append(("ok", case(lib)))
        except RuntimeError as exc:
            text = str(exc)
            fragment = "modified by an inplace operation" if "inplace" in text else text
            results.append(("error", fragment))
    assert results[0] == results[1]
    return results[0]


def test_write_through_data_keeps_saved_values_usable():
    # The ODE-solver pattern: y.data written while a view of y is saved for backward.
    def case(lib):
        x = lib.ones(3, requires_grad=True)
        y = x * 2
        w = y[:2] * y[:2]
        y.data[0] = 5.0
        w.sum().backward()
        return x.grad.tolist(), y.tolist(), y._version
    assert both(case) == ("ok", ([20.0, 8.0, 0.0], [5.0, 2.0, 2.0], 0))


def test_real_inplace_write_still_refused():
    def case(lib):
        x = lib.ones(3, requires_grad=True)
        y = x * 2
        w = y[:2] * y[:2]
        with lib.no_grad():
            y[0] = 5.0
        w.sum().backward()
    assert both(case)[0] == "error"


def test_data_add_then_backward():
    def case(lib):
        x = lib.ones(3, requires_grad=True)
        y = x * 2
        w = y * y
        y.data.add_(1)
        w.sum().backward()
        return x.grad.tolist(), y.tolist(), y._version
    both(case)


def test_leaf_data_add_then_backward():
    def case(lib):
        x = lib.ones(3, requires_grad=True)
        w = x * x
        x.data.add_(1)
        w.sum().backward()
        return x.grad.tolist(), x.tolist(), x._version
    both(case)


def test_views_of_data_count_with_data():
    def case(lib):
        x = lib.ones(3, requires_grad=True)
        y = x * 2
        w = y * y
        d = y.data
        v = d[0:1]
        v.mul_(2)
        w.sum().backward()
        return x.grad.tolist(), y.tolist(), v._version, d._version, y._version
    assert both(case)[1][2:] == (1, 1, 0)


def test_view_of_data_written_directly():
    def case(lib):
        x = lib.ones(3, requires_grad=True)
        y = x * 2
        w = y * y
        y.data[0:1].mul_(2)
        w.sum().backward()
        return x.grad.tolist(), y.tolist(), y._version
    both(case)


def test_data_version_starts_at_zero_and_counts_its_own_writes():
    def case(lib):
        y = lib.ones(3, requires_grad=True) * 2
        y.add_(1)
        y.add_(1)
        d = y.data
        before = d._version
        d[0] = 7
        return (before, d._version, y._version, y.data._version, y.tolist(), d._base is None,
                d.requires_grad, d.grad_fn, d.is_leaf)
    both(case)


def test_data_of_a_fresh_tensor():
    def case(lib):
        t = lib.zeros(3)
        d = t.data
        d.add_(1)
        d.add_(1)
        return t._version, d._version, t.tolist()
    both(case)


def test_data_of_data():
    def case(lib):
        x = lib.ones(3, requires_grad=True)
        y = x * 2
        w = y * y
        y.data.data.add_(1)
        w.sum().backward()
        return x.grad.tolist(), y.tolist(), y._version
    both(case)


def test_real_write_after_data_write_is_refused():
    def case(lib):
        x = lib.ones(3, requires_grad=True)
        y = x * 2
        w = y * y
        y.data[0] = 3
        y.add_(1)
        w.sum().backward()
    assert both(case)[0] == "error"


def test_detach_shares_the_version_counter():
    def case(lib):
        x = lib.ones(3, requires_grad=True)
        y = x * 2
        d = y.detach()
        d.add_(1)
        return d._version, y._version
    both(case)

    def refused(lib):
        x = lib.ones(3, requires_grad=True)
        y = x * 2
        w = y * y
        y.detach().add_(1)
        w.sum().backward()
    assert both(refused)[0] == "error"


def test_data_shares_memory_and_geometry():
    def case(lib):
        y = lib.arange(6.0, requires_grad=True) * 2
        v = y[2:]
        d = v.data
        d[0] = -1.0
        return (d.storage_offset(), d.stride(), d.untyped_storage().nbytes(),
                d.untyped_storage().data_ptr() == y.untyped_storage().data_ptr(),
                d.data_ptr() == v.data_ptr(), y.tolist())
    both(case)


def test_parameter_data_in_an_update_loop():
    def case(lib):
        p = lib.nn.Parameter(lib.ones(3))
        out = (p * p).sum()
        for _ in range(3):
            p.data.add_(-0.5)
        out.backward()
        return p.grad.tolist(), p.tolist(), p._version, type(p.data).__name__
    both(case)


def test_data_of_shared_memory_is_shared():
    def case(lib):
        s = lib.ones(3)
        s.share_memory_()
        return s.data.is_shared(), s.data[1:].is_shared()
    assert both(case) == ("ok", (True, True))


def test_deepcopy_keeps_data_on_the_tensors_storage():
    def case(lib):
        y = lib.ones(3) * 2
        y.add_(0)
        a, b = copy.deepcopy([y, y.data])
        b[0] = 9.0
        return a.tolist()
    both(case)


@pytest.mark.parametrize("device", ["cpu", "meta"])
def test_data_keeps_dtype_device_and_shape(device):
    def case(lib):
        t = lib.ones(2, 3, dtype=lib.float64, device=device)[:, 1:]
        d = t.data
        return str(d.dtype).split(".")[1], str(d.device), tuple(d.shape), d.stride()
    both(case)


def test_a_tensor_and_its_data_save_one_storage(tmp_path):
    # `.data` has a version counter of its own but the same memory: one record in the file, and
    # the loaded pair still shares it, as with torch.
    y = ember.arange(4.0, requires_grad=True) * 2
    ember.save([y, y.data], tmp_path / "e.pt")
    ty = torch.arange(4.0, requires_grad=True) * 2
    torch.save([ty, ty.data], tmp_path / "t.pt")
    import zipfile
    def records(name):
        return sorted(n.rsplit("/", 1)[1] for n in zipfile.ZipFile(tmp_path / name).namelist()
                      if "/data/" in n)
    assert records("e.pt") == records("t.pt") == ["0"]
    a, b = ember.load(tmp_path / "e.pt")
    b[0] = 7.0
    assert a[0].item() == 7.0
