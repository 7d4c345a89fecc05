"""Normalisation layers over features: LayerNorm, GroupNorm, RMSNorm, LocalResponseNorm and
CrossMapLRN2d (local response norm across channels of a 4-d input, in Torch7's form)."""
from __future__ import annotations

import numbers
from typing import ClassVar

import numpy as np

from ember.autograd import Function
from ember.nn import functional as F
from ember.nn import init
from ember.nn.modules.module import Module
from ember.nn.parameter import Parameter

__all__ = ["CrossMapLRN2d", "GroupNorm", "LayerNorm", "LocalResponseNorm", "RMSNorm"]


def _empty(shape, device, dtype):
    from ember import empty
    return empty(shape, device=device, dtype=dtype)


def _as_shape(normalized_shape):
    if isinstance(normalized_shape, numbers.Integral):
        return (int(normalized_shape),)
    return tuple(normalized_shape)


class LocalResponseNorm(Module):
    """Each element divided by (k + alpha * mean of squares over `size` neighbouring
    channels) ** beta."""

    __constants__: ClassVar[list[str]] = ["size", "alpha", "beta", "k"]

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75,
                 k: float = 1.0) -> None:
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


class CrossMapLRN2d(Module):
    """Local response norm across the channels of a (N, C, H, W) input, as Torch7's
    SpatialCrossMapLRN computed it (the first channel's square stays in every window that
    has moved past it, a quirk PyTorch keeps)."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1) -> None:
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        return _cross_map_lrn2d(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


def _window_sums(values, low, high):
    """Sums of `values` over channels low[c]..high[c] (inclusive, clipped to the channels)."""
    import ember
    channels = values.shape[1]
    running = ember.cat([values.narrow(1, 0, 1) * 0, values.cumsum(1)], 1)
    high = np.clip(high, -1, channels - 1) + 1
    low = np.clip(low, 0, channels)
    return (running.index_select(1, values.new_tensor(high, dtype=ember.long))
            - running.index_select(1, values.new_tensor(low, dtype=ember.long)))


def _cross_map_scale(input, size, alpha, k):
    """k + alpha / size * (the squares of channels c - reach + 1 .. c + reach - 1), where the
    first channel's square also stays in every window that has moved past it."""
    channels = input.shape[1]
    reach = int((size - 1) / 2 + 1)
    squares = input * input
    c = np.arange(channels)
    low = np.maximum(c - reach + 1, 0)
    stays = input.new_tensor((low > 0).astype(np.float64)).reshape(1, channels, 1, 1)
    window = _window_sums(squares, low, c + reach - 1) + squares.narrow(1, 0, 1) * stays
    return window * (alpha / size) + k


def _cross_map_lrn2d(input, size, alpha, beta, k):
    if input.ndim != 4:
        raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.ndim}D instead.")
    return _CrossMapLRN2d.apply(input, size, alpha, beta, k)


class _CrossMapLRN2d(Function):
    """NOTE [CrossMapLRN2d gradient]: the backward is the one PyTorch uses (Torch7's),
    not the exact derivative of the forward: the ratios grad * output / scale are summed
    over channels c - p .. c - p + size - 1 with p = int(size - (size - 1) / 2)."""

    @staticmethod
    def forward(ctx, input, size, alpha, beta, k):
        scale = _cross_map_scale(input, size, alpha, k)
        output = input * scale.pow(-beta)
        ctx.save_for_backward(input, output, scale)
        ctx.size, ctx.alpha, ctx.beta = size, alpha, beta
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, output, scale = ctx.saved_tensors
        size = ctx.size
        channels = input.shape[1]
        start = np.arange(channels) - int(size - (size - 1) / 2)
        ratios = grad_output * output / scale
        accumulated = _window_sums(ratios, start, start + size - 1)
        factor = 2 * ctx.alpha * ctx.beta / size
        grad_input = scale.pow(-ctx.beta) * grad_output - factor * input * accumulated
        return grad_input, None, None, None, None


class LayerNorm(Module):
    """Normalises over the last len(normalized_shape) dimensions, then (elementwise_affine)
    scales by weight and shifts by bias."""

    __constants__: ClassVar[list[str]] = ["normalized_shape", "eps", "elementwise_affine"]

    def __init__(self, normalized_shape, eps: float = 1e-5, elementwise_affine: bool = True,
                 bias: bool = True, device=None, dtype=None) -> None:
        super().__init__()
        self.normalized_shape = _as_shape(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if self.elementwise_affine:
            self.weight = Parameter(_empty(self.normalized_shape, device, dtype))
            if bias:
                self.bias = Parameter(_empty(self.normalized_shape, device, dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.elementwise_affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")


class GroupNorm(Module):
    """Splits the channels into num_groups groups and normalises each group of each sample."""

    __constants__: ClassVar[list[str]] = ["num_groups", "num_channels", "eps", "affine"]

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5,
                 affine: bool = True, device=None, dtype=None, *, bias: bool = True) -> None:
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        if self.affine:
            self.weight = Parameter(_empty(num_channels, device, dtype))
            if bias:
                self.bias = Parameter(_empty(num_channels, device, dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, "
                f"affine={self.affine}, bias={self.bias is not None}")


class RMSNorm(Module):
    """input / sqrt(mean(input**2) + eps) over the last len(normalized_shape) dimensions, then
    (elementwise_affine) times weight; eps None means the dtype's machine epsilon."""

    __constants__: ClassVar[list[str]] = ["normalized_shape", "eps", "elementwise_affine"]

    def __init__(self, normalized_shape, eps: float | None = None,
                 elementwise_affine: bool = True, device=None, dtype=None) -> None:
        super().__init__()
        self.normalized_shape = _as_shape(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if self.elementwise_affine:
            self.weight = Parameter(_empty(self.normalized_shape, device, dtype))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, input):
        return F.rms_norm(input, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")
