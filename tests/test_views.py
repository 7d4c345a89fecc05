"""Every view op against PyTorch: the result shares its base's storage (a write through the view
shows in the base, one version counter) and has PyTorch's layout (strides, storage offset,
contiguity, data pointer relative to the base)."""
from __future__ import annotations

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def _base(lib, shape=(2, 3, 4), dtype="float32"):
    values = np.arange(int(np.prod(shape))).reshape(shape)
    if dtype.startswith("complex"):
        values = values + 1j * values[::-1]
    return lib.tensor(values.astype(dtype))


def _perm(x):
    return x.permute(2, 0, 1)       # a non-contiguous source


# (id, base shape, base dtype, f(lib, base) -> view or tuple of views, writable)
# `writable` is False where elements overlap (PyTorch refuses in-place writes there).
CASES = [
    ("view", (2, 3, 4), "float32", lambda lib, x: x.view(6, 4), True),
    ("view-ones", (2, 3, 4), "float32", lambda lib, x: x.view(2, 1, 12, 1), True),
    ("view-noncontig", (2, 3, 4), "float32", lambda lib, x: _perm(x).view(4, 2, 3, 1), True),
    ("view-noncontig-merge", (2, 3, 4), "float32",
     lambda lib, x: x.transpose(0, 1).view(3, 2, 2, 2), True),
    ("view-dtype", (2, 3, 4), "float32", lambda lib, x: x.view(lib.int32), False),
    ("view-dtype-smaller", (2, 3, 4), "float32", lambda lib, x: x.view(lib.float16), False),
    ("view_as", (2, 3, 4), "float32", lambda lib, x: x.view_as(lib.zeros(4, 6)), True),
    ("reshape", (2, 3, 4), "float32", lambda lib, x: x.reshape(3, -1), True),
    ("reshape-noncontig-view", (2, 3, 4), "float32",
     lambda lib, x: _perm(x).reshape(4, 6), True),
    ("reshape_as", (2, 3, 4), "float32", lambda lib, x: x.reshape_as(lib.zeros(24)), True),
    ("flatten", (2, 3, 4), "float32", lambda lib, x: x.flatten(1), True),
    ("flatten-0d", (), "float32", lambda lib, x: x.flatten(), True),
    ("unflatten", (2, 3, 4), "float32", lambda lib, x: x.unflatten(2, (2, 1, 2)), True),
    ("squeeze", (2, 1, 4), "float32", lambda lib, x: x.squeeze(), True),
    ("squeeze-dim", (2, 1, 4), "float32", lambda lib, x: x.squeeze(1), True),
    ("squeeze-dims", (1, 2, 1), "float32", lambda lib, x: x.squeeze((0, 2)), True),
    ("unsqueeze", (2, 3, 4), "float32", lambda lib, x: x.unsqueeze(1), True),
    ("unsqueeze-last", (2, 3, 4), "float32", lambda lib, x: _perm(x).unsqueeze(-1), True),
    ("transpose", (2, 3, 4), "float32", lambda lib, x: x.transpose(0, 2), True),
    ("swapaxes", (2, 3, 4), "float32", lambda lib, x: lib.swapaxes(x, 1, 2), True),
    ("swapdims", (2, 3, 4), "float32", lambda lib, x: x.swapdims(0, 1), True),
    ("t", (3, 4), "float32", lambda lib, x: x.t(), True),
    ("adjoint", (2, 3, 4), "float32", lambda lib, x: x.adjoint(), True),
    ("permute", (2, 3, 4), "float32", lambda lib, x: x.permute(1, 2, 0), True),
    ("movedim", (2, 3, 4), "float32", lambda lib, x: lib.movedim(x, 0, -1), True),
    ("movedim-tuple", (2, 3, 4), "float32", lambda lib, x: lib.movedim(x, (0, 1), (2, 0)),
     True),
    ("moveaxis", (2, 3, 4), "float32", lambda lib, x: x.moveaxis(2, 0), True),
    ("expand", (3, 1), "float32", lambda lib, x: x.expand(2, 3, 4), False),
    ("expand-same", (3, 1), "float32", lambda lib, x: x.expand(1, 3, 1), True),
    ("expand_as", (3, 1), "float32", lambda lib, x: x.expand_as(lib.zeros(3, 5)), False),
    ("broadcast_to", (3, 1), "float32", lambda lib, x: lib.broadcast_to(x, (2, 3, 2)), False),
    ("narrow", (2, 3, 4), "float32", lambda lib, x: x.narrow(2, 1, 2), True),
    ("narrow-tensor", (2, 3, 4), "float32", lambda lib, x: x.narrow(1, lib.tensor(1), 2),
     True),
    ("select", (2, 3, 4), "float32", lambda lib, x: x.select(1, -1), True),
    ("unbind", (2, 3, 4), "float32", lambda lib, x: x.unbind(2), True),
    ("chunk", (2, 3, 4), "float32", lambda lib, x: x.chunk(2, 1), True),
    ("split", (2, 3, 4), "float32", lambda lib, x: x.split(3, -1), True),
    ("split-sizes", (2, 3, 4), "float32", lambda lib, x: lib.split(x, [1, 3], 2), True),
    ("tensor_split", (2, 3, 4), "float32", lambda lib, x: x.tensor_split(3, 2), True),
    ("tensor_split-indices", (2, 3, 4), "float32", lambda lib, x: x.tensor_split([1, 3], 2),
     True),
    ("hsplit", (2, 4, 3), "float32", lambda lib, x: x.hsplit(2), True),
    ("vsplit", (2, 3, 4), "float32", lambda lib, x: x.vsplit([1]), True),
    ("dsplit", (2, 3, 4), "float32", lambda lib, x: lib.dsplit(x, 2), True),
    ("as_strided", (2, 3, 4), "float32", lambda lib, x: x.as_strided((3, 2), (4, 1), 2), True),
    ("as_strided-view", (2, 3, 4), "float32",
     lambda lib, x: x[1].as_strided((2, 2), (1, 3)), True),
    ("diagonal", (3, 4), "float32", lambda lib, x: x.diagonal(1), True),
    ("diagonal-dims", (2, 3, 4), "float32", lambda lib, x: x.diagonal(-1, 2, 1), True),
    ("unfold", (2, 3, 4), "float32", lambda lib, x: x.unfold(2, 2, 1), False),
    ("unfold-step", (2, 3, 4), "float32", lambda lib, x: x.unfold(2, 2, 2), True),
    ("view_as_real", (2, 3), "complex64", lambda lib, x: lib.view_as_real(x), True),
    ("view_as_complex", (2, 3, 2), "float32", lambda lib, x: lib.view_as_complex(x), True),
    ("broadcast_tensors", (3, 1), "float32",
     lambda lib, x: lib.broadcast_tensors(x, lib.zeros(2, 1, 4))[0], False),
    ("meshgrid", (3,), "float32",
     lambda lib, x: lib.meshgrid(x, x[:2], indexing="ij"), False),
    ("atleast_2d", (3,), "float32", lambda lib, x: lib.atleast_2d(x), True),
    ("atleast_3d", (3, 2), "float32", lambda lib, x: lib.atleast_3d(x), True),
]


def _views(result):
    return result if isinstance(result, tuple) else (result,)


def _layout(base, view):
    itemsize = view.element_size()
    return (tuple(view.shape), view.stride(), view.storage_offset(), view.is_contiguous(),
            (view.data_ptr() - base.data_ptr()) // itemsize if view.numel() else None)


def _run(case, lib):
    _, shape, dtype, fn, _ = case
    base = _base(lib, shape, dtype)
    return base, _views(fn(lib, base))


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_view_layout_matches_torch(case):
    e_base, e_views = _run(case, ember)
    t_base, t_views = _run(case, torch)
    assert len(e_views) == len(t_views)
    for k, (e, t) in enumerate(zip(e_views, t_views)):
        assert _layout(e_base, e) == _layout(t_base, t), f"{case[0]} view {k}"
        assert e.dtype == getattr(ember, str(t.dtype).split(".")[-1])
        assert e._base is e_base, f"{case[0]} view {k}: _base is not the base"


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_view_write_is_visible_in_base(case):
    """An in-place op through the view lands in the base and bumps the one shared version."""
    found = {}
    for lib in (ember, torch):
        base, views = _run(case, lib)
        if case[4]:
            for v in views:
                if v.numel():
                    v.add_(1) if not v.dtype.is_complex else v.mul_(2)
        else:
            base.add_(1) if not base.dtype.is_complex else base.mul_(2)
        found[lib] = (base, views)
    (e_base, e_views), (t_base, t_views) = found[ember], found[torch]
    np.testing.assert_array_equal(e_base.numpy(), t_base.numpy())
    for e, t in zip(e_views, t_views):
        np.testing.assert_array_equal(e.numpy(), t.numpy())
        assert e._version == e_base._version
    assert e_base._version == t_base._version > 0


@pytest.mark.parametrize("name,args", [
    ("squeeze_", ()), ("squeeze_", (1,)), ("unsqueeze_", (0,)), ("transpose_", (0, 2)),
    ("swapaxes_", (1, 2)), ("swapdims_", (0, 1)), ("as_strided_", ((2, 2), (1, 2), 1)),
])
def test_in_place_view_ops_change_own_layout(name, args):
    e, t = _base(ember, (2, 1, 3)), _base(torch, (2, 1, 3))
    e_before, t_before = e, t
    assert getattr(e, name)(*args) is e_before
    assert getattr(t, name)(*args) is t_before
    assert (tuple(e.shape), e.stride(), e.storage_offset()) == \
        (tuple(t.shape), t.stride(), t.storage_offset())
    np.testing.assert_array_equal(e.numpy(), t.numpy())


def test_t_in_place():
    e, t = _base(ember, (2, 3)), _base(torch, (2, 3))
    e.t_()
    t.t_()
    assert (tuple(e.shape), e.stride()) == (tuple(t.shape), t.stride())


def test_view_of_noncontiguous_raises_and_reshape_copies():
    for lib in (ember, torch):
        x = _base(lib).transpose(0, 2)
        with pytest.raises(RuntimeError, match="view size is not compatible"):
            x.view(24)
        flat = x.reshape(24)
        assert flat._base is None and flat.is_contiguous()
        flat.add_(100)
        assert float(x.sum()) == float(np.arange(24).sum())


def test_reshape_of_contiguous_is_a_view():
    x = _base(ember)
    y = x.reshape(4, 6)
    assert y._base is x and y.data_ptr() == x.data_ptr()


def test_meta_views_have_shapes():
    x = ember.empty(2, 3, 4, device="meta")
    assert x.view(6, 4).shape == (6, 4)
    assert x.unfold(2, 2, 1).shape == torch.empty(2, 3, 4).unfold(2, 2, 1).shape
    assert x.as_strided((3, 3), (1, 2), 4).shape == (3, 3)
    assert ember.view_as_complex(x.view(2, 3, 2, 2)).shape == (2, 3, 2)


# The methods that take their int list as varargs take it by name too (x.reshape(shape=...)).
KEYWORD_LIST_CASES = [
    ("reshape", {"shape": (3, 2)}), ("expand", {"size": (2, 2, 3)}),
    ("permute", {"dims": (1, 0)}), ("repeat", {"repeats": (2, 1)}), ("flip", {"dims": (0,)}),
    ("tile", {"dims": (1, 2)}), ("view", {"size": (6,)}), ("expand", {"size": 4}),
    ("permute", {"dims": [1, 0]}),
]


@pytest.mark.parametrize("name,kwargs", KEYWORD_LIST_CASES)
def test_int_list_methods_take_the_list_by_keyword(name, kwargs):
    torch = pytest.importorskip("torch")
    results = []
    for lib in (torch, ember):
        x = lib.arange(6.0).reshape(2, 3)
        try:
            results.append(getattr(x, name)(**kwargs).tolist())
        except TypeError as exc:
            results.append(str(exc))
    assert results[0] == results[1]
    for lib in (torch, ember):   # not both forms at once
        with pytest.raises(TypeError):
            getattr(lib.arange(6.0).reshape(2, 3), name)(2, **kwargs)
