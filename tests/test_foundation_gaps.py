"""Checks of the foundation ops that the op table cannot make because PyTorch itself fails
there: vander's gradient (PyTorch's backward trips over an in-place write) and dist with p=0
(PyTorch's backward returns no tensor)."""
import numpy as np
import pytest
import torch

import ember
from ember.autograd import gradcheck, gradgradcheck


def test_vander_gradient_passes_gradcheck():
    x = ember.tensor([0.5, -1.25, 2.0], dtype=ember.float64, requires_grad=True)
    assert gradcheck(lambda t: ember.vander(t), (x,))
    assert gradcheck(lambda t: ember.vander(t, N=5, increasing=True), (x,))
    assert gradgradcheck(lambda t: ember.vander(t, N=4), (x,))


def test_vander_gradient_matches_the_polynomial_derivative():
    values = np.array([0.5, -1.25, 2.0])
    x = ember.tensor(values, requires_grad=True)
    ember.vander(x, N=4).sum().backward()
    expected = 1 + 2 * values + 3 * values ** 2          # d/dx (1 + x + x^2 + x^3)
    np.testing.assert_allclose(x.grad.numpy(), expected)
    assert torch.vander(torch.tensor(values), N=4).tolist() == \
        ember.vander(ember.tensor(values), N=4).tolist()


def test_dist_p0_counts_differences_and_has_zero_gradient():
    a, b = np.array([1.0, 2.0, 3.0]), np.array([1.0, 0.0, 5.0])
    x = ember.tensor(a, requires_grad=True)
    result = ember.dist(x, ember.tensor(b), 0)
    assert result.item() == torch.dist(torch.tensor(a), torch.tensor(b), 0).item()
    result.backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]


def test_reversed_flips_the_first_dimension_as_torch():
    values = np.arange(6).reshape(3, 2)
    assert [t.tolist() for t in reversed(ember.tensor(values))] == \
        [t.tolist() for t in reversed(torch.tensor(values))]
    assert ember.tensor(values).__reversed__().tolist() == \
        torch.tensor(values).__reversed__().tolist()
    assert ember.tensor(5).__reversed__().tolist() == torch.tensor(5).__reversed__().tolist()


def test_inplace_function_forms_write_into_their_input_as_torch():
    from ember._ops.inplace_functions import INPLACE_FUNCTIONS
    assert all(hasattr(torch, name) for name in INPLACE_FUNCTIONS)
    values = np.array([0.25, -0.5, 0.75])
    for name, args in (("exp_", ()), ("clamp_", (-0.3, 0.3)), ("sigmoid_", ()),
                       ("round_", ()), ("fill_", (2.5,)), ("xlogy_", (2.0,))):
        t, e = torch.tensor(values), ember.tensor(values)
        t_out, e_out = getattr(torch, name)(t, *args), getattr(ember, name)(e, *args)
        assert e_out is e and t_out is t, name
        np.testing.assert_allclose(e.numpy(), t.numpy(), err_msg=name)
    x = ember.tensor(values, requires_grad=True) * 1
    assert ember.detach_(x) is x and not x.requires_grad


_X = np.arange(24.0).reshape(2, 3, 4)
_COPY_CASES = [
    ("alias_copy", _X, ()), ("as_strided_copy", _X, ((2, 2), (1, 2), 1)),
    ("detach_copy", _X, ()), ("diagonal_copy", _X, (0, 1, 2)),
    ("expand_copy", _X, ((2, 2, 3, 4),)), ("narrow_copy", _X, (2, 1, 2)),
    ("permute_copy", _X, ((2, 0, 1),)), ("select_copy", _X, (1, 2)),
    ("slice_copy", _X, (2, 1, 4, 2)), ("split_copy", _X, (2, 2)),
    ("split_with_sizes_copy", _X, ([1, 2], 1)), ("squeeze_copy", _X[:, :1], ()),
    ("t_copy", _X[0], ()), ("transpose_copy", _X, (0, 2)), ("unbind_copy", _X, (1,)),
    ("unfold_copy", _X, (2, 2, 1)), ("unsqueeze_copy", _X, (1,)), ("view_copy", _X, ((6, 4),)),
    ("view_as_real_copy", _X[0] + 1j, ()), ("view_as_complex_copy", _X[..., :2].copy(), ()),
]


@pytest.mark.parametrize("name,values,args", _COPY_CASES, ids=[c[0] for c in _COPY_CASES])
def test_copy_variants_match_torch_and_share_no_memory(name, values, args):
    t_in, e_in = torch.tensor(values), ember.tensor(values)
    expected, got = getattr(torch, name)(t_in, *args), getattr(ember, name)(e_in, *args)
    expected = expected if isinstance(expected, tuple) else (expected,)
    got = got if isinstance(got, tuple) else (got,)
    assert len(got) == len(expected)
    for e, t in zip(got, expected):
        assert e.dtype.__repr__().replace("ember", "torch") == repr(t.dtype)
        np.testing.assert_array_equal(e.numpy(), t.numpy())
        assert e.is_contiguous()
        assert e.untyped_storage().data_ptr() != e_in.untyped_storage().data_ptr()


@pytest.mark.parametrize("name,args", [
    ("transpose_copy", (0, 2)), ("view_copy", ((6, 4),)), ("slice_copy", (2, 1, 4, 2)),
    ("expand_copy", ((2, 2, 3, 4),))])
def test_copy_variants_pass_gradients_as_torch(name, args):
    t_in = torch.tensor(_X, requires_grad=True)
    e_in = ember.tensor(_X, requires_grad=True)
    t_out, e_out = getattr(torch, name)(t_in, *args), getattr(ember, name)(e_in, *args)
    weights = np.linspace(-1.0, 1.0, t_out.numel()).reshape(tuple(t_out.shape))
    (t_out * torch.tensor(weights)).sum().backward()
    (e_out * ember.tensor(weights)).sum().backward()
    np.testing.assert_allclose(e_in.grad.numpy(), t_in.grad.numpy())


def test_unsafe_splits_give_the_split_pieces():
    for name, args in (("unsafe_split", (2, 2)), ("unsafe_chunk", (2, 1)),
                       ("unsafe_split_with_sizes", ([1, 3], 2))):
        expected = getattr(torch, name)(torch.tensor(_X), *args)
        got = getattr(ember, name)(ember.tensor(_X), *args)
        assert [g.tolist() for g in got] == [t.tolist() for t in expected], name


def _nn_form_cases():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 4, 6, 6))
    w, b, mean = rng.standard_normal(4), rng.standard_normal(4), rng.standard_normal(4)
    var = rng.random(4) + 0.5
    x1 = x[:, :, 0]
    return {
        "celu": (x, 0.7), "selu": (x,), "rrelu": (x,), "prelu": (x, w),
        "layer_norm": (x, (6, 6)), "rms_norm": (x, (6,)), "group_norm": (x, 2, w, b),
        "batch_norm": (x, w, b, mean, var, False, 0.1, 1e-5, True),
        "instance_norm": (x, w, b, None, None, True, 0.1, 1e-5, True),
        "max_pool1d": (x1, 2), "max_pool2d": (x, 3, [], 1), "max_pool3d": (x, 2, 1),
        "max_pool1d_with_indices": (x1, 3, 2), "avg_pool1d": (x1, 2),
        "adaptive_avg_pool1d": (x1, 4), "adaptive_max_pool1d": (x1, 4),
    }


@pytest.mark.parametrize("name", list(_nn_form_cases()))
def test_top_level_nn_forms_match_torch(name):
    args = _nn_form_cases()[name]
    expected = getattr(torch, name)(*[torch.tensor(a) if isinstance(a, np.ndarray) else a
                                      for a in args])
    got = getattr(ember, name)(*[ember.tensor(a) if isinstance(a, np.ndarray) else a
                                 for a in args])
    expected = expected if isinstance(expected, tuple) else (expected,)
    got = got if isinstance(got, tuple) else (got,)
    assert len(got) == len(expected)
    for e, t in zip(got, expected):
        assert repr(e.dtype).replace("ember", "torch") == repr(t.dtype)
        np.testing.assert_allclose(e.numpy(), t.numpy(), atol=1e-10)


@pytest.mark.parametrize("name,args", [("celu_", (0.7,)), ("selu_", ()), ("rrelu_", ())])
def test_top_level_inplace_activations_match_torch(name, args):
    values = np.linspace(-2.0, 2.0, 9)
    t, e = torch.tensor(values), ember.tensor(values)
    getattr(torch, name)(t, *args)
    assert getattr(ember, name)(e, *args) is e
    np.testing.assert_allclose(e.numpy(), t.numpy())


_X3 = [[3.0, 4.0], [0.0, 1.0], [6.0, 8.0]]


def _set_to_answers(y):
    return y.is_set_to(y), y.is_set_to(y.view(3, 2)), y.is_set_to(y[:])


_SAME_AS_TORCH = {
    "renorm": lambda m: m.renorm(m.tensor(_X3), 2, 0, 4.5),
    "renorm method": lambda m: m.tensor(_X3).renorm(1, 1, 5),
    "renorm_": lambda m: m.tensor(_X3).renorm_(1, 1, 5),
    "nonzero_static pads": lambda m: m.nonzero_static(m.tensor([[1, 0], [1, 1]]), size=4),
    "nonzero_static cuts": lambda m: m.tensor([1, 0, 1]).nonzero_static(size=1, fill_value=7),
    "empty_permuted": lambda m: m.empty_permuted((2, 3, 4), (0, 2, 1)).stride(),
    "norm_except_dim 0": lambda m: m.norm_except_dim(m.tensor(_X3), 2, 0),
    "norm_except_dim 1": lambda m: m.norm_except_dim(m.tensor(_X3), 3, 1),
    "norm_except_dim -1": lambda m: m.norm_except_dim(m.tensor(_X3), 2, -1),
    "is_set_to": lambda m: _set_to_answers(m.ones(2, 3)),
    "resize": lambda m: m.ones(2, 3).resize(3, 2).shape,
    "resize error": lambda m: m.ones(2, 3).resize(4),
    "resize_as": lambda m: m.ones(2, 3).resize_as(m.ones(6)).shape,
    "gradient": lambda m: m.gradient(m.tensor([1.0, 4.0, 9.0, 16.0])),
    "gradient dim spacing": lambda m: m.gradient(m.tensor([[1.0, 2, 4], [2, 5, 9]]),
                                                 spacing=2.0, dim=1),
    "gradient coordinates 2": lambda m: m.gradient(
        m.tensor([1.0, 4.0, 9.0, 16.0]), spacing=(m.tensor([0.0, 1.0, 1.5, 3.0]),),
        edge_order=2),
    "gradient coordinates 1": lambda m: m.gradient(
        m.tensor([1.0, 4.0, 9.0, 16.0]), spacing=(m.tensor([0.0, 1.0, 1.5, 3.0]),)),
    "gradient 2-d": lambda m: m.gradient(m.tensor([[1.0, 4.0], [9.0, 16.0]])),
    "gradient ints": lambda m: m.gradient(m.tensor([1, 2, 4]), spacing=2),
    "gradient edge 2": lambda m: m.gradient(m.tensor([1.0, 2, 4, 7, 11]), edge_order=2),
    "gradient spacings": lambda m: m.gradient(m.tensor([[1.0, 2, 4], [2, 5, 9]]),
                                              spacing=[2.0, 3.0]),
    "gradient too short": lambda m: m.gradient(m.tensor([1.0])),
    "queries": lambda m: (m.get_device(m.ones(1)), m.is_signed(m.ones(1)),
                          m.is_inference(m.ones(1)), m.is_distributed(m.ones(1)),
                          m.ones(1).is_pinned(), m.ones(1).is_shared()),
    "device flags": lambda m: (m.ones(1).is_xpu, m.ones(1).is_mps, m.ones(1).is_nested,
                               m.ones(1).is_mkldnn),
}


def _outcome(make, lib):
    try:
        return repr(make(lib)).replace("ember", "torch")
    except (RuntimeError, TypeError, ValueError, IndexError) as error:
        # the class is compared; the messages differ in places
        return type(error).__name__


@pytest.mark.parametrize("case", list(_SAME_AS_TORCH))
def test_small_functions_give_what_torch_gives(case):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _outcome(_SAME_AS_TORCH[case], ember) == _outcome(_SAME_AS_TORCH[case], torch)


def test_renorm_and_gradient_pass_gradients_as_torch():
    values = np.array(_X3)
    for lib_fn in (lambda m, x: m.renorm(x, 2, 0, 4.5),
                   lambda m, x: m.gradient(x, dim=0, edge_order=2)[0]):
        t_x, e_x = torch.tensor(values, requires_grad=True), ember.tensor(values,
                                                                          requires_grad=True)
        t_out, e_out = lib_fn(torch, t_x), lib_fn(ember, e_x)
        weights = np.linspace(-1.0, 2.0, t_out.numel()).reshape(tuple(t_out.shape))
        (t_out * torch.tensor(weights)).sum().backward()
        (e_out * ember.tensor(weights)).sum().backward()
        np.testing.assert_allclose(e_x.grad.numpy(), t_x.grad.numpy(), atol=1e-12)


def test_from_file_reads_and_maps_raw_bytes(tmp_path):
    path = str(tmp_path / "values.bin")
    np.arange(6, dtype=np.float32).tofile(path)
    assert ember.from_file(path, size=4, dtype=ember.float32).tolist() == \
        torch.from_file(path, size=4, dtype=torch.float32).tolist()
    with pytest.raises(RuntimeError):
        ember.from_file(path, size=7, dtype=ember.float32)
    mapped = ember.from_file(path, shared=True, size=6, dtype=ember.float32)
    mapped[0] = 42
    del mapped
    assert np.fromfile(path, dtype=np.float32)[0] == 42


def test_typed_storage_reads_and_writes_the_tensor_as_torch():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # both warn that TypedStorage is deprecated
        for lib in (torch, ember):
            values = lib.tensor([[1.0, 2.0], [3.0, 4.0]])
            view = values.t()
            store = view.storage()
            assert store.tolist() == [1.0, 2.0, 3.0, 4.0]
            assert (store.size(), store.element_size(), store.nbytes()) == (4, 4, 16)
            assert store.data_ptr() == values.data_ptr()
            assert isinstance(store, lib.FloatStorage) and not isinstance(store, lib.IntStorage)
            store[1] = 7.0
            assert values.tolist() == [[1.0, 7.0], [3.0, 4.0]]
            assert view.storage_type() is lib.FloatStorage
            assert lib.tensor([1]).storage_type() is lib.LongStorage
            assert lib.IntStorage([1, 2, 3]).tolist() == [1, 2, 3]
            assert len(lib.FloatStorage(3)) == 3
            assert lib.TypedStorage(2, dtype=lib.float64).dtype == lib.float64
            with pytest.raises(IndexError):
                store[4]
            with pytest.raises(RuntimeError):
                store[0:2]


def test_set_anomaly_enabled_switches_detection_as_torch():
    for lib in (torch, ember):
        lib.set_anomaly_enabled(True, False)
        assert (lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()) == (True, False)
        lib.set_anomaly_enabled(False)
        assert (lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()) == (False, True)
    assert ember.newaxis is torch.newaxis is None
    assert ember.GradScaler is ember.amp.GradScaler


_NAN = float("nan")
_NAN_SEARCHES = [
    ([1.0, _NAN], [_NAN, 2.0], {}), ([1.0, _NAN], [_NAN, 2.0, 0.5], {"right": True}),
    ([[1.0, 2.0, _NAN], [_NAN, _NAN, _NAN]], [[1.5, _NAN], [0.0, 3.0]], {}),
    ([_NAN, 1.0, 2.0], [1.5, _NAN, -1.0], {"side": "right"}),
    ([1.0, 2.0, 3.0], [_NAN, 2.0], {"out_int32": True}),
]


@pytest.mark.parametrize("boundaries,values,kwargs", _NAN_SEARCHES)
def test_searchsorted_with_nans_follows_torchs_binary_search(boundaries, values, kwargs):
    expected = torch.searchsorted(torch.tensor(boundaries), torch.tensor(values), **kwargs)
    got = ember.searchsorted(ember.tensor(boundaries), ember.tensor(values), **kwargs)
    assert got.tolist() == expected.tolist()
    assert repr(got.dtype).replace("ember", "torch") == repr(expected.dtype)


def test_bucketize_with_nans_follows_torch():
    for values, boundaries, right in (([_NAN, 1.5], [1.0, 2.0], False),
                                      ([[_NAN, 1.5]], [1.0, 2.0, _NAN], True)):
        expected = torch.bucketize(torch.tensor(values), torch.tensor(boundaries), right=right)
        got = ember.bucketize(ember.tensor(values), ember.tensor(boundaries), right=right)
        assert got.tolist() == expected.tolist()
