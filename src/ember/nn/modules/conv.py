"""Convolution layers: Conv1d/2d/3d and ConvTranspose1d/2d/3d over `F.conv*` (the kernel is the
`convolution` op, ember/_ops/nn_conv.py). Non-zero padding modes pad with `F.pad` first and
convolve without padding, as PyTorch does."""
from __future__ import annotations

import math

import ember
from ember._core.lazy_method import LazyAttribute
from ember.nn import init
from ember.nn._functional import conv as _functional_conv
from ember.nn._functional.padding import pad
from ember.nn.modules.lazy import LazyModuleMixin
from ember.nn.modules.module import Module
from ember.nn.modules.utils import _pair, _reverse_repeat_tuple, _single, _triple
from ember.nn.parameter import Parameter, UninitializedParameter

__all__: list[str] = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
                      "ConvTranspose3d", "LazyConv1d", "LazyConv2d", "LazyConv3d",
                      "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d"]

_PADDING_STRINGS = {"same", "valid"}
_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}


def _conv_of(name):
    """`F.<name>` as the class's `_conv`, read on first use: `import ember.nn` loads no
    convolution family (NOTE [op families load on first use])."""
    return LazyAttribute("_conv", lambda: staticmethod(getattr(_functional_conv, name)))


class _ConvNd(Module):
    """What every convolution layer shares: checks, parameters, their initialisation and
    the printed form."""

    __constants__ = ["stride", "padding", "dilation", "groups", "padding_mode",
                     "output_padding", "in_channels", "out_channels", "kernel_size"]

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation,
                 transposed, output_padding, groups, bias, padding_mode, device=None,
                 dtype=None) -> None:
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in _PADDING_STRINGS:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                                 f"{_PADDING_STRINGS}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {_PADDING_MODES}, but got "
                             f"padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding
        self.groups = groups
        self.padding_mode = padding_mode
        # F.pad's amounts (last dim first) for the non-zero padding modes.
        if isinstance(padding, str):
            self._reversed_padding_repeated_twice = [0, 0] * len(kernel_size)
            if padding == "same":
                for i, (d, k) in enumerate(zip(reversed(dilation), reversed(kernel_size))):
                    total = d * (k - 1)
                    self._reversed_padding_repeated_twice[2 * i] = total // 2
                    self._reversed_padding_repeated_twice[2 * i + 1] = total - total // 2
        else:
            self._reversed_padding_repeated_twice = _reverse_repeat_tuple(self.padding, 2)
        shape = ((in_channels, out_channels // groups) if transposed else
                 (out_channels, in_channels // groups)) + tuple(kernel_size)
        self.weight = Parameter(ember.empty(shape, device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(ember.empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        # kaiming_uniform_ with a=sqrt(5) draws from U(-1/sqrt(fan_in), 1/sqrt(fan_in)); the
        # bias uses the same bound.
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        text = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}")
        if self.padding != (0,) * len(self.padding):
            text += f", padding={self.padding}"
        if self.dilation != (1,) * len(self.dilation):
            text += f", dilation={self.dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            text += f", output_padding={self.output_padding}"
        if self.groups != 1:
            text += f", groups={self.groups}"
        if self.bias is None:
            text += ", bias=False"
        if self.padding_mode != "zeros":
            text += f", padding_mode={self.padding_mode}"
        return text

    def __setstate__(self, state) -> None:
        super().__setstate__(state)
        if not hasattr(self, "padding_mode"):
            self.padding_mode = "zeros"


def _padding_arg(padding, as_tuple):
    return padding if isinstance(padding, str) else as_tuple(padding)


class _Conv(_ConvNd):
    """Conv1d/2d/3d: `_conv_forward` pads (non-zero modes) and convolves."""

    _as_tuple = staticmethod(_single)
    _conv = _conv_of("conv1d")

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True, padding_mode="zeros", device=None,
                 dtype=None) -> None:
        as_tuple = self._as_tuple
        super().__init__(in_channels, out_channels, as_tuple(kernel_size), as_tuple(stride),
                         _padding_arg(padding, as_tuple), as_tuple(dilation), False,
                         as_tuple(0), groups, bias, padding_mode, device, dtype)

    def _conv_forward(self, input, weight, bias):
        if self.padding_mode != "zeros":
            return self._conv(pad(input, self._reversed_padding_repeated_twice,
                                  mode=self.padding_mode),
                              weight, bias, self.stride, self._as_tuple(0), self.dilation,
                              self.groups)
        return self._conv(input, weight, bias, self.stride, self.padding, self.dilation,
                          self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_Conv):
    """Conv1d(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
    groups=1, bias=True, padding_mode='zeros', device=None, dtype=None): a 1-d convolution
    over (N, C, L) or (C, L)."""


class Conv2d(_Conv):
    """Conv2d(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
    groups=1, bias=True, padding_mode='zeros', device=None, dtype=None): a 2-d convolution
    over (N, C, H, W) or (C, H, W)."""

    _as_tuple = staticmethod(_pair)
    _conv = _conv_of("conv2d")


class Conv3d(_Conv):
    """Conv3d(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
    groups=1, bias=True, padding_mode='zeros', device=None, dtype=None): a 3-d convolution
    over (N, C, D, H, W) or (C, D, H, W)."""

    _as_tuple = staticmethod(_triple)
    _conv = _conv_of("conv3d")


class _ConvTransposeNd(_ConvNd):
    """ConvTranspose1d/2d/3d: only zero padding; `output_size` picks the output padding."""

    _as_tuple = staticmethod(_single)
    _conv = _conv_of("conv_transpose1d")
    _dims = 1

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None) -> None:
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for '
                             f"{type(self).__name__}")
        as_tuple = self._as_tuple
        super().__init__(in_channels, out_channels, as_tuple(kernel_size), as_tuple(stride),
                         as_tuple(padding), as_tuple(dilation), True, as_tuple(output_padding),
                         groups, bias, padding_mode, device, dtype)

    def _output_padding(self, input, output_size, stride, padding, kernel_size,
                        num_spatial_dims, dilation=None):
        """The output padding that gives `output_size` (or the layer's own without one)."""
        if output_size is None:
            return self._as_tuple(self.output_padding)
        non_spatial = 2 if input.dim() == num_spatial_dims + 2 else 1
        output_size = list(output_size)
        if len(output_size) == non_spatial + num_spatial_dims:
            output_size = output_size[non_spatial:]
        if len(output_size) != num_spatial_dims:
            raise ValueError(
                f"ConvTranspose{num_spatial_dims}D: for {input.dim()}D input, output_size must "
                f"have {num_spatial_dims} or {non_spatial + num_spatial_dims} elements (got "
                f"{len(output_size)})")
        smallest, largest = [], []
        for d in range(num_spatial_dims):
            size = ((input.size(d + non_spatial) - 1) * stride[d] - 2 * padding[d]
                    + (dilation[d] if dilation is not None else 1) * (kernel_size[d] - 1) + 1)
            smallest.append(size)
            largest.append(size + stride[d] - 1)
        for d in range(num_spatial_dims):
            if not smallest[d] <= output_size[d] <= largest[d]:
                raise ValueError(
                    f"requested an output size of {output_size}, but valid sizes range from "
                    f"{smallest} to {largest} (for an input of {input.size()[2:]})")
        return [output_size[d] - smallest[d] for d in range(num_spatial_dims)]

    def forward(self, input, output_size=None):
        output_padding = self._output_padding(input, output_size, self.stride, self.padding,
                                              self.kernel_size, self._dims, self.dilation)
        return self._conv(input, self.weight, self.bias, self.stride, self.padding,
                          output_padding, self.groups, self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    """ConvTranspose1d(in_channels, out_channels, kernel_size, stride=1, padding=0,
    output_padding=0, groups=1, bias=True, dilation=1, padding_mode='zeros', device=None,
    dtype=None): the transposed 1-d convolution."""


class ConvTranspose2d(_ConvTransposeNd):
    """ConvTranspose2d(in_channels, out_channels, kernel_size, stride=1, padding=0,
    output_padding=0, groups=1, bias=True, dilation=1, padding_mode='zeros', device=None,
    dtype=None): the transposed 2-d convolution."""

    _as_tuple = staticmethod(_pair)
    _conv = _conv_of("conv_transpose2d")
    _dims = 2


class ConvTranspose3d(_ConvTransposeNd):
    """ConvTranspose3d(in_channels, out_channels, kernel_size, stride=1, padding=0,
    output_padding=0, groups=1, bias=True, dilation=1, padding_mode='zeros', device=None,
    dtype=None): the transposed 3-d convolution."""

    _as_tuple = staticmethod(_triple)
    _conv = _conv_of("conv_transpose3d")
    _dims = 3


# --------------------------------------------------------------------------- lazy layers

class _LazyConvXdMixin(LazyModuleMixin):
    """in_channels (and so the weight's shape) from the first input (NOTE in lazy.py)."""

    def reset_parameters(self) -> None:
        # The layer's __init__ calls this before the shapes are known: do nothing then.
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs) -> None:
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            if self.transposed:
                shape = (self.in_channels, self.out_channels // self.groups)
            else:
                shape = (self.out_channels, self.in_channels // self.groups)
            self.weight.materialize(shape + tuple(self.kernel_size))
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()

    def _get_in_channels(self, input) -> int:
        spatial = len(self.kernel_size)
        if input.dim() not in (spatial + 1, spatial + 2):
            raise RuntimeError(
                f"Expected {spatial + 1}D (unbatched) or {spatial + 2}D (batched) input to "
                f"{type(self).__name__}, but got input of size: {input.shape}")
        return input.shape[1] if input.dim() == spatial + 2 else input.shape[0]

    def _placeholders(self, out_channels, bias, device, dtype) -> None:
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)


class _LazyConv(_LazyConvXdMixin):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False,
                         padding_mode, device, dtype)
        self._placeholders(out_channels, bias, device, dtype)


class _LazyConvTranspose(_LazyConvXdMixin):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
                 groups=1, bias=True, dilation=1, padding_mode="zeros", device=None,
                 dtype=None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False,
                         dilation, padding_mode, device, dtype)
        self._placeholders(out_channels, bias, device, dtype)


class LazyConv1d(_LazyConv, Conv1d):
    """LazyConv1d(out_channels, kernel_size, ...): Conv1d with in_channels from the first
    input."""

    cls_to_become = Conv1d


class LazyConv2d(_LazyConv, Conv2d):
    """LazyConv2d(out_channels, kernel_size, ...): Conv2d with in_channels from the first
    input."""

    cls_to_become = Conv2d


class LazyConv3d(_LazyConv, Conv3d):
    """LazyConv3d(out_channels, kernel_size, ...): Conv3d with in_channels from the first
    input."""

    cls_to_become = Conv3d


class LazyConvTranspose1d(_LazyConvTranspose, ConvTranspose1d):
    """LazyConvTranspose1d(out_channels, kernel_size, ...): ConvTranspose1d with in_channels
    from the first input."""

    cls_to_become = ConvTranspose1d


class LazyConvTranspose2d(_LazyConvTranspose, ConvTranspose2d):
    """LazyConvTranspose2d(out_channels, kernel_size, ...): ConvTranspose2d with in_channels
    from the first input."""

    cls_to_become = ConvTranspose2d


class LazyConvTranspose3d(_LazyConvTranspose, ConvTranspose3d):
    """LazyConvTranspose3d(out_channels, kernel_size, ...): ConvTranspose3d with in_channels
    from the first input."""

    cls_to_become = ConvTranspose3d
