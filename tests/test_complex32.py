"""complex32 (ember.chalf), compared with PyTorch's ComplexHalf on the CPU: what PyTorch runs
gives the same dtype, shape and values; what it refuses raises the same class.
(NOTE [complex32 storage] in src/ember/_core/complex_half.py.)"""
import io
import pickle

import numpy as np
import pytest
import torch

import ember
from ember._core.registry import OPS

pytestmark = pytest.mark.filterwarnings("ignore:ComplexHalf support", "ignore:Casting complex")

X = [[1 + 2j, -0.5 + 0.25j, 3 - 1j], [0.5j, 2, -1 - 1j]]
Y = [[0.5 - 1j, 2 + 0j, -1 + 1j], [1, 2j, 3.25]]


def _values(result):
    """A library's result as NumPy (complex32 and float16 widened) or as a plain value."""
    if isinstance(result, (ember.Tensor, torch.Tensor)):
        if result.dtype in (torch.complex32, ember.complex32):
            result = result.cfloat()
        return result.detach().resolve_conj().resolve_neg().numpy()
    if isinstance(result, (ember.dtype, torch.dtype)):
        return str(result).split(".")[-1]
    if isinstance(result, (tuple, list)):
        return [_values(r) for r in result]
    return result


def _run(lib, expression):
    x = lib.tensor(X, dtype=lib.chalf)
    y = lib.tensor(Y, dtype=lib.chalf)
    h = lib.tensor([[1.5, -2.0, 0.25], [3.0, 0.5, -1.0]], dtype=lib.half)
    index = lib.tensor([1, 0])
    try:
        return eval(expression, {"L": lib, "x": x, "y": y, "h": h, "index": index}), None
    except Exception as error:  # noqa: BLE001  (the class is what we compare)
        return None, error


def assert_same(expression, rtol=0.0):
    expected, torch_error = _run(torch, expression)
    got, ember_error = _run(ember, expression)
    if torch_error is not None:
        assert ember_error is not None, f"{expression}: torch raised {torch_error!r}; ember not"
        assert isinstance(ember_error, type(torch_error)), (
            f"{expression}: torch raised {torch_error!r}, ember {ember_error!r}")
        return
    assert ember_error is None, f"{expression}: ember raised {ember_error!r}"
    for e, t in zip(*(r if isinstance(r, (tuple, list)) else [r] for r in (got, expected))):
        if isinstance(t, torch.Tensor):
            assert str(e.dtype) == str(t.dtype).replace("torch.", "ember."), expression
            assert tuple(e.shape) == tuple(t.shape), expression
            if t._base is not None:        # a view: PyTorch's strides
                assert e.stride() == t.stride(), expression
    if rtol:
        np.testing.assert_allclose(_values(got), _values(expected), rtol=rtol, err_msg=expression)
    else:
        np.testing.assert_equal(_values(got), _values(expected), err_msg=expression)


CREATION = [
    "L.zeros(2, 3, dtype=L.chalf)", "L.ones(2, dtype=L.chalf)", "L.empty(2, dtype=L.chalf).shape",
    "L.full((2,), 1 + 2j, dtype=L.chalf)", "L.full((2,), 1e5 - 3j, dtype=L.chalf)",
    "L.tensor([1 + 2j, 3.5 - 1e-3j, 1e5j], dtype=L.chalf)", "L.tensor(1 + 2j, dtype=L.chalf)",
    "L.tensor([1, 2], dtype=L.chalf)", "L.tensor([True], dtype=L.chalf)",
    "L.zeros_like(x)", "L.ones_like(x)", "L.full_like(x, 2j)", "L.empty_like(x).dtype",
    "L.arange(3, dtype=L.chalf)", "L.linspace(0, 1, 3, dtype=L.chalf)",
    "L.eye(2, dtype=L.chalf)", "x.new_zeros(2)", "x.new_ones(2)", "x.new_full((2,), 3)",
    "x.new_tensor([1j])", "L.randn(3, dtype=L.chalf).shape", "L.rand(3, dtype=L.chalf).dtype",
    "L.empty_strided((2, 2), (1, 2), dtype=L.chalf).fill_(1j)",
]
CONVERSIONS = [
    "x.chalf()", "h.chalf()", "x.cfloat()", "x.cdouble()", "x.half()", "x.float()", "x.double()",
    "x.long()", "x.int()", "x.bool()", "x.to(L.float32)", "x.to(L.chalf)", "x.cfloat().chalf()",
    "x.cdouble().to(L.complex32)", "L.tensor([70000.5 + 1j, 1e-8j]).chalf()", "x.type()",
    "x.type(L.float16)", "x.type('torch.FloatTensor')", "x.element_size()", "x.itemsize",
    "x.is_complex()", "x.is_floating_point()", "x.tolist()", "x[0, 0].item()", "x.numpy()",
    "x.numpy(force=True)", "complex(x[1, 2])", "x.real", "x.imag", "x.t().real", "x.conj().imag",
    "x.conj()", "x.resolve_conj()", "x.conj_physical()", "L.view_as_real(x)",
    "L.view_as_real(x.t())", "L.view_as_complex(L.view_as_real(x))", "L.view_as_complex(h[:, :2])",
    "x.view(L.float16)", "x.view(L.int32)", "h.view(L.chalf)", "x.untyped_storage().nbytes()",
    "L.complex(h, h)", "L.result_type(h, 1j)", "L.result_type(x, 2.5)",
    "L.result_type(x, h.float())", "L.can_cast(L.chalf, L.half)",
]
ARITHMETIC = [
    "x + y", "x - y", "x * y", "x / y", "x + 1", "x * 2.5", "x + 1j", "2 * x", "1 - x", "-x",
    "x ** 2", "x * h", "x + h.float()", "x * h.double()", "x + L.tensor(2.5)",
    "x * L.tensor(1j, dtype=L.complex128)", "h * 1j", "h * (2 - 1j)", "h.bfloat16() * 1j",
    "L.tensor([1, 2]) * x", "x == y", "x != y", "x == x", "x < y", "x.abs()", "abs(x)", "x.sgn()",
    "x.sign()", "x.angle()", "x.exp()", "x.sqrt()", "x.sin()", "x.reciprocal()", "x.isnan()",
    "x.isinf()", "x.isfinite()", "x.isreal()", "L.addcmul(x, y, y)", "L.addcdiv(x, y, y)",
    "x.float_power(2)", "L.where(x.abs() > 1, x, y)", "L.isclose(x, y)", "L.allclose(x, x)",
    "L.equal(x, y)", "x.clamp(0, 1)", "L.maximum(x, y)", "x.floor()", "x.deg2rad()",
    "L.lerp(x, y, y)", "x.nan_to_num()", "x.add_(y)", "x.mul_(2)", "x.sub_(1j)", "x.neg_()",
    "x.abs_()", "x.div_(2)", "h.add_(x)", "x.logical_not()", "x.bitwise_not()",
    "x.pow(2)", "x.square()", "x.tanh()", "x.sigmoid()",
]
SHAPES_AND_INDEXING = [
    "x[0]", "x[:, 1]", "x[1, 2]", "x[..., None]", "x[x.abs() > 1]", "x[index]", "x.t()",
    "x.t().contiguous()", "x.reshape(3, 2)", "x.flatten()", "x.unsqueeze(0)", "x.permute(1, 0)",
    "x.expand(2, 2, 3)", "x.flip(0)", "x.roll(1)", "x.repeat(2, 1)", "x.narrow(1, 0, 2)",
    "x.split(1)", "x.chunk(3, 1)", "x.unbind()", "L.cat([x, y])", "L.stack([x, y])",
    "L.cat([x, h])", "L.cat([x, x.cfloat()])", "x.diag()", "x.triu()", "x.tril()",
    "x[0].diag()", "x.clone()", "x.detach()", "x.index_select(0, index)",
    "x.masked_fill(x.abs() > 1, 0)", "x.masked_fill(x.abs() > 1, 2j)",
    "x.masked_select(x.abs() > 1)", "x.gather(0, L.tensor([[1, 0, 1]]))", "x.take(index)",
    "x.nonzero()", "x.count_nonzero()", "x.any()", "x.all()", "L.outer(x[0], y[0])",
    "L.kron(x, y)", "x.clone().zero_()", "x.clone().fill_(1 + 1j)", "x.clone().copy_(h)",
    "x.clone().copy_(y.cfloat())", "h.clone().copy_(x)", "x.diff()",
    "x.index_put_((index,), L.tensor(1j, dtype=L.chalf))", "x.__setitem__(0, 5j) or x",
    "x.__setitem__((1, 2), y[0, 0]) or x", "x.__setitem__(0, 1) or x",
    "x.index_fill(0, index, 2j)", "x.index_copy(0, index, y)", "x.index_add(0, index, y)",
    "x.index_add(0, index, y, alpha=2)", "x.masked_scatter(x.abs() > 1, y)",
    "x.scatter_add(0, L.tensor([[1, 0, 1]]), y)", "L.block_diag(x, y)", "x.H.contiguous()", "x.mT",
    "L.nn.functional.pad(x, (1, 1))", "L.broadcast_tensors(x, y[0])", "x.unfold(1, 2, 1)",
    "L.combinations(x[0])", "L.cartesian_prod(x[0], y[0])", "L.atleast_3d(x)", "x.flip(1)",
    "x.flip(0)", "x.fliplr()", "x.flipud()", "x.rot90()", "x.rot90(3)", "x.rot90(1, (1, 0))",
    "L.zeros(0, dtype=L.chalf).flip(0)", "x.sum_to_size(1, 1)",
]
REDUCTIONS_AND_LINALG = [
    "x.sum()", "x.sum(0)", "x.mean()", "x.prod()", "x.sum(dtype=L.cfloat)", "x.cumsum(0)",
    "x.norm()", "x.std()", "x.var()", "x.dist(y)", "L.linalg.vector_norm(x)", "x.max()",
    "x.argmax()", "x.sort()", "x.unique()", "x.trace()", "x @ y.t()", "x.mm(y.t())",
    "L.dot(x[0], y[0])", "L.fft.fft(x)", "x.amax()", "x.amin(0)", "x.aminmax()",
    "x.nansum()", "x.nanmean()", "x.logsumexp(0)", "x.cumprod(0)", "x.median()", "x.mode()",
    "x.topk(1)", "x.kthvalue(1)", "x.argsort()", "x.msort()", "x.cummax(0)", "L.bmm(x[None], y.t()[None])",
    "L.vdot(x[0], y[0])", "L.inner(x, y)", "x.max(0)", "L.mean(x, dtype=L.cfloat)",
    "x.sum(0, dtype=L.cdouble)", "x.sum(dtype=L.float32)", "x.prod(dtype=L.cfloat)",
    "x.cumsum(0, dtype=L.cfloat)", "x.all(0)", "x.any(1)", "x.std(0)", "x.var(1)",
    "L.std_mean(x)", "x.argmin()",
]


@pytest.mark.parametrize("expression", CREATION + CONVERSIONS)
def test_creation_and_conversions_match_torch(expression):
    assert_same(expression)


@pytest.mark.parametrize("expression", ARITHMETIC)
def test_arithmetic_matches_torch(expression):
    assert_same(expression)


@pytest.mark.parametrize("expression", SHAPES_AND_INDEXING)
def test_views_and_indexing_match_torch(expression):
    assert_same(expression)


@pytest.mark.parametrize("expression", REDUCTIONS_AND_LINALG)
def test_reductions_match_torch(expression):
    # (Accumulated in float32 where PyTorch's order differs: a float16 ulp apart at most.)
    assert_same(expression, rtol=1e-3)


def _pointwise_names():
    return sorted({op.schema.name for op in OPS.values() if op.kind == "pointwise"
                   and hasattr(torch, op.schema.name)})


@pytest.mark.parametrize("name", _pointwise_names())
def test_every_elementwise_op_as_torch(name):
    """Each element-wise op of the registry, given complex32 tensors for all its tensor
    arguments: PyTorch's result or PyTorch's exception class."""
    op = next(op for op in OPS.values() if op.schema.name == name and op.kind == "pointwise")
    arguments = ", ".join(["x"] * len(op.tensor_positions))
    assert_same(f"L.{name}({arguments})")


def test_dtype_object_matches_torch():
    for attribute in ("itemsize", "is_complex", "is_floating_point", "is_signed"):
        assert getattr(ember.complex32, attribute) == getattr(torch.complex32, attribute)
    assert ember.chalf is ember.complex32
    assert repr(ember.complex32) == "ember.complex32"
    assert ember.complex32.to_real() is ember.float16
    assert ember.complex32.to_complex() is ember.complex32
    assert ember.float16.to_complex() is ember.complex32
    assert pickle.loads(pickle.dumps(ember.chalf)) is ember.chalf


def test_promotion_with_every_dtype_matches_torch():
    names = ["bool", "uint8", "int8", "int64", "float16", "bfloat16", "float32", "float64",
             "complex32", "complex64", "complex128"]
    for name in names:
        for first, second in ((name, "complex32"), ("complex32", name)):
            expected = torch.promote_types(getattr(torch, first), getattr(torch, second))
            got = ember.promote_types(getattr(ember, first), getattr(ember, second))
            assert repr(got) == repr(expected).replace("torch.", "ember.")


def test_repr_matches_torch():
    for values in (X, [1 + 2j, 3.5 - 1e-3j, 1e5j], 1 - 2j, [[0j] * 3] * 2):
        expected = repr(torch.tensor(values, dtype=torch.chalf)).replace("torch.", "ember.")
        assert repr(ember.tensor(values, dtype=ember.chalf)) == expected


def test_default_dtype_float16_makes_complex32():
    for lib in (torch, ember):
        lib.set_default_dtype(lib.float16)
    try:
        for expression in ("L.tensor([1j])", "L.tensor([1, 2]) * 1j", "L.tensor(2.5) * 1j"):
            assert_same(expression)
    finally:
        for lib in (torch, ember):
            lib.set_default_dtype(lib.float32)


def test_view_as_real_writes_through():
    results = []
    for lib in (torch, ember):
        x = lib.tensor(X, dtype=lib.chalf)
        lib.view_as_real(x.t())[1, 0, 1] = 7
        x.real[0, 0] = -3
        results.append(x.cfloat().numpy())
    np.testing.assert_equal(*results)


def test_autograd_matches_torch():
    grads = []
    for lib in (torch, ember):
        x = lib.tensor(X, dtype=lib.chalf, requires_grad=True)
        y = lib.tensor(Y, dtype=lib.chalf)
        ((x * y + x).abs().float().sum()).backward()
        assert x.grad.dtype == lib.chalf
        grads.append(x.grad.cfloat().numpy())
    np.testing.assert_allclose(*grads, rtol=2e-3)


def test_pickle_and_save_interchange_with_torch(tmp_path):
    x = ember.tensor(X, dtype=ember.chalf)
    again = pickle.loads(pickle.dumps(x))
    assert again.dtype is ember.chalf
    np.testing.assert_equal(again.cfloat().numpy(), x.cfloat().numpy())
    path = tmp_path / "ember.pt"
    ember.save({"x": x, "view": x[:, 1]}, path)
    loaded = torch.load(path)
    assert loaded["x"].dtype == torch.chalf
    np.testing.assert_equal(loaded["x"].cfloat().numpy(), x.cfloat().numpy())
    np.testing.assert_equal(loaded["view"].cfloat().numpy(), x[:, 1].cfloat().numpy())
    buffer = io.BytesIO()
    torch.save({"y": torch.tensor(Y, dtype=torch.chalf)}, buffer)
    buffer.seek(0)
    y = ember.load(buffer)["y"]
    assert y.dtype is ember.chalf
    np.testing.assert_equal(y.cfloat().numpy(), torch.tensor(Y, dtype=torch.chalf).cfloat().numpy())


# Tensor methods left out of the no-argument sweep: they touch memory or the process rather
# than compute (data pointers, storages, devices, hooks, pinning), or draw random numbers.
_SWEEP_SKIPS = frozenset((
    "data_ptr", "const_data_ptr", "mutable_data_ptr", "untyped_storage", "storage", "cuda", "ipu",
    "xpu", "mtia", "share_memory_", "pin_memory", "is_pinned", "numpy", "tolist", "item",
    "backward", "retain_grad", "requires_grad_", "register_hook", "apply_", "map_", "type",
    "dim_order", "storage_type", "set_", "resize_", "to_mkldnn", "uniform_", "normal_",
    "cauchy_", "exponential_", "geometric_", "log_normal_", "random_", "bernoulli_",
    "bernoulli", "multinomial", "new_empty", "empty_like", "element_size",
    "register_post_accumulate_grad_hook",
))
# complex32 results ember does not give yet, each for its reason.
_SWEEP_KNOWN = {
    "to_sparse_coo": "sparse conversion runs through SciPy, which has no complex32",
    "to_sparse_csr": "sparse conversion runs through SciPy, which has no complex32",
    "to_sparse_csc": "sparse conversion runs through SciPy, which has no complex32",
    "to_sparse": "sparse conversion runs through SciPy, which has no complex32",
    "geqrf": "PyTorch's NotImplementedError; ember's frontend reports NumPy's cast TypeError",
    "pinverse": "PyTorch's RuntimeError names the dtypes pinv takes; ember's SVD refuses first",
}


def _outcome(lib, dtype_name, name):
    x = lib.tensor(X, dtype=getattr(lib, dtype_name))
    try:
        result = getattr(x, name)()
    except Exception as error:  # noqa: BLE001  (the class is what we compare)
        return type(error).__name__
    return str(getattr(result, "dtype", type(result).__name__)).split(".")[-1]


def _sweep_names():
    names = []
    for name in sorted(dir(torch.Tensor)):
        if name in _SWEEP_SKIPS or name.startswith("_") or not hasattr(ember.Tensor, name):
            continue
        try:
            if callable(getattr(torch.ones(2, 2), name)):
                names.append(name)
        except Exception:  # noqa: BLE001, S112  (properties that raise on this shape: H ...)
            continue
    return names


@pytest.mark.parametrize("name", _sweep_names())
def test_every_method_without_arguments_as_torch(name):
    """Each Tensor method called with no arguments on a complex32 tensor: PyTorch's result
    dtype, or PyTorch's exception class. A method whose complex64 outcome differs from
    PyTorch's already (an argument check in another order, a missing overload) is not a
    complex32 matter and is left to the op table."""
    if name in _SWEEP_KNOWN:
        pytest.xfail(_SWEEP_KNOWN[name])
    expected64, got64 = _outcome(torch, "complex64", name), _outcome(ember, "complex64", name)
    if got64 != expected64:
        pytest.skip(f"complex64 already differs: torch {expected64}, ember {got64}")
    assert _outcome(ember, "complex32", name) == _outcome(torch, "complex32", name)


def test_typed_storage_matches_torch():
    results = []
    for lib in (torch, ember):
        x = lib.tensor(X, dtype=lib.chalf)
        storage = x.storage()
        storage[1] = 2 - 3j
        results.append((str(storage.dtype).split(".")[-1], storage.size(), storage.tolist(),
                        storage[4], x.cfloat().numpy().tolist(), x.untyped_storage().nbytes()))
    assert results[0] == results[1]
