"""More per-call shortcuts of the plain path against PyTorch: in-place add_/sub_/mul_/div_ into
the tensor's own array (NOTE [in-place ops that are one ufunc]), the tensor-list fast path
(NOTE [tensor-list fast path]) with cat's size checks left to NumPy, `view` of one size, a
batch of rows times one matrix as one product (linear and matmul), and addmm adding its input
into its own product. Each must give PyTorch's values, versions, gradients and errors, and a
mode must still see the call."""
from __future__ import annotations

import numpy as np
import pytest
from opinfo.core import assert_same

import ember
from ember.utils._python_dispatch import TorchDispatchMode as EmberDispatchMode

torch = pytest.importorskip("torch")


def _pair(shape, dtype="float32", seed=0, grad=False):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return (ember.tensor(a, requires_grad=grad), torch.tensor(a, requires_grad=grad))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("call", [("sub_", {"alpha": 0.01}), ("sub_", {"alpha": 1.0}),
                                  ("add_", {"alpha": 2}), ("add_", {}), ("mul_", {}),
                                  ("div_", {}), ("sub_", {})])
def test_inplace_ufunc_values_and_versions(dtype, call):
    name, kwargs = call
    (e, t), (eo, to) = _pair((5, 4), dtype), _pair((5, 4), dtype, seed=1)
    ev, tv = e._version, t._version
    expected = getattr(ember, name[:-1])(e, eo, **kwargs)     # ember's out-of-place result
    assert getattr(e, name)(eo, **kwargs) is e
    getattr(t, name)(to, **kwargs)
    assert np.array_equal(e.numpy(), expected.numpy())
    # (PyTorch forms self - alpha * other in one fused multiply-add where the CPU has one)
    tolerance = (1e-6 if dtype == "float32" else 1e-15) if kwargs else 0
    assert_same(e, t, tolerance, tolerance, f"{name} {kwargs}")
    assert e._version - ev == t._version - tv == 1


def test_inplace_ufunc_edge_operands():
    (e, t), = [_pair((6,))]
    e.sub_(e, alpha=0.5)                # the operand is the written tensor
    t.sub_(t, alpha=0.5)
    assert_same(e, t, 0, 0, "self operand")
    (e, t), (ez, tz) = _pair((3,)), (ember.zeros(3), torch.zeros(3))
    e.div_(ez)
    t.div_(tz)
    assert_same(e, t, 0, 0, "division by zero")
    # a view written through: the base sees it
    (e, t), (eo, to) = _pair((4, 4)), _pair((4,), seed=2)
    e[1].add_(eo)
    t[1].add_(to)
    assert_same(e, t, 0, 0, "a row written")
    # cases the shortcut leaves to the checked path: broadcasting, mixed dtypes, bad alpha,
    # an expanded self
    (e, t), (eo, to) = _pair((3, 4)), _pair((4,), seed=3)
    e.add_(eo, alpha=0.5)
    t.add_(to, alpha=0.5)
    assert_same(e, t, 0, 0, "broadcast operand")
    (e, t), (eo, to) = _pair((4,)), _pair((4,), "float64", seed=4)
    e.mul_(eo)
    t.mul_(to)
    assert_same(e, t, 0, 0, "float64 operand into float32")
    for lib, x, y in ((ember, *_pair((4,))), (torch, *_pair((4,), seed=1))):
        x, y = (x, y) if lib is ember else (y, x)
        with pytest.raises(RuntimeError):
            x.add_(x, alpha=1j)
        with pytest.raises(RuntimeError):
            lib.ones(1).expand(4).add_(x)


def test_inplace_ufunc_under_grad_and_modes():
    (e, t), (eo, to) = _pair((4,), grad=True), _pair((4,), seed=1)
    with pytest.raises(RuntimeError):
        e.add_(eo)                      # a leaf that requires grad: recorded, refused
    with pytest.raises(RuntimeError):
        t.add_(to)
    seen = []

    class Log(EmberDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))

    (e, _), (eo, _) = _pair((4,)), _pair((4,), seed=1)
    with Log():
        e.sub_(eo, alpha=0.5)
    assert any("sub_" in name for name in seen), seen


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cat_and_stack_fast_path(dim):
    pieces = [_pair((2, 3), seed=k, grad=k == 1) for k in range(3)]
    ecat = ember.cat([p[0] for p in pieces], dim)
    tcat = torch.cat([p[1] for p in pieces], dim)
    assert_same(ecat, tcat, 0, 0, "cat")
    assert ecat.is_contiguous() and ecat.requires_grad
    ecat.sum().backward()
    tcat.sum().backward()
    assert_same(pieces[1][0].grad, pieces[1][1].grad, 0, 0, "cat grad")
    estack = ember.stack(tuple(p[0].detach() for p in pieces), dim)
    tstack = torch.stack(tuple(p[1].detach() for p in pieces), dim)
    assert_same(estack, tstack, 0, 0, "stack")


def test_cat_errors_keep_pytorch_messages():
    for lib in (ember, torch):
        with pytest.raises(RuntimeError, match="Sizes of tensors must match except in "
                                               "dimension 0"):
            lib.cat([lib.ones(2, 3), lib.ones(2, 4)])
        with pytest.raises(RuntimeError, match="Sizes of tensors must match except in "
                                               "dimension 1"):
            lib.cat([lib.ones(2, 3), lib.ones(3, 3)], 1)
        with pytest.raises(TypeError):
            lib.cat([lib.ones(2), 3])
    # mixed dtypes and legacy empty pieces take the checked way
    assert_same(ember.cat([ember.ones(2), ember.ones(2, dtype=ember.float64)]),
                torch.cat([torch.ones(2), torch.ones(2, dtype=torch.float64)]), 0, 0, "mixed")
    assert_same(ember.cat([ember.ones(2, 3), ember.ones(0)]),
                torch.cat([torch.ones(2, 3), torch.ones(0)]), 0, 0, "legacy empty")


def test_view_of_one_size():
    e, t = _pair((2, 3))
    for size in (-1, 6):
        ev, tv = e.view(size), t.view(size)
        assert_same(ev, tv, 0, 0, f"view({size})")
        assert ev._base is e
    ev[0] = 5.0
    assert e[0, 0].item() == 5.0 and e._version == ev._version
    for lib, x in ((ember, e), (torch, t)):
        for bad in (5, -2, 0):
            with pytest.raises(RuntimeError):
                x.view(bad)
        with pytest.raises(RuntimeError):
            x.t().view(-1)
    (e, t) = _pair((2, 3), grad=True)
    assert type(e.view(-1).grad_fn).__name__ == type(t.view(-1).grad_fn).__name__


@pytest.mark.parametrize("shapes", [((35, 4, 16), (16, 8)), ((2, 3, 4, 5), (5, 6)),
                                    ((0, 3, 4), (4, 2)), ((3, 0, 4), (4, 2))])
def test_batch_of_rows_times_a_matrix(shapes):
    (ea, ta), (eb, tb) = _pair(shapes[0], grad=True), _pair(shapes[1], seed=1, grad=True)
    eo, to = ea @ eb, ta @ tb
    assert_same(eo, to, 1e-6, 1e-5, "matmul")
    ew, tw = _pair((shapes[1][1], shapes[1][0]), seed=2, grad=True)
    el = ember.nn.functional.linear(ea, ew, None)
    tl = torch.nn.functional.linear(ta, tw, None)
    assert_same(el, tl, 1e-6, 1e-5, "linear")
    (eo.sum() + el.sum()).backward()
    (to.sum() + tl.sum()).backward()
    for e, t in ((ea, ta), (eb, tb), (ew, tw)):
        assert_same(e.grad, t.grad, 1e-5, 1e-5, "grad")
    # a non-contiguous batch takes NumPy's batched product
    assert_same(ea.detach().transpose(0, 1) @ eb.detach(),
                ta.detach().transpose(0, 1) @ tb.detach(), 1e-6, 1e-5, "transposed batch")


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_addmm_adds_into_its_product(dtype):
    def made(lib, shape, seed):
        a = np.random.default_rng(seed).integers(-3, 4, shape).astype(dtype)
        return lib.tensor(a)

    for bias_shape in [(7,), (5, 7), (1, 1), (5, 1)]:
        for lib_pair in [(ember, torch)]:
            outs = []
            for lib in lib_pair:
                bias = made(lib, bias_shape, 0)
                before = bias.clone()
                out = lib.addmm(bias, made(lib, (5, 3), 1), made(lib, (3, 7), 2))
                assert lib.equal(bias, before)          # the input is not written
                outs.append(out)
            assert_same(outs[0], outs[1], 1e-6, 1e-6, f"addmm {bias_shape}")
    e = ember.baddbmm(made(ember, (7,), 0), made(ember, (2, 5, 3), 1), made(ember, (2, 3, 7), 2))
    t = torch.baddbmm(made(torch, (7,), 0), made(torch, (2, 5, 3), 1), made(torch, (2, 3, 7), 2))
    assert_same(e, t, 1e-6, 1e-6, "baddbmm")
