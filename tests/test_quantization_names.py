"""`ember.quantization` (ember.ao.quantization) against PyTorch's eager-mode quantization, on the
float side (the quantized side: tests/quantization/): observers' statistics and
(scale, zero_point), fake quantization forward and gradient, stubs, qconfigs, module fusion,
observer insertion."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import ember

X = np.array([-1.0, 0.5, 2.0, 3.0, -0.25], dtype=np.float32)
W = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)


def _np(t):
    return t.detach().numpy()


OBSERVERS = {
    "MinMaxObserver": lambda q: q.MinMaxObserver(),
    "MinMaxObserver reduce_range": lambda q: q.MinMaxObserver(reduce_range=True),
    "MinMaxObserver qint8 symmetric": lambda q: q.MinMaxObserver(
        dtype=q_dtype(q, "qint8"), qscheme=q_scheme(q, "per_tensor_symmetric")),
    "MinMaxObserver quint8 symmetric": lambda q: q.MinMaxObserver(
        qscheme=q_scheme(q, "per_tensor_symmetric")),
    "default_observer": lambda q: q.default_observer(),
    "default_weight_observer": lambda q: q.default_weight_observer(),
    "MovingAverageMinMaxObserver": lambda q: q.MovingAverageMinMaxObserver(
        averaging_constant=0.5),
    "default_per_channel_weight_observer": lambda q: q.default_per_channel_weight_observer(),
    "PerChannelMinMaxObserver affine axis 1": lambda q: q.PerChannelMinMaxObserver(ch_axis=1),
}


def q_dtype(q, name):
    return getattr(torch if q is torch.quantization else ember, name)


q_scheme = q_dtype


@pytest.mark.parametrize("name", list(OBSERVERS))
def test_observer_qparams_match(name):
    results = []
    for lib, q in ((torch, torch.quantization), (ember, ember.quantization)):
        observer = OBSERVERS[name](q)
        for batch in (W, W * 3 - 1):
            out = observer(lib.from_numpy(batch))
            assert np.array_equal(_np(out), batch)           # observers pass values through
        scale, zero_point = observer.calculate_qparams()
        results.append((_np(scale), _np(zero_point), str(zero_point.dtype).split(".")[1],
                        _np(observer.min_val), _np(observer.max_val),
                        observer.quant_min, observer.quant_max))
    ours, theirs = results[1], results[0]
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-6)
    for a, b in zip(ours[1:], theirs[1:]):
        if isinstance(a, np.ndarray):
            np.testing.assert_allclose(a, b, rtol=1e-6)
        else:
            assert a == b


def test_unobserved_observer_warns_and_defaults():
    for q in (torch.quantization, ember.quantization):
        with pytest.warns(UserWarning, match="must run observer before calling"):
            scale, zero_point = q.MinMaxObserver().calculate_qparams()
        assert (scale.tolist(), zero_point.tolist()) == ([1.0], [0])


@pytest.mark.parametrize("factory", ["default_fake_quant", "default_weight_fake_quant",
                                     "default_per_channel_weight_fake_quant",
                                     "default_fixed_qparams_range_0to1_fake_quant",
                                     "default_fixed_qparams_range_neg1to1_fake_quant"])
def test_fake_quantize_forward_and_gradient(factory):
    results = []
    data = W if "per_channel" in factory else X
    for lib, q in ((torch, torch.quantization), (ember, ember.quantization)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fake = getattr(q, factory)()
        x = lib.from_numpy(data * 1.5).requires_grad_()
        out = fake(x)
        (out * lib.arange(float(out.numel())).reshape(out.shape)).sum().backward()
        scale, zero_point = fake.calculate_qparams()
        results.append((_np(out), _np(x.grad), _np(scale), _np(zero_point),
                        fake.quant_min, fake.quant_max))
    for ours, theirs in zip(results[1], results[0]):
        if isinstance(ours, np.ndarray):
            np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)
        else:
            assert ours == theirs


def test_fake_quantize_switches():
    for q in (torch.quantization, ember.quantization):
        fake = q.default_fake_quant()
        fake.disable_fake_quant()
        x = (torch if q is torch.quantization else ember).tensor([0.123, 1.7])
        assert fake(x).tolist() == pytest.approx([0.123, 1.7])
        fake.disable_observer()
        assert fake.observer_enabled.tolist() == [0]


def test_stubs_and_wrapper():
    for lib, q in ((torch, torch.quantization), (ember, ember.quantization)):
        x = lib.from_numpy(X)
        assert np.array_equal(_np(q.QuantStub()(x)), X)
        assert np.array_equal(_np(q.DeQuantStub()(x)), X)
        inner = lib.nn.Linear(5, 2)
        wrapped = q.QuantWrapper(inner)
        assert [n for n, _ in wrapped.named_children()] == ["quant", "dequant", "module"]
        np.testing.assert_allclose(_np(wrapped(x)), _np(inner(x)))
        stub = q.QuantStub(q.default_qconfig)
        assert stub.qconfig is q.default_qconfig


def test_qconfigs_and_quant_type():
    for q in (torch.quantization, ember.quantization):
        with pytest.raises(ValueError, match="observer instance"):
            q.QConfig(activation=q.MinMaxObserver(), weight=q.default_weight_observer)
    assert list(ember.quantization.QuantType.__members__) == \
        list(torch.quantization.QuantType.__members__)
    assert [int(v) for v in ember.quantization.QuantType] == \
        [int(v) for v in torch.quantization.QuantType]
    for name in ("default_qconfig", "default_dynamic_qconfig", "float16_dynamic_qconfig",
                 "float_qparams_weight_only_qconfig", "default_qat_qconfig"):
        ours = getattr(ember.quantization, name)
        theirs = getattr(torch.quantization, name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            o_act, t_act = ours.activation(), theirs.activation()
            o_w, t_w = ours.weight(), theirs.weight()
        for o, t in ((o_act, t_act), (o_w, t_w)):
            assert type(o).__name__ == type(t).__name__, name
            assert str(o.dtype).split(".")[1] == str(t.dtype).split(".")[1], name


def _fusable(lib):
    return lib.nn.Sequential(lib.nn.Conv2d(3, 4, 3), lib.nn.BatchNorm2d(4), lib.nn.ReLU(),
                             lib.nn.Flatten(), lib.nn.Linear(64, 4), lib.nn.ReLU())


@pytest.mark.parametrize("train", [False, True])
def test_fuse_modules_matches_torch(train):
    theirs = _fusable(torch)
    ours = _fusable(ember)
    ours.load_state_dict({k: ember.from_numpy(v.detach().numpy().copy())
                          for k, v in theirs.state_dict().items()})
    with torch.no_grad():        # non-trivial running statistics to fold
        theirs[1].running_mean.uniform_(-1, 1)
        theirs[1].running_var.uniform_(0.5, 2)
    ours[1].running_mean.copy_(ember.from_numpy(theirs[1].running_mean.numpy().copy()))
    ours[1].running_var.copy_(ember.from_numpy(theirs[1].running_var.numpy().copy()))
    theirs.train(train)
    ours.train(train)
    groups = [["0", "1", "2"], ["4", "5"]]
    fused_t = torch.ao.quantization.fuse_modules_qat(theirs, groups) if train else \
        torch.quantization.fuse_modules(theirs, groups)
    fused_e = ember.quantization.fuse_modules(ours, groups)
    assert [type(m).__name__ for m in fused_e] == [type(m).__name__ for m in fused_t]
    x = np.random.default_rng(1).standard_normal((2, 3, 6, 6)).astype(np.float32)
    fused_t.eval()
    fused_e.eval()
    np.testing.assert_allclose(_np(fused_e(ember.from_numpy(x))),
                               _np(fused_t(torch.from_numpy(x))), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(_np(ours.eval()(ember.from_numpy(x))),
                               _np(fused_e(ember.from_numpy(x))), rtol=1e-4, atol=1e-5)
    for q, lib in ((torch.quantization, torch), (ember.quantization, ember)):
        with pytest.raises(AssertionError, match="did not find fuser method"):
            q.get_fuser_method((lib.nn.ReLU, lib.nn.Linear))


def test_prepare_attaches_observers_and_calibrates():
    results = []
    for lib, q in ((torch, torch.quantization), (ember, ember.quantization)):
        model = lib.nn.Sequential(q.QuantStub(), lib.nn.Linear(3, 4), lib.nn.ReLU(),
                                  q.DeQuantStub())
        model.load_state_dict({"1.weight": lib.from_numpy(W), "1.bias": lib.zeros(4)})
        model.eval()
        model.qconfig = q.default_qconfig
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            prepared = q.prepare(model)
        assert not hasattr(model[1], "activation_post_process")      # a copy was prepared
        q.default_eval_fn(prepared, [(lib.from_numpy(W[:, :3] * 2), None)])
        observed = {name: (float(m.activation_post_process.min_val),
                           float(m.activation_post_process.max_val))
                    for name, m in prepared.named_children()
                    if hasattr(m, "activation_post_process")}
        results.append(observed)
    assert results[0].keys() == results[1].keys()
    for key in results[0]:
        assert results[1][key] == pytest.approx(results[0][key], rel=1e-5)


def test_propagate_qconfig():
    for lib, q in ((torch, torch.quantization), (ember, ember.quantization)):
        model = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.Sequential(lib.nn.ReLU()))
        q.propagate_qconfig_(model, {"": q.default_qconfig, lib.nn.ReLU: None})
        assert model[0].qconfig.weight().dtype == q.default_qconfig.weight().dtype
        assert model[1].qconfig is not None
        assert model[1][0].qconfig is None
