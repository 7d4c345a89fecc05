"""Conv1d/2d/3d and ConvTranspose1d/2d/3d against PyTorch's layers (weights copied from
torch): outputs, input and parameter gradients, state_dict layout, repr; errors."""
from __future__ import annotations

import pytest
import torch

import ember
from nn.compare import assert_close, check_module, to_ember


@pytest.fixture(autouse=True)
def _one_blas_thread(monkeypatch):
    """The image-by-image way runs while BLAS has one thread (NOTE [convolution chunks on the
    intra-op threads]): this file tests it; the op table's samples elsewhere run the grouped
    way where BLAS has the machine's cores."""
    from ember._ops import nn_conv
    monkeypatch.setattr(nn_conv, "blas_threads", lambda: 1)

CONV_CASES = [
    ("Conv1d", (4, 6, 3), {}, (2, 4, 9)),
    ("Conv1d", (4, 6, 2), {"padding": "same", "dilation": 3, "padding_mode": "circular"},
     (2, 4, 9)),
    ("Conv2d", (4, 6, 3), {}, (2, 4, 7, 6)),
    ("Conv2d", (4, 6, (2, 3)), {"stride": (2, 1), "padding": 1, "dilation": (1, 2),
                                "groups": 2, "bias": False}, (2, 4, 7, 6)),
    ("Conv2d", (4, 6, 4), {"padding": "same", "padding_mode": "reflect"}, (2, 4, 7, 6)),
    ("Conv2d", (4, 4, 3), {"padding": 2, "padding_mode": "replicate", "groups": 4},
     (2, 4, 5, 6)),
    ("Conv2d", (4, 6, 3), {"padding": "valid", "stride": 2}, (2, 4, 7, 6)),
    ("Conv3d", (2, 4, 2), {"stride": (1, 2, 1), "padding": (1, 0, 1)}, (2, 2, 4, 5, 3)),
    ("Conv3d", (2, 4, 3), {"padding": "same", "padding_mode": "circular"}, (1, 2, 3, 4, 3)),
    ("ConvTranspose1d", (4, 3, 3), {"stride": 2, "output_padding": 1}, (2, 4, 5)),
    ("ConvTranspose2d", (4, 6, (2, 3)), {"stride": (2, 3), "padding": (1, 0), "groups": 2,
                                         "dilation": 2, "output_padding": (1, 2)},
     (2, 4, 4, 3)),
    ("ConvTranspose2d", (4, 3, 3), {"bias": False}, (2, 4, 4, 3)),
    ("ConvTranspose3d", (2, 3, 2), {"stride": 2, "padding": 1}, (1, 2, 3, 2, 3)),
]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("name,args,kwargs,shape", CONV_CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CONV_CASES)])
def test_conv_layer_matches_torch(name, args, kwargs, shape, dtype):
    torch_layer = getattr(torch.nn, name)(*args, **kwargs).to(dtype)
    ember_layer = getattr(ember.nn, name)(*args, **kwargs).to(getattr(ember, str(dtype)[6:]))
    x = torch.randn(shape, dtype=dtype)
    check_module(torch_layer, ember_layer, x)
    check_module(torch_layer, ember_layer, x[0])       # unbatched


class _WithOutputSize(torch.nn.Module):
    def __init__(self, layer, size):
        super().__init__()
        self.layer, self.size = layer, size

    def forward(self, x):
        return self.layer(x, output_size=self.size)


class _EmberWithOutputSize(ember.nn.Module):
    def __init__(self, layer, size):
        super().__init__()
        self.layer, self.size = layer, size

    def forward(self, x):
        return self.layer(x, output_size=self.size)


@pytest.mark.parametrize("size", [(10, 12), [2, 3, 9, 11]])
def test_conv_transpose_output_size(size):
    t = torch.nn.ConvTranspose2d(4, 3, 3, stride=2)
    e = ember.nn.ConvTranspose2d(4, 3, 3, stride=2)
    check_module(_WithOutputSize(t, size), _EmberWithOutputSize(e, size),
                 torch.randn(2, 4, 4, 5), check_repr=False)


def test_conv_transpose_output_size_out_of_range():
    t = torch.nn.ConvTranspose2d(4, 3, 3, stride=2)
    e = ember.nn.ConvTranspose2d(4, 3, 3, stride=2)
    x = torch.randn(2, 4, 4, 5)
    for size in [(20, 12), (10,)]:
        with pytest.raises(ValueError):
            t(x, output_size=size)
        with pytest.raises(ValueError, match="output"):
            e(to_ember(x), output_size=size)


def test_parameter_shapes_and_default_bounds():
    """reset_parameters draws U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for weight and bias."""
    for layer, fan_in in [(ember.nn.Conv2d(4, 6, 3, groups=2), 2 * 9),
                          (ember.nn.ConvTranspose2d(4, 6, 3, groups=2), 3 * 9)]:
        t_layer = getattr(torch.nn, type(layer).__name__)(4, 6, 3, groups=2)
        assert tuple(layer.weight.shape) == tuple(t_layer.weight.shape)
        bound = fan_in ** -0.5
        for p in (layer.weight, layer.bias):
            assert float(p.abs().max()) <= bound + 1e-7
            assert float(p.abs().max()) > bound / 4


@pytest.mark.parametrize("kwargs", [
    {"padding": "foo"}, {"padding": "same", "stride": 2}, {"groups": 4}, {"groups": 0},
    {"padding_mode": "foo"}, {"groups": 6},
])
def test_conv_constructor_errors(kwargs):
    with pytest.raises(ValueError) as expected:
        torch.nn.Conv2d(6, 3, 3, **kwargs)
    with pytest.raises(ValueError) as got:
        ember.nn.Conv2d(6, 3, 3, **kwargs)
    if "padding" not in kwargs and "padding_mode" not in kwargs:
        # (the others print a set, whose order varies between processes)
        assert str(got.value) == str(expected.value)


def test_conv_transpose_refuses_other_padding_modes():
    with pytest.raises(ValueError, match="zeros"):
        torch.nn.ConvTranspose2d(4, 6, 3, padding_mode="reflect")
    with pytest.raises(ValueError, match='Only "zeros" padding mode is supported for '
                                         "ConvTranspose2d"):
        ember.nn.ConvTranspose2d(4, 6, 3, padding_mode="reflect")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_inputs_are_computed_in_float32(dtype):
    x = torch.randn(2, 3, 6, 5).to(getattr(torch, dtype))
    w = torch.randn(4, 3, 3, 3).to(getattr(torch, dtype))
    expected = torch.nn.functional.conv2d(x, w, padding=1)
    got = ember.nn.functional.conv2d(to_ember(x), to_ember(w), padding=1)
    assert str(got.dtype) == f"ember.{dtype}"
    assert_close(got.float(), expected.float(), rtol=2e-2, atol=5e-2)


def test_double_backward_matches_torch():
    x = torch.randn(2, 4, 6, 5, dtype=torch.float64, requires_grad=True)
    w = torch.randn(6, 2, 3, 3, dtype=torch.float64, requires_grad=True)
    ex, ew = to_ember(x), to_ember(w)
    kwargs = {"stride": 2, "padding": 1, "groups": 2}
    t_out = torch.nn.functional.conv2d(x, w, **kwargs)
    e_out = ember.nn.functional.conv2d(ex, ew, **kwargs)
    t_gx, t_gw = torch.autograd.grad((t_out ** 2).sum(), [x, w], create_graph=True)
    e_gx, e_gw = ember.autograd.grad((e_out ** 2).sum(), [ex, ew], create_graph=True)
    assert type(e_gx.grad_fn).__name__ == "ConvolutionBackwardBackward0"
    t_second = torch.autograd.grad((t_gx ** 2).sum() + (t_gw * 3).sum(), [x, w])
    e_second = ember.autograd.grad((e_gx ** 2).sum() + (e_gw * 3).sum(), [ex, ew])
    for got, expected in zip(e_second, t_second):
        assert_close(got, expected)


def test_grad_fn_names():
    x = to_ember(torch.randn(1, 2, 5, 5), requires_grad=True)
    w = to_ember(torch.randn(3, 2, 3, 3))
    assert type(ember.nn.functional.conv2d(x, w).grad_fn).__name__ == "ConvolutionBackward0"
    assert type(ember.nn.functional.conv2d(x[0], w).grad_fn).__name__ == "SqueezeBackward1"


def test_top_level_functions_exist_as_in_torch():
    for name in ("conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                 "conv_transpose3d", "convolution"):
        assert hasattr(torch, name) and hasattr(ember, name), name
        assert hasattr(torch.Tensor, name) == hasattr(ember.Tensor, name), name


WINOGRAD_CASES = [
    ("Conv2d", (96, 96, 3), {"padding": 1}, (2, 96, 32, 32)),
    ("Conv2d", (96, 100, 3), {"padding": (0, 2), "bias": False}, (2, 96, 33, 30)),
    ("ConvTranspose2d", (96, 96, 3), {"padding": 1}, (2, 96, 31, 32)),
]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("name,args,kwargs,shape", WINOGRAD_CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(WINOGRAD_CASES)])
def test_winograd_sized_layers_match_torch(name, args, kwargs, shape, dtype, monkeypatch):
    """3x3 stride-1 convolutions with many channels take NOTE [Winograd F(2x2, 3x3)]
    (forward, input and weight gradients) when BLAS runs one thread."""
    from ember._ops import nn_conv
    monkeypatch.setattr(nn_conv, "intra_op_threads", lambda: 1)
    assert nn_conv._use_winograd((args[1], args[0], 3, 3), (1, 1), (1, 1), 1, shape[0],
                                 (shape[2] - 2, shape[3] - 2))
    torch_layer = getattr(torch.nn, name)(*args, **kwargs).to(dtype)
    ember_layer = getattr(ember.nn, name)(*args, **kwargs).to(getattr(ember, str(dtype)[6:]))
    tolerance = {"rtol": 1e-4, "atol": 1e-4} if dtype == torch.float32 else {}
    check_module(torch_layer, ember_layer, torch.randn(shape, dtype=dtype), **tolerance)


LAZY_CASES = [
    ("LazyConv1d", (6, 3), {"stride": 2}, (2, 4, 9)),
    ("LazyConv2d", (6, 3), {"groups": 2, "padding": "same", "padding_mode": "reflect"},
     (2, 4, 7, 6)),
    ("LazyConv3d", (3, 2), {"bias": False}, (1, 2, 3, 4, 3)),
    ("LazyConvTranspose1d", (3, 3), {"stride": 2, "output_padding": 1}, (2, 4, 5)),
    ("LazyConvTranspose2d", (6, 3), {"groups": 2}, (2, 4, 4, 3)),
    ("LazyConvTranspose3d", (3, 2), {}, (1, 2, 3, 2, 3)),
]


@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("name,args,kwargs,shape", LAZY_CASES,
                         ids=[c[0] for c in LAZY_CASES])
def test_lazy_layers_become_their_layer(name, args, kwargs, shape, batched):
    t_layer = getattr(torch.nn, name)(*args, **kwargs)
    e_layer = getattr(ember.nn, name)(*args, **kwargs)
    assert repr(e_layer) == repr(t_layer)
    x = torch.randn(shape)
    x = x if batched else x[0]
    t_layer(x)
    e_layer(to_ember(x))
    assert type(e_layer).__name__ == type(t_layer).__name__
    check_module(t_layer, e_layer, x)


def test_lazy_layer_refuses_wrong_rank():
    with pytest.raises(RuntimeError):
        torch.nn.LazyConv2d(4, 3)(torch.randn(4, 5))
    with pytest.raises(RuntimeError, match="Expected 3D"):
        ember.nn.LazyConv2d(4, 3)(ember.randn(4, 5))


# One-group layers wide enough for NOTE [ungrouped convolution image by image] and NOTE
# [stride-1 input gradient as a convolution] (16 or more input channels, stride 1, padding at
# most dilation * (kernel - 1)); the last two keep the folded way (padding past that; stride 2).
BY_IMAGE_CASES = [
    ("Conv1d", (16, 8, 3), {"padding": 1, "dilation": 2}, (3, 16, 11)),
    ("Conv2d", (16, 16, 3), {"padding": 1}, (3, 16, 10, 12)),
    ("Conv2d", (16, 8, (3, 5)), {"padding": (0, 4), "dilation": (1, 2)}, (2, 16, 9, 12)),
    ("Conv2d", (20, 12, 1), {"bias": False}, (2, 20, 5, 7)),
    ("Conv3d", (16, 4, 2), {"padding": 1}, (2, 16, 4, 5, 3)),
    ("ConvTranspose2d", (8, 16, 3), {"padding": 1}, (2, 8, 9, 10)),
    ("Conv2d", (16, 8, 3), {"padding": 3}, (2, 16, 9, 10)),
    ("Conv2d", (16, 8, 3), {"padding": 1, "stride": 2}, (2, 16, 9, 10)),
]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("name,args,kwargs,shape", BY_IMAGE_CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(BY_IMAGE_CASES)])
def test_one_group_layers_image_by_image_match_torch(name, args, kwargs, shape, dtype):
    torch_layer = getattr(torch.nn, name)(*args, **kwargs).to(dtype)
    ember_layer = getattr(ember.nn, name)(*args, **kwargs).to(getattr(ember, str(dtype)[6:]))
    tolerance = {"rtol": 1e-4, "atol": 1e-4} if dtype == torch.float32 else {}
    check_module(torch_layer, ember_layer, torch.randn(shape, dtype=dtype), **tolerance)


def test_one_group_convolution_in_several_batch_chunks_matches_torch(monkeypatch):
    """NOTE [convolution in batch chunks]: a batch larger than one chunk's budget."""
    from ember._ops import nn_conv
    monkeypatch.setattr(nn_conv, "_IMAGE_CHUNK_BYTES", 4096)
    torch_layer = torch.nn.Conv2d(16, 8, 3, padding=1).double()
    ember_layer = ember.nn.Conv2d(16, 8, 3, padding=1).double()
    check_module(torch_layer, ember_layer, torch.randn(5, 16, 6, 7, dtype=torch.float64))


@pytest.mark.parametrize("name,args,kwargs,shape", [
    ("Conv2d", (16, 8, 3), {"padding": 1}, (7, 16, 6, 7)),
    ("Conv2d", (3, 8, 3), {"stride": 2}, (7, 3, 9, 10)),
    ("ConvTranspose2d", (8, 16, 3), {"padding": 1}, (7, 8, 5, 6)),
])
def test_convolution_chunks_on_threads_give_the_same_bits(name, args, kwargs, shape,
                                                          monkeypatch):
    """NOTE [convolution chunks on the intra-op threads]: 1, 2 or 3 threads, same bits, and
    the values PyTorch gives."""
    from ember._ops import nn_conv
    monkeypatch.setattr(nn_conv, "_IMAGE_CHUNK_BYTES", 2048)
    torch_layer = getattr(torch.nn, name)(*args, **kwargs)
    x = torch.randn(shape)
    results = []
    for threads in (1, 2, 3):
        monkeypatch.setattr(nn_conv, "intra_op_threads", lambda: threads)
        layer = getattr(ember.nn, name)(*args, **kwargs)
        layer.load_state_dict({k: to_ember(v) for k, v in torch_layer.state_dict().items()})
        e_x = to_ember(x).requires_grad_()
        out = layer(e_x)
        (out * out).sum().backward()
        results.append([out.detach().numpy(), e_x.grad.numpy(), layer.weight.grad.numpy()])
    for other in results[1:]:
        for a, b in zip(results[0], other):
            assert a.tobytes() == b.tobytes()
    check_module(torch_layer, getattr(ember.nn, name)(*args, **kwargs), x, rtol=1e-4,
                 atol=1e-4)
