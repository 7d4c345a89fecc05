"""Fake quantization for quantization-aware training: values rounded to the quantization grid and
back (`round(x / scale) + zero_point`, clamped to [quant_min, quant_max], then dequantized),
the gradient passed straight through inside the grid's range and zero outside it."""
from __future__ import annotations

import ember
from ember._core.checked_entry import checked
from ember._core.checks import _check
from ember.ao.quantization import observer as obs
from ember.ao.quantization.histogram import HistogramObserver
from ember.autograd import Function
from ember.nn import Module

__all__ = [
    "FakeQuantize",
    "FakeQuantizeBase",
    "FixedQParamsFakeQuantize",
    "FusedMovingAvgObsFakeQuantize",
    "default_fake_quant",
    "default_fixed_qparams_range_0to1_fake_quant",
    "default_fixed_qparams_range_neg1to1_fake_quant",
    "default_fused_act_fake_quant",
    "default_fused_per_channel_wt_fake_quant",
    "default_fused_wt_fake_quant",
    "default_histogram_fake_quant",
    "default_per_channel_weight_fake_quant",
    "default_weight_fake_quant",
    "fake_quantize_affine",
    "fake_quantize_per_channel_affine",
    "fake_quantize_per_tensor_affine",
]


class _FakeQuantize(Function):
    @staticmethod
    def forward(ctx, x, scale, zero_point, quant_min, quant_max):
        q = ember.round(x * (1.0 / scale)) + zero_point
        inside = (q >= quant_min) & (q <= quant_max)
        ctx.save_for_backward(inside)
        return (ember.clamp(q, quant_min, quant_max) - zero_point) * scale

    @staticmethod
    def backward(ctx, grad):
        (inside,) = ctx.saved_tensors
        return grad * inside, None, None, None, None


def fake_quantize_affine(x, scale, zero_point, quant_min: int, quant_max: int, axis=None):
    """x on the quantization grid (per tensor, or per slice along `axis`)."""
    if axis is not None:
        shape = [1] * x.dim()
        shape[axis] = -1
        scale, zero_point = scale.reshape(shape), zero_point.reshape(shape)
    return _FakeQuantize.apply(x, scale.to(x.dtype), zero_point.to(x.dtype), quant_min,
                               quant_max)


# NOTE [fake quantization's checks]: the public functions take PyTorch's schemas (a scale and
# zero point as numbers or as tensors) and check in its kernels' order: per channel, the dtypes
# of scale (float32/bfloat16) and zero point (int32/float32/float16), both 1-d, of one length,
# that length the input's size along `axis`, then quant_min <= quant_max, an integer zero
# point inside [quant_min, quant_max], `axis` not negative; per tensor, quant_min <= quant_max
# and a number zero point inside the range. The input's dtype is checked last, as PyTorch's
# kernel does (floating types only: NotImplementedError).
_FLOATING = ("float16", "bfloat16", "float32", "float64")


def _check_range(quant_min, quant_max):
    _check(quant_min <= quant_max,
           "`quant_min` should be less than or         equal to `quant_max`.")


def _check_zero_point(inside):
    _check(inside, "`zero_point` must be between `quant_min` and `quant_max`.")


def _check_input_dtype(input, kernel):
    if input.dtype._np.name not in _FLOATING:
        raise NotImplementedError(
            f'"{kernel}" not implemented for \'{input.dtype._cpp_name}\'')


def _scalar_of(value):
    """A tensor given for a per-tensor scale or zero point: its one element."""
    if isinstance(value, ember.Tensor):
        _check(value.numel() == 1, lambda: (
            f"a Tensor with {value.numel()} elements cannot be converted to Scalar"))
        return value.item()
    return value


@checked("fake_quantize_per_tensor_affine(Tensor self, float scale, int zero_point, "
         "int quant_min, int quant_max)",
         "fake_quantize_per_tensor_affine.tensor_qparams(Tensor self, Tensor scale, "
         "Tensor zero_point, int quant_min, int quant_max)")
def fake_quantize_per_tensor_affine(input, scale, zero_point, quant_min: int,
                                    quant_max: int):
    """`ember.fake_quantize_per_tensor_affine`: input on the grid of (scale, zero_point),
    clamped to [quant_min, quant_max], back in float; the gradient passes inside the range
    (NOTE [fake quantization's checks])."""
    number_zero_point = not isinstance(zero_point, ember.Tensor)
    scale, zero_point = float(_scalar_of(scale)), _scalar_of(zero_point)
    _check_range(quant_min, quant_max)
    if number_zero_point:
        _check_zero_point(quant_min <= zero_point <= quant_max)
    _check_input_dtype(input, "fake_quantize_tensor_cachemask_kernel_type_handling")
    return fake_quantize_affine(input, ember.tensor(scale).float(),
                                ember.tensor(int(zero_point), dtype=ember.int32),
                                quant_min, quant_max)


@checked("fake_quantize_per_channel_affine(Tensor self, Tensor scale, Tensor zero_point, "
         "int axis, int quant_min, int quant_max)")
def fake_quantize_per_channel_affine(input, scale, zero_point, axis: int, quant_min: int,
                                     quant_max: int):
    """`ember.fake_quantize_per_channel_affine`: per slice along `axis` (NOTE [fake
    quantization's checks])."""
    _check(scale.dtype in (ember.float32, ember.bfloat16), lambda: (
        f"Scale must be Float or BFloat16, found {scale.dtype._cpp_name}"))
    _check(zero_point.dtype in (ember.int32, ember.float32, ember.float16), lambda: (
        f"Zero-point must be Int32, Float or Half, found {zero_point.dtype._cpp_name}"))
    _check(scale.dim() == 1, "scale should be a 1-D tensor")
    _check(zero_point.dim() == 1, "zero point should be a 1-D tensor")
    _check(scale.numel() == zero_point.numel(),
           "scale and zero-point need to have the same dimensions")
    _check(scale.numel() == input.size(axis),
           "dimensions of scale and zero-point are not consistent with input tensor")
    _check_range(quant_min, quant_max)
    if not zero_point.dtype.is_floating_point and zero_point.numel():
        _check_zero_point(zero_point.min().item() >= quant_min and
                          zero_point.max().item() <= quant_max)
    _check(0 <= axis <= input.dim(),
           "`axis` must be between 0 and number of dimensions of input")
    _check_input_dtype(input, "fake_quantize_channel_cachemask_cpu_type_handling")
    return fake_quantize_affine(input, scale.float(), zero_point, quant_min, quant_max, axis)


class FakeQuantizeBase(Module):
    """Switches shared by fake quantizers: observing and fake-quantizing, each on or off."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("fake_quant_enabled", ember.tensor([1], dtype=ember.uint8))
        self.register_buffer("observer_enabled", ember.tensor([1], dtype=ember.uint8))

    def enable_fake_quant(self, enabled: bool = True):
        self.fake_quant_enabled[0] = 1 if enabled else 0
        return self

    def disable_fake_quant(self):
        return self.enable_fake_quant(False)

    def enable_observer(self, enabled: bool = True):
        self.observer_enabled[0] = 1 if enabled else 0
        return self

    def disable_observer(self):
        return self.enable_observer(False)

    with_args = classmethod(obs.ObserverBase.with_args.__func__)


class FakeQuantize(FakeQuantizeBase):
    """Observe (the `observer` given), then fake-quantize with its current parameters."""

    def __init__(self, observer=obs.MovingAverageMinMaxObserver, quant_min=None,
                 quant_max=None, is_dynamic: bool = False, **observer_kwargs) -> None:
        super().__init__()
        if quant_min is not None and quant_max is not None:
            observer_kwargs.setdefault("quant_min", quant_min)
            observer_kwargs.setdefault("quant_max", quant_max)
        self.activation_post_process = observer(is_dynamic=is_dynamic, **observer_kwargs)
        post = self.activation_post_process
        self.quant_min, self.quant_max = post.quant_min, post.quant_max
        self.dtype, self.qscheme = post.dtype, post.qscheme
        self.ch_axis = getattr(post, "ch_axis", -1)
        self.is_per_channel = self.qscheme.name.startswith("per_channel")
        self.register_buffer("scale", ember.tensor([1.0]))
        self.register_buffer("zero_point", ember.tensor([0], dtype=ember.int32))

    def calculate_qparams(self):
        return self.activation_post_process.calculate_qparams()

    def forward(self, x):
        if self.observer_enabled[0] == 1:
            self.activation_post_process(x.detach())
            scale, zero_point = self.calculate_qparams()
            self.scale = scale.to(ember.float32)
            self.zero_point = zero_point.to(ember.int32)
        if self.fake_quant_enabled[0] == 1:
            x = fake_quantize_affine(x, self.scale, self.zero_point, self.quant_min,
                                     self.quant_max, self.ch_axis if self.is_per_channel
                                     else None)
        return x

    def extra_repr(self) -> str:
        return (f"fake_quant_enabled={self.fake_quant_enabled}, observer_enabled="
                f"{self.observer_enabled}, quant_min={self.quant_min}, quant_max="
                f"{self.quant_max}, dtype={self.dtype}, qscheme={self.qscheme}, ch_axis="
                f"{self.ch_axis}, scale={self.scale}, zero_point={self.zero_point}")


class FusedMovingAvgObsFakeQuantize(FakeQuantize):
    """Moving-average observing and fake quantization in one step (PyTorch fuses them into one
    kernel; the numbers are FakeQuantize's with a moving-average observer)."""

    def __init__(self, observer=obs.MovingAverageMinMaxObserver, quant_min: int = 0,
                 quant_max: int = 255, **observer_kwargs) -> None:
        super().__init__(observer, quant_min, quant_max, **observer_kwargs)


class FixedQParamsFakeQuantize(FakeQuantize):
    """Fake quantization with fixed parameters (a FixedQParamsObserver's)."""

    def __init__(self, observer) -> None:
        FakeQuantizeBase.__init__(self)
        self.activation_post_process = observer()
        post = self.activation_post_process
        self.quant_min, self.quant_max = post.quant_min, post.quant_max
        self.dtype, self.qscheme, self.ch_axis = post.dtype, post.qscheme, -1
        self.is_per_channel = False
        self.register_buffer("scale", post.scale.clone())
        self.register_buffer("zero_point", post.zero_point.clone())

    def calculate_qparams(self):
        return self.scale, self.zero_point

    def forward(self, x):
        if self.fake_quant_enabled[0] == 1:
            x = fake_quantize_affine(x, self.scale, self.zero_point, self.quant_min,
                                     self.quant_max)
        return x


default_fake_quant = FakeQuantize.with_args(
    observer=obs.MovingAverageMinMaxObserver, quant_min=0, quant_max=255, dtype=ember.quint8,
    qscheme=ember.per_tensor_affine, reduce_range=True)
default_weight_fake_quant = FakeQuantize.with_args(
    observer=obs.MovingAverageMinMaxObserver, quant_min=-128, quant_max=127, dtype=ember.qint8,
    qscheme=ember.per_tensor_symmetric, reduce_range=False)
default_per_channel_weight_fake_quant = FakeQuantize.with_args(
    observer=obs.MovingAveragePerChannelMinMaxObserver, quant_min=-128, quant_max=127,
    dtype=ember.qint8, qscheme=ember.per_channel_symmetric, reduce_range=False, ch_axis=0)
default_fixed_qparams_range_0to1_fake_quant = FixedQParamsFakeQuantize.with_args(
    observer=obs.FixedQParamsObserver.with_args(scale=1.0 / 256.0, zero_point=0,
                                                dtype=ember.quint8, quant_min=0,
                                                quant_max=255))
default_fixed_qparams_range_neg1to1_fake_quant = FixedQParamsFakeQuantize.with_args(
    observer=obs.FixedQParamsObserver.with_args(scale=2.0 / 256.0, zero_point=128,
                                                dtype=ember.quint8, quant_min=0,
                                                quant_max=255))
default_histogram_fake_quant = FakeQuantize.with_args(
    observer=HistogramObserver, quant_min=0, quant_max=255, dtype=ember.quint8,
    qscheme=ember.per_tensor_affine, reduce_range=True)
default_fused_act_fake_quant = FusedMovingAvgObsFakeQuantize.with_args(
    observer=obs.MovingAverageMinMaxObserver, quant_min=0, quant_max=255, dtype=ember.quint8)
default_fused_wt_fake_quant = FusedMovingAvgObsFakeQuantize.with_args(
    observer=obs.MovingAverageMinMaxObserver, quant_min=-128, quant_max=127, dtype=ember.qint8,
    qscheme=ember.per_tensor_symmetric)
default_fused_per_channel_wt_fake_quant = FusedMovingAvgObsFakeQuantize.with_args(
    observer=obs.MovingAveragePerChannelMinMaxObserver, quant_min=-128, quant_max=127,
    dtype=ember.qint8, qscheme=ember.per_channel_symmetric)
