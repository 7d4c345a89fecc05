"""ember._subclasses.fake_tensor against torch._subclasses.fake_tensor: the same programs run
under both FakeTensorModes give the same shapes, dtypes, strides, devices and exceptions."""
import os
import subprocess
import sys
import tracemalloc

import pytest

torch = pytest.importorskip("torch")
from tests.subclasses.fake_models import MODELS
from tests.subclasses.fake_runner import describe, run_fake
from torch._subclasses import fake_tensor as torch_fake

import ember
from ember._subclasses import fake_tensor as ember_fake

LIBS = {"torch": (torch, torch_fake), "ember": (ember, ember_fake)}


def _both(fn):
    """fn(lib, fake_module) in each library."""
    return {name: fn(lib, fake) for name, (lib, fake) in LIBS.items()}


def _outcome(fn, lib, fake):
    try:
        return "ok", fn(lib, fake)
    except Exception as exc:    # noqa: BLE001 - the class is what is compared
        return "raised", type(exc).__name__


# --------------------------------------------------------------------------- the models

@pytest.mark.parametrize("how", ["inside", "converted"])
@pytest.mark.parametrize("model", sorted(MODELS))
def test_model_metadata_matches_torch(model, how):
    """Every module output, recorded intermediate, the loss and every parameter's gradient:
    the same shape, dtype, strides, device and requires_grad as under PyTorch's FakeTensorMode,
    and every one of them a FakeTensor."""
    ours = run_fake(ember, MODELS[model], how)
    theirs = run_fake(torch, MODELS[model], how)
    assert len(ours[0]) == len(theirs[0]) > 5
    assert ours[0] == theirs[0]
    assert ours[1] == theirs[1]
    assert set(ours[2]) == {"FakeTensor"} == set(theirs[2])


# --------------------------------------------------------------------------- data-dependent ops

DATA_DEPENDENT = {
    "item": lambda lib, a: a.sum().item(),
    "tolist": lambda lib, a: a.tolist(),
    "bool": lambda lib, a: bool(a.sum()),
    "int": lambda lib, a: int(a[0, 0]),
    "float": lambda lib, a: float(a.sum()),
    "nonzero": lambda lib, a: a.nonzero(),
    "masked_select": lambda lib, a: a.masked_select(a > 0),
    "unique": lambda lib, a: lib.unique(a),
    "unique_dim": lambda lib, a: a.unique(dim=0),
    "unique_consecutive": lambda lib, a: lib.unique_consecutive(a),
    "bool_mask_index": lambda lib, a: a[a > 0],
    "bool_list_index": lambda lib, a: a[lib.tensor([True, False, True])],
    "bincount": lambda lib, a: lib.bincount(lib.randint(0, 3, (5,))),
    "repeat_interleave": lambda lib, a: lib.repeat_interleave(lib.randint(0, 3, (4,))),
    "one_hot": lambda lib, a: lib.nn.functional.one_hot(lib.randint(0, 3, (5,))),
    "argwhere": lambda lib, a: lib.argwhere(a),
}


@pytest.mark.parametrize("case", sorted(DATA_DEPENDENT))
def test_data_dependent_ops_raise_torchs_exception(case):
    def run(lib, fake):
        with fake.FakeTensorMode():
            a = lib.randn(3, 4)
            try:
                DATA_DEPENDENT[case](lib, a)
            except Exception as exc:    # noqa: BLE001
                return type(exc).__name__, isinstance(exc, getattr(fake, type(exc).__name__))
        return None
    found = _both(run)
    assert found["torch"] is not None
    assert found["ember"] == found["torch"]


def test_data_dependent_exception_names_the_op():
    def run(lib, fake):
        with fake.FakeTensorMode():
            a = lib.randn(3)
            messages = []
            for fn in (lambda: a.sum().item(), lambda: a.nonzero(), lambda: a[a > 0]):
                with pytest.raises(RuntimeError) as info:
                    fn()
                messages.append(str(info.value))
            return messages
    found = _both(run)
    assert found["ember"] == found["torch"] == [
        "aten._local_scalar_dense.default", "aten.nonzero.default", "aten.nonzero.default"]


@pytest.mark.parametrize("name", [
    "DataDependentOutputException", "DynamicOutputShapeException", "UnsupportedFakeTensorException",
    "UnsupportedOperatorException", "FakeTensorDeviceMismatchError", "MetadataMismatchError"])
def test_exception_classes_have_torchs_bases(name):
    ours = [c.__name__ for c in getattr(ember_fake, name).__mro__]
    theirs = [c.__name__ for c in getattr(torch_fake, name).__mro__]
    assert ours == theirs


def test_small_constants_keep_their_value():
    def run(lib, fake):
        with fake.FakeTensorMode():
            t = lib.tensor(3) + 1
            return t.item(), lib.tensor([1.0, 2.0]).constant is None
    found = _both(run)
    assert found["ember"] == found["torch"] == (4, True)


# --------------------------------------------------------------------------- conversion

FROM_TENSOR = {
    "contiguous": lambda lib: lib.randn(3, 4),
    "transposed": lambda lib: lib.randn(3, 4).t(),
    "strided": lambda lib: lib.randn(6, 8)[::2, 1::3],
    "channels_last": lambda lib: lib.randn(2, 3, 4, 5).contiguous(
        memory_format=lib.channels_last),
    "int64": lambda lib: lib.arange(6).view(2, 3),
    "float64_scalar": lambda lib: lib.tensor(2.5, dtype=lib.float64),
    "meta": lambda lib: lib.empty(4, 5, device="meta").t(),
    "leaf_requires_grad": lambda lib: lib.randn(3, 2, requires_grad=True),
    "non_leaf": lambda lib: lib.randn(3, 2, requires_grad=True) * 2,
    "parameter": lambda lib: lib.nn.Parameter(lib.randn(4)),
}


@pytest.mark.parametrize("case", sorted(FROM_TENSOR))
def test_from_tensor_keeps_metadata(case):
    def run(lib, fake):
        mode = fake.FakeTensorMode()
        real = FROM_TENSOR[case](lib)
        f = mode.from_tensor(real)
        return (describe(f), f.is_leaf, type(f).__name__, f.fake_mode is mode,
                str(f.fake_device), f.is_meta, isinstance(f, lib.nn.Parameter),
                mode.from_tensor(real) is f)
    found = _both(run)
    assert found["ember"] == found["torch"]


def test_real_tensors_are_refused_or_converted():
    def run(lib, fake):
        real = lib.randn(3)
        with fake.FakeTensorMode() as mode:
            a = lib.randn(3)
            refused = _outcome(lambda lib, fake: a + real, lib, fake)
        with fake.FakeTensorMode(allow_non_fake_inputs=True):
            converted = lib.randn(3) + real
        other = fake.FakeTensorMode().from_tensor(real)
        with mode:
            mixed = _outcome(lambda lib, fake: a + other, lib, fake)
        again = mode.from_tensor(other)       # another mode's fake converts to a new one
        return (refused, type(converted).__name__, describe(converted), mixed,
                again.fake_mode is mode, again is other, describe(again))
    found = _both(run)
    assert found["ember"] == found["torch"]
    assert found["ember"][0] == found["ember"][3] == ("raised", "AssertionError")


def test_ops_on_fakes_outside_the_mode_stay_fake():
    def run(lib, fake):
        mode = fake.FakeTensorMode()
        x = mode.from_tensor(lib.randn(4, 3))
        y = (x.t() @ x).relu()
        w = mode.from_tensor(lib.randn(3, requires_grad=True))
        (x * w).sum().backward()
        return type(y).__name__, describe(y), y.fake_mode is mode, describe(w.grad)
    found = _both(run)
    assert found["ember"] == found["torch"]


def test_devices_are_remembered():
    def run(lib, fake):
        with fake.FakeTensorMode():
            a = lib.ones(2, 3, device="cuda", dtype=lib.float64)
            b = lib.zeros_like(a)
            c = (a * 2).sum(0)
            e = a.cpu()
            mismatch = _outcome(lambda lib, fake: a + lib.ones(2, 3), lib, fake)
            scalar = (a + lib.tensor(1.0)).device      # zero-dim CPU tensors act as scalars
            return ([str(t.device) for t in (a, b, c, e)], a.is_cuda, e.is_cpu,
                    str(a.fake_device), mismatch, str(scalar),
                    repr(a).replace("ember.", "torch."))
    found = _both(run)
    assert found["ember"] == found["torch"]
    assert found["ember"][4] == ("raised", "FakeTensorDeviceMismatchError")


def test_repr_and_faces():
    def run(lib, fake):
        with fake.FakeTensorMode():
            a = lib.randn(3, requires_grad=True)
            texts = [repr(a), repr(a * 2), repr(lib.arange(3)), repr(lib.ones(2, device="meta"))]
            return ([t.replace("ember.", "torch.") for t in texts], a.is_meta, a.is_cpu,
                    type(a).__name__)
    found = _both(run)
    assert found["ember"] == found["torch"]


def test_views_and_in_place_writes_share_versions():
    def run(lib, fake):
        with fake.FakeTensorMode():
            c = lib.ones(2, 3)
            v = c[0]
            out = v.add_(1)
            c.mul_(2)
            return out is v, c._version, v._version, v._base is c, describe(v)
    found = _both(run)
    assert found["ember"] == found["torch"]


# --------------------------------------------------------------------------- strides

ELEMENTWISE = {
    "transposed_plus_contiguous": lambda lib: lib.empty(4, 3).t() + lib.empty(3, 4),
    "contiguous_plus_transposed": lambda lib: lib.empty(3, 4) + lib.empty(4, 3).t(),
    "broadcast_row": lambda lib: lib.empty(5, 1) * lib.empty(4, 3, 5).transpose(1, 2),
    "expanded": lambda lib: lib.empty(3, 1).expand(3, 4) + 1,
    "permuted_3d": lambda lib: lib.empty(2, 3, 4).permute(2, 0, 1).exp(),
    "channels_last_relu": lambda lib: lib.empty(2, 3, 4, 5).contiguous(
        memory_format=lib.channels_last).relu(),
    "channels_last_plus_contiguous": lambda lib: lib.empty(2, 3, 4, 5).contiguous(
        memory_format=lib.channels_last) + lib.empty(2, 3, 4, 5),
    "size_one_dims": lambda lib: lib.empty(3, 1).t() * 2,
    "sliced": lambda lib: lib.empty(6, 8)[::2, 1::3].sin(),
    "where": lambda lib: lib.where(lib.empty(4, 3).t() > 0, lib.empty(3, 4), 0.0),
    "clone_transposed": lambda lib: lib.empty(4, 3).t().clone(),
    "to_float64_transposed": lambda lib: lib.empty(4, 3).t().to(lib.float64),
    "contiguous_of_transposed": lambda lib: lib.empty(4, 3).t().contiguous(),
    "reduction_of_transposed": lambda lib: lib.empty(4, 3).t().sum(0),
    "empty_like_transposed": lambda lib: lib.empty_like(lib.empty(4, 3).t()),
    "matmul": lambda lib: lib.empty(5, 4).t() @ lib.empty(5, 3),
}


@pytest.mark.parametrize("case", sorted(ELEMENTWISE))
def test_result_strides_match_torch(case):
    def run(lib, fake):
        with fake.FakeTensorMode():
            return describe(ELEMENTWISE[case](lib))
    found = _both(run)
    assert found["ember"] == found["torch"]


def test_meta_device_keeps_its_own_convolution_layout():
    """A real meta tensor's convolution is row-major in PyTorch; a fake CPU one channels-last."""
    def run(lib, fake):
        x = lib.empty(2, 3, 8, 8, device="meta").contiguous(memory_format=lib.channels_last)
        w = lib.empty(4, 3, 3, 3, device="meta")
        on_meta = lib.nn.functional.conv2d(x, w).stride()
        with fake.FakeTensorMode():
            xf = lib.empty(2, 3, 8, 8).contiguous(memory_format=lib.channels_last)
            faked = lib.nn.functional.conv2d(xf, lib.empty(4, 3, 3, 3)).stride()
        return on_meta, faked
    found = _both(run)
    assert found["ember"] == found["torch"]


# --------------------------------------------------------------------------- no computation

def test_huge_fake_matmul_allocates_nothing():
    n = 10 ** 6
    tracemalloc.start()
    try:
        with ember_fake.FakeTensorMode():
            a = ember.empty(n, n)
            out = (a @ a.t()).relu().sum(1)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20
    with torch_fake.FakeTensorMode():
        t = torch.empty(n, n)
        expected = (t @ t.t()).relu().sum(1)
    assert describe(out) == describe(expected)


# --------------------------------------------------------------------------- torch alias

def test_torch_subclasses_fake_tensor_imports_under_ember_run(tmp_path):
    script = tmp_path / "fake.py"
    script.write_text(
        "import torch\n"
        "from torch._subclasses.fake_tensor import FakeTensorMode, FakeTensor\n"
        "import torch._subclasses\n"
        "with FakeTensorMode():\n"
        "    x = torch.randn(4, 3)\n"
        "    y = torch.nn.Linear(3, 2)(x)\n"
        "print(type(y).__name__, tuple(y.shape), y.stride(), y.device,\n"
        "      torch._subclasses.FakeTensorMode is FakeTensorMode)\n")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = {**os.environ, "PYTHONPATH": os.path.join(root, "src")}
    ours = subprocess.run([sys.executable, "-m", "ember.run", str(script)], capture_output=True,
                          text=True, env=env, check=False)
    theirs = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                            env={**os.environ, "OMP_NUM_THREADS": "1"}, check=False)
    assert ours.returncode == 0, ours.stderr
    assert theirs.returncode == 0, theirs.stderr
    assert ours.stdout == theirs.stdout == "FakeTensor (4, 2) (2, 1) cpu True\n"
