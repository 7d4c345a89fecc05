"""The kernel table (NOTE [the kernel table], ember/_core/kernel_table.py): one table per op keyed
by (layout, device type, dtype extension); the lookup for each kind of key, registration, the
CPU fast path as the table's cached entry, a privateuse1 plug-in's entry being chosen, and
dispatch modes seeing the same aten ops as PyTorch's through table entries."""
import os
import subprocess
import sys

import numpy as np
import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode as TorchTDMode

import ember
from ember._core import registry
from ember._core.kernel_table import DispatchKey, as_key
from ember._core.registry import OPS, OpDef
from ember.utils._python_dispatch import TorchDispatchMode


def _fresh_op(kernel):
    """An op entry outside OPS, so registrations here touch no real op."""
    return OpDef("kernel_table_probe(Tensor self) -> Tensor", kernel, kind="generic")


def _shared(xp, self):
    return self


# --------------------------------------------------------------------------- keys

@pytest.mark.parametrize("name, key", [
    ("CPU", DispatchKey("strided", "cpu")),
    ("CUDA", DispatchKey("strided", "cuda")),
    ("Meta", DispatchKey("strided", "meta")),
    ("CompositeExplicitAutograd", DispatchKey("strided", None)),
    ("SparseCPU", DispatchKey("sparse_coo", "cpu")),
    ("SparseCsrCPU", DispatchKey("sparse_csr", "cpu")),
    ("ComplexHalf", DispatchKey("strided", None, "complex32")),
    ("cuda", DispatchKey("strided", "cuda")),
])
def test_dispatch_key_names_are_torch_librarys(name, key):
    assert as_key(name) == key


def test_privateuse1_key_is_the_renamed_device_type():
    from ember._core.device import privateuse1_name
    assert as_key("PrivateUse1") == DispatchKey("strided", privateuse1_name())


def test_unknown_key_name_is_refused():
    with pytest.raises(ValueError, match="unknown dispatch key"):
        as_key("Bogus")
    with pytest.raises(ValueError, match="unknown layout"):
        _fresh_op(_shared).register_kernel(DispatchKey("jagged", "cpu"), _shared)


# --------------------------------------------------------------------------- lookup per key kind

def test_device_entry_wins_over_the_shared_one_and_refreshes_the_cpu_cache():
    op = _fresh_op(_shared)
    assert op.raw_kernel is _shared and op.table.resolve("strided", "cuda") is _shared

    def on_cpu(xp, self):
        return self

    def on_cuda(xp, self):
        return self
    op.register_kernel("CPU", on_cpu)
    assert op.raw_kernel is on_cpu          # the fast path's cached entry follows the table
    op.kernel_for("cuda")                   # fills the per-device cache ...
    op.impl("CUDA")(on_cuda)                # ... which a registration clears
    assert op.kernel_for("cuda") is on_cuda
    assert op.table.resolve("strided", "meta") is _shared
    assert op.table.resolve("strided", "npdev") is _shared


def test_composite_entry_replaces_the_shared_kernel():
    op = _fresh_op(_shared)

    def replacement(xp, self):
        return self
    op.register_kernel("CompositeExplicitAutograd", replacement)
    assert op.table.resolve("strided", "cuda") is replacement and op.raw_kernel is replacement


def test_in_tree_device_entries():
    assert OPS["lcm"].table.resolve("strided", "cuda") is not OPS["lcm"].table.resolve(
        "strided", "cpu")
    where = OPS["where.self"]
    assert where.raw_kernel is where.table.entries[DispatchKey("strided", "cpu")]
    assert where.table.resolve("strided", "cuda") is where.table.entries[DispatchKey()]


def test_cuda_entries_compute_torchs_values_with_numpy_standing_in_for_cupy():
    """The CUDA entries' formulas (lcm's wrapping product, frexp's float64 detour) run on any
    NumPy-like module: NumPy stands in for CuPy here, PyTorch's CPU is the oracle."""
    a = np.array([3, -4, 0, 100, 127, -128], np.int8)
    b = np.array([5, 6, 0, 7, 3, 3], np.int8)
    lcm_cuda = OPS["lcm"].table.resolve("strided", "cuda")
    np.testing.assert_array_equal(lcm_cuda(np, a, b),
                                  torch.lcm(torch.tensor(a), torch.tensor(b)).numpy())
    x = np.array([1.5, -0.0, np.inf, -np.inf, np.nan, 1e-40, 3e38], np.float32)
    mantissa, exponent = OPS["frexp.Tensor"].table.resolve("strided", "cuda")(np, x)
    expected = torch.frexp(torch.tensor(x))
    np.testing.assert_array_equal(mantissa, expected.mantissa.numpy())
    np.testing.assert_array_equal(exponent, expected.exponent.numpy())


def test_sparse_layout_entries_have_no_shared_fallback():
    ember.sparse_coo_tensor([[0]], [1.0], (1,))      # (the sparse kernels load with the first)
    mm = OPS["mm"]
    coo = mm.table.resolve("sparse_coo", "cpu")
    assert coo is not None and coo is mm.table.resolve("sparse_csr", "cpu")
    assert mm.table.resolve("sparse_csc", "cpu") not in (None, coo)
    assert OPS["cumsum"].table.resolve("sparse_coo", "cpu") is None


def test_sparse_op_without_an_entry_raises_torchs_error():
    indices, values = [[0, 1], [1, 0]], [1.0, 2.0]
    messages = []
    for lib in (torch, ember):
        s = lib.sparse_coo_tensor(indices, values, (2, 2))
        with pytest.raises(NotImplementedError) as info:
            lib.cumsum(s, 0)
        messages.append(str(info.value).split(".")[0])
    assert messages[0] == messages[1]


def test_dtype_extension_entry_runs_around_the_plain_kernel():
    std = OPS["std.correction"]
    plain = std.table.entries[DispatchKey()]
    extended = std.table.resolve("strided", "cpu", "complex32")
    assert extended.args == (plain,)                  # (functools.partial around the plain entry)
    assert std.raw_kernel is not plain                # the guard reading operands' dtypes
    add = OPS["add.Tensor"]                           # no extension entry: the plain kernel
    assert add.table.resolve("strided", "cpu", "complex32") is add.raw_kernel


@pytest.mark.parametrize("name", ["std", "gather"])
def test_complex32_calls_reach_the_extension_entry_as_torch(name):
    """std is widened to complex64 (PyTorch's CPU has a ComplexHalf kernel), gather refused."""
    def run(lib):
        x = lib.tensor([[1 + 2j, 3 - 1j], [0.5j, 2]], dtype=lib.complex64).to(lib.complex32)
        try:
            if name == "std":
                return x.std().to(lib.float64).item()
            return x.gather(1, lib.tensor([[0], [1]]))
        except NotImplementedError as exc:
            return str(exc)
    expected, got = run(torch), run(ember)
    if isinstance(expected, str):
        assert got == expected
    else:
        assert got == pytest.approx(expected, rel=1e-3)


def test_every_deferred_entry_names_a_declared_op():
    """Entries wait for their op's first use (`kernel_entry`); each must name an op."""
    assert [name for name in registry._PENDING_KERNELS if name not in OPS] == []


# --------------------------------------------------------------------------- CPU fast path

def test_cpu_entry_serves_the_fast_path_and_the_layered_path_alike():
    rng = np.random.default_rng(0)
    cond = rng.standard_normal(5000) > 0
    a, b = rng.standard_normal(5000).astype(np.float32), rng.standard_normal(5000)
    for dtype in (np.float32, np.float64):
        expected = torch.where(torch.tensor(cond), torch.tensor(a.astype(dtype)),
                               torch.tensor(b.astype(dtype))).numpy()
        plain = ember.where(ember.tensor(cond), ember.tensor(a.astype(dtype)),
                            ember.tensor(b.astype(dtype)))
        with _Logger(TorchDispatchMode):
            layered = ember.where(ember.tensor(cond), ember.tensor(a.astype(dtype)),
                                  ember.tensor(b.astype(dtype)))
        np.testing.assert_array_equal(plain.numpy(), expected)
        np.testing.assert_array_equal(layered.numpy(), expected)


# --------------------------------------------------------------------------- dispatch modes

class _Logger:
    def __init__(self, base):
        log = self.log = []

        class Mode(base):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                log.append(str(func))
                return func(*args, **(kwargs or {}))
        self.mode = Mode()

    def __enter__(self):
        self.mode.__enter__()
        return self

    def __exit__(self, *exc):
        return self.mode.__exit__(*exc)


def _inputs(lib):
    rng = np.random.default_rng(3)
    x = lib.tensor(rng.standard_normal((3, 4)).astype(np.float32))
    y = lib.tensor(rng.standard_normal((3, 4)).astype(np.float32))
    return {"x": x, "y": y, "mask": x > 0, "w": lib.full((3, 4), 0.7),
            "i": lib.tensor([4, 6]), "j": lib.tensor([6, 10]),
            "s": lib.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 2.0], (2, 2)), "d": lib.ones(2, 2),
            "c": lib.tensor([1 + 1j, 2 - 1j], dtype=lib.complex64).to(lib.complex32)}


def _calls_through_table_entries(lib, v):
    """Calls whose kernels are per-device (where and lerp's CPU entries), layout (mm's
    SparseCPU) or dtype-extension (std's complex32) entries."""
    return [lib.where(v["mask"], v["x"], v["y"]), lib.lerp(v["x"], v["y"], v["w"]),
            lib.lcm(v["i"], v["j"]), lib.mm(v["s"], v["d"]), v["c"].std()]


def test_dispatch_mode_sees_the_aten_ops_torch_sees():
    logs, results = [], []
    for lib, base in ((torch, TorchTDMode), (ember, TorchDispatchMode)):
        inputs = _inputs(lib)
        with _Logger(base) as logger:
            results.append(_calls_through_table_entries(lib, inputs))
        logs.append(logger.log)
    assert logs[1] == logs[0]
    assert logs[0] == ["aten.where.self", "aten.lerp.Tensor", "aten.lcm.default",
                       "aten.mm.default", "aten.std.correction"]
    for e, g in zip(*results):
        if e.dtype is torch.float16:           # (complex32's std)
            e, g = e.float(), g.float()
        np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=2e-3)


# --------------------------------------------------------------------------- plug-ins

def test_privateuse1_plugin_entry_is_chosen():
    code = """
import numpy as np
import ember
from ember.utils import backend_registration as r
r.rename_privateuse1_backend("tabledev")
r.register_device_backend("tabledev", np, lambda a: np.array(a, copy=True),
                          lambda a, device: np.array(a, copy=True))
calls = []

@r.impl("aten::neg", "PrivateUse1")
def neg(xp, self):
    calls.append("neg")
    return xp.negative(self)

x = ember.tensor([1.0, -2.0, 3.0])
on = x.to("tabledev")
results = [(-on).cpu().tolist(), on.neg().cpu().tolist(), ember.neg(on).cpu().tolist()]
assert results == [(-x).tolist()] * 3, results
assert calls == ["neg"] * 3, calls
assert (-x).tolist() == [-1.0, 2.0, -3.0] and calls == ["neg"] * 3     # the CPU entry stays
assert on.abs().cpu().tolist() == [1.0, 2.0, 3.0] and calls == ["neg"] * 3  # the shared kernel
from ember._core.registry import OPS
assert OPS["neg"].table.resolve("strided", "tabledev") is neg
print("ok")
"""
    env = {**os.environ, "EMBER_DEVICE_BACKEND_AUTOLOAD": "0"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


# --------------------------------------------------------------------------- errors per key

@pytest.mark.parametrize("layout, call", [
    ("coo", lambda lib, s: lib.cumsum(s, 0)),
    ("coo", lambda lib, s: lib.eq(s, 1.0)),           # the overload the call fits: eq.Scalar
    ("coo", lambda lib, s: lib.clamp(s, 0.0, 1.0)),
    ("csr", lambda lib, s: lib.cumsum(s, 0)),
    ("csr", lambda lib, s: lib.logcumsumexp(s, 0)),
    ("csc", lambda lib, s: lib.cumsum(s, 0)),
])
def test_missing_layout_entry_raises_torchs_message(layout, call):
    """No entry for the call's key: PyTorch's NotImplementedError, naming the backend of the
    key ('SparseCPU', 'SparseCsrCPU') and, where PyTorch runs the same overload, the op."""
    messages = []
    for lib in (torch, ember):
        dense = lib.tensor([[0.0, 1.0], [2.0, 0.0]])
        s = {"coo": dense.to_sparse, "csr": dense.to_sparse_csr,
             "csc": dense.to_sparse_csc}[layout]()
        with pytest.raises(NotImplementedError) as info:
            call(lib, s)
        messages.append(str(info.value))
    # The first sentence (PyTorch's goes on to list the backends the op has); PyTorch's
    # composites reach some kernels through another overload (cumsum.out, _logcumsumexp):
    # there the op's base name and the backend agree.
    expected, got = (m.split(" This could be")[0] for m in messages)
    if layout == "coo":
        assert got == expected
    else:
        def base(message):
            return message.split("'")[1].split(".")[0].replace("::_", "::")
        assert base(got) == base(expected) and got.split("'")[2:] == expected.split("'")[2:]


# --------------------------------------------------------------------------- a new layout

class _ProbeData:
    """The `_data` of a tensor of a layout registered by the test."""

    def __init__(self, array):
        self.array = array
        self.ndim = array.ndim


@pytest.fixture
def probe_layout():
    """A layout registered as a quantized one would be (NOTE [the kernel table]), and taken out
    again afterwards."""
    from ember._core import kernel_table
    kernel_table.register_layout("probe_layout", {"cpu": "ProbeCPU"}, data_type=_ProbeData)
    touched = []
    yield touched
    for op, key in touched:
        del op.table.entries[key]
        op.table._resolved.clear()
        op._refresh_kernels()
    del kernel_table.LAYOUTS["probe_layout"], kernel_table._NAMED["ProbeCPU"]
    del kernel_table.LAYOUT_DATA[_ProbeData]


def _probe_tensor(values):
    from ember._core.dispatch import sparse
    sparse.install()
    t = ember.tensor(values)
    out = object.__new__(ember.Tensor)
    for name in ("_dtype", "_storage", "_requires_grad", "_grad_fn", "_grad", "_base"):
        setattr(out, name, getattr(t, name))
    out._data = _ProbeData(t._data)
    out._device = sparse.SPARSE_CPU        # off the dense fast paths (NOTE [sparse layout])
    return out


def test_a_registered_layout_gets_its_entries_and_the_missing_entry_error(probe_layout):
    key = as_key("ProbeCPU")
    assert key == DispatchKey("probe_layout", "cpu")
    neg = OPS["neg"]
    calls = []

    def probe_neg(op, args):
        calls.append(op.name)
        return ember.tensor(-args[0]._data.array)
    neg.register_kernel("ProbeCPU", probe_neg)
    probe_layout.append((neg, key))
    assert neg.table.resolve("probe_layout", "cpu") is probe_neg
    assert neg.table.resolve("probe_layout", "cuda") is None        # no shared fallback
    x = _probe_tensor([1.0, -2.0])
    assert ember.neg(x).tolist() == [-1.0, 2.0] and calls == ["neg"]
    assert (-ember.tensor([1.0])).tolist() == [-1.0] and calls == ["neg"]   # strided: as before
    with pytest.raises(NotImplementedError) as info:
        ember.cumsum(x, 0)
    # (PyTorch's own message for a key with no kernel, its backend named as registered;
    # PyTorch's cumsum reaches the key as cumsum.out)
    with pytest.raises(NotImplementedError) as expected:
        torch.cumsum(torch.tensor([[1.0]]).to_sparse_csr(), 0)
    assert str(info.value) == str(expected.value).split(" If you are")[0].replace(
        "SparseCsrCPU", "ProbeCPU").replace("cumsum.out", "cumsum")


def test_a_layout_is_registered_once(probe_layout):
    from ember._core import kernel_table
    with pytest.raises(ValueError, match="registered already"):
        kernel_table.register_layout("probe_layout", {"cpu": "ProbeCPU"})
    with pytest.raises(ValueError, match="registered already"):
        kernel_table.register_layout("sparse_coo", {"cpu": "SparseCPU"})


# --------------------------------------------------------------------------- per-device entries

def _relu_cases():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((4, 5)).astype(np.float32)
    x[0, :3] = [np.nan, -0.0, np.inf]
    return x, rng.standard_normal((4, 5)).astype(np.float32)


@pytest.mark.parametrize("name", ["relu", "threshold_backward", "embedding_dense_backward",
                                  "sum.dim_IntList"])
def test_cpu_entry_and_shared_entry_both_compute_torchs_values(name):
    """Ops whose CPU-tuned kernels are CPU entries (were `xp is np` branches): the CPU entry and
    the shared entry (the CUDA back-end's, with NumPy standing in for CuPy) give PyTorch's
    values."""
    op = OPS[name]
    cpu, shared = op.table.resolve("strided", "cpu"), op.table.resolve("strided", "cuda")
    assert cpu is not shared and shared is op.table.entries[DispatchKey()]
    x, g = _relu_cases()
    if name == "relu":
        args, expected = (x,), torch.relu(torch.tensor(x)).numpy()
    elif name == "threshold_backward":
        args = (g, x, 0.25)
        expected = torch.ops.aten.threshold_backward(torch.tensor(g), torch.tensor(x),
                                                     0.25).numpy()
    elif name == "sum.dim_IntList":
        y = np.random.default_rng(8).standard_normal((40, 30)).astype(np.float32).T
        ty = torch.tensor(y)
        for args, expected in (((y,), ty.sum()), ((y, [1], True), ty.sum([1], True)),
                               ((y, None, False, None), ty.sum()),
                               ((y, [0], False, ember.float64), ty.sum([0], dtype=torch.float64))):
            expected = expected.numpy()
            for kernel in (cpu, shared):
                np.testing.assert_allclose(kernel(np, *args), expected, rtol=1e-5, atol=1e-6)
        args, expected = (x[1:],), torch.tensor(x[1:]).sum().numpy()
    else:
        indices = np.array([[0, 3, 3], [1, 0, 3]], np.int64)
        rows = np.random.default_rng(6).standard_normal((2, 3, 4)).astype(np.float32)
        args = (rows, indices, 5, 1, True)
        expected = torch.ops.aten.embedding_dense_backward(
            torch.tensor(rows), torch.tensor(indices), 5, 1, True).numpy()
    for kernel in (cpu, shared):
        np.testing.assert_allclose(kernel(np, *args), expected, rtol=1e-6, atol=1e-7)


def test_relu_entries_refuse_bool_and_complex_as_torch():
    for dtype in (np.bool_, np.complex64):
        x = np.zeros(3, dtype)
        with pytest.raises(Exception) as expected:
            torch.relu(torch.tensor(x))
        for kernel in (OPS["relu"].raw_kernel, OPS["relu"].table.entries[DispatchKey()]):
            with pytest.raises(type(expected.value), match=str(expected.value)[:20]):
                kernel(np, x)


def test_host_kernel_ops_run_their_kernel_as_written_on_the_cpu():
    """NOTE [host kernels]: the shared entry copies to the host and back, the CPU entry is the
    kernel itself (no wrapper per call)."""
    op = OPS["linalg_qr"]
    shared = op.table.entries[DispatchKey()]
    assert shared.host_kernel and op.raw_kernel is shared.__wrapped__
    a = np.random.default_rng(7).standard_normal((4, 3))
    q, r = ember.linalg.qr(ember.tensor(a))
    tq, tr = torch.linalg.qr(torch.tensor(a))
    np.testing.assert_allclose(q.numpy() @ r.numpy(), tq.numpy() @ tr.numpy(), atol=1e-12)


def test_entries_declared_beside_an_op_leave_it_unbuilt_until_used():
    """`kernel_entry` defers to the op's first use (NOTE [op entries are built on first
    use]): importing ember builds none of the ops that have device entries."""
    code = """
import ember
from ember._core.registry import OPS, _DeclaredOp
names = ["lcm", "frexp.Tensor", "erf", "i0", "gelu", "gelu_backward", "linalg_eigh",
         "relu", "threshold_backward", "embedding_dense_backward"]
assert all(type(OPS[n]) is _DeclaredOp for n in names), [n for n in names
                                                        if type(OPS[n]) is not _DeclaredOp]
assert OPS["lcm"].table.resolve("strided", "cuda") is not OPS["lcm"].raw_kernel
print("ok")
"""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         check=False)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr
