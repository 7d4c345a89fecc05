"""im2col and col2im (ember.nn.functional.unfold / fold): sliding blocks of an image as
columns, and columns summed back into an image. Each is the other's gradient.

im2col copies once out of a strided window view; col2im adds one strided slice per kernel
offset (NOTE [convolution as one matmul per group], nn_conv.py).
"""
from __future__ import annotations

import math

import numpy as np

from ember._core.checks import _check, _check_not_implemented
from ember._core.dispatch import call
from ember._core.layout import strided_window
from ember._core.registry import OPS, register_op
from ember._ops.linalg import cpp


def _check_pairs(kernel_size, dilation, padding, stride):
    for name, values in (("kernel_size", kernel_size), ("dilation", dilation),
                         ("padding", padding), ("stride", stride)):
        _check(len(values) == 2, lambda: (
            f"It is expected {name} equals to 2, but got size {len(values)}"))
    _check(kernel_size[0] > 0 and kernel_size[1] > 0, lambda: (
        "kernel size should be greater than zero, but got kernel_height: "
        f"{kernel_size[0]} kernel_width: {kernel_size[1]}"))
    _check(stride[0] > 0 and stride[1] > 0, lambda: (
        f"stride should be greater than zero, but got stride_height: {stride[0]} "
        f"stride_width: {stride[1]}"))
    _check(dilation[0] > 0 and dilation[1] > 0, lambda: (
        f"dilation should be greater than zero, but got dilation_height: {dilation[0]} "
        f"dilation_width: {dilation[1]}"))
    _check(padding[0] >= 0 and padding[1] >= 0, lambda: (
        f"padding should be non-negative, but got pad_height: {padding[0]} pad_width: "
        f"{padding[1]}"))


def _check_dtype(kernel_name, array):
    _check_not_implemented(array.dtype.kind not in "biu", lambda: (
        f'"{kernel_name}" not implemented for \'{cpp(array.dtype)}\''))


def _blocks(size, kernel_size, dilation, padding, stride):
    return tuple((s + 2 * p - d * (k - 1) - 1) // st + 1
                 for s, k, d, p, st in zip(size, kernel_size, dilation, padding, stride))


def _tup(values):
    return "(" + ", ".join(str(v) for v in values) + ")"


def _im2col_shape(self, kernel_size, dilation, padding, stride):
    _check_pairs(kernel_size, dilation, padding, stride)
    if self.ndim < 3:
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-max(self.ndim, 1)}, {max(self.ndim, 1) - 1}], but got 2)")
    _check(self.ndim in (3, 4) and all(s != 0 for s in self.shape[-3:]), lambda: (
        "Expected 3D or 4D (batch mode) tensor for input with possibly 0 batch size and "
        f"non-zero dimensions for input, but got: {list(self.shape)}"))
    blocks = _blocks(self.shape[-2:], kernel_size, dilation, padding, stride)
    _check(blocks[0] >= 1 and blocks[1] >= 1, lambda: (
        f"Given input with spatial size {_tup(self.shape[-2:])}, kernel_size="
        f"{_tup(kernel_size)}, dilation={_tup(dilation)}, padding={_tup(padding)}, calculated "
        f"shape of the array of sliding blocks as {_tup(blocks)}, but its components must be "
        "at least one."))
    columns = self.shape[-3] * math.prod(kernel_size)
    return self.shape[:-3] + (columns, math.prod(blocks)), blocks


def _im2col_meta(self, kernel_size, dilation, padding, stride):
    return _im2col_shape(self._data, kernel_size, dilation, padding, stride)[0], self._dtype


@register_op("im2col(Tensor self, int[2] kernel_size, int[2] dilation, int[2] padding, "
             "int[2] stride) -> Tensor", method=False, function=False, meta=_im2col_meta,
             saves=(), node_name="Im2ColBackward0",
             derivatives={"self": lambda c: call(OPS["col2im"], (
                 c.grad, list(c.self.shape[-2:]), c.kernel_size, c.dilation, c.padding,
                 c.stride))})
def im2col(xp, self, kernel_size, dilation, padding, stride):
    """im2col(input, kernel_size, dilation, padding, stride) -> Tensor: (N, C, H, W) ->
    (N, C * kh * kw, blocks), each column one sliding block."""
    shape, blocks = _im2col_shape(self, kernel_size, dilation, padding, stride)
    _check_dtype("im2col_out_cpu", self)
    x = self if self.ndim == 4 else self[None]
    n, c, h, w = x.shape
    if padding[0] or padding[1]:
        padded = xp.zeros((n, c, h + 2 * padding[0], w + 2 * padding[1]), x.dtype)
        padded[:, :, padding[0]:padding[0] + h, padding[1]:padding[1] + w] = x
        x = padded
    s = x.strides
    window = strided_window(
        xp, x, (n, c) + tuple(kernel_size) + blocks,
        (s[0], s[1], s[2] * dilation[0], s[3] * dilation[1], s[2] * stride[0],
         s[3] * stride[1]))
    return xp.ascontiguousarray(window).reshape(shape)


def _col2im_check(self, output_size, kernel_size, dilation, padding, stride):
    _check(len(output_size) == 2, lambda: (
        f"It is expected output_size equals to 2, but got size {len(output_size)}"))
    _check_pairs(kernel_size, dilation, padding, stride)
    _check(self.ndim in (2, 3) and all(s != 0 for s in self.shape[-2:]), lambda: (
        "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and "
        f"non-zero dimensions for input, but got: {list(self.shape)}"))
    rows = math.prod(kernel_size)
    _check(self.shape[-2] % rows == 0, lambda: (
        "Expected size of input's dimension 1 to be divisible by the product of kernel_size, "
        f"but got input.size(1)={self.shape[-2]} and kernel_size={_tup(kernel_size)}."))
    blocks = _blocks(output_size, kernel_size, dilation, padding, stride)
    _check(blocks[0] >= 1 and blocks[1] >= 1 and math.prod(blocks) == self.shape[-1], lambda: (
        f"Given output_size={_tup(output_size)}, kernel_size={_tup(kernel_size)}, dilation="
        f"{_tup(dilation)}, padding={_tup(padding)}, stride={_tup(stride)}, expected size of "
        f"input's dimension 2 to match the calculated number of sliding blocks {blocks[0]} * "
        f"{blocks[1]} = {math.prod(blocks)}, but got input.size(2)={self.shape[-1]}."))
    return self.shape[:-2] + (self.shape[-2] // rows,) + tuple(output_size), blocks


def _col2im_meta(self, output_size, kernel_size, dilation, padding, stride):
    return _col2im_check(self._data, output_size, kernel_size, dilation, padding,
                         stride)[0], self._dtype


@register_op("col2im(Tensor self, SymInt[2] output_size, int[2] kernel_size, int[2] dilation, "
             "int[2] padding, int[2] stride) -> Tensor", method=False, function=False,
             meta=_col2im_meta, saves=(), node_name="Col2ImBackward0",
             derivatives={"self": lambda c: call(OPS["im2col"], (
                 c.grad, c.kernel_size, c.dilation, c.padding, c.stride))})
def col2im(xp, self, output_size, kernel_size, dilation, padding, stride):
    """col2im(input, output_size, kernel_size, dilation, padding, stride) -> Tensor:
    (N, C * kh * kw, blocks) -> (N, C, H, W), overlapping values summed."""
    shape, blocks = _col2im_check(self, output_size, kernel_size, dilation, padding, stride)
    _check_dtype("col2im_out_cpu", self)
    cols = self if self.ndim == 3 else self[None]
    n = cols.shape[0]
    c = shape[-3]
    kh, kw = kernel_size
    cols = cols.reshape((n, c, kh, kw) + blocks)
    height, width = output_size[0] + 2 * padding[0], output_size[1] + 2 * padding[1]
    acc = xp.zeros((n, c, height, width), self.dtype)
    for i, j in np.ndindex(kh, kw):
        top, left = i * dilation[0], j * dilation[1]
        acc[:, :, top:top + stride[0] * (blocks[0] - 1) + 1:stride[0],
            left:left + stride[1] * (blocks[1] - 1) + 1:stride[1]] += cols[:, :, i, j]
    out = acc[:, :, padding[0]:padding[0] + output_size[0],
              padding[1]:padding[1] + output_size[1]]
    return xp.ascontiguousarray(out).reshape(shape)
