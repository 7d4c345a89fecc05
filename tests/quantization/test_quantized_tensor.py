"""Quantized tensors (NOTE [quantized tensors]) against PyTorch's: quantize_per_tensor /
per_channel, the stored integers, the quantizer accessors, printing, the ops that run on them,
the errors of those that do not, pickling."""
from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
import torch

import ember

pytestmark = pytest.mark.filterwarnings("ignore:.*quantized tensor creation functions")

RNG = np.random.default_rng(0)
X = (RNG.standard_normal((3, 4, 5)) * 2).astype(np.float32)
# ties of value / scale (0.25 / 0.5), values past the stored range, exact grid points
TIES = np.array([0.25, -0.25, 0.75, -0.75, 1.25, 100.0, -100.0, 0.0, 0.5], dtype=np.float32)

PER_TENSOR = [("quint8", 0.1, 10), ("qint8", 0.05, -3), ("qint32", 0.001, 7),
              ("quint8", 0.5, 1), ("qint8", 0.5, 0), ("quint8", 0.5, 0)]


def _both(fn):
    return fn(torch), fn(ember)


def _np(t):
    return t.detach().numpy()


@pytest.mark.parametrize("data", [X, TIES], ids=["random", "ties"])
@pytest.mark.parametrize(("dtype", "scale", "zero_point"), PER_TENSOR)
def test_quantize_per_tensor_matches(data, dtype, scale, zero_point):
    theirs, ours = _both(lambda lib: lib.quantize_per_tensor(
        lib.from_numpy(data), scale, zero_point, getattr(lib, dtype)))
    assert ours.is_quantized and theirs.is_quantized
    assert str(ours.dtype).split(".")[1] == dtype
    assert str(ours.int_repr().dtype) == str(theirs.int_repr().dtype).replace("torch", "ember")
    np.testing.assert_array_equal(_np(ours.int_repr()), _np(theirs.int_repr()))
    assert ours.q_scale() == theirs.q_scale() and ours.q_zero_point() == theirs.q_zero_point()
    np.testing.assert_allclose(_np(ours.dequantize()), _np(theirs.dequantize()), rtol=1e-6,
                               atol=1e-7)
    assert str(ours.qscheme()).split(".")[1] == str(theirs.qscheme()).split(".")[1]
    assert ours.shape == theirs.shape and ours.stride() == theirs.stride()


@pytest.mark.parametrize("axis", [0, 1, 2])
@pytest.mark.parametrize("dtype", ["qint8", "quint8"])
def test_quantize_per_channel_matches(axis, dtype):
    n = X.shape[axis]
    scales = (RNG.uniform(0.01, 0.2, n)).astype(np.float64)
    zeros = RNG.integers(0, 20, n) if dtype == "quint8" else RNG.integers(-5, 5, n)

    def make(lib):
        return lib.quantize_per_channel(lib.from_numpy(X), lib.from_numpy(scales),
                                        lib.from_numpy(zeros), axis, getattr(lib, dtype))
    theirs, ours = _both(make)
    np.testing.assert_array_equal(_np(ours.int_repr()), _np(theirs.int_repr()))
    np.testing.assert_array_equal(_np(ours.q_per_channel_scales()),
                                  _np(theirs.q_per_channel_scales()))
    np.testing.assert_array_equal(_np(ours.q_per_channel_zero_points()),
                                  _np(theirs.q_per_channel_zero_points()))
    assert ours.q_per_channel_axis() == theirs.q_per_channel_axis()
    np.testing.assert_allclose(_np(ours.dequantize()), _np(theirs.dequantize()), rtol=1e-6)


def test_per_channel_ties_round_with_the_zero_point_added():
    data = np.full((4, 2), 0.25, dtype=np.float32)
    theirs, ours = _both(lambda lib: lib.quantize_per_channel(
        lib.from_numpy(data), lib.tensor([0.5, 0.5]), lib.tensor([1, 0]), 1, lib.quint8))
    np.testing.assert_array_equal(_np(ours.int_repr()), _np(theirs.int_repr()))


def _text(t) -> str:
    return repr(t).replace("ember.", "torch.")


@pytest.mark.parametrize("shape", [(2, 3), (), (0,), (7,)])
def test_repr_per_tensor(shape):
    data = RNG.standard_normal(shape).astype(np.float32)
    theirs, ours = _both(lambda lib: lib.quantize_per_tensor(
        lib.from_numpy(data), 0.1, 10, lib.quint8))
    assert _text(ours) == repr(theirs)


def test_repr_per_channel_and_tensor_qparams():
    data = np.array([[-1.0, 0.5, 2.0], [0.1, 0.2, 3.3]], dtype=np.float32)
    theirs, ours = _both(lambda lib: lib.quantize_per_channel(
        lib.from_numpy(data), lib.tensor([0.1, 0.2, 0.3]), lib.tensor([0, 1, 2]), 1,
        lib.qint8))
    assert _text(ours) == repr(theirs)
    theirs, ours = _both(lambda lib: lib.quantize_per_tensor(
        lib.from_numpy(data), lib.tensor(0.1), lib.tensor(3), lib.qint8))
    assert _text(ours) == repr(theirs)


def test_list_forms():
    data = [X[0], X[1]]
    theirs, ours = _both(lambda lib: lib.quantize_per_tensor(
        [lib.from_numpy(d) for d in data], lib.tensor([0.1, 0.2]), lib.tensor([3, 4]),
        lib.quint8))
    assert isinstance(ours, tuple) and len(ours) == len(theirs) == 2
    for a, b in zip(ours, theirs):
        np.testing.assert_array_equal(_np(a.int_repr()), _np(b.int_repr()))
    back_theirs, back_ours = torch.dequantize(list(theirs)), ember.dequantize(list(ours))
    for a, b in zip(back_ours, back_theirs):
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-6)


def test_dequantize_of_a_float_tensor_is_float32():
    for data in (np.array([1.0, 2.5]), np.array([1, 2])):
        theirs, ours = _both(lambda lib, data=data: lib.from_numpy(data).dequantize())
        assert str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1]
        np.testing.assert_array_equal(_np(ours), _np(theirs))


OPS = {
    "relu": lambda lib, q: lib.relu(q),
    "reshape": lambda lib, q: q.reshape(4, 15),
    "view": lambda lib, q: q.view(-1),
    "flatten": lambda lib, q: q.flatten(1),
    "permute": lambda lib, q: q.permute(2, 0, 1),
    "transpose": lambda lib, q: q.transpose(0, 1),
    "select": lambda lib, q: q[1],
    "slice": lambda lib, q: q[:, 1:3],
    "clone": lambda lib, q: q.clone(),
    "contiguous": lambda lib, q: q.transpose(0, 1).contiguous(),
    "detach": lambda lib, q: q.detach(),
    "unsqueeze": lambda lib, q: q.unsqueeze(0),
    "max_pool2d": lambda lib, q: lib.nn.functional.max_pool2d(q, 2),
    "adaptive_avg_pool2d": lambda lib, q: lib.nn.functional.adaptive_avg_pool2d(q, (2, 2)),
    "avg_pool2d": lambda lib, q: lib.nn.functional.avg_pool2d(q, 2),
}


@pytest.mark.parametrize("name", list(OPS))
def test_ops_on_quantized_tensors(name):
    theirs, ours = _both(lambda lib: OPS[name](lib, lib.quantize_per_tensor(
        lib.from_numpy(X), 0.05, 60, lib.quint8)))
    assert ours.is_quantized and ours.shape == theirs.shape
    assert (ours.q_scale(), ours.q_zero_point()) == (theirs.q_scale(), theirs.q_zero_point())
    np.testing.assert_array_equal(_np(ours.int_repr()), _np(theirs.int_repr()))


def test_relu_in_place_writes_the_integers():
    theirs, ours = _both(lambda lib: lib.nn.functional.relu(
        lib.quantize_per_tensor(lib.from_numpy(X), 0.05, 60, lib.quint8), inplace=True))
    np.testing.assert_array_equal(_np(ours.int_repr()), _np(theirs.int_repr()))


@pytest.mark.parametrize("call", [lambda lib, q: lib.exp(q), lambda lib, q: q.sum(),
                                  lambda lib, q: q.q_per_channel_scales()])
def test_unsupported_calls_raise_pytorchs_class(call):
    classes = []
    for lib in (torch, ember):
        q = lib.quantize_per_tensor(lib.from_numpy(X), 0.05, 60, lib.quint8)
        with pytest.raises(Exception) as info:
            call(lib, q)
        classes.append(type(info.value).__name__)
    assert classes[0] == classes[1]


@pytest.mark.parametrize("call", [
    lambda lib: lib.quantize_per_tensor(lib.tensor([1.0]), 0.1, 300, lib.qint8),
    lambda lib: lib.quantize_per_tensor(lib.tensor([1, 2]), 0.1, 3, lib.qint8),
    lambda lib: lib.quantize_per_tensor(lib.tensor([1.0]), 0.1, 3, lib.float32),
    lambda lib: lib.tensor([1.0]).int_repr(),
    lambda lib: lib.tensor([1.0]).q_scale(),
    lambda lib: lib.quantize_per_channel(lib.tensor([[1.0]]), lib.tensor([0.1]),
                                         lib.tensor([0]), 0, lib.qint8).q_scale(),
])
def test_bad_calls_raise_pytorchs_class_and_message(call):
    errors = []
    for lib in (torch, ember):
        with pytest.raises(Exception) as info:
            call(lib)
        errors.append((type(info.value).__name__, str(info.value).split("\n")[0][:60]))
    assert errors[0] == errors[1]


@pytest.mark.parametrize("per_channel", [False, True])
def test_pickle_and_deepcopy_keep_the_quantizer(per_channel):
    q = ember.quantize_per_channel(ember.from_numpy(X), ember.tensor([0.1, 0.2, 0.3, 0.4]),
                                   ember.tensor([0, 1, 2, 3]), 1, ember.qint8) \
        if per_channel else ember.quantize_per_tensor(ember.from_numpy(X), 0.1, 3, ember.qint8)
    for copied in (copy.deepcopy(q), pickle.loads(pickle.dumps(q))):
        assert copied is not q and ember.equal(copied, q)
        assert repr(copied) == repr(q)


def test_to_cpu_returns_the_tensor_itself():
    for lib in (torch, ember):
        q = lib.quantize_per_tensor(lib.from_numpy(X), 0.1, 3, lib.qint8)
        assert q.to("cpu") is q and q.cpu() is q
        assert q.device == lib.device("cpu") and q.layout == lib.strided


def _saved_objects(lib):
    q = lib.quantize_per_tensor(lib.from_numpy(X), 0.1, 3, lib.qint8)
    per_channel = lib.quantize_per_channel(lib.from_numpy(X), lib.tensor([0.1, 0.2, 0.3]),
                                           lib.tensor([0, 1, 2]), 0, lib.quint8)
    linear = lib.ao.nn.quantized.Linear(5, 3)
    linear.set_weight_bias(lib.quantize_per_tensor(lib.from_numpy(X[0, :3]), 0.05, 0,
                                                   lib.qint8), lib.zeros(3))
    linear.scale = 0.25
    return {"q": q, "per_channel": per_channel, "slice": q[1:],
            "q32": lib.quantize_per_tensor(lib.from_numpy(X), 0.01, -3, lib.qint32),
            "linear": linear.state_dict()}


@pytest.mark.parametrize("weights_only", [True, False])
@pytest.mark.parametrize("direction", ["torch to ember", "ember to torch", "ember to ember"])
def test_save_and_load_interchange_with_pytorch(direction, weights_only):
    import io
    source, target = {"torch to ember": (torch, ember), "ember to torch": (ember, torch),
                      "ember to ember": (ember, ember)}[direction]
    buffer = io.BytesIO()
    source.save(_saved_objects(source), buffer)
    buffer.seek(0)
    loaded = target.load(buffer, weights_only=weights_only)
    expected = _saved_objects(target)
    for key in ("q", "per_channel", "slice", "q32"):
        assert target.equal(loaded[key], expected[key])
        assert repr(loaded[key]).replace("ember.", "torch.") == \
            repr(expected[key]).replace("ember.", "torch.")
    layer = target.ao.nn.quantized.Linear(5, 3)
    layer.load_state_dict(loaded["linear"])
    assert layer.scale == pytest.approx(0.25)
    np.testing.assert_array_equal(_np(layer.weight().int_repr()),
                                  _np(expected["linear"]["_packed_params._packed_params"][0]
                                      .int_repr()))


@pytest.mark.parametrize("dtype", ["quint8", "qint8"])
@pytest.mark.parametrize("reduce_range", [False, True])
def test_quantize_per_tensor_dynamic_matches(dtype, reduce_range):
    for data in (X, TIES, np.abs(X), np.zeros(3, np.float32)):
        theirs, ours = _both(lambda lib, data=data: lib.quantize_per_tensor_dynamic(
            lib.from_numpy(data), getattr(lib, dtype), reduce_range))
        assert (ours.q_scale(), ours.q_zero_point()) == (theirs.q_scale(), theirs.q_zero_point())
        np.testing.assert_array_equal(_np(ours.int_repr()), _np(theirs.int_repr()))


def test_fake_quantize_functions_and_their_gradient():
    for call in (lambda lib, t: lib.fake_quantize_per_tensor_affine(t, 0.1, 3, 0, 40),
                 lambda lib, t: lib.fake_quantize_per_tensor_affine(
                     t, lib.tensor(0.05), lib.tensor(3, dtype=lib.int32), -10, 60),
                 lambda lib, t: lib.fake_quantize_per_channel_affine(
                     t, lib.tensor([0.1, 0.2, 0.05, 0.3]), lib.tensor([0, 1, 2, 3],
                                                                      dtype=lib.int32),
                     1, -128, 127)):
        results = []
        for lib in (torch, ember):
            t = lib.from_numpy(X.copy()).requires_grad_()
            out = call(lib, t)
            out.sum().backward()
            results.append((_np(out), _np(t.grad)))
        np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-6, atol=1e-7)
        np.testing.assert_array_equal(results[1][1], results[0][1])


def test_empty_quantized_and_quantized_max_pooling():
    for lib in (torch, ember):
        q = lib.quantize_per_tensor(lib.from_numpy(X), 0.1, 3, lib.qint8)
        empty = lib.empty_quantized([2, 3], q)
        assert tuple(empty.shape) == (2, 3) and empty.q_scale() == 0.1
        assert empty.q_zero_point() == 3 and str(empty.dtype).endswith("qint8")
    theirs, ours = _both(lambda lib: lib.quantized_max_pool2d(
        lib.quantize_per_tensor(lib.from_numpy(X), 0.05, 60, lib.quint8), [2, 2], [1, 2]))
    np.testing.assert_array_equal(_np(ours.int_repr()), _np(theirs.int_repr()))
    theirs, ours = _both(lambda lib: lib.quantized_max_pool1d(
        lib.quantize_per_tensor(lib.from_numpy(X), 0.05, 60, lib.quint8), [2]))
    np.testing.assert_array_equal(_np(ours.int_repr()), _np(theirs.int_repr()))
