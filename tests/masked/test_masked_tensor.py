"""ember.masked.MaskedTensor against torch.masked.MaskedTensor (the prototype): construction
checks, printing, element-wise ops and their masks, reductions, softmax, where, indexing and
shape ops, conversions, and gradients (a MaskedTensor's gradient is a MaskedTensor).

Elements under a False mask hold unspecified values (PyTorch's gradients leave 1, inf or the
input there), so results are compared on their masks and on the data where the mask is True.
Both libraries warn that the API is a prototype; each call here records the warnings and the
construction test compares them.
"""
import math
import warnings

import numpy as np
import pytest
import torch

import ember

_DATA = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=np.float32)
_MASK = np.array([[True, False, True], [False, False, True]])


def _inputs(lib, data=_DATA, mask=_MASK, requires_grad=False):
    d, m = lib.tensor(data), lib.tensor(mask)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return lib.masked.masked_tensor(d, m, requires_grad=requires_grad), d, m


def _run(lib, fn, *args):
    """(result, None) or (None, exception class); warnings recorded, not shown."""
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        try:
            return fn(lib, *args), None
        except Exception as exc:  # noqa: BLE001  # the class is what is compared
            return None, type(exc)


def _dtype_name(t) -> str:
    return str(t.dtype).split(".")[1]


def assert_same(e, t):
    """e (ember) and t (torch) results: MaskedTensors with equal masks and specified data,
    plain tensors or Python values equal."""
    if isinstance(t, (tuple, list)):
        assert len(e) == len(t)
        for a, b in zip(e, t):
            assert_same(a, b)
        return
    if isinstance(t, torch.masked.MaskedTensor):
        assert type(e).__name__ == "MaskedTensor", type(e)
        assert tuple(e.shape) == tuple(t.shape)
        assert _dtype_name(e) == _dtype_name(t)
        assert _dtype_name(e.get_data()) == _dtype_name(t.get_data())
        tm = t.get_mask().to_dense().numpy()
        em = np.asarray(e.get_mask().to_dense())
        np.testing.assert_array_equal(em, tm)
        td = t.get_data().detach().to_dense().numpy()
        ed = np.asarray(e.get_data().detach().to_dense())
        np.testing.assert_allclose(ed[em], td[tm], rtol=2e-6, atol=1e-6)
        return
    if isinstance(t, torch.Tensor):
        assert type(e) is ember.Tensor
        assert _dtype_name(e) == _dtype_name(t)
        np.testing.assert_allclose(np.asarray(e.detach()), t.detach().numpy(), rtol=2e-6)
        return
    assert e == t


def _compare(fn, *args):
    t, t_err = _run(torch, fn, *args)
    e, e_err = _run(ember, fn, *args)
    assert e_err == t_err, (e_err, t_err)
    if t_err is None:
        assert_same(e, t)


# ---------------------------------------------------------------------------- construction

def test_construction_warns_as_pytorch():
    for lib in (torch, ember):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.masked.masked_tensor(lib.tensor(_DATA), lib.tensor(_MASK))
            lib.masked.masked_tensor(lib.tensor(_DATA, requires_grad=True), lib.tensor(_MASK))
        messages = [str(w.message)[:40] for w in caught if w.category is UserWarning]
        if lib is torch:
            expected = messages
        else:
            assert messages == expected


_BAD_CONSTRUCTION = {
    "mask_not_bool": lambda lib: lib.masked.masked_tensor(lib.tensor(_DATA),
                                                         lib.tensor(_MASK).int()),
    "shape": lambda lib: lib.masked.masked_tensor(lib.tensor(_DATA), lib.tensor(_MASK[0])),
    "same_dim_other_shape": lambda lib: lib.masked.masked_tensor(lib.tensor(_DATA),
                                                                lib.tensor(_MASK[:, :2])),
    "data_not_tensor": lambda lib: lib.masked.masked_tensor(_DATA.tolist(), lib.tensor(_MASK)),
    "mask_not_tensor": lambda lib: lib.masked.masked_tensor(lib.tensor(_DATA), _MASK.tolist()),
    "complex": lambda lib: lib.masked.masked_tensor(lib.tensor(_DATA).to(lib.complex64),
                                                   lib.tensor(_MASK)),
    "bfloat16": lambda lib: lib.masked.masked_tensor(lib.tensor(_DATA).to(lib.bfloat16),
                                                    lib.tensor(_MASK)),
    "uint8": lambda lib: lib.masked.masked_tensor(lib.tensor(_DATA).to(lib.uint8),
                                                 lib.tensor(_MASK)),
    "masked_data": lambda lib: lib.masked.masked_tensor(_inputs(lib)[0], lib.tensor(_MASK)),
    "layouts": lambda lib: lib.masked.masked_tensor(lib.tensor(_DATA).to_sparse(),
                                                   lib.tensor(_MASK)),
    "sparse_indices": lambda lib: lib.masked.masked_tensor(
        lib.tensor(_DATA).to_sparse(), lib.tensor(_MASK).to_sparse()),
}


@pytest.mark.parametrize("case", list(_BAD_CONSTRUCTION))
def test_bad_construction_raises_as_pytorch(case):
    t, t_err = _run(torch, _BAD_CONSTRUCTION[case])
    e, e_err = _run(ember, _BAD_CONSTRUCTION[case])
    assert e_err == t_err
    if t_err is None:
        assert_same(e, t)


@pytest.mark.parametrize("case", ["float", "int", "bool", "zero_dim_in", "zero_dim_out",
                                  "three_dims", "half", "big"])
def test_repr_as_pytorch(case):
    def build(lib):
        data, mask = lib.tensor(_DATA), lib.tensor(_MASK)
        if case == "int":
            data = lib.arange(6).view(2, 3)
        elif case == "bool":
            data = data > 2
        elif case == "zero_dim_in":
            data, mask = lib.tensor(3.5), lib.tensor(True)
        elif case == "zero_dim_out":
            data, mask = lib.tensor(3.5), lib.tensor(False)
        elif case == "three_dims":
            data, mask = data.reshape(1, 2, 3).expand(2, 2, 3), mask.expand(2, 2, 3)
        elif case == "half":
            data = data.half()
        elif case == "big":
            data = data * 12345.678
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return repr(lib.masked.masked_tensor(data, mask))
    assert build(ember) == build(torch)


def test_contents_and_flags():
    for lib in (torch, ember):
        mt, d, _ = _inputs(lib)
        assert mt.is_sparse is False and mt.layout == lib.strided
        assert isinstance(mt, lib.Tensor) and lib.masked.is_masked_tensor(mt)
        assert not lib.masked.is_masked_tensor(d)
        assert type(mt.get_data()) is lib.Tensor and type(mt.get_mask()) is lib.Tensor
        assert (mt.dim(), tuple(mt.size()), mt.numel(), len(mt)) == (2, (2, 3), 6, 2)
        assert mt.requires_grad is False and mt.is_leaf
        assert mt.stride() == (3, 1) and mt.is_contiguous()
    _compare(lambda lib: _inputs(lib)[0].to_tensor(float("nan")))
    _compare(lambda lib: _inputs(lib)[0].to_tensor(0))
    _compare(lambda lib: _inputs(lib)[0].sum().item())
    _compare(lambda lib: float(_inputs(lib)[0].amax()))
    _compare(lambda lib: _inputs(lib)[0].tolist())
    _compare(lambda lib: lib.masked.masked_tensor(lib.tensor(2.0), lib.tensor(False)).item())


# ---------------------------------------------------------------------------- element-wise

_ELEMENTWISE = {
    "exp": lambda lib, mt, d, m: mt.exp(),
    "neg": lambda lib, mt, d, m: -mt,
    "abs": lambda lib, mt, d, m: lib.abs(mt - 3),
    "sqrt": lambda lib, mt, d, m: mt.sqrt(),
    "sigmoid": lambda lib, mt, d, m: lib.sigmoid(mt),
    "clamp": lambda lib, mt, d, m: mt.clamp(2, 5),
    "pow": lambda lib, mt, d, m: mt ** 2,
    "square": lambda lib, mt, d, m: mt.square(),
    "isnan": lambda lib, mt, d, m: mt.isnan(),
    "nan_to_num": lambda lib, mt, d, m: mt.nan_to_num(),
    "bitwise_not": lambda lib, mt, d, m: ~(mt > 2),
    "add": lambda lib, mt, d, m: mt + mt,
    "mul_scalar": lambda lib, mt, d, m: mt * 2,
    "radd_scalar": lambda lib, mt, d, m: 2 + mt,
    "sub_scalar": lambda lib, mt, d, m: mt - 1,
    "div": lambda lib, mt, d, m: mt / mt,
    "add_plain": lambda lib, mt, d, m: mt + d,
    "radd_plain": lambda lib, mt, d, m: d + mt,
    "mul_broadcast_plain": lambda lib, mt, d, m: mt * d[0],
    "maximum": lambda lib, mt, d, m: lib.maximum(mt, mt),
    "atan2": lambda lib, mt, d, m: lib.atan2(mt, mt),
    "gt": lambda lib, mt, d, m: mt > 2,
    "ge": lambda lib, mt, d, m: mt >= 3,
    "eq": lambda lib, mt, d, m: mt == mt.clone(),
    "lt": lambda lib, mt, d, m: mt < 3,
    "lt_masked": lambda lib, mt, d, m: mt < mt.clone(),
    "masks_differ": lambda lib, mt, d, m: mt + lib.masked.masked_tensor(d, ~m),
    "masks_broadcast": lambda lib, mt, d, m: mt * lib.masked.masked_tensor(d[0], m[0]),
    "add_alpha": lambda lib, mt, d, m: lib.add(mt, mt, alpha=2),
    "add_": lambda lib, mt, d, m: mt.clone().add_(1),
    "mul_masked_": lambda lib, mt, d, m: mt.clone().mul_(mt),
    "exp_": lambda lib, mt, d, m: mt.clone().exp_(),
    "iadd": lambda lib, mt, d, m: _iadd(mt.clone()),
    "relu_unsupported": lambda lib, mt, d, m: mt.relu(),
    "logical_not_unsupported": lambda lib, mt, d, m: (mt > 2).logical_not(),
    "zeros_like_unsupported": lambda lib, mt, d, m: lib.zeros_like(mt),
    "ones_like": lambda lib, mt, d, m: lib.ones_like(mt),
}


def _iadd(x):
    x += 1
    return x


@pytest.mark.parametrize("case", list(_ELEMENTWISE))
def test_elementwise_as_pytorch(case):
    _compare(lambda lib: _ELEMENTWISE[case](lib, *_inputs(lib)))


def test_integer_data():
    _compare(lambda lib: _inputs(lib, data=np.arange(6).reshape(2, 3))[0] * 3)
    _compare(lambda lib: _inputs(lib, data=np.arange(6, dtype=np.int32).reshape(2, 3))[0].sum())


# ---------------------------------------------------------------------------- reductions

_REDUCTIONS = {
    "sum": lambda lib, mt: mt.sum(),
    "sum0": lambda lib, mt: mt.sum(0),
    "sum1_keepdim": lambda lib, mt: mt.sum(1, keepdim=True),
    "sum_dims": lambda lib, mt: mt.sum((0, 1)),
    "sum_dtype": lambda lib, mt: mt.sum(0, dtype=lib.float64),
    "torch_sum": lambda lib, mt: lib.sum(mt),
    "mean": lambda lib, mt: mt.mean(),
    "mean0": lambda lib, mt: mt.mean(0),
    "mean_kw": lambda lib, mt: lib.mean(mt, dim=1, keepdim=True),
    "amax": lambda lib, mt: mt.amax(),
    "amax1": lambda lib, mt: mt.amax(1),
    "amin": lambda lib, mt: mt.amin(),
    "amin0": lambda lib, mt: mt.amin(0),
    "argmax": lambda lib, mt: mt.argmax(),
    "argmax0": lambda lib, mt: mt.argmax(0),
    "argmin": lambda lib, mt: mt.argmin(),
    "argmin1_keepdim": lambda lib, mt: mt.argmin(1, keepdim=True),
    "prod": lambda lib, mt: mt.prod(),
    "prod1": lambda lib, mt: mt.prod(1),
    "all": lambda lib, mt: (mt > 2).all(),
    "all1": lambda lib, mt: (mt > 2).all(1),
    "var": lambda lib, mt: mt.var(),
    "var1": lambda lib, mt: mt.var(1),
    "std1": lambda lib, mt: mt.std(1),
    "any_unsupported": lambda lib, mt: (mt > 2).any(),
    "max_unsupported": lambda lib, mt: mt.max(),
    "masked_sum_of_masked_tensor": lambda lib, mt: lib.masked.sum(mt, 1),
    "masked_amax_of_masked_tensor": lambda lib, mt: lib.masked.amax(mt, 0),
    "int_sum": lambda lib, mt: mt.int().sum(0),
    "int_mean": lambda lib, mt: mt.int().mean(),
}


@pytest.mark.parametrize("case", list(_REDUCTIONS))
def test_reduction_as_pytorch(case):
    _compare(lambda lib: _REDUCTIONS[case](lib, _inputs(lib)[0]))


_SOFTMAX = {
    "softmax1": lambda lib, mt, d, m: lib.softmax(mt, 1),
    "softmax0_fully_masked_column": lambda lib, mt, d, m: mt.softmax(0),
    "softmax_negative_dim": lambda lib, mt, d, m: mt.softmax(-1),
    "log_softmax_unsupported": lambda lib, mt, d, m: lib.log_softmax(mt, 1),
    "where_plain_condition": lambda lib, mt, d, m: lib.where(m, mt, d),
    "where_both_masked": lambda lib, mt, d, m: lib.where(d > 2, mt, mt * 0),
    "where_masked_other": lambda lib, mt, d, m: lib.where(~m, d, mt),
}


@pytest.mark.parametrize("case", list(_SOFTMAX))
def test_softmax_and_where_as_pytorch(case):
    _compare(lambda lib: _SOFTMAX[case](lib, *_inputs(lib)))


# ---------------------------------------------------------------------------- shapes and copies

_SHAPES = {
    "select": lambda lib, mt: mt[0],
    "column": lambda lib, mt: mt[:, 1],
    "slice": lambda lib, mt: mt[:, 1:],
    "ellipsis": lambda lib, mt: mt[..., 0],
    "none": lambda lib, mt: mt[None],
    "bool_index": lambda lib, mt: mt[mt.get_mask()],
    "list_index": lambda lib, mt: mt[[1, 0]],
    "view": lambda lib, mt: mt.view(3, 2),
    "reshape": lambda lib, mt: mt.reshape(6),
    "flatten": lambda lib, mt: mt.flatten(),
    "t": lambda lib, mt: mt.t(),
    "transpose": lambda lib, mt: mt.transpose(0, 1),
    "unsqueeze": lambda lib, mt: mt.unsqueeze(0),
    "cat": lambda lib, mt: lib.cat([mt, mt]),
    "stack": lambda lib, mt: lib.stack([mt, mt], 1),
    "split": lambda lib, mt: mt.split(1),
    "expand": lambda lib, mt: mt[0:1].expand(3, 3),
    "to_float64": lambda lib, mt: mt.to(lib.float64),
    "double": lambda lib, mt: mt.double(),
    "int": lambda lib, mt: mt.int(),
    "to_cpu": lambda lib, mt: mt.to("cpu"),
    "clone": lambda lib, mt: mt.clone(),
    "detach": lambda lib, mt: mt.detach(),
    "contiguous": lambda lib, mt: mt.t().contiguous(),
    "setitem_unsupported": lambda lib, mt: mt.__setitem__(0, 1.0),
    "squeeze_unsupported": lambda lib, mt: mt.squeeze(),
    "matmul_unsupported": lambda lib, mt: mt @ mt.t(),
}


@pytest.mark.parametrize("case", list(_SHAPES))
def test_shape_ops_as_pytorch(case):
    _compare(lambda lib: _SHAPES[case](lib, _inputs(lib)[0]))


# ---------------------------------------------------------------------------- autograd

_GRADIENTS = {
    "mul_sum": lambda lib, x, d, m: (x * x).sum(),
    "exp_mean": lambda lib, x, d, m: x.exp().mean(),
    "softmax": lambda lib, x, d, m: (lib.softmax(x, 1) * _inputs(lib)[0]).sum(),
    "amax1": lambda lib, x, d, m: x.amax(1).sum(),
    "prod": lambda lib, x, d, m: x.prod(),
    "select": lambda lib, x, d, m: x[0].sum(),
    "slice": lambda lib, x, d, m: x[:, 1:].sum(),
    "t": lambda lib, x, d, m: (x.t() * 2).sum(),
    "sum0_sum": lambda lib, x, d, m: x.sum(0).sum(),
    "to_float64": lambda lib, x, d, m: x.to(lib.float64).sum(),
    "get_data": lambda lib, x, d, m: x.get_data().sum(),
    "where": lambda lib, x, d, m: lib.where(m, x, d).sum(),
    "add_plain": lambda lib, x, d, m: (x + d).sum(),
    "square_sum1_keepdim": lambda lib, x, d, m: (x ** 2).sum(1, keepdim=True).sum(),
    "var": lambda lib, x, d, m: x.var(),
    "neg": lambda lib, x, d, m: (-x).sum(),
    "div": lambda lib, x, d, m: (x / (x + 1)).sum(),
    "view": lambda lib, x, d, m: x.view(6).sum(),
    "mean0": lambda lib, x, d, m: x.mean(0).sum(),
    "twice": lambda lib, x, d, m: (x * 2 + x.exp()).sum(),
}


@pytest.mark.parametrize("case", list(_GRADIENTS))
def test_gradient_is_a_masked_tensor_as_pytorch(case):
    def grad_of(lib):
        x, d, m = _inputs(lib, requires_grad=True)
        y = _GRADIENTS[case](lib, x, d, m)
        assert type(y).__name__ == "MaskedTensor" or case == "get_data"
        assert y.requires_grad
        y.backward()
        return x.grad
    _compare(grad_of)


def test_as_masked_tensor_keeps_history():
    def run(lib):
        a = lib.tensor(_DATA, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            y = lib.masked.as_masked_tensor(a * 2, lib.tensor(_MASK))
            assert y.requires_grad and not y.is_leaf
            assert type(y.grad_fn).__name__ == "ConstructorBackward"
            y.sum().backward()
        return a.grad
    _compare(run)


def test_masked_tensor_of_data_that_requires_grad_is_a_leaf():
    def run(lib):
        mt = lib.masked.masked_tensor(lib.tensor(_DATA, requires_grad=True), lib.tensor(_MASK))
        return (mt.requires_grad, mt.is_leaf, mt.grad_fn is None,
                mt.detach().requires_grad, type(mt.detach()).__name__)
    _compare(run)


def test_result_node_names():
    def run(lib):
        x = _inputs(lib, requires_grad=True)[0]
        return (type(x.sum().grad_fn).__name__, type(x.get_data().grad_fn).__name__,
                type((x * x).grad_fn).__name__)
    _compare(run)


def _sparse(lib, layout):
    d, m = lib.tensor(_DATA), lib.tensor(_MASK)
    data = d.sparse_mask(m.to_sparse())
    if layout == "coo":
        mask = m.to_sparse()
    else:
        data, mask = data.to_sparse_csr(), m.to_sparse_csr()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return lib.masked.masked_tensor(data, mask)


_SPARSE = {
    "is_sparse": lambda lib, mt: mt.is_sparse,
    "layout": lambda lib, mt: str(mt.layout).split(".")[1],
    "repr": lambda lib, mt: repr(mt),
    "exp": lambda lib, mt: mt.exp(),
    "mul_scalar": lambda lib, mt: mt * 2,
    "add": lambda lib, mt: mt + mt.clone(),
    "sum": lambda lib, mt: mt.sum(),
    "amax": lambda lib, mt: mt.amax(),
    "to_dense": lambda lib, mt: mt.to_dense(),
    "sum0_unsupported": lambda lib, mt: mt.sum(0),
}


@pytest.mark.parametrize("layout", ["coo", "csr"])
@pytest.mark.parametrize("case", list(_SPARSE))
def test_sparse_masked_tensor_as_pytorch(case, layout):
    _compare(lambda lib: _SPARSE[case](lib, _sparse(lib, layout)))


@pytest.mark.parametrize("conversion", ["to_sparse", "to_sparse_csr", "round_trip"])
def test_layout_conversions_as_pytorch(conversion):
    def run(lib):
        mt = _inputs(lib)[0]
        if conversion == "round_trip":
            return mt.to_sparse().to_dense()
        return getattr(mt, conversion)()
    _compare(run)


def test_nan_data_under_the_mask_is_ignored():
    data = _DATA.copy()
    data[~_MASK] = math.nan
    _compare(lambda lib: _inputs(lib, data=data)[0].sum(1))
    _compare(lambda lib: _inputs(lib, data=data)[0].amax(0))


def test_gradients_accumulate_and_autograd_grad_as_pytorch():
    def run(lib):
        x = _inputs(lib, requires_grad=True)[0]
        for _ in range(2):
            (x * 2).sum().backward()
        (grad,) = lib.autograd.grad(x.exp().sum(), x)
        return x.grad, grad
    _compare(run)
