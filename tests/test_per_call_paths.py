"""The per-call shortcuts of the plain path against PyTorch where they could go wrong: zeros /
ones made inline (NOTE [sized factory fast path]), backward's implicit ones (NOTE [the implicit
gradient]), item() off the array, relu's kept zero, a 0-d expand through ndarray's constructor,
reshape's direct views, linear's third tensor on the generic fast path, and in-place calls that
stay plain while an overriding class exists (NOTE [plain in-place calls]). Each must give
PyTorch's values, dtypes, strides and errors, and a mode or subclass must still see the call."""
from __future__ import annotations

import numpy as np
import pytest
from opinfo.core import assert_same

import ember
from ember.utils._python_dispatch import TorchDispatchMode as EmberDispatchMode

torch = pytest.importorskip("torch")
from torch.utils._python_dispatch import TorchDispatchMode


def _same_tensor(e, t, where):
    assert_same(e, t, 0, 0, where)
    if t.numel():       # (an empty tensor's strides differ from PyTorch's on every path yet)
        assert e.stride() == t.stride(), where
    assert e.requires_grad == t.requires_grad, where


@pytest.mark.parametrize("name", ["zeros", "ones"])
def test_sized_factories(name):
    calls = [((8,), {}), ((2, 3), {}), (((2, 3),), {}), ((), {"size": (4,)}), ((0,), {}),
             (((),), {}), ((3,), {"dtype": "float64"}), ((3,), {"dtype": "int32"}),
             ((2,), {"dtype": "bool"}), ((2,), {"dtype": "bfloat16"}),
             ((4,), {"requires_grad": True}), ((2, 1, 3), {"dtype": "float16"})]
    def make(lib, args, kwargs):
        given = dict(kwargs)
        if "dtype" in given:
            given["dtype"] = getattr(lib, given["dtype"])
        return getattr(lib, name)(*args, **given)

    for args, kwargs in calls:
        _same_tensor(make(ember, args, kwargs), make(torch, args, kwargs),
                     f"{name}{args} {kwargs}")
    for lib in (ember, torch):
        with pytest.raises(RuntimeError):
            getattr(lib, name)(2, -1)


def test_sized_factories_follow_the_default_device_and_dtype():
    with ember.device("meta"):
        assert ember.zeros(3).device.type == "meta"
    with torch.device("meta"):
        assert torch.zeros(3).device.type == "meta"
    assert ember.ones(3).device.type == "cpu"
    previous = ember.get_default_dtype()
    ember.set_default_dtype(ember.float64)
    try:
        assert ember.zeros(2).dtype == ember.float64
    finally:
        ember.set_default_dtype(previous)
    assert ember.zeros(2).dtype == ember.float32


class _EmberNames(EmberDispatchMode):
    def __init__(self):
        super().__init__()
        self.names = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.names.append(str(func).split(".")[-2])
        return func(*args, **(kwargs or {}))


class _TorchNames(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.names = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.names.append(str(func).split(".")[-2])
        return func(*args, **(kwargs or {}))


def test_modes_still_see_factories_and_the_implicit_gradient():
    seen = {}
    for lib, mode_class in ((ember, _EmberNames), (torch, _TorchNames)):
        x = lib.ones(3, requires_grad=True)
        with mode_class() as mode:
            lib.zeros(2)
            lib.ones(2, 2)
            (x * 2).sum().backward()
        seen[lib.__name__] = mode.names
    for name in ("zeros", "ones", "ones_like", "expand"):
        assert name in seen["torch"], name
        assert seen["ember"].count(name) == seen["torch"].count(name), (name, seen)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_implicit_gradient_dtypes(dtype):
    grads = []
    for lib in (ember, torch):
        x = lib.tensor([1.5, -2.0, 3.0], dtype=getattr(lib, dtype), requires_grad=True)
        (x * x).sum().backward()
        (x * 3).sum().backward()        # the second accumulates in place
        grads.append(x.grad)
    assert_same(grads[0], grads[1], 0, 0, dtype)


def test_implicit_gradient_errors():
    for lib in (ember, torch):
        with pytest.raises(RuntimeError, match="scalar outputs"):
            (lib.ones(2, requires_grad=True) * 2).backward()
        with pytest.raises(RuntimeError, match="does not require grad"):
            lib.ones(()).backward()


def test_item():
    values = [(1.5, "float16"), (-2.25, "bfloat16"), (3.0, "float64"), (7, "int64"),
              (True, "bool"), (1 + 2j, "complex64")]
    for value, dtype in values:
        for shape in ((), (1,), (1, 1)):
            e = ember.tensor(value, dtype=getattr(ember, dtype)).reshape(shape)
            t = torch.tensor(value, dtype=getattr(torch, dtype)).reshape(shape)
            got, expected = e.item(), t.item()
            assert type(got) is type(expected) and got == expected, (dtype, shape)
    for lib in (ember, torch):
        with pytest.raises(RuntimeError, match="cannot be converted to Scalar"):
            lib.ones(2).item()


@pytest.mark.parametrize("dtype", ["float32", "float16", "int32", "int8"])
def test_relu_twice(dtype):
    data = np.array([-1.0, 0.0, 2.0, -0.0, 5.0])
    for _ in range(2):              # the second call finds the dtype's zero kept
        e = ember.relu(ember.tensor(data).to(getattr(ember, dtype)))
        t = torch.relu(torch.tensor(data).to(getattr(torch, dtype)))
        assert_same(e, t, 0, 0, dtype)
    for lib in (ember, torch):
        for _ in range(2):
            with pytest.raises(RuntimeError, match="Boolean inputs not supported"):
                lib.relu(lib.tensor([True, False]))


def test_expand_of_a_zero_dim_tensor():
    for size in ((3, 4), (0, 3), (), (5,)):
        e = ember.tensor(2.5).expand(size)
        t = torch.tensor(2.5).expand(size)
        _same_tensor(e, t, size)
    base_e, base_t = ember.tensor(1.0), torch.tensor(1.0)
    view_e, view_t = base_e.expand(2, 2), base_t.expand(2, 2)
    base_e.add_(1)
    base_t.add_(1)
    _same_tensor(view_e, view_t, "the view follows its base")


def test_reshape_views():
    cases = [(lambda lib: lib.arange(12.).reshape(3, 4), (-1, 2)),
             (lambda lib: lib.arange(12.).reshape(3, 4), (2, -1, 3)),
             (lambda lib: lib.arange(12.).reshape(3, 4).t(), (4, 3)),
             (lambda lib: lib.arange(12.).reshape(3, 4).t(), (-1, 3)),
             (lambda lib: lib.tensor(1.0).expand(4, 16), (4, 16)),
             (lambda lib: lib.tensor(1.0).expand(4, 16), (-1, 16)),
             (lambda lib: lib.arange(12.).reshape(3, 4)[:, :2], (3, 2)),
             (lambda lib: lib.arange(12.).reshape(3, 1, 4).transpose(0, 2), (4, 1, 3)),
             (lambda lib: lib.zeros(0, 3), (-1, 3))]
    for make, shape in cases:
        e, t = make(ember).reshape(shape), make(torch).reshape(shape)
        _same_tensor(e, t, shape)
    for bad in ((-1, -1), (5, -1), (0, -1), (-2, 6)):
        for lib in (ember, torch):
            with pytest.raises(RuntimeError):
                lib.arange(12.).reshape(bad)


def test_linear_takes_three_tensors():
    rng = np.random.default_rng(0)
    x_np, w_np, b_np = (rng.standard_normal(s).astype(np.float32) for s in ((4, 5), (3, 5),
                                                                            (3,)))
    results = []
    for lib in (ember, torch):
        x = lib.tensor(x_np, requires_grad=True)
        w = lib.nn.Parameter(lib.tensor(w_np))
        b = lib.tensor(b_np, requires_grad=True)
        out = lib.nn.functional.linear(x, w, b)
        plain = lib.nn.functional.linear(x, w)
        (out.sum() + (plain * plain).sum()).backward()
        with lib.no_grad():
            ng = lib.nn.functional.linear(x, w, b)
        results.append((out, plain, ng, x.grad, w.grad, b.grad, out.grad_fn.name()))
    for k, (e, t) in enumerate(zip(*results)):
        if isinstance(e, str):
            assert e == t
        else:
            assert_same(e, t, 1e-6, 1e-5, str(k))
    assert not results[0][2].requires_grad


def _logging_subclass(lib, log):
    class Logged(lib.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            log.append(getattr(func, "__name__", str(func)))
            return super().__torch_function__(func, types, args, kwargs or {})
    return Logged


def test_inplace_calls_with_an_overriding_class_defined():
    logs = {}
    for lib in (ember, torch):
        log = logs[lib.__name__] = []
        logged = _logging_subclass(lib, log)
        p = lib.nn.Parameter(lib.ones(4))
        g = lib.full((4,), 2.0)
        with lib.no_grad():
            p.sub_(g, alpha=0.5)            # plain operands: computed, no one to see it
            p.mul_(3)
        assert log == []
        assert p.tolist() == [0.0, 0.0, 0.0, 0.0]
        q = lib.ones(4).as_subclass(logged)
        with lib.no_grad():
            q.add_(g, alpha=2)
        assert "add_" in log
        assert q.as_subclass(lib.Tensor).tolist() == [5.0, 5.0, 5.0, 5.0]
        leaf = lib.ones(3, requires_grad=True)
        y = leaf * 1
        y.add_(lib.ones(3), alpha=2)        # recorded in place
        y.sum().backward()
        assert leaf.grad.tolist() == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("name", ["zeros_like", "ones_like"])
def test_like_factories(name):
    def cases(lib):
        base = lib.arange(12.).reshape(3, 4)
        return [(base, {}), (base.t(), {}), (base[:, :2], {}), (lib.tensor([1, 2]), {}),
                (lib.tensor([True]), {}), (lib.tensor(2.5, dtype=lib.float16), {}),
                (base, {"requires_grad": True}), (base, {"dtype": lib.float64}),
                (lib.nn.Parameter(base), {}), (lib.zeros(0, 3), {})]
    for k, ((e_in, e_kw), (t_in, t_kw)) in enumerate(zip(cases(ember), cases(torch))):
        _same_tensor(getattr(ember, name)(e_in, **e_kw), getattr(torch, name)(t_in, **t_kw),
                     f"{name} case {k}")
    for lib in (ember, torch):
        with pytest.raises(TypeError):
            getattr(lib, name)(3)


# NOTE [kernels that are one ufunc]: add / sub / mul / div call their ufunc on the fast path.
_BINARY_DTYPES = ["float32", "float64", "float16", "bfloat16", "int32", "int64", "uint8",
                  "complex64"]


@pytest.mark.parametrize("dtype", _BINARY_DTYPES)
def test_one_ufunc_binary_ops(dtype):
    rng = np.random.default_rng(3)
    a_np = (rng.standard_normal((3, 4)) * 4).astype(np.float64)
    b_np = (rng.standard_normal((4,)) * 4 + 9).astype(np.float64)
    calls = [
        ("a + b", lambda lib, a, b: a + b), ("a - b", lambda lib, a, b: a - b),
        ("a * b", lambda lib, a, b: a * b), ("a / b", lambda lib, a, b: a / b),
        ("a + 3", lambda lib, a, b: a + 3), ("a * 2.5", lambda lib, a, b: a * 2.5),
        ("a - 1.5", lambda lib, a, b: a - 1.5), ("a / 4", lambda lib, a, b: a / 4),
        ("add alpha=2", lambda lib, a, b: lib.add(a, b, alpha=2)),
        ("sub alpha=1", lambda lib, a, b: lib.sub(a, b, alpha=1)),
        ("add alpha=1.0", lambda lib, a, b: lib.add(a, b, alpha=1.0)),
        ("add alpha=True", lambda lib, a, b: lib.add(a, b, alpha=True)),
    ]
    for where, fn in calls:
        got = []
        for lib in (ember, torch):
            a = lib.tensor(a_np).to(getattr(lib, dtype))
            b = lib.tensor(b_np).to(getattr(lib, dtype))
            try:
                got.append(fn(lib, a, b))
            except Exception as error:     # (compared below: the same class in both)
                got.append(type(error))
        if isinstance(got[1], type):
            assert got[0] is got[1], (where, dtype, got)
        else:
            assert_same(got[0], got[1], 1e-3, 1e-3, f"{where} {dtype}")


def test_one_ufunc_ops_record_and_reach_modes():
    for lib, mode_class in ((ember, _EmberNames), (torch, _TorchNames)):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        with mode_class() as mode:
            y = (x * x + x - x / 2.0)
        assert mode.names == ["mul", "add", "div", "sub"], (lib.__name__, mode.names)
    e = ember.tensor([1.0, 2.0, 3.0], requires_grad=True)
    t = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    for x in (e, t):
        y = x * x + x - x / 2.0
        assert y.grad_fn.name() == "SubBackward0"
        y.sum().backward()
    assert_same(e.grad, t.grad, 0, 0, "grad")


def test_one_ufunc_yields_to_a_registered_cpu_kernel():
    from ember._core.registry import OPS

    op = OPS["mul.Tensor"]
    table = op.table
    key = ("strided", "cpu", None)
    before = dict(table.entries)
    seen = []

    def logged_mul(xp, self, other):
        seen.append(self.shape)
        return xp.multiply(self, other)

    a = ember.ones(3)
    a * a                                   # the cache entry made with the shared kernel
    try:
        table.register(key, logged_mul)
        out = a * a
    finally:
        table.entries.clear()
        table.entries.update(before)
        table.register(next(iter(before)), before[next(iter(before))])
    assert seen == [(3,)]
    assert out.tolist() == [1.0, 1.0, 1.0]
    a * a
    assert seen == [(3,)]


def _linear_variants(lib):
    """(name, layer) pairs whose forward must read the parameters the attributes name (the
    table, or what weight_norm, a parametrization or pruning put in its place)."""
    import importlib

    nn = lib.nn
    prune = importlib.import_module(f"{lib.__name__}.nn.utils.prune")
    parametrize = importlib.import_module(f"{lib.__name__}.nn.utils.parametrize")

    class Doubled(nn.Module):
        def forward(self, w):
            return w * 2

    def made(build):
        lib.manual_seed(0)
        layer = nn.Linear(5, 3)
        with lib.no_grad():
            layer.weight.copy_(lib.arange(15.0).reshape(3, 5) / 10)
            layer.bias.copy_(lib.tensor([0.5, -1.0, 2.0]))
        return build(layer) or layer

    def replace_bias(layer):
        del layer.bias
        layer.bias = lib.tensor([9.0, 8.0, 7.0])

    return [
        ("plain", made(lambda m: None)),
        ("no bias", made(lambda m: m.register_parameter("bias", None))),
        ("weight_norm", made(lambda m: nn.utils.weight_norm(m))),
        ("parametrizations.weight_norm",
         made(lambda m: nn.utils.parametrizations.weight_norm(m))),
        ("parametrized", made(lambda m: parametrize.register_parametrization(
            m, "weight", Doubled()))),
        ("pruned", made(lambda m: prune.l1_unstructured(m, "weight", amount=0.4))),
        ("bias replaced by a plain tensor", made(replace_bias)),
    ]


def test_linear_reads_the_parameters_its_attributes_name():
    x_np = np.random.default_rng(5).standard_normal((2, 5)).astype(np.float32)
    for (name, e_layer), (_, t_layer) in zip(_linear_variants(ember), _linear_variants(torch)):
        assert_same(e_layer(ember.tensor(x_np)), t_layer(torch.tensor(x_np)), 1e-6, 1e-6, name)
    e_layer, t_layer = ember.nn.Linear(5, 3), torch.nn.Linear(5, 3)
    state = {"weight": np.ones((3, 5), np.float32), "bias": np.zeros(3, np.float32)}
    e_out = ember.func.functional_call(e_layer, {k: ember.tensor(v) for k, v in state.items()},
                                       (ember.tensor(x_np),))
    t_out = torch.func.functional_call(t_layer, {k: torch.tensor(v) for k, v in state.items()},
                                       (torch.tensor(x_np),))
    assert_same(e_out, t_out, 1e-6, 1e-6, "functional_call")
