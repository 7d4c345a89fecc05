"""unfold (sliding blocks as columns, aten im2col) and fold (columns summed back into an
image, aten col2im); the kernels are in ember/_ops/nn_fold.py."""
from __future__ import annotations

from ember._core.dispatch import call
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.registry import OPS

__all__: list[str] = ["fold", "unfold"]


def _pair(value):
    # (ember.nn.modules.utils has one too, but importing it here would load the layers.)
    return (value, value) if isinstance(value, int) else tuple(value)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """unfold(input, kernel_size, dilation=1, padding=0, stride=1) -> Tensor: the sliding
    blocks of a (N, C, H, W) or (C, H, W) input as columns (N, C * prod(kernel_size), L)."""
    if _state.entry and _wants(locals()):
        return _handle(unfold, locals())
    return call(OPS["im2col"], (input, _pair(kernel_size), _pair(dilation), _pair(padding),
                                _pair(stride)))


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    columns (N, C * prod(kernel_size), L) summed back into a (N, C, *output_size) image."""
    if _state.entry and _wants(locals()):
        return _handle(fold, locals())
    return call(OPS["col2im"], (input, _pair(output_size), _pair(kernel_size),
                                _pair(dilation), _pair(padding), _pair(stride)))
