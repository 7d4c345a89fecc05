"""Pickling and deep-copying tensors, compared with what PyTorch does."""
import copy
import pickle

import numpy as np
import pytest
import torch

import ember

DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int8", "uint8", "bool",
          "complex64"]


def _pair(values, name):
    return (torch.tensor(values).to(getattr(torch, name)),
            ember.tensor(values).to(getattr(ember, name)))


def _same(e, t):
    assert e.dtype == getattr(ember, str(t.dtype).split(".")[1])
    assert tuple(e.shape) == tuple(t.shape)
    if t.numel():
        assert e.stride() == t.stride()
    assert e.storage_offset() == t.storage_offset()
    assert e.requires_grad == t.requires_grad
    np.testing.assert_array_equal(e.detach().to(ember.float64).numpy()
                                  if not e.is_complex() else e.detach().numpy(),
                                  t.detach().to(torch.float64).numpy()
                                  if not t.is_complex() else t.detach().numpy())


@pytest.mark.parametrize("name", DTYPES)
def test_pickle_round_trip(name, rng):
    t, e = _pair(rng.standard_normal((3, 4)) * 5, name)
    _same(pickle.loads(pickle.dumps(e)), pickle.loads(pickle.dumps(t)))


@pytest.mark.parametrize("protocol", [2, 4, 5])
def test_pickle_keeps_view_layout(protocol, rng):
    values = rng.standard_normal((4, 6))
    t, e = _pair(values, "float32")
    tv, ev = t[1:, ::2], e[1:, ::2]
    _same(pickle.loads(pickle.dumps(ev, protocol)), pickle.loads(pickle.dumps(tv, protocol)))
    te, ee = t.t(), e.t()
    _same(pickle.loads(pickle.dumps(ee, protocol)), pickle.loads(pickle.dumps(te, protocol)))


def test_pickled_views_do_not_share_storage():
    # NOTE [pickle vs deepcopy sharing]: PyTorch's plain pickle copies each tensor's storage.
    for lib in (torch, ember):
        base = lib.zeros(3, 4)
        view = base[1:]
        base2, view2 = pickle.loads(pickle.dumps([base, view]))
        view2.copy_(lib.ones(2, 4))
        assert float(base2.sum()) == 0.0
        assert view2.untyped_storage().nbytes() == base.untyped_storage().nbytes()


def test_pickle_same_tensor_twice_is_one_object():
    e = ember.ones(3)
    a, b = pickle.loads(pickle.dumps([e, e]))
    assert a is b


def test_pickle_requires_grad_and_attributes():
    for lib in (torch, ember):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        x.grad = lib.ones(2)
        x.tag = "weights"
        y = pickle.loads(pickle.dumps(x))
        assert y.requires_grad and y.is_leaf and y.grad is None and y.tag == "weights"
        z = pickle.loads(pickle.dumps(x * 2))
        assert z.requires_grad and z.is_leaf


def test_pickle_meta_and_empty():
    for shape in [(2, 3), (), (0, 4)]:
        m = pickle.loads(pickle.dumps(ember.empty(shape, device="meta", dtype=ember.int64)))
        assert m.is_meta and tuple(m.shape) == shape and m.dtype is ember.int64
        t, e = torch.zeros(shape), ember.zeros(shape)
        _same(pickle.loads(pickle.dumps(e)), pickle.loads(pickle.dumps(t)))


def test_unpickled_tensor_is_writable_and_independent():
    e = ember.tensor([1.0, 2.0, 3.0])
    f = pickle.loads(pickle.dumps(e))
    f.copy_(ember.zeros(3))
    assert e.tolist() == [1.0, 2.0, 3.0]
    assert f._version == 1


@pytest.mark.parametrize("name", DTYPES)
def test_deepcopy_values(name, rng):
    t, e = _pair(rng.standard_normal((2, 5)) * 5, name)
    _same(copy.deepcopy(e), copy.deepcopy(t))
    assert copy.deepcopy(e).data_ptr() != e.data_ptr()


def test_deepcopy_keeps_views_sharing_within_one_call():
    for lib in (torch, ember):
        base = lib.zeros(3, 4)
        view = base[1:, ::2]
        base2, view2 = copy.deepcopy([base, view])
        assert view2.storage_offset() == view.storage_offset()
        assert view2.stride() == view.stride()
        view2.copy_(lib.ones(2, 2))
        assert float(base2.sum()) == 4.0
        assert float(base.sum()) == 0.0


def test_deepcopy_requires_grad_grad_and_attributes():
    results = []
    for lib in (torch, ember):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        x.grad = lib.tensor([0.5, 0.25])
        x.tag = ["a"]
        y = copy.deepcopy(x)
        assert y.requires_grad and y.grad is not x.grad and y.tag == ["a"] and y.tag is not x.tag
        results.append(y.grad.tolist())
    assert results[0] == results[1]


def test_deepcopy_of_non_leaf_raises_like_torch():
    x = torch.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError) as expected:
        copy.deepcopy(x * 2)
    e = ember.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError) as got:
        copy.deepcopy(e * 2)
    assert str(got.value) == str(expected.value)


def test_deepcopy_memo_returns_same_copy():
    e = ember.ones(2)
    a, b = copy.deepcopy([e, e])
    assert a is b
    m = copy.deepcopy(ember.empty(2, 3, device="meta"))
    assert m.is_meta and tuple(m.shape) == (2, 3)


def test_dtype_and_device_pickle_to_the_same_objects():
    for d in (ember.float32, ember.bfloat16, ember.int64):
        assert pickle.loads(pickle.dumps(d)) is d
    assert pickle.loads(pickle.dumps(ember.device("cpu"))) == ember.device("cpu")
