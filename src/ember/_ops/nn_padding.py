"""Padding: constant_pad_nd (any number of trailing dims, negative amounts crop),
reflection_pad{1,2,3}d and replication_pad{1,2,3}d with their backward entries (so that double
backward works). Circular padding is a composite of slices and cat (ember.nn.functional.pad),
as in PyTorch.

Padding amounts come as PyTorch lists them: (left, right) pairs, the LAST dim first.
"""
from __future__ import annotations

import numpy as np

from ember._core.checks import _check, _check_not_implemented
from ember._core.dispatch import call
from ember._core.registry import OPS, register_op


def pairs_by_dim(pad, ndim):
    """[(dim, left, right)] for a last-dim-first pad list over a tensor of `ndim` dims."""
    count = len(pad) // 2
    return [(ndim - 1 - i, pad[2 * i], pad[2 * i + 1]) for i in range(count)]


def _along(ndim, axis, index):
    return (slice(None),) * axis + (index,) + (slice(None),) * (ndim - axis - 1)


# --------------------------------------------------------------------------- constant

def _constant_pad_shape(self, pad):
    _check(len(pad) % 2 == 0, lambda: (
        f"Length of pad must be even but instead it equals {len(pad)}"))
    _check(len(pad) // 2 <= self.ndim, lambda: (
        "Length of pad should be no more than twice the number of dimensions of the input. "
        f"Pad length is {len(pad)} while the input has {self.ndim} dimensions."))
    shape = list(self.shape)
    for dim, left, right in pairs_by_dim(pad, self.ndim):
        size = shape[dim] + left + right
        _check(size >= 0, lambda: (
            f"The input size {shape[dim]}, plus negative padding {left} and {right} resulted "
            f"in a negative output size, which is invalid. Check dimension {dim} of your "
            "input."))
        shape[dim] = size
    return tuple(shape)


def _constant_pad_meta(self, pad, value=0):
    return _constant_pad_shape(self._data, pad), self._dtype


@register_op("constant_pad_nd(Tensor self, SymInt[] pad, Scalar value=0) -> Tensor",
             method=False, meta=_constant_pad_meta, saves=(),
             derivatives={"self": lambda c: call(OPS["constant_pad_nd"],
                                                 (c.grad, [-p for p in c.pad], 0))})
def constant_pad_nd(xp, self, pad, value=0):
    """constant_pad_nd(input, pad, value=0) -> Tensor: `value` around the trailing dims
    (pad lists (left, right) for the last dim first); negative amounts remove elements."""
    shape = _constant_pad_shape(self, pad)
    out = xp.full(shape, value, dtype=self.dtype)
    source = [slice(None)] * self.ndim
    target = [slice(None)] * self.ndim
    for dim, left, right in pairs_by_dim(pad, self.ndim):
        size = self.shape[dim]
        source[dim] = slice(max(-left, 0), size - max(-right, 0))
        target[dim] = slice(max(left, 0), max(left, 0) + max(size - max(-left, 0)
                                                              - max(-right, 0), 0))
    if out.size:
        out[tuple(target)] = self[tuple(source)]
    return out


# --------------------------------------------------------------------------- reflect/replicate

def _source_index(mode, n, left, right):
    """For each output position along a dim, the input position it copies."""
    j = np.arange(-left, n + right)
    if mode == "reflection":
        j = np.abs(j)
        return np.where(j >= n, 2 * (n - 1) - j, j)
    return np.clip(j, 0, n - 1)


def _check_padded_input(name, d, self, padding):
    _check(len(padding) == 2 * d, lambda: (
        f"{name}: expected padding of length {2 * d}, but got {len(padding)}"))
    shape = list(self.shape)
    _check(self.ndim in (d + 1, d + 2) and all(s != 0 for s in shape[1:]), lambda: (
        f"Expected {d + 1}D or {d + 2}D (batch mode) tensor with possibly 0 batch size and "
        f"other non-zero dimensions for input, but got: {shape}"))
    for dim, left, right in pairs_by_dim(padding, self.ndim):
        if name.startswith("reflection"):
            _check(left < shape[dim] and right < shape[dim], lambda: (
                f"Argument #4: Padding size should be less than the corresponding input "
                f"dimension, but got: padding ({left}, {right}) at dimension {dim} of input "
                f"{shape}"))
        size = shape[dim] + left + right
        _check(size >= 1, lambda: (
            f"input ({'x'.join(map(str, shape[-d:]))}) is too small. Calculated output "
            f"size: {size}"))
        shape[dim] = size
    return tuple(shape)


def _index_pad(xp, self, padding, mode):
    out = self
    for dim, left, right in pairs_by_dim(padding, self.ndim):
        index = _source_index(mode, self.shape[dim], left, right)
        out = xp.take(out, xp.asarray(index), axis=dim)
    return out


def _fold_back(xp, grad, self_shape, padding, mode):
    """The gradient of _index_pad: each padded element's gradient added to its source."""
    ndim = grad.ndim
    for dim, left, right in pairs_by_dim(padding, ndim):
        n = self_shape[dim]
        shape = list(grad.shape)
        shape[dim] = n
        out = xp.zeros(shape, grad.dtype)
        cut_left, cut_right = max(-left, 0), max(-right, 0)
        kept = n - cut_left - cut_right
        start = max(left, 0)
        out[_along(ndim, dim, slice(cut_left, cut_left + kept))] = \
            grad[_along(ndim, dim, slice(start, start + kept))]
        length = grad.shape[dim]
        if left > 0:
            edge = grad[_along(ndim, dim, slice(0, left))]
            if mode == "reflection":
                out[_along(ndim, dim, slice(1, left + 1))] += xp.flip(edge, axis=dim)
            else:
                out[_along(ndim, dim, slice(0, 1))] += edge.sum(axis=dim, keepdims=True)
        if right > 0:
            edge = grad[_along(ndim, dim, slice(length - right, length))]
            if mode == "reflection":
                out[_along(ndim, dim, slice(n - 1 - right, n - 1))] += xp.flip(edge, axis=dim)
            else:
                out[_along(ndim, dim, slice(n - 1, n))] += edge.sum(axis=dim, keepdims=True)
        grad = out
    return grad


def _register_family(mode, d):
    name = f"{mode}_pad{d}d"
    backward_name = f"{name}_backward"

    def meta(self, padding):
        return _check_padded_input(name, d, self._data, padding), self._dtype

    def backward_meta(grad_output, self, padding):
        return tuple(self.shape), grad_output._dtype

    def forward(xp, self, padding):
        _check_padded_input(name, d, self, padding)
        _check_not_implemented(self.dtype.kind != "b", lambda: (
            f'"{name}" not implemented for \'Bool\''))
        return _index_pad(xp, self, padding, mode)

    def backward(xp, grad_output, self, padding):
        return _fold_back(xp, grad_output, self.shape, padding, mode)

    forward.__doc__ = (f"{name}(input, padding) -> Tensor: pads the last {d} dims by "
                       f"{'reflecting' if mode == 'reflection' else 'repeating'} the edge.")
    backward.__doc__ = f"{backward_name}(grad_output, input, padding) -> Tensor."
    register_op(f"{name}(Tensor self, SymInt[{2 * d}] padding) -> Tensor", method=False,
                function=False, meta=meta, saves=("self",),
                node_name=f"{mode.capitalize()}Pad{d}DBackward0",
                derivatives={"self": lambda c: call(OPS[backward_name],
                                                    (c.grad, c.self, c.padding))})(forward)
    register_op(f"{backward_name}(Tensor grad_output, Tensor self, SymInt[{2 * d}] padding) "
                "-> Tensor", method=False, function=False, meta=backward_meta, saves=(),
                node_name=f"{mode.capitalize()}Pad{d}DBackwardBackward0",
                derivatives={"grad_output": lambda c: call(OPS[name], (c.grad, c.padding)),
                             "self": lambda c: None})(backward)


for _mode in ("reflection", "replication"):
    for _d in (1, 2, 3):
        _register_family(_mode, _d)
