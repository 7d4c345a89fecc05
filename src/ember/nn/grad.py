"""`ember.nn.grad`: a convolution's gradients by hand (`conv2d_input`, `conv2d_weight` ...),
each one `convolution_backward` asking for the one gradient it names."""
from __future__ import annotations

import ember

__all__ = ["conv1d_input", "conv1d_weight", "conv2d_input", "conv2d_weight", "conv3d_input",
           "conv3d_weight"]


def _expand(value, dims: int) -> list:
    return [int(v) for v in value] if isinstance(value, (tuple, list)) else [int(value)] * dims


def _gradient(which: int, dims: int, input, weight, grad_output, stride, padding, dilation,
              groups):
    mask = [which == 0, which == 1, False]
    results = ember.ops.aten.convolution_backward(
        grad_output, input, weight, None, _expand(stride, dims), _expand(padding, dims),
        _expand(dilation, dims), False, [0] * dims, groups, mask)
    return results[which]


def _input_gradient(dims: int):
    def gradient(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
        # Only the input's shape matters: an expanded one-element tensor stands for it.
        input = grad_output.new_empty(1).expand(tuple(input_size))
        return _gradient(0, dims, input, weight, grad_output, stride, padding, dilation, groups)
    gradient.__name__ = gradient.__qualname__ = f"conv{dims}d_input"
    gradient.__doc__ = (f"The gradient of conv{dims}d's output with respect to an input of "
                        "shape `input_size`, given `grad_output` and the weight.")
    return gradient


def _weight_gradient(dims: int):
    def gradient(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
        weight = grad_output.new_empty(1).expand(tuple(weight_size))
        return _gradient(1, dims, input, weight, grad_output, stride, padding, dilation, groups)
    gradient.__name__ = gradient.__qualname__ = f"conv{dims}d_weight"
    gradient.__doc__ = (f"The gradient of conv{dims}d's output with respect to a weight of "
                        "shape `weight_size`, given `grad_output` and the input.")
    return gradient


conv1d_input, conv2d_input, conv3d_input = (_input_gradient(d) for d in (1, 2, 3))
conv1d_weight, conv2d_weight, conv3d_weight = (_weight_gradient(d) for d in (1, 2, 3))
