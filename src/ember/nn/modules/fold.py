"""Fold and Unfold: the layers over F.fold / F.unfold (aten col2im / im2col)."""
from __future__ import annotations

from ember.nn._functional.fold import fold, unfold
from ember.nn.modules.module import Module

__all__: list[str] = ["Fold", "Unfold"]


class Fold(Module):
    """Fold(output_size, kernel_size, dilation=1, padding=0, stride=1): sums columns of
    sliding blocks (N, C * prod(kernel_size), L) back into (N, C, *output_size)."""

    __constants__ = ["output_size", "kernel_size", "dilation", "padding", "stride"]

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1) -> None:
        super().__init__()
        self.output_size = output_size
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input):
        return fold(input, self.output_size, self.kernel_size, self.dilation, self.padding,
                    self.stride)

    def extra_repr(self) -> str:
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, "
                f"dilation={self.dilation}, padding={self.padding}, stride={self.stride}")


class Unfold(Module):
    """Unfold(kernel_size, dilation=1, padding=0, stride=1): the sliding blocks of
    (N, C, H, W) as columns (N, C * prod(kernel_size), L)."""

    __constants__ = ["kernel_size", "dilation", "padding", "stride"]

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input):
        return unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, dilation={self.dilation}, "
                f"padding={self.padding}, stride={self.stride}")
