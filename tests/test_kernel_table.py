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


def test_every_deferred_entry_found_its_op():
    assert registry._PENDING_KERNELS == {}


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
