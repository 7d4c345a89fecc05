"""Tensors on 'cuda' against the same work on 'cpu' (ember's CPU result is the oracle):
creation, moves between devices, dtype conversions, views, indexing, reductions, products,
`ember.cuda`'s functions, and save/load. Skipped without CUDA (see cuda_support.py)."""
from __future__ import annotations

import io
import pickle

import numpy as np
import pytest
from cuda_support import assert_same, host, requires_cuda

import ember

pytestmark = requires_cuda

FLOATS = [ember.float32, ember.float64, ember.float16, ember.bfloat16]
ALL = FLOATS + [ember.int64, ember.int32, ember.int16, ember.int8, ember.uint8, ember.bool,
                ember.complex64, ember.complex128]


def _cpu_and_cuda(make):
    """make(device) run on 'cpu' and on 'cuda'."""
    return make("cpu"), make("cuda")


# ------------------------------------------------------------------ creation


@pytest.mark.parametrize("dtype", ALL, ids=str)
@pytest.mark.parametrize("factory", ["zeros", "ones", "empty", "full"])
def test_factories_on_cuda(factory, dtype):
    def make(device):
        if factory == "full":
            return ember.full((2, 3), 1 if dtype is ember.bool else 7, dtype=dtype,
                              device=device)
        return getattr(ember, factory)((2, 3), dtype=dtype, device=device)
    cpu, cuda = _cpu_and_cuda(make)
    assert cuda.device == ember.device("cuda", 0) and cuda.is_cuda and not cuda.is_cpu
    assert cuda.get_device() == 0
    if factory == "empty":
        assert cuda.shape == cpu.shape and cuda.dtype is dtype
    else:
        assert_same(cuda, cpu, 0, 0, factory)


@pytest.mark.parametrize("device", ["cuda", "cuda:0", ember.device("cuda"), 0])
def test_device_spellings_place_on_cuda_0(device):
    t = ember.ones(3, device=device)
    assert str(t.device) == "cuda:0", t.device
    assert t.device == ember.device("cuda:0")


def test_cuda_and_cuda_0_tensors_mix():
    # PyTorch resolves 'cuda' to the current device: both are cuda:0 and add without error.
    a = ember.ones(3, device="cuda")
    b = ember.ones(3).to("cuda:0")
    c = ember.ones(3).cuda()
    assert_same(a + b + c, ember.full((3,), 3.0), where="cuda + cuda:0")


@pytest.mark.parametrize("make", [
    lambda d: ember.arange(10, device=d),
    lambda d: ember.arange(1.0, 4.0, 0.25, device=d),
    lambda d: ember.arange(0, 12, 3, dtype=ember.float64, device=d),
    lambda d: ember.linspace(-1, 1, 9, device=d),
    lambda d: ember.logspace(0, 2, 5, device=d),
    lambda d: ember.eye(3, 4, device=d),
    lambda d: ember.full((2, 2), 3.5, device=d),
    lambda d: ember.tensor([[1.0, 2.0], [3.0, 4.0]], device=d),
    lambda d: ember.tensor([1, 2, 3], dtype=ember.int32, device=d),
    lambda d: ember.tensor(True, device=d),
    lambda d: ember.as_tensor(np.arange(6.0).reshape(2, 3), device=d),
    lambda d: ember.zeros_like(ember.ones(2, 3, device=d)),
    lambda d: ember.ones_like(ember.ones(2, 3, device=d), dtype=ember.float16),
    lambda d: ember.full_like(ember.ones(4, device=d), 2.5),
    lambda d: ember.ones(2, 3, device=d).new_zeros(4),
    lambda d: ember.ones(2, 3, device=d).new_full((2,), 9.0),
    lambda d: ember.ones(2, 3, device=d).new_tensor([1.0, 2.0]),
    lambda d: ember.tril_indices(4, 4, device=d),
    lambda d: ember.empty(3, device=d).fill_(2.0),
], ids=lambda f: "")
def test_creation_matches_cpu(make):
    cpu, cuda = _cpu_and_cuda(make)
    assert_same(cuda, cpu, 1e-6, 1e-6, "creation")


@pytest.mark.parametrize("name,args", [
    ("rand", ((3, 4),)), ("randn", ((3, 4),)), ("randint", (0, 10, (3, 4))),
    ("randperm", (12,)),
])
def test_random_factories_on_cuda(name, args):
    # ember draws every device's numbers from one stream (see ember/_ops/random.py): the same
    # seed gives CPU's numbers on CUDA too.
    def make(device):
        ember.manual_seed(7)
        return getattr(ember, name)(*args, device=device)
    cpu, cuda = _cpu_and_cuda(make)
    assert_same(cuda, cpu, 0, 0, name)


def test_randn_statistics_on_cuda():
    ember.manual_seed(0)
    x = ember.randn(200_000, device="cuda")
    assert x.device.type == "cuda"
    assert abs(float(x.mean())) < 0.01 and abs(float(x.std()) - 1) < 0.01


# ------------------------------------------------------------------ moves


@pytest.mark.parametrize("dtype", ALL, ids=str)
def test_round_trip_keeps_values(dtype):
    source = (ember.arange(12).reshape(3, 4) % 5).to(dtype)
    for move in (lambda t: t.to("cuda"), lambda t: t.cuda(), lambda t: t.to(device="cuda:0"),
                 lambda t: t.to(ember.device("cuda"), dtype)):
        on_gpu = move(source)
        assert on_gpu.is_cuda and on_gpu.dtype is dtype
        back = on_gpu.cpu()
        assert back.device.type == "cpu" and back.dtype is dtype
        assert ember.equal(back, source)
        assert ember.equal(on_gpu.to("cpu"), source)


def test_to_same_device_returns_self_and_copy_flag():
    x = ember.ones(3, device="cuda")
    assert x.to("cuda") is x and x.cuda() is x and x.to("cuda:0") is x
    y = x.to("cuda", copy=True)
    assert y is not x and ember.equal(y.cpu(), x.cpu())
    y.add_(1)
    assert float(x.sum()) == 3.0


def test_noncontiguous_and_views_move():
    base = ember.arange(24.0).reshape(2, 3, 4)
    for view in (base.transpose(0, 2), base[:, 1], base[..., ::2], base.permute(2, 0, 1)):
        assert_same(view.cuda(), view, 0, 0, "view move")
        assert_same(view.cuda().contiguous(), view.contiguous(), 0, 0, "contiguous")


def test_mixing_devices_raises():
    with pytest.raises(RuntimeError, match="same device"):
        ember.ones(3, device="cuda") + ember.ones(3)
    # A zero-dim CPU tensor acts as a scalar beside a CUDA tensor (as in PyTorch).
    out = ember.ones(3, device="cuda") + ember.tensor(2.0)
    assert_same(out, ember.full((3,), 3.0), where="0-d cpu scalar")


def test_item_tolist_numpy_on_cuda():
    x = ember.tensor([[1.5, 2.0], [3.0, -4.0]], device="cuda")
    assert x[0, 0].item() == 1.5 and x.tolist() == [[1.5, 2.0], [3.0, -4.0]]
    assert float(x.sum()) == 2.5 and int(x[1, 0]) == 3 and bool(x[0, 0] > 1)
    with pytest.raises(TypeError, match="cuda"):
        x.numpy()
    assert np.array_equal(x.cpu().numpy(), [[1.5, 2.0], [3.0, -4.0]])
    assert "device='cuda:0'" in repr(x)


def test_requires_grad_survives_move_and_grad_flows_back():
    leaf = ember.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (leaf.cuda() * 2).sum().backward()
    assert leaf.grad is not None and leaf.grad.device.type == "cpu"
    assert leaf.grad.tolist() == [2.0, 2.0, 2.0]
    gpu_leaf = ember.tensor([1.0, 2.0], device="cuda", requires_grad=True)
    (gpu_leaf.cpu() ** 2).sum().backward()
    assert gpu_leaf.grad.device.type == "cuda" and gpu_leaf.grad.tolist() == [2.0, 4.0]


# ------------------------------------------------------------------ dtype conversions


@pytest.mark.parametrize("source", ALL, ids=str)
@pytest.mark.parametrize("target", ALL, ids=str)
def test_dtype_conversion_on_cuda(source, target):
    values = ember.tensor([[-3.7, -1.0, 0.0, 0.4], [1.5, 2.5, 100.25, 7.0]])
    if source in (ember.uint8, ember.bool) or target is ember.uint8:
        values = values.abs()       # a negative float to uint8 is undefined in C (and CUDA)
    x = values.to(source)
    assert_same(x.cuda().to(target), x.to(target), 0, 0, f"{source}->{target}")


def test_half_arithmetic_on_cuda():
    for dtype, atol, rtol in ((ember.float16, 1e-2, 1.6e-2), (ember.bfloat16, 5e-2, 3e-2)):
        a = ember.linspace(-3, 3, 50).to(dtype)
        b = ember.linspace(1, 2, 50).to(dtype)
        for fn in (lambda a, b: a + b, lambda a, b: a * b, lambda a, b: a / b,
                   lambda a, b: a.exp(), lambda a, b: (a @ b).reshape(1),
                   lambda a, b: a.sum(), lambda a, b: a.softmax(0)):
            assert_same(fn(a.cuda(), b.cuda()), fn(a, b), atol, rtol, str(dtype))


# ------------------------------------------------------------------ views, indexing


VIEWS = {
    "view": lambda t: t.view(4, 6), "reshape": lambda t: t.reshape(-1),
    "transpose": lambda t: t.transpose(0, 1), "permute": lambda t: t.permute(2, 0, 1),
    "T": lambda t: t.mT, "slice": lambda t: t[:, 1:, ::2], "select": lambda t: t[1],
    "unsqueeze": lambda t: t.unsqueeze(1), "squeeze": lambda t: t[:1].squeeze(0),
    "expand": lambda t: t[:, :1].expand(2, 3, 4), "narrow": lambda t: t.narrow(2, 1, 2),
    "unfold": lambda t: t.unfold(2, 2, 1), "diagonal": lambda t: t.diagonal(0, 1, 2),
    "flatten": lambda t: t.flatten(1), "chunk": lambda t: t.chunk(2, dim=2),
    "split": lambda t: t.split([1, 3], dim=2), "unbind": lambda t: t.unbind(1),
    "as_strided": lambda t: t.as_strided((3, 3), (4, 1), 2), "real": lambda t: t.real,
}


@pytest.mark.parametrize("name", VIEWS)
def test_views_on_cuda(name):
    fn = VIEWS[name]
    cpu = ember.arange(24.0).reshape(2, 3, 4)
    cuda = cpu.cuda()
    got, expected = fn(cuda), fn(cpu)
    assert_same(got, expected, 0, 0, name)
    first = got[0] if isinstance(got, tuple) else got
    if name not in ("expand", "as_strided", "unfold") and (
            first._base is not None or name not in ("reshape", "flatten")):
        # A view shares the base's memory: writing through it shows in the base.
        assert first.untyped_storage().data_ptr() == cuda.untyped_storage().data_ptr(), name
        first.fill_(-1) if first.numel() else None
        (expected[0] if isinstance(expected, tuple) else expected).fill_(-1)
        assert_same(cuda, cpu, 0, 0, f"{name}: write through the view")


INDEXING = {
    "int": lambda t: t[1], "neg": lambda t: t[-1, -2], "slice": lambda t: t[1:3, ::2],
    "ellipsis": lambda t: t[..., 1], "none": lambda t: t[None, :, None],
    "bool_mask": lambda t: t[t > 5], "int_tensor": lambda t: t[ember.tensor([0, 2, 2]).to(
        t.device)],
    "two_tensors": lambda t: t[ember.tensor([0, 1]).to(t.device), ember.tensor([2, 3]).to(
        t.device)],
    "list": lambda t: t[[0, 2]], "mixed": lambda t: t[1:, [0, 3]],
    "gather": lambda t: t.gather(1, ember.tensor([[0, 1], [2, 3], [1, 1]]).to(t.device)),
    "index_select": lambda t: t.index_select(1, ember.tensor([3, 0]).to(t.device)),
    "masked_select": lambda t: t.masked_select(t % 2 == 0),
    "take": lambda t: t.take(ember.tensor([0, 5, 11]).to(t.device)),
    "nonzero": lambda t: (t % 3 == 0).nonzero(), "where": lambda t: ember.where(t > 4, t, -t),
    "argwhere": lambda t: ember.argwhere(t > 8), "topk": lambda t: t.topk(2, dim=1),
    "sort": lambda t: t.sort(dim=0, descending=True), "unique": lambda t: ember.unique(t % 4),
}


@pytest.mark.parametrize("name", INDEXING)
def test_indexing_get_on_cuda(name):
    cpu = ember.arange(12.0).reshape(3, 4)
    assert_same(INDEXING[name](cpu.cuda()), INDEXING[name](cpu), 0, 0, name)


SETTERS = {
    "int": lambda t, v: t.__setitem__(1, v), "slice": lambda t, v: t.__setitem__(
        (slice(None), slice(1, 3)), v),
    "mask": lambda t, v: t.__setitem__(t > 5, v),
    "tensor_index": lambda t, v: t.__setitem__(ember.tensor([0, 2]).to(t.device), v),
    "index_put_accumulate": lambda t, v: t.index_put_(
        (ember.tensor([0, 0, 2]).to(t.device),), ember.ones(3, 4, device=t.device) * v,
        accumulate=True),
    "scatter": lambda t, v: t.scatter_(1, ember.tensor([[0], [1], [2]]).to(t.device), v),
    "scatter_add": lambda t, v: t.scatter_add_(
        0, ember.tensor([[0, 1, 2, 0]]).to(t.device), ember.full((1, 4), v, device=t.device)),
    "index_add": lambda t, v: t.index_add_(0, ember.tensor([2, 2]).to(t.device),
                                           ember.ones(2, 4, device=t.device) * v),
    "masked_fill": lambda t, v: t.masked_fill_(t < 3, v),
    "index_fill": lambda t, v: t.index_fill_(1, ember.tensor([1, 3]).to(t.device), v),
}


@pytest.mark.parametrize("name", SETTERS)
def test_indexing_set_on_cuda(name):
    cpu = ember.arange(12.0).reshape(3, 4)
    cuda = cpu.cuda()
    SETTERS[name](cpu, -7.0)
    SETTERS[name](cuda, -7.0)
    assert_same(cuda, cpu, 0, 0, name)


def test_setitem_with_cuda_tensor_value():
    cpu = ember.zeros(3, 4)
    cuda = cpu.cuda()
    value = ember.arange(4.0)
    cpu[1] = value
    cuda[1] = value.cuda()
    assert_same(cuda, cpu, 0, 0, "setitem tensor")


# ------------------------------------------------------------------ reductions and products


REDUCTIONS = {
    "sum": lambda t: t.sum(), "sum_dim": lambda t: t.sum(1, keepdim=True),
    "mean": lambda t: t.mean(0), "prod": lambda t: (t / 4).prod(1),
    "amax": lambda t: t.amax(1), "max_dim": lambda t: t.max(1), "min": lambda t: t.min(),
    "argmax": lambda t: t.argmax(0), "std": lambda t: t.std(1), "var": lambda t: t.var(0),
    "var_mean": lambda t: ember.var_mean(t, 1), "norm": lambda t: t.norm(),
    "logsumexp": lambda t: t.logsumexp(1), "cumsum": lambda t: t.cumsum(1),
    "cumprod": lambda t: (t / 8).cumprod(0), "all": lambda t: (t > -9).all(),
    "any": lambda t: (t > 4).any(1), "count_nonzero": lambda t: (t > 0).count_nonzero(0),
    "median": lambda t: t.median(1), "quantile": lambda t: t.quantile(0.3, dim=1),
    "softmax": lambda t: t.softmax(1), "log_softmax": lambda t: t.log_softmax(0),
    "aminmax": lambda t: ember.aminmax(t, dim=1), "cummax": lambda t: t.cummax(1),
}


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64], ids=str)
@pytest.mark.parametrize("name", REDUCTIONS)
def test_reductions_on_cuda(name, dtype):
    ember.manual_seed(0)
    cpu = (ember.randn(6, 17) * 3).to(dtype)
    assert_same(REDUCTIONS[name](cpu.cuda()), REDUCTIONS[name](cpu), 1e-4, 1e-4, name)


def test_integer_reductions_on_cuda():
    cpu = ember.arange(-10, 14).reshape(4, 6)
    for fn in (lambda t: t.sum(), lambda t: t.sum(1), lambda t: t.prod(0), lambda t: t.max(),
               lambda t: t.cumsum(0), lambda t: (t > 0).sum(), lambda t: t.float().mean()):
        assert_same(fn(cpu.cuda()), fn(cpu), 0, 0, "int reduction")


PRODUCTS = {
    "mm": lambda a, b, c: a @ b, "matmul_vec": lambda a, b, c: a @ b[:, 0],
    "bmm": lambda a, b, c: ember.bmm(c, c.transpose(1, 2)),
    "matmul_batched": lambda a, b, c: ember.matmul(c, b),
    "einsum": lambda a, b, c: ember.einsum("bij,jk->bik", c, b),
    "einsum_trace": lambda a, b, c: ember.einsum("bii->b", c[:, :, :4]),
    "addmm": lambda a, b, c: ember.addmm(b[0], a, b, beta=0.5, alpha=2),
    "baddbmm": lambda a, b, c: ember.baddbmm(c[:, :, :3], c, c.transpose(1, 2)[:, :, :3]),
    "outer": lambda a, b, c: ember.outer(a[0], b[0]), "dot": lambda a, b, c: a[0].dot(a[1]),
    "tensordot": lambda a, b, c: ember.tensordot(c, b, dims=([2], [0])),
    "kron": lambda a, b, c: ember.kron(a[:2, :2], b[:2, :2]),
    "linalg_inv": lambda a, b, c: ember.linalg.inv(a[:, :3] @ a[:, :3].T + ember.eye(
        3, device=a.device, dtype=a.dtype)),
    "linalg_solve": lambda a, b, c: ember.linalg.solve(
        a[:, :3] @ a[:, :3].T + ember.eye(3, device=a.device, dtype=a.dtype), a),
    "cholesky": lambda a, b, c: ember.linalg.cholesky(a @ a.T + ember.eye(
        3, device=a.device, dtype=a.dtype)),
    "qr": lambda a, b, c: ember.linalg.qr(b)[1].abs(),
    "svdvals": lambda a, b, c: ember.linalg.svdvals(b),
    "det": lambda a, b, c: ember.linalg.det(c[:, :, :4][:, :4]),
    "norm": lambda a, b, c: ember.linalg.matrix_norm(c),
}


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64], ids=str)
@pytest.mark.parametrize("name", PRODUCTS)
def test_products_on_cuda(name, dtype):
    ember.manual_seed(1)
    a, b, c = (ember.randn(3, 4, dtype=dtype), ember.randn(4, 5, dtype=dtype),
               ember.randn(2, 4, 4, dtype=dtype))
    tol = 1e-4 if dtype is ember.float32 else 1e-10
    assert_same(PRODUCTS[name](a.cuda(), b.cuda(), c.cuda()), PRODUCTS[name](a, b, c),
                tol, tol, name)


# ------------------------------------------------------------------ ember.cuda functions


def test_cuda_device_module():
    assert ember.cuda.is_available() and ember.cuda.is_initialized()
    assert ember.cuda.device_count() >= 1
    assert ember.cuda.current_device() == 0
    name = ember.cuda.get_device_name()
    assert isinstance(name, str) and name
    for spelling in (0, "cuda", "cuda:0", ember.device("cuda:0")):
        assert ember.cuda.get_device_name(spelling) == name
        ember.cuda.synchronize(spelling)
        ember.cuda.set_device(spelling)
        with ember.cuda.device(spelling):
            assert ember.cuda.current_device() == 0
    ember.cuda.init()
    ember.cuda.synchronize()
    props = ember.cuda.get_device_properties(0)
    assert props.name == name and props.total_memory > 1 << 30 and props.major >= 3
    assert props.multi_processor_count > 0 and "total_memory=" in repr(props)
    assert ember.cuda.get_device_capability() == (props.major, props.minor)
    assert ember.cuda.is_bf16_supported() in (True, False)
    free, total = ember.cuda.mem_get_info()
    assert 0 < free <= total == props.total_memory
    assert ember.get_device_module("cuda") is ember.cuda
    assert ember.accelerator.current_accelerator() == ember.device("cuda")


def test_cuda_seeding_makes_runs_repeat():
    ember.cuda.manual_seed(3)
    ember.manual_seed(3)
    first = ember.rand(5, device="cuda")
    ember.cuda.manual_seed_all(3)
    ember.manual_seed(3)
    second = ember.rand(5, device="cuda")
    assert ember.equal(first.cpu(), second.cpu())


def test_memory_allocated_grows_and_empty_cache():
    ember.cuda.synchronize()
    before = ember.cuda.memory_allocated()
    big = ember.ones(1 << 22, device="cuda")          # 16 MiB
    assert ember.cuda.memory_allocated() >= before + (1 << 24)
    assert ember.cuda.memory_reserved() >= ember.cuda.memory_allocated()
    del big
    ember.cuda.empty_cache()
    assert ember.cuda.memory_allocated() <= before + (1 << 20)


# ------------------------------------------------------------------ save / load


def _saved(obj):
    buffer = io.BytesIO()
    ember.save(obj, buffer)
    buffer.seek(0)
    return buffer


@pytest.mark.parametrize("dtype", [ember.float32, ember.float16, ember.int64], ids=str)
def test_save_load_cuda_tensors(dtype):
    cpu = ember.arange(12).reshape(3, 4).to(dtype)
    state = {"w": cpu.cuda(), "view": cpu.cuda()[:, 1], "n": 3}
    loaded = ember.load(_saved(state))
    assert loaded["w"].device.type == "cuda" and loaded["n"] == 3
    assert_same(loaded["w"], cpu, 0, 0, "load")
    assert_same(loaded["view"], cpu[:, 1], 0, 0, "load view")
    on_cpu = ember.load(_saved(state), map_location="cpu")
    assert on_cpu["w"].device.type == "cpu" and ember.equal(on_cpu["w"], cpu)
    mapped = ember.load(_saved(state), map_location=ember.device("cpu"))
    assert mapped["view"].device.type == "cpu" and ember.equal(mapped["view"], cpu[:, 1])
    mapped = ember.load(_saved(state), map_location={"cuda:0": "cpu"})
    assert mapped["w"].device.type == "cpu"
    to_gpu = ember.load(_saved({"w": cpu}), map_location="cuda")
    assert to_gpu["w"].device.type == "cuda" and ember.equal(to_gpu["w"].cpu(), cpu)
    to_gpu = ember.load(_saved({"w": cpu}), map_location=lambda storage, loc: storage.cuda())
    assert to_gpu["w"].device.type == "cuda"


def test_pickle_and_deepcopy_cuda_tensor():
    import copy
    x = ember.arange(6.0, device="cuda").reshape(2, 3)
    for y in (pickle.loads(pickle.dumps(x)), copy.deepcopy(x)):
        assert y.device.type == "cuda" and ember.equal(y.cpu(), x.cpu())


def test_module_state_dict_round_trip_through_cuda():
    ember.manual_seed(0)
    model = ember.nn.Linear(4, 3).cuda()
    assert all(p.device.type == "cuda" for p in model.parameters())
    loaded = ember.load(_saved(model.state_dict()), map_location="cpu")
    fresh = ember.nn.Linear(4, 3)
    fresh.load_state_dict(loaded)
    x = ember.randn(2, 4)
    assert_same(model(x.cuda()), fresh(x), 1e-5, 1e-5, "state_dict")


def test_dlpack_shares_memory_with_cupy():
    import cupy
    x = ember.arange(5.0, device="cuda")
    shared = cupy.from_dlpack(x)
    shared[0] = 7.0
    assert x[0].item() == 7.0, "cupy.from_dlpack(ember tensor) must share its memory"
    y = ember.from_dlpack(cupy.arange(4, dtype=cupy.float32))
    assert y.device == ember.device("cuda:0") and y.dtype is ember.float32
    assert y.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert np.array_equal(host(x), [7.0, 1.0, 2.0, 3.0, 4.0])
