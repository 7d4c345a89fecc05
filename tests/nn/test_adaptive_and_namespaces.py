"""nn's additions against PyTorch: AdaptiveLogSoftmaxWithLoss (forward, log_prob, predict,
gradients, errors), LinearCrossEntropyLoss and its options, nn.grad's convolution gradients,
factory_kwargs, the quantization alias namespaces and nn.functional's helpers."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import ember
from tests.nn.compare import copy_state, to_ember, to_numpy


def _pair(*args, **kwargs):
    torch.manual_seed(0)
    theirs = torch.nn.AdaptiveLogSoftmaxWithLoss(*args, **kwargs)
    ours = ember.nn.AdaptiveLogSoftmaxWithLoss(*args, **kwargs)
    copy_state(theirs, ours)
    return theirs, ours


@pytest.mark.parametrize("cutoffs,div_value,head_bias", [
    ([3, 6], 4.0, False), ([2], 2.0, True), ([1, 4, 8], 1.5, True)])
def test_adaptive_softmax_forward_and_gradients_match(cutoffs, div_value, head_bias):
    theirs, ours = _pair(8, 11, cutoffs, div_value=div_value, head_bias=head_bias)
    assert list(theirs.state_dict()) == list(ours.state_dict())
    x = torch.randn(9, 8, requires_grad=True)
    target = torch.tensor([0, 10, 3, 5, 6, 2, 9, 1, 7])
    xe = to_ember(x, requires_grad=True)
    t_out = theirs(x, target)
    e_out = ours(xe, to_ember(target))
    np.testing.assert_allclose(to_numpy(e_out.output), to_numpy(t_out.output), rtol=1e-5,
                               atol=1e-5)
    np.testing.assert_allclose(to_numpy(e_out.loss), to_numpy(t_out.loss), rtol=1e-5)
    t_out.loss.backward()
    e_out.loss.backward()
    np.testing.assert_allclose(to_numpy(xe.grad), to_numpy(x.grad), rtol=1e-4, atol=1e-6)
    for (name, p_t), (_, p_e) in zip(theirs.named_parameters(), ours.named_parameters()):
        np.testing.assert_allclose(to_numpy(p_e.grad), to_numpy(p_t.grad), rtol=1e-4,
                                   atol=1e-6, err_msg=name)
    np.testing.assert_allclose(to_numpy(ours.log_prob(xe)), to_numpy(theirs.log_prob(x)),
                               rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(to_numpy(ours.predict(xe)), to_numpy(theirs.predict(x)))
    assert repr(ours) == repr(theirs).replace("torch", "ember")


def test_adaptive_softmax_unbatched_and_predict_mixed_rows():
    theirs, ours = _pair(6, 20, [4, 10], head_bias=True)
    with torch.no_grad():        # rows with a large x[0] go to the first cluster
        theirs.head.weight[4] = torch.tensor([8.0, 0, 0, 0, 0, 0])
    copy_state(theirs, ours)
    x = torch.randn(12, 6)
    predicted = theirs.predict(x)
    assert (predicted >= 4).any() and (predicted < 4).any()
    np.testing.assert_array_equal(to_numpy(ours.predict(to_ember(x))), to_numpy(predicted))
    one = x[0]
    t_out, e_out = theirs(one, torch.tensor(13)), ours(to_ember(one), ember.tensor(13))
    assert tuple(e_out.output.shape) == tuple(t_out.output.shape) == ()
    np.testing.assert_allclose(to_numpy(e_out.loss), to_numpy(t_out.loss), rtol=1e-5)
    for method in ("log_prob", "predict"):     # batches only, in PyTorch too
        with pytest.raises(IndexError):
            getattr(theirs, method)(one)
        with pytest.raises(IndexError):
            getattr(ours, method)(to_ember(one))


@pytest.mark.parametrize("build,call", [
    (lambda nn: nn.AdaptiveLogSoftmaxWithLoss(4, 10, []), None),
    (lambda nn: nn.AdaptiveLogSoftmaxWithLoss(4, 10, [5, 3]), None),
    (lambda nn: nn.AdaptiveLogSoftmaxWithLoss(4, 10, [3, 10]), None),
    (lambda nn: nn.AdaptiveLogSoftmaxWithLoss(4, 10, [3, 3]), None),
    (lambda nn: nn.AdaptiveLogSoftmaxWithLoss(4, 10, [3]), lambda m, lib: m(
        lib.zeros(2, 4), lib.tensor([1, 12]))),
    (lambda nn: nn.AdaptiveLogSoftmaxWithLoss(4, 10, [3]), lambda m, lib: m(
        lib.zeros(3, 4), lib.tensor([1, 2]))),
    (lambda nn: nn.AdaptiveLogSoftmaxWithLoss(4, 10, [3]), lambda m, lib: m(
        lib.zeros(2, 4), lib.tensor(1))),
    (lambda nn: nn.AdaptiveLogSoftmaxWithLoss(4, 10, [3]), lambda m, lib: m(
        lib.zeros(2, 4), lib.zeros(2, 2, dtype=lib.int64))),
])
def test_adaptive_softmax_errors_match(build, call):
    def outcome(lib):
        try:
            module = build(lib.nn)
            if call is not None:
                call(module, lib)
        except Exception as exc:    # the class and message are what is compared
            return type(exc), str(exc).replace("torch.Size", "ember.Size")
        return None
    theirs, ours = outcome(torch), outcome(ember)
    assert theirs is not None
    assert ours == theirs


def test_linear_cross_entropy_loss_matches():
    torch.manual_seed(1)
    weight = torch.rand(5) + 0.5
    theirs = torch.nn.LinearCrossEntropyLoss(4, 5, out_features=(3,), bias=True,
                                             weight=weight, label_smoothing=0.1)
    ours = ember.nn.LinearCrossEntropyLoss(4, 5, out_features=(3,), bias=True,
                                           weight=to_ember(weight), label_smoothing=0.1)
    copy_state(theirs, ours)
    assert list(theirs.state_dict()) == list(ours.state_dict())
    assert repr(ours) == repr(theirs)
    x = torch.randn(6, 4, requires_grad=True)
    target = torch.randint(0, 5, (6, 3))
    xe = to_ember(x, requires_grad=True)
    t_loss, e_loss = theirs(x, target), ours(xe, to_ember(target))
    np.testing.assert_allclose(to_numpy(e_loss), to_numpy(t_loss), rtol=1e-5)
    t_loss.backward()
    e_loss.backward()
    np.testing.assert_allclose(to_numpy(xe.grad), to_numpy(x.grad), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(to_numpy(ours.linear.weight.grad),
                               to_numpy(theirs.linear.weight.grad), rtol=1e-4, atol=1e-6)
    for lib in (torch, ember):
        with pytest.raises(RuntimeError, match="expected weight shape"):
            lib.nn.LinearCrossEntropyLoss(4, 5, weight=lib.ones(4))
        with pytest.raises(RuntimeError, match="label_smoothing"):
            lib.nn.LinearCrossEntropyLoss(4, 5, label_smoothing=1.5)


@pytest.mark.parametrize("kwargs", [
    {}, {"batch_chunk_size": 8}, {"chunking_method": "aspect_ratio:2", "acc_policy": "compact"},
    {"chunking_method": None, "acc_dtype": "float32", "allow_retain_graph": True}])
def test_linear_cross_entropy_options_match(kwargs):
    def make(lib):
        args = {k: getattr(lib, v) if k == "acc_dtype" else v for k, v in kwargs.items()}
        return lib.nn.LinearCrossEntropyOptions(**args)
    assert repr(make(ember)).replace("ember", "torch") == repr(make(torch))


@pytest.mark.parametrize("kwargs", [{"acc_policy": "fast"}, {"chunking_method": "rows"},
                                    {"chunking_method": "aspect_ratio:0"},
                                    {"batch_chunk_size": 0}, {"acc_dtype": "int32"}])
def test_linear_cross_entropy_options_refuse_what_pytorch_refuses(kwargs):
    messages = []
    for lib in (torch, ember):
        args = {k: getattr(lib, v) if k == "acc_dtype" else v for k, v in kwargs.items()}
        with pytest.raises(ValueError) as info:
            lib.nn.LinearCrossEntropyOptions(**args)
        messages.append(str(info.value).replace("ember", "torch"))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("dims", [1, 2, 3])
def test_nn_grad_convolution_gradients_match(dims):
    torch.manual_seed(dims)
    size = (2, 4) + (7,) * dims
    x = torch.randn(size)
    w = torch.randn((6, 2) + (3,) * dims)
    kwargs = {"stride": 2, "padding": 1, "dilation": 1, "groups": 2}
    out = getattr(torch.nn.functional, f"conv{dims}d")(x, w, **kwargs)
    g = torch.randn(out.shape)
    for kind in ("input", "weight"):
        theirs = getattr(torch.nn.grad, f"conv{dims}d_{kind}")
        ours = getattr(ember.nn.grad, f"conv{dims}d_{kind}")
        if kind == "input":
            t, e = theirs(x.shape, w, g, **kwargs), ours(x.shape, to_ember(w), to_ember(g),
                                                       **kwargs)
        else:
            t, e = theirs(x, w.shape, g, **kwargs), ours(to_ember(x), w.shape, to_ember(g),
                                                       **kwargs)
        np.testing.assert_allclose(to_numpy(e), to_numpy(t), rtol=1e-4, atol=1e-4)
    assert ember.nn.functional.grad is ember.nn.grad


@pytest.mark.parametrize("kwargs", [
    None, {}, {"device": "cpu", "dtype": "f"}, {"factory_kwargs": {"dtype": "f"}, "device": 1},
    {"dtype": 1, "factory_kwargs": {"dtype": 2}}, {"bias": True}])
def test_factory_kwargs_matches(kwargs):
    def outcome(lib):
        try:
            return lib.nn.factory_kwargs(kwargs)
        except TypeError as exc:
            return str(exc)
    assert outcome(ember) == outcome(torch)


def test_quantization_namespaces_show_their_ao_packages():
    import ember.ao.nn.intrinsic as fused
    assert ember.nn.intrinsic.ConvReLU2d is fused.ConvReLU2d
    assert set(ember.nn.intrinsic.__all__) == set(torch.nn.intrinsic.__all__)
    for name in ("quantized", "qat", "quantizable", "intrinsic"):
        alias = getattr(ember.nn, name)
        assert alias.__name__ == f"ember.nn.{name}"
        for public in alias.__all__:
            assert hasattr(getattr(torch.nn, name), public), (name, public)
        with pytest.raises(AttributeError):
            alias.NoSuchModule


def test_functional_helpers_match():
    F, TF = ember.nn.functional, torch.nn.functional
    assert F.GRID_SAMPLE_INTERPOLATION_MODES == TF.GRID_SAMPLE_INTERPOLATION_MODES
    assert F.GRID_SAMPLE_PADDING_MODES == TF.GRID_SAMPLE_PADDING_MODES
    assert F.Tensor is ember.Tensor
    assert F.BroadcastingList2[int] == TF.BroadcastingList2[int]
    for arg in (3, (1, 2), [4, 5]):
        assert F.assert_int_or_pair(arg, "k", "{} bad") is None
        TF.assert_int_or_pair(arg, "k", "{} bad")
    for lib in (F, TF):
        with pytest.raises(AssertionError, match="^k bad$"):
            lib.assert_int_or_pair((1, 2, 3), "k", "{} bad")
    x = ember.ones(2, requires_grad=True)
    assert F.has_torch_function_unary(x) is TF.has_torch_function_unary(torch.ones(2)) is False

    for lib in (F, TF):
        def if_true(a, flag=False):
            """doc"""
            return ("true", a)

        def if_false(a, flag=False):
            return ("false", a)
        chosen = lib.boolean_dispatch("flag", 1, False, if_true, if_false, "m", "pick")
        assert (chosen.__name__, chosen.__module__, chosen.__doc__) == ("pick", "m", "doc")
        assert chosen(1) == ("false", 1) and chosen(1, True) == ("true", 1)
        assert chosen(2, flag=True) == ("true", 2)


def test_functional_handle_torch_function_reaches_a_mode():
    seen = []

    class Log(ember.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(func)
            return "handled"

    def mine(x):
        if ember.nn.functional.has_torch_function_unary(x):
            return ember.nn.functional.handle_torch_function(mine, (x,), x)
        return "plain"
    x = ember.ones(1)
    assert mine(x) == "plain"
    with Log():
        assert mine(x) == "handled"
    assert seen == [mine]
