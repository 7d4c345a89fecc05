"""Pooling: max_pool{2,3}d_with_indices, avg_pool{2,3}d, adaptive avg / max pooling in 2 and 3
spatial dims, max_unpool{2,3}d, and the backward ops their derivatives call. The 1-d forms are
composites over the 2-d ops in ember.nn.functional, as in PyTorch.

Max pooling pads with the lowest value and walks the kernel offsets (a handful) over strided
views of the whole batch, keeping a running maximum and which offset gave it: the first
maximum of a window wins ties and NaN wins over numbers, as in PyTorch. Indices are flat
positions in each (channel's) input plane. The backward scatters through those indices with
one bincount. Average pooling and adaptive average pooling are separable linear maps
(NOTE [separable linear maps] in nn_windows.py).
"""
from __future__ import annotations

import functools
import itertools

import numpy as np

from ember._backends.array_helpers import backend_helpers
from ember._backends.meta import suggested_strides
from ember._core import dtype as dt
from ember._core.checks import _check, _check_not_implemented
from ember._core.dispatch import call
from ember._core.registry import OPS, register_op
from ember._core.shape import wrap_dim
from ember._ops.nn_windows import (
    LOW_PRECISION,
    adaptive_bounds,
    adaptive_taps,
    check_batch_dims,
    check_float,
    compute_dtype,
    expand_arg,
    max_and_first_offset,
    outer_divisor,
    pool_geometry,
    run_separable,
    select_by_code,
    window_taps,
)

_CPP_NAMES = {np.dtype(d._np): d._cpp_name for d in (dt.int64, dt.int32, dt.int16, dt.int8,
                                                      dt.uint8, dt.bool_)}


def _lowest(dtype):
    if dtype.kind == "b":
        return False
    if dtype.kind in "iu":
        return np.iinfo(dtype).min
    return -np.inf


# --------------------------------------------------------------------------- max pooling

def _max_args(shape, spatial, kernel_size, stride, padding, dilation, ceil_mode, name):
    kernel = expand_arg(kernel_size, spatial, "kernel_size", name)
    stride = kernel if stride is None or len(stride) == 0 else expand_arg(
        stride, spatial, "stride", name)
    padding = expand_arg(padding, spatial, "padding", name)
    dilation = expand_arg(dilation, spatial, "dilation", name)
    check_batch_dims(shape, spatial, "input")
    if any(d != 1 for d in dilation) and all(k > 0 for k in kernel) and \
            any(p > k // 2 for k, p in zip(kernel, padding)):
        # A dilated pool is PyTorch's with-indices kernel, whose bound is the kernel's half
        # (not the dilated window's, as pool_geometry's)
        _check(False, lambda: "pad should be smaller than or equal to half of kernel size, "
               "but got " + (f"padW = {padding[1]}, padH = {padding[0]}, kW = {kernel[1]}, "
                             f"kH = {kernel[0]}" if spatial == 2 else
                             f"kT: {kernel[0]} kW: {kernel[2]} kH: {kernel[1]} padT: "
                             f"{padding[0]} padW: {padding[2]} padH: {padding[1]}"))
    out = pool_geometry(shape, kernel, stride, padding, dilation, ceil_mode)
    return kernel, stride, padding, dilation, out


def _max_pool(xp, x, spatial, kernel_size, stride, padding, dilation, ceil_mode, name):
    kernel, stride, padding, dilation, out = _max_args(
        x.shape, spatial, kernel_size, stride, padding, dilation, ceil_mode, name)
    sizes = x.shape[-spatial:]
    lead = x.shape[:-spatial]
    padded_sizes = _padded_sizes(sizes, out, kernel, stride, padding, dilation)
    if tuple(padded_sizes) != tuple(sizes):
        padded = xp.full(lead + padded_sizes, _lowest(x.dtype), x.dtype)
        padded[(Ellipsis,) + tuple(slice(p, p + n) for p, n in zip(padding, sizes))] = x
    else:
        padded = x
    # See NOTE [max pooling ties]; windows whose values are all the lowest value (padding
    # included) take their first offset inside the input, as PyTorch's loops do.
    offsets = list(itertools.product(*(range(k) for k in kernel)))
    views = [padded[_window(offset, out, stride, dilation)] for offset in offsets]
    best, code = max_and_first_offset(xp, views)
    code_dtype = code.dtype.type
    if any(padding):
        first = []
        for o, s, p, d in zip(out, stride, padding, dilation):
            start = np.arange(o) * s - p
            first.append(np.maximum(0, -(start // d)))
        codes = _broadcast_codes(first, kernel).astype(code_dtype)
        code = xp.where(best == _lowest(x.dtype), backend_helpers(xp).from_host(codes),
                        code)
    # Flat plane index = window origin + the offset's displacement, looked up by code
    # (fancy indexing; np.take with small integer indices is several times slower).
    origin, displacement = _plane_positions(sizes, out, kernel, stride, padding, dilation)
    helpers = backend_helpers(xp)        # NOTE [back-end helpers]
    displacement, origin = helpers.from_host(displacement), helpers.from_host(origin)
    index = displacement[code] + origin
    return best, index


def _padded_sizes(sizes, out, kernel, stride, padding, dilation):
    """The padded plane in which every window lies: the left padding, and on the right what
    the last window needs (ceil_mode may let it run past the padding)."""
    extents = [(o - 1) * s + (k - 1) * d + 1 for o, s, k, d in zip(out, stride, kernel, dilation)]
    return tuple(max(e, n + p) for e, n, p in zip(extents, sizes, padding))


def _window(offset, out, stride, dilation):
    """The strided view (of the padded plane) that kernel `offset` reads in every window."""
    return (Ellipsis,) + tuple(slice(i * d, i * d + (o - 1) * s + 1, s)
                               for i, d, o, s in zip(offset, dilation, out, stride))


def _plane_positions(sizes, out, kernel, stride, padding, dilation):
    """(each window's origin as a flat plane position, broadcast over the output's spatial
    dims; each kernel offset's displacement from it), in the unpadded plane."""
    spatial = len(sizes)
    offsets = np.array(list(itertools.product(*(range(k) for k in kernel))), np.int64)
    origin = np.zeros((1,) * spatial, np.int64)
    displacement = np.zeros(len(offsets), np.int64)
    for axis, (o, s, p, d, n) in enumerate(zip(out, stride, padding, dilation, sizes)):
        shape = [1] * spatial
        shape[axis] = o
        origin = origin * n + (np.arange(o) * s - p).reshape(shape)
        displacement = displacement * n + offsets[:, axis] * d
    return origin, displacement


def _broadcast_codes(first, kernel):
    spatial = len(first)
    grids = []
    for axis, values in enumerate(first):
        shape = [1] * spatial
        shape[axis] = len(values)
        grids.append(values.reshape(shape))
    return np.ravel_multi_index(tuple(grids), kernel)


def _max_meta(spatial, name):
    def meta(self, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
        shape = tuple(self.shape)
        *_, out = _max_args(shape, spatial, kernel_size, stride, padding, dilation, ceil_mode,
                            name)
        result = shape[:-spatial] + out
        return [(result, self._dtype, suggested_strides(result, self._data, self.itemsize)),
                (result, dt.int64, suggested_strides(result, self._data, 8))]
    return meta


def scatter_planes(xp, values, indices, shape, spatial):
    """Zeros of `shape` with values[..., j] added at flat plane position indices[..., j] of
    each leading (batch, channel) plane (one bincount; repeated positions add up)."""
    dtype = compute_dtype(values)
    planes = int(np.prod(shape[:len(shape) - spatial]))
    plane = int(np.prod(shape[len(shape) - spatial:]))
    if values.size == 0 or plane == 0:
        return xp.zeros(shape, values.dtype)
    count = int(np.prod(indices.shape[len(shape) - spatial:]))
    flat = indices.reshape(planes, count) + (xp.arange(planes) * plane)[:, None]
    weights = values.reshape(planes, count)
    if weights.dtype.kind == "c":
        out = (xp.bincount(flat.ravel(), weights.real.ravel(), planes * plane)
               + 1j * xp.bincount(flat.ravel(), weights.imag.ravel(), planes * plane))
    else:
        out = xp.bincount(flat.ravel(), weights.ravel().astype(np.float64, copy=False),
                          planes * plane)
    return out.astype(dtype, copy=False).reshape(shape).astype(values.dtype, copy=False)


def gather_planes(grad, indices, spatial):
    """grad (input-shaped) read at each output's plane index: in ember ops, so that it is
    differentiable (the gradient of the backward ops with respect to their grad_output)."""
    flat_grad = grad.flatten(grad.ndim - spatial) if spatial > 1 else grad
    flat_index = indices.flatten(indices.ndim - spatial) if spatial > 1 else indices
    return flat_grad.gather(-1, flat_index).reshape(tuple(indices.shape))


def _max_pool_backward(xp, grad_output, self, kernel_size, stride, padding, dilation,
                       ceil_mode, indices, spatial, name):
    """Per kernel offset, the outputs whose maximum sat there add their gradient into that
    offset's strided view of the (padded) input: faster than one bincount over positions."""
    kernel, stride, padding, dilation, out = _max_args(
        self.shape, spatial, kernel_size, stride, padding, dilation, ceil_mode, name)
    sizes = self.shape[-spatial:]
    dtype = compute_dtype(grad_output)
    grad = grad_output.astype(dtype, copy=False)
    padded_sizes = _padded_sizes(sizes, out, kernel, stride, padding, dilation)
    grad_input = xp.zeros(self.shape[:-spatial] + padded_sizes, dtype)
    origin, displacement = _plane_positions(sizes, out, kernel, stride, padding, dilation)
    origin = backend_helpers(xp).from_host(origin)        # NOTE [back-end helpers]
    for offset, shift in zip(itertools.product(*(range(k) for k in kernel)), displacement):
        grad_input[_window(offset, out, stride, dilation)] += grad * (indices == origin + shift)
    inside = (Ellipsis,) + tuple(slice(p, p + n) for p, n in zip(padding, sizes))
    return xp.ascontiguousarray(grad_input[inside]).astype(grad_output.dtype, copy=False)


def _pool_backward_meta(grad_output, self, *args):
    return tuple(self.shape), grad_output._dtype


def _max_grad(op_name):
    def formula(c):
        return call(OPS[op_name], (c.grad, c.self, c.kernel_size, c.stride, c.padding,
                                   c.dilation, c.ceil_mode, c.results[1]))
    return formula


def _max_backward_grad(spatial):
    def formula(c):
        return gather_planes(c.grad, c.indices, spatial)
    return formula


for _d in (2, 3):
    _name = f"max_pool{_d}d_with_indices"
    _node = f"MaxPool{_d}DWithIndicesBackward0"

    def _forward(xp, self, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False,
                 _d=_d, _name=_name):
        return _max_pool(xp, self, _d, kernel_size, stride, padding, dilation, ceil_mode,
                         _name)

    _forward.__doc__ = (
        f"{_name}(input, kernel_size, stride=[], padding=0, dilation=1, ceil_mode=False) -> "
        f"(Tensor, Tensor): the maximum of each {_d}-d window and its flat position in the "
        "input plane.")
    register_op(
        f"{_name}(Tensor self, int[{_d}] kernel_size, int[{_d}] stride=[], "
        f"int[{_d}] padding=0, int[{_d}] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)",
        function=False, method=False, meta=_max_meta(_d, _name), saves=("self", "result1"),
        node_name=_node, derivatives={"self": _max_grad(f"{_name}_backward")})(_forward)

    def _backward(xp, grad_output, self, kernel_size, stride, padding, dilation, ceil_mode,
                  indices, _d=_d, _name=_name):
        return _max_pool_backward(xp, grad_output, self, kernel_size, stride, padding,
                                  dilation, ceil_mode, indices, _d, _name)

    _backward.__doc__ = f"The gradient of {_name} with respect to its input."
    register_op(
        f"{_name}_backward(Tensor grad_output, Tensor self, int[{_d}] kernel_size, "
        f"int[{_d}] stride, int[{_d}] padding, int[{_d}] dilation, bool ceil_mode, "
        "Tensor indices) -> Tensor",
        function=False, method=False, meta=_pool_backward_meta, saves=("indices",),
        node_name=f"MaxPool{_d}DWithIndicesBackwardBackward0",
        derivatives={"grad_output": _max_backward_grad(_d), "self": lambda c: None})(_backward)


# --------------------------------------------------------------------------- avg pooling

def _avg_args(shape, spatial, kernel_size, stride, padding, ceil_mode, divisor_override, name):
    kernel = expand_arg(kernel_size, spatial, "kernel_size", name)
    stride = kernel if stride is None or len(stride) == 0 else expand_arg(
        stride, spatial, "stride", name)
    padding = expand_arg(padding, spatial, "padding", name)
    if spatial == 2:
        wrap_dim(-3, len(shape))     # (PyTorch's avg_pool2d reads the planes, size(-3), first)
    check_batch_dims(shape, spatial, "input")
    _check(divisor_override is None or divisor_override != 0, "divisor must be not zero")
    out = pool_geometry(shape, kernel, stride, padding, (1,) * spatial, ceil_mode)
    return kernel, stride, padding, out


def _avg_plan(shape, spatial, kernel_size, stride, padding, ceil_mode, count_include_pad,
              divisor_override, name):
    """Per axis the windows' taps, and the divisor of the window sums over the output's
    spatial dims."""
    kernel, stride, padding, out = _avg_args(shape, spatial, kernel_size, stride, padding,
                                             ceil_mode, divisor_override, name)
    return _avg_plan_of(tuple(shape[-spatial:]), out, kernel, stride, padding,
                        count_include_pad, divisor_override)


@functools.lru_cache(maxsize=256)
def _avg_plan_of(sizes, out, kernel, stride, padding, count_include_pad, divisor_override):
    maps, counts = [], []
    for n, o, k, s, p in zip(sizes, out, kernel, stride, padding):
        taps, with_pad, without_pad = window_taps(n, o, k, s, p)
        maps.append(taps)
        counts.append(None if divisor_override is not None else
                      with_pad if count_include_pad else without_pad)
    return maps, outer_divisor(counts) * (divisor_override or 1)


_AVG_DTYPES = frozenset(("float16", "bfloat16", "float32", "float64", "int64"))


def _avg_pool(xp, x, spatial, kernel_size, stride, padding, ceil_mode, count_include_pad,
              divisor_override, name, transpose_of=None):
    shape = x.shape if transpose_of is None else transpose_of
    maps, divisor = _avg_plan(shape, spatial, kernel_size, stride, padding, ceil_mode,
                              count_include_pad, divisor_override, name)
    if transpose_of is None and x.dtype.name not in _AVG_DTYPES:
        # (after the geometry's checks, as PyTorch's kernels refuse other dtypes once they
        # passed: floating types and int64 only)
        kernel_name = "avg_pool3d_out_frame" if spatial == 3 else "avg_pool2d"
        raise NotImplementedError(f'"{kernel_name}" not implemented for '
                                  f"'{dt.from_numpy_dtype(x.dtype)._cpp_name}'")
    if x.dtype.kind in "iub":
        # Integer inputs: exact window sums in float64, then one division truncated toward
        # zero as C++ integer division does (dividing axis by axis could land at 0.999...).
        sums = run_separable(xp, x.astype(np.float64), maps)
        return np.trunc(sums / divisor).astype(x.dtype)
    # A window's sum, then one division (a float32 sum may overflow, as PyTorch's does).
    return run_separable(xp, x, maps, transpose_of is not None, divisor)


def _avg_meta(spatial, name):
    def meta(self, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True,
             divisor_override=None):
        shape = tuple(self.shape)
        *_, out = _avg_args(shape, spatial, kernel_size, stride, padding, ceil_mode,
                            divisor_override, name)
        result = shape[:-spatial] + out
        return result, self._dtype, suggested_strides(result, self._data, self.itemsize)
    return meta


def _avg_grad(op_name):
    def formula(c):
        return call(OPS[op_name], (c.grad, c.self, c.kernel_size, c.stride, c.padding,
                                   c.ceil_mode, c.count_include_pad, c.divisor_override))
    return formula


def _avg_backward_grad(op_name):
    def formula(c):
        return call(OPS[op_name], (c.grad, c.kernel_size, c.stride, c.padding, c.ceil_mode,
                                   c.count_include_pad, c.divisor_override))
    return formula


for _d in (2, 3):
    _name = f"avg_pool{_d}d"

    def _forward(xp, self, kernel_size, stride=(), padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None, _d=_d, _name=_name):
        if _d == 3:
            # PyTorch's 3-d kernel has no half types.
            _check_not_implemented(self.dtype not in LOW_PRECISION, lambda: (
                f'"avg_pool3d_out_frame" not implemented for '
                f"'{'Half' if self.dtype == np.float16 else 'BFloat16'}'"))
        return _avg_pool(xp, self, _d, kernel_size, stride, padding, ceil_mode,
                         count_include_pad, divisor_override, _name)

    _forward.__doc__ = (
        f"{_name}(input, kernel_size, stride=[], padding=0, ceil_mode=False, "
        "count_include_pad=True, divisor_override=None) -> Tensor: the mean of each "
        f"{_d}-d window.")
    register_op(
        f"{_name}(Tensor self, int[{_d}] kernel_size, int[{_d}] stride=[], "
        f"int[{_d}] padding=0, bool ceil_mode=False, bool count_include_pad=True, "
        "int? divisor_override=None) -> Tensor",
        function=False, method=False, meta=_avg_meta(_d, _name), saves=("self",),
        node_name=f"AvgPool{_d}DBackward0",
        derivatives={"self": _avg_grad(f"{_name}_backward")}, tags=("fp_errors",))(_forward)

    def _backward(xp, grad_output, self, kernel_size, stride, padding, ceil_mode,
                  count_include_pad, divisor_override, _d=_d, _name=_name):
        return _avg_pool(xp, grad_output, _d, kernel_size, stride, padding, ceil_mode,
                         count_include_pad, divisor_override, _name, transpose_of=self.shape)

    _backward.__doc__ = f"The gradient of {_name} with respect to its input."
    register_op(
        f"{_name}_backward(Tensor grad_output, Tensor self, int[{_d}] kernel_size, "
        f"int[{_d}] stride, int[{_d}] padding, bool ceil_mode, bool count_include_pad, "
        "int? divisor_override) -> Tensor",
        function=False, method=False, meta=_pool_backward_meta, saves=(),
        node_name=f"AvgPool{_d}DBackwardBackward0",
        derivatives={"grad_output": _avg_backward_grad(_name),
                     "self": lambda c: None}, tags=("fp_errors",))(_backward)


# --------------------------------------------------------------------------- adaptive pooling

def _adaptive_sizes(shape, spatial, output_size, name):
    out = expand_arg(output_size, spatial, "output_size", name)
    ndim = len(shape)
    _check(ndim in (spatial + 1, spatial + 2), lambda: (
        f"{name}(): Expected {spatial + 1}D or {spatial + 2}D tensor, but got {list(shape)}"))
    for i in range(1, ndim):
        _check(shape[i] > 0, lambda i=i: (
            f"{name}(): Expected input to have non-zero size for non-batch dimensions, but "
            f"input has sizes {list(shape)} with dimension {i} being empty"))
    _check(all(o >= 0 for o in out), lambda: (
        f"Trying to create tensor with negative dimension {min(out)}: "
        f"{list(shape[:-spatial]) + list(out)}"))
    return out


def _adaptive_avg(xp, x, spatial, output_size, name, transpose_of=None):
    shape = x.shape if transpose_of is None else transpose_of
    check_float(x, name, _CPP_NAMES.get(x.dtype, str(x.dtype)))
    out = _adaptive_sizes(shape, spatial, output_size, name)
    maps, divisor = _adaptive_plan(tuple(shape[-spatial:]), tuple(out))
    return run_separable(xp, x, maps, transpose_of is not None, divisor)


@functools.lru_cache(maxsize=256)
def _adaptive_plan(sizes, out):
    maps, counts = zip(*(adaptive_taps(n, o) for n, o in zip(sizes, out)))
    return maps, outer_divisor(counts)


for _d in (2, 3):
    _name = f"_adaptive_avg_pool{_d}d"
    _public = f"adaptive_avg_pool{_d}d"

    def _forward(xp, self, output_size, _d=_d, _public=_public):
        return _adaptive_avg(xp, self, _d, output_size, _public)

    def _meta(self, output_size, _d=_d, _public=_public):
        shape = tuple(self.shape)
        result = shape[:-_d] + _adaptive_sizes(shape, _d, output_size, _public)
        return result, self._dtype, suggested_strides(result, self._data, self.itemsize)

    _forward.__doc__ = (
        f"{_name}(input, output_size) -> Tensor: the mean over {_d}-d windows that split the "
        "input evenly into output_size cells.")
    register_op(
        f"{_name}(Tensor self, SymInt[{_d}] output_size) -> Tensor", method=False, meta=_meta,
        saves=("self",), node_name=f"AdaptiveAvgPool{_d}DBackward0",
        derivatives={"self": lambda c, _name=_name: call(
            OPS[f"{_name}_backward"], (c.grad, c.self))}, tags=("fp_errors",))(_forward)

    def _backward(xp, grad_output, self, _d=_d, _public=_public):
        return _adaptive_avg(xp, grad_output, _d, grad_output.shape[-_d:], _public,
                             transpose_of=self.shape)

    _backward.__doc__ = f"The gradient of {_name} with respect to its input."
    register_op(
        f"{_name}_backward(Tensor grad_output, Tensor self) -> Tensor", method=False,
        meta=_pool_backward_meta, saves=(),
        node_name=f"AdaptiveAvgPool{_d}DBackwardBackward0",
        derivatives={"grad_output": lambda c, _name=_name, _d=_d: call(
            OPS[_name], (c.grad, tuple(c.grad_output.shape[-_d:]))),
            "self": lambda c: None}, tags=("fp_errors",))(_backward)


def _adaptive_max(xp, x, spatial, output_size, name):
    out = _adaptive_sizes(x.shape, spatial, output_size, name)
    sizes = x.shape[-spatial:]
    lead = x.shape[:-spatial]
    if x.size == 0 or 0 in out:
        shape = lead + out
        return xp.zeros(shape, x.dtype), xp.zeros(shape, np.int64)
    # Per axis: the windows' start positions and lengths; windows shorter than the longest
    # repeat their last element, which never changes the maximum nor its first position.
    starts, lengths = [], []
    for n, o in zip(sizes, out):
        s, e = adaptive_bounds(n, o)
        starts.append(s)
        lengths.append(e - s)
    views, indices = [], []
    for offset in itertools.product(*(range(int(le.max())) for le in lengths)):
        positions = [np.minimum(s + i, s + le - 1) for s, le, i in zip(starts, lengths, offset)]
        values = x
        for axis, pos in enumerate(positions):
            values = xp.take(values, backend_helpers(xp).from_host(pos),
                             axis=x.ndim - spatial + axis)
        views.append(values)
        indices.append(_plane_index(positions, sizes))
    best, code = max_and_first_offset(xp, views)
    return best, select_by_code(xp, code, indices)


def _plane_index(positions, sizes):
    spatial = len(positions)
    index = np.zeros((1,) * spatial, np.int64)
    for axis, (pos, n) in enumerate(zip(positions, sizes)):
        shape = [1] * spatial
        shape[axis] = len(pos)
        index = index * n + pos.reshape(shape)
    return index


for _d in (2, 3):
    _name = f"adaptive_max_pool{_d}d"

    def _forward(xp, self, output_size, _d=_d, _name=_name):
        return _adaptive_max(xp, self, _d, output_size, _name)

    def _meta(self, output_size, _d=_d, _name=_name):
        shape = tuple(self.shape)
        result = shape[:-_d] + _adaptive_sizes(shape, _d, output_size, _name)
        return [(result, self._dtype, suggested_strides(result, self._data, self.itemsize)),
                (result, dt.int64, suggested_strides(result, self._data, 8))]

    _forward.__doc__ = (
        f"{_name}(input, output_size) -> (Tensor, Tensor): the maximum over {_d}-d windows "
        "that split the input evenly into output_size cells, and its flat plane position.")
    register_op(
        f"{_name}(Tensor self, int[{_d}] output_size) -> (Tensor, Tensor)", function=False,
        method=False, meta=_meta, saves=("self", "result1"),
        node_name=f"AdaptiveMaxPool{_d}DBackward0",
        derivatives={"self": lambda c, _name=_name: call(
            OPS[f"{_name}_backward"], (c.grad, c.self, c.results[1]))})(_forward)

    def _backward(xp, grad_output, self, indices, _d=_d):
        return scatter_planes(xp, grad_output, indices, self.shape, _d)

    _backward.__doc__ = f"The gradient of {_name} with respect to its input."
    register_op(
        f"{_name}_backward(Tensor grad_output, Tensor self, Tensor indices) -> Tensor",
        function=False, method=False, meta=_pool_backward_meta, saves=("indices",),
        node_name=f"AdaptiveMaxPool{_d}DBackwardBackward0",
        derivatives={"grad_output": _max_backward_grad(_d),
                     "self": lambda c: None})(_backward)


# --------------------------------------------------------------------------- max unpooling

def _unpool_shape(self, indices, spatial, output_size, name):
    out = expand_arg(output_size, spatial, "output_size", name)
    _check(len(out) == spatial, lambda: (
        f"There should be exactly {spatial} elements (depth, height, width) in output_size, "
        f"but got {len(out)} elements."))
    _check(tuple(self.shape) == tuple(indices.shape), lambda: (
        f"Expected shape of indices to be same as that of the input tensor "
        f"({list(self.shape)}) but got indices tensor with shape: {list(indices.shape)}"))
    _check(self.ndim in (spatial + 1, spatial + 2), lambda: (
        f"Input to {name} should be a {spatial + 1}d or {spatial + 2}d Tensor, but got a "
        f"tensor with {self.ndim} dimensions."))
    return tuple(self.shape[:-spatial]) + out


def _max_unpool(xp, self, indices, spatial, output_size, name):
    _check(indices.dtype == np.int64, "elements in indices should be type int64 but got: "
           + _CPP_NAMES.get(indices.dtype, str(indices.dtype)))
    shape = _unpool_shape(self, indices, spatial, output_size, name)
    planes = int(np.prod(shape[:-spatial]))
    plane = int(np.prod(shape[-spatial:]))
    out = xp.zeros((planes, plane), self.dtype)
    flat = indices.reshape(planes, -1)
    if flat.size:
        bad = (flat < 0) | (flat >= plane)
        _check(not bad.any(), lambda: (
            f"Found an invalid max index: {int(flat[bad][0])} (output volumes are of size "
            f"{'x'.join(map(str, shape[-spatial:]))}"))
        # Repeated indices: the last value written stays, as in PyTorch's CPU loop.
        out[np.arange(planes)[:, None], flat] = self.reshape(planes, -1)
    return out.reshape(shape)


def _unpool_grad(spatial):
    def formula(c):
        return gather_planes(c.grad, c.indices, spatial)
    return formula


@register_op("max_unpool2d(Tensor self, Tensor indices, SymInt[2] output_size) -> Tensor",
             function=False, method=False, saves=("indices",),
             meta=lambda self, indices, output_size: (
                 _unpool_shape(self, indices, 2, output_size, "max_unpool2d"), self._dtype),
             derivatives={"self": _unpool_grad(2), "indices": lambda c: None})
def max_unpool2d(xp, self, indices, output_size):
    """max_unpool2d(input, indices, output_size) -> Tensor: zeros of output_size with each
    input value put back at its flat plane position `indices` (max_pool2d's inverse)."""
    return _max_unpool(xp, self, indices, 2, output_size, "max_unpool2d")


@register_op("max_unpool3d(Tensor self, Tensor indices, SymInt[3] output_size, int[3] stride, "
             "int[3] padding) -> Tensor", function=False, method=False, saves=("indices",),
             meta=lambda self, indices, output_size, stride, padding: (
                 _unpool_shape(self, indices, 3, output_size, "max_unpool3d"), self._dtype),
             derivatives={"self": _unpool_grad(3), "indices": lambda c: None})
def max_unpool3d(xp, self, indices, output_size, stride, padding):
    """max_unpool3d(input, indices, output_size, stride, padding) -> Tensor: max_unpool2d in
    three spatial dims."""
    return _max_unpool(xp, self, indices, 3, output_size, "max_unpool3d")
