"""The Tensor object against PyTorch: metadata, conversions, `to`, copies and dunders."""
# ruff: noqa: B023  (the lambdas built in loops run at once, inside their iteration)

import warnings

import numpy as np
import pytest
import torch

import ember


def _outcome(fn):
    try:
        result = fn()
    except Exception as error:  # noqa: BLE001  (the class is what we compare)
        return type(error)
    if isinstance(result, (torch.Tensor, ember.Tensor)):
        return ("tensor", str(result.dtype).split(".")[-1], tuple(result.shape),
                result.detach().cpu().to(torch.float64 if isinstance(result, torch.Tensor)
                                         else ember.float64).tolist()
                if result.device.type != "meta" and not result.is_complex() else None)
    if isinstance(result, (torch.dtype, ember.dtype, torch.device, ember.device)):
        return str(result).replace("torch.", "ember.")
    if isinstance(result, (torch.Size, ember.Size)):
        return tuple(result)
    if isinstance(result, str):
        return result.replace("torch.", "ember.")
    return result


def _both(fn, *arrays):
    """fn(lib, *tensors) run on torch and ember tensors made from the same arrays."""
    expected = _outcome(lambda: fn(torch, *[torch.tensor(a) for a in arrays]))
    got = _outcome(lambda: fn(ember, *[ember.tensor(a) for a in arrays]))
    assert got == expected


SHAPES = [(), (0,), (3,), (2, 3), (2, 0, 4), (2, 3, 4)]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_metadata(shape, rng):
    values = rng.standard_normal(shape).astype(np.float32)
    for fn in [lambda lib, t: t.shape, lambda lib, t: t.size(), lambda lib, t: t.dim(),
               lambda lib, t: t.ndim, lambda lib, t: t.numel(), lambda lib, t: t.nelement(),
               lambda lib, t: t.dtype, lambda lib, t: t.device, lambda lib, t: t.stride(),
               lambda lib, t: t.storage_offset(), lambda lib, t: t.is_contiguous(),
               lambda lib, t: t.element_size(), lambda lib, t: t.itemsize,
               lambda lib, t: t.nbytes, lambda lib, t: t.ndimension(),
               lambda lib, t: t.size(0), lambda lib, t: t.size(-1), lambda lib, t: t.size(5),
               lambda lib, t: t.stride(0), lambda lib, t: t.is_floating_point(),
               lambda lib, t: t.is_complex(), lambda lib, t: t.is_signed(),
               lambda lib, t: t.is_leaf, lambda lib, t: t.requires_grad,
               lambda lib, t: t.get_device(), lambda lib, t: t.is_cuda]:
        _both(fn, values)


def test_size_dim_out_of_range_raises_index_error():
    e = ember.zeros(2, 3)
    with pytest.raises(IndexError):
        e.size(2)
    with pytest.raises(IndexError):
        e.size(-3)
    with pytest.raises(IndexError):
        e.stride(2)


def test_view_metadata_matches_torch(rng):
    values = rng.standard_normal((4, 6)).astype(np.float32)
    views = [lambda t: t[1:, ::2], lambda t: t.t(), lambda t: t[2], lambda t: t[:, 1],
             lambda t: t.transpose(0, 1)[1:], lambda t: t.reshape(2, 12)[:, 3:]]
    for view in views:
        for fn in [lambda lib, t: view(t).stride(), lambda lib, t: view(t).storage_offset(),
                   lambda lib, t: view(t).is_contiguous(), lambda lib, t: view(t).shape]:
            _both(fn, values)


def test_data_ptr_tracks_views_and_copies():
    e = ember.zeros(4, 5)
    assert e[0].data_ptr() == e.data_ptr()
    assert e[1].data_ptr() == e.data_ptr() + 5 * e.element_size()
    assert e[:, 2].data_ptr() == e.data_ptr() + 2 * e.element_size()
    assert e.clone().data_ptr() != e.data_ptr()
    assert e.view(20).data_ptr() == e.data_ptr()
    assert e.contiguous().data_ptr() == e.data_ptr()
    assert e.t().contiguous().data_ptr() != e.data_ptr()
    assert ember.empty(2, device="meta").data_ptr() == 0


@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 3, 4)], ids=str)
def test_transpose_properties(shape, rng):
    values = rng.standard_normal(shape)
    complex_values = values + 1j * rng.standard_normal(shape)
    for arr in (values, complex_values):
        for attr in ("T", "mT", "H", "mH"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                expected = _outcome(lambda: getattr(torch.tensor(arr), attr).resolve_conj())
                got = _outcome(lambda: getattr(ember.tensor(arr), attr))
            if isinstance(expected, tuple) and arr is complex_values:
                got_t = getattr(ember.tensor(arr), attr)
                want = getattr(torch.tensor(arr), attr).resolve_conj()
                np.testing.assert_array_equal(got_t.numpy(), want.numpy())
            else:
                assert got == expected, attr


def test_transposes_warn_on_unusual_dims():
    # PyTorch warns once per process, so the warnings are checked on ember alone.
    for shape, attrs in [((3,), ["T"]), ((2, 3, 4), ["T"]), ((), ["T", "mT", "H", "mH"])]:
        for attr in attrs:
            with pytest.warns(UserWarning, match="deprecated"):
                _ = getattr(ember.zeros(shape), attr)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _ = ember.zeros(2, 3).T, ember.zeros(2, 3, 4).mT


def test_item_and_errors():
    for values in ([2.5], [[3]], 7, [True], [1 + 2j]):
        _both(lambda lib, t: t.item(), np.asarray(values))
    for values in ([1.0, 2.0], np.zeros((0,))):
        _both(lambda lib, t: t.item(), np.asarray(values))
    with pytest.raises(RuntimeError):
        ember.zeros(2, device="meta").sum().item()


def test_tolist(rng):
    for shape in SHAPES:
        for dtype in ("float32", "int64", "bool"):
            values = (rng.standard_normal(shape) * 3).astype(dtype)
            expected = torch.tensor(values).tolist()
            got = ember.tensor(values).tolist()
            assert got == expected
            assert type(got) is type(expected)


def test_numpy_shares_memory_and_refuses_grad():
    e = ember.tensor([1.0, 2.0, 3.0])
    array = e.numpy()
    array[0] = 10.0
    assert e.tolist()[0] == 10.0
    assert np.shares_memory(np.asarray(e), array)
    assert np.asarray(e, dtype=np.float64).dtype == np.float64
    g = ember.tensor([1.0], requires_grad=True)
    for lib, t in ((torch, torch.tensor([1.0], requires_grad=True)), (ember, g)):
        with pytest.raises(RuntimeError):
            t.numpy()
        assert t.numpy(force=True).tolist() == [1.0]
        assert t.detach().numpy().tolist() == [1.0]
    with pytest.raises(TypeError):
        ember.zeros(2, device="meta").numpy()


def test_dlpack_round_trips_share_memory():
    e = ember.tensor([1.0, 2.0, 3.0])
    back = ember.from_dlpack(e)
    assert back.data_ptr() == e.data_ptr()
    array = np.arange(6, dtype=np.int32).reshape(2, 3)
    f = ember.from_dlpack(array)
    assert f.dtype is ember.int32 and f.tolist() == array.tolist()
    array[0, 0] = 99
    assert f[0, 0].item() == 99
    t = torch.from_dlpack(ember.tensor([[1.0, 2.0], [3.0, 4.0]]).t())
    assert t.tolist() == [[1.0, 3.0], [2.0, 4.0]]
    g = ember.from_dlpack(torch.tensor([[1, 2], [3, 4]]).t())
    assert g.tolist() == [[1, 3], [2, 4]] and g.stride() == (1, 2)
    with pytest.raises(RuntimeError):
        ember.from_dlpack(3)


TO_CALLS = [
    lambda lib, t: t.to(lib.float64),
    lambda lib, t: t.to(lib.int32),
    lambda lib, t: t.to(dtype=lib.float16),
    lambda lib, t: t.to("cpu"),
    lambda lib, t: t.to("cpu", lib.float64),
    lambda lib, t: t.to(lib.device("cpu"), dtype=lib.int64),
    lambda lib, t: t.to(device="cpu", dtype=lib.bfloat16, non_blocking=True),
    lambda lib, t: t.to(lib.zeros(1, dtype=lib.int8)),
    lambda lib, t: t.to(lib.float32, True, True),
    lambda lib, t: t.to(lib.float32, copy=True),
    lambda lib, t: t.to(None),
    lambda lib, t: t.to("meta"),
    lambda lib, t: t.to("meta").to(lib.float64),
    lambda lib, t: t.to(lib.float64, "cpu"),
    lambda lib, t: t.to(foo=1),
    lambda lib, t: t.to("foo"),
    lambda lib, t: t.to(float),
    lambda lib, t: t.to(int),
    lambda lib, t: t.to(bool),
]


@pytest.mark.parametrize("call", range(len(TO_CALLS)))
def test_to_forms(call, rng):
    values = (rng.standard_normal((2, 3)) * 4).astype(np.float32)
    _both(TO_CALLS[call], values)


def test_to_returns_self_unless_copy():
    for lib in (torch, ember):
        t = lib.zeros(3)
        assert t.to(lib.float32) is t
        assert t.to("cpu") is t
        assert t.to(t) is t
        assert t.to(lib.float32, copy=True) is not t
        assert t.to(lib.float64) is not t
        m = lib.zeros(2, device="meta")
        with pytest.raises(NotImplementedError):
            m.to("cpu")


@pytest.mark.parametrize("method", ["float", "double", "half", "bfloat16", "long", "int",
                                    "short", "char", "byte", "bool", "cfloat", "cdouble"])
def test_dtype_shortcut_methods(method):
    values = np.array([-2.7, -0.5, 0.0, 0.4, 1.5, 3.9, 250.0], dtype=np.float32)
    _both(lambda lib, t: getattr(t, method)(), values)
    _both(lambda lib, t: getattr(t, method)().dtype, values)


def test_float_to_int_truncates_toward_zero():
    values = np.array([-2.7, -1.2, -0.5, 0.5, 1.9, 2.5], dtype=np.float64)
    for name in ("int64", "int32", "int16", "int8", "uint8"):
        _both(lambda lib, t: t.abs().to(getattr(lib, name)) if name == "uint8"
              else t.to(getattr(lib, name)), values)


def test_type_method_and_typename():
    for name in ("float32", "float64", "int64", "int32", "bool", "uint8", "bfloat16",
                 "complex64", "float16", "int8", "int16"):
        t, e = torch.zeros(2, dtype=getattr(torch, name)), ember.zeros(2, dtype=getattr(ember, name))
        assert e.type() == t.type()
        assert ember.typename(e) == torch.typename(t)
    assert ember.zeros(1, device="meta").type() == torch.zeros(1, device="meta").type()
    assert ember.typename(3) == torch.typename(3)


@pytest.mark.parametrize("target", ["float64", "int32", "torch.DoubleTensor", "torch.IntTensor",
                                    "torch.FloatTensor", "ember.LongTensor", "torch.Foo",
                                    "float", 3])
def test_type_conversions(target):
    values = np.array([1.5, -2.7], dtype=np.float32)

    def convert(lib, t):
        if isinstance(target, str) and hasattr(lib, target):
            return t.type(getattr(lib, target))
        if isinstance(target, str) and target.startswith("ember."):
            return t.type(target if lib is ember else target.replace("ember.", "torch."))
        return t.type(target)
    _both(convert, values)
    e = ember.tensor(values)
    assert e.type(ember.float32) is e and e.type("torch.FloatTensor") is e


def test_legacy_tensor_classes():
    for name in ("FloatTensor", "LongTensor", "DoubleTensor", "BoolTensor", "ByteTensor"):
        t_cls, e_cls = getattr(torch, name), getattr(ember, name)
        assert _outcome(lambda: e_cls([1, 0, 2])) == _outcome(lambda: t_cls([1, 0, 2]))
        assert tuple(e_cls(2, 3).shape) == (2, 3)
        assert e_cls(2).dtype == getattr(ember, str(t_cls(2).dtype).split(".")[-1])
        assert isinstance(e_cls(2), e_cls) and isinstance(e_cls(2), ember.Tensor)
        assert not isinstance(ember.zeros(1, dtype=ember.complex64), e_cls)
        assert ember.zeros(2).type(e_cls).dtype is e_cls.dtype
        assert repr(e_cls) == repr(t_cls).replace("torch", "ember")
    assert tuple(ember.FloatTensor().shape) == tuple(torch.FloatTensor().shape)


def test_clone_is_independent_and_keeps_values(rng):
    values = rng.standard_normal((3, 4)).astype(np.float32)
    e = ember.tensor(values)
    c = e.t().clone()
    assert c.tolist() == torch.tensor(values).t().clone().tolist()
    c.copy_(ember.zeros(4, 3))
    assert e.tolist() == torch.tensor(values).tolist()
    g = ember.tensor([1.0], requires_grad=True)
    assert g.clone().requires_grad and not g.clone().is_leaf


@pytest.mark.parametrize("case", range(6))
def test_copy_broadcasts_and_casts(case, rng):
    dst_values = np.zeros((2, 3), dtype=np.float32)
    sources = [np.arange(3.0), np.array(2.7), np.arange(6).reshape(2, 3),
               np.array([True, False, True]), np.arange(4.0), np.ones((1, 3)) * -1.5]

    def run(lib, dst, src):
        return dst.copy_(src)
    _both(run, dst_values, sources[case])

    def run_int(lib, dst, src):
        return dst.to(lib.int32).copy_(src)
    _both(run_int, dst_values, sources[case])


def test_copy_into_view_writes_base():
    for lib in (torch, ember):
        base = lib.zeros(3, 4)
        base[:, 1].copy_(lib.tensor([1.0, 2.0, 3.0]))
        assert base.sum().item() == 6.0
        before = base._version
        base[0].copy_(lib.ones(4))
        assert base._version > before


def test_contiguous(rng):
    values = rng.standard_normal((3, 4)).astype(np.float32)
    e = ember.tensor(values)
    assert e.contiguous() is e
    c = e.t().contiguous()
    assert c.is_contiguous() and c.stride() == (3, 1)
    assert c.tolist() == torch.tensor(values).t().contiguous().tolist()


def test_python_dunders():
    cases = [
        (lambda lib, t: len(t), [1.0, 2.0, 3.0]), (lambda lib, t: len(t), 2.0),
        (lambda lib, t: [x.item() for x in t], [1.0, 2.0]), (lambda lib, t: list(t), 2.0),
        (lambda lib, t: bool(t), [0.0]), (lambda lib, t: bool(t), [1.0]),
        (lambda lib, t: bool(t), [1.0, 2.0]), (lambda lib, t: bool(t), np.zeros(0)),
        (lambda lib, t: int(t), [3.9]), (lambda lib, t: int(t), [-3.9]),
        (lambda lib, t: float(t), [3]), (lambda lib, t: float(t), [1.0, 2.0]),
        (lambda lib, t: complex(t), [1 + 2j]),
        (lambda lib, t: [10, 20, 30][t], np.array(1)),
        (lambda lib, t: [10, 20, 30][t], np.array(1.0)),
        (lambda lib, t: [10, 20, 30][t], np.array([1, 2])),
        (lambda lib, t: range(5)[t], np.array([True])),
        (lambda lib, t: f"{t:.2f}", 2.5), (lambda lib, t: f"{t:>5}", 2),
        (lambda lib, t: f"{t}", [1.5, 2.0]),
        (lambda lib, t: f"{t:.2f}", [1.5, 2.0]),
        (lambda lib, t: hash(t) == hash(t), [1.0]),
    ]
    for fn, values in cases:
        _both(fn, np.asarray(values))


def test_iteration_yields_views():
    e = ember.zeros(3, 2)
    rows = list(e)
    assert len(rows) == 3 and tuple(rows[0].shape) == (2,)
    rows[1].copy_(ember.ones(2))
    assert e.sum().item() == 2.0


def test_requires_grad_rules():
    for name in ("int64", "bool", "int32"):
        for lib in (torch, ember):
            t = lib.zeros(2, dtype=getattr(lib, name))
            with pytest.raises(RuntimeError):
                t.requires_grad_()
            with pytest.raises(RuntimeError):
                lib.zeros(2, dtype=getattr(lib, name), requires_grad=True)
            t.requires_grad_(False)
    for lib in (torch, ember):
        leaf = lib.zeros(2, requires_grad=True)
        assert leaf.requires_grad_() is leaf
        out = leaf * 2
        with pytest.raises(RuntimeError):
            out.requires_grad_(False)
        out.requires_grad_(True)
        leaf.requires_grad = False
        assert not leaf.requires_grad
        c = lib.zeros(2, dtype=lib.complex64).requires_grad_()
        assert c.requires_grad


def test_grad_assignment_checks():
    for lib in (torch, ember):
        t = lib.zeros(2, requires_grad=True)
        with pytest.raises(RuntimeError):
            t.grad = lib.zeros(3)
        with pytest.raises(RuntimeError):
            t.grad = lib.zeros(2, dtype=lib.float64)
        with pytest.raises(TypeError):
            t.grad = 3
        t.grad = lib.ones(2)
        assert t.grad.tolist() == [1.0, 1.0]
        t.grad = None
        assert t.grad is None


def test_ops_aten_namespace():
    aten = ember.ops.aten
    x = ember.tensor([1.0, -2.0, 3.0])
    tx = torch.tensor([1.0, -2.0, 3.0])
    assert aten.add.Tensor is ember._core.registry.OPS["add.Tensor"]
    assert "Tensor" in aten.add.overloads()
    assert aten.add(x, x, alpha=2).tolist() == torch.ops.aten.add(tx, tx, alpha=2).tolist()
    assert aten.add.Tensor(x, x, 1).tolist() == torch.ops.aten.add.Tensor(tx, tx).tolist()
    assert aten.clone.default(x, None).tolist() == x.tolist()
    assert aten.clone(x).tolist() == x.tolist()
    assert aten.clone.overloads() == ["default"]
    assert repr(aten.add) == repr(torch.ops.aten.add)
    assert str(aten.add) == str(torch.ops.aten.add)
    for name, op in ember._core.registry.OPS.items():
        if op.namespace != "aten":
            continue            # a user's op (ember.library) lives in its own namespace
        base, _, overload = name.partition(".")
        assert getattr(getattr(aten, base), overload or "default") is \
            ember._core.registry.OPS[name]
    with pytest.raises(AttributeError):
        _ = aten.no_such_op
    with pytest.raises(AttributeError):
        _ = aten.add.no_such_overload
    with pytest.raises(TypeError):
        aten.add(x, x, bad_keyword=1)
