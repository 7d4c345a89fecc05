"""Lowerings of view ops: index maps over a value, or strided aliases of a buffer."""
from __future__ import annotations

from ember._inductor.ir import (
    BufferRead,
    TensorBox,
    View,
    contiguous_strides,
    drop_map,
    expand_map,
    permute_map,
    reshape_map,
    select_map,
    slice_map,
    squeeze_insert_map,
)
from ember._inductor.lowerings import _val, register
from ember._inductor.sizes import symbolic


def view(box, shape, index_map, strides_of=None, node=None):
    """`box` read through `index_map`; a buffer read becomes a strided alias when
    `strides_of(strides) -> (strides, offset)` is given (no index arithmetic in the loop)."""
    data = box.data
    eager = (node, box) if node is not None else None
    if type(data) is BufferRead and strides_of is not None:
        buf = data.buffer
        found = strides_of(buf.shape, buf.strides)
        if found is not None:
            strides, offset = found
            return TensorBox(BufferRead(buf.alias(shape, strides, buf.offset + offset)), eager)
    return TensorBox(View(box, shape, index_map), eager)


def permute(box, dims, node=None):
    dims = [d % len(box.shape) for d in dims]
    shape = tuple(box.shape[d] for d in dims)
    return view(box, shape, permute_map(dims),
                lambda _, st: (tuple(st[d] for d in dims), 0), node)


def expand(box, shape, node=None):
    shape = tuple(s if s != -1 else box.shape[i - (len(shape) - len(box.shape))]
                  for i, s in enumerate(shape))
    # a kept dim keeps its size's C name (NOTE [symbolic sizes in kernels])
    lead = len(shape) - len(box.shape)
    shape = symbolic(tuple(box.shape[i - lead] if i >= lead and s == box.shape[i - lead]
                           else s for i, s in enumerate(shape)))
    if shape == box.shape:
        return box
    offset = len(shape) - len(box.shape)

    def strides_of(old_shape, st):
        return (tuple(0 if i < offset or (old_shape[i - offset] == 1 and s != 1)
                      else st[i - offset] for i, s in enumerate(shape)), 0)
    return view(box, shape, expand_map(box.shape, shape), strides_of, node)


def reshape(box, shape, node=None):
    shape = symbolic(shape)      # NOTE [symbolic sizes in kernels]
    if shape == box.shape:
        return box

    def strides_of(old_shape, st):
        if st != contiguous_strides(old_shape):
            return None
        return contiguous_strides(shape), 0
    return view(box, shape, reshape_map(box.shape, shape), strides_of, node)


def unsqueeze(box, dim, node=None):
    dim = dim % (len(box.shape) + 1)
    shape = box.shape[:dim] + (1,) + box.shape[dim:]
    return view(box, shape, drop_map({dim}),
                lambda _, st: (st[:dim] + (0,) + st[dim:], 0), node)


def squeeze(box, dims, node=None):
    ndim = len(box.shape)
    dims = {d % ndim for d in dims if box.shape[d % ndim] == 1} if ndim else set()
    if not dims:
        return box
    shape = tuple(s for i, s in enumerate(box.shape) if i not in dims)
    return view(box, shape, squeeze_insert_map(dims, ndim),
                lambda _, st: (tuple(s for i, s in enumerate(st) if i not in dims), 0), node)


@register("permute.default")
def _permute(g, node, x, dims):
    return permute(x, dims, node)


@register("t.default")
def _t(g, node, x):
    return permute(x, list(reversed(range(len(x.shape)))), node)


@register("transpose.int")
def _transpose(g, node, x, dim0, dim1):
    dims = list(range(len(x.shape)))
    if dims:
        dims[dim0], dims[dim1] = dims[dim1], dims[dim0]
    return permute(x, dims, node)


@register("expand.default")
def _expand(g, node, x, size, implicit=False):
    return expand(x, _val(node)[0], node)


@register("view.default", "_unsafe_view.default", "reshape.default")
def _view(g, node, x, size):
    return reshape(x, _val(node)[0], node)


@register("unsqueeze.default")
def _unsqueeze(g, node, x, dim):
    return unsqueeze(x, dim, node)


@register("squeeze.dim")
def _squeeze_dim(g, node, x, dim):
    return squeeze(x, [dim], node)


@register("squeeze.dims")
def _squeeze_dims(g, node, x, dims):
    return squeeze(x, dims, node)


@register("squeeze.default")
def _squeeze(g, node, x):
    return squeeze(x, range(len(x.shape)), node)


@register("slice.Tensor")
def _slice(g, node, x, dim=0, start=None, end=None, step=1):
    shape = _val(node)[0]
    dim = dim % len(x.shape)
    size = x.shape[dim]
    start = 0 if start is None else (start + size if start < 0 else start)
    start = min(max(start, 0), size)
    return view(x, shape, slice_map(dim, start, step),
                lambda _, st: (st[:dim] + (st[dim] * step,) + st[dim + 1:], start * st[dim]),
                node)


@register("select.int")
def _select(g, node, x, dim, index):
    dim = dim % len(x.shape)
    index = index + x.shape[dim] if index < 0 else index
    return view(x, _val(node)[0], select_map(dim, index),
                lambda _, st: (st[:dim] + st[dim + 1:], index * st[dim]), node)


@register("alias.default", "detach.default", "lift_fresh_copy.default")
def _alias(g, node, x):
    return x


@register("clone.default")
def _clone(g, node, x, memory_format=None):
    return x
