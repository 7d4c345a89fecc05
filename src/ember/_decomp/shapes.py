"""Decompositions of shape ops into views (view, permute, slice, select, expand), cat, flip and
where; those of PyTorch's CompositeImplicit ones (hstack, tile ...) also run under modes."""
from __future__ import annotations

from ember._decomp.composite import composite
from ember._decomp.registry import decomposes
from ember.ops import aten


@decomposes(aten.t.default)
def t(self):
    if self.ndim < 2:
        return aten.alias.default(self)
    return aten.transpose.int(self, 0, 1)


@decomposes(aten.transpose.int)
def transpose(self, dim0, dim1):
    ndim = max(self.ndim, 1)
    order = list(range(self.ndim))
    if self.ndim:
        a, b = dim0 % ndim, dim1 % ndim
        order[a], order[b] = order[b], order[a]
    return aten.permute.default(self, order)


@decomposes(aten.squeeze.default)
def squeeze(self):
    return aten.view.default(self, [s for s in self.shape if s != 1])


def _squeeze_dims(self, dims):
    ndim = max(self.ndim, 1)
    drop = {d % ndim for d in dims}
    return aten.view.default(self, [s for i, s in enumerate(self.shape)
                                    if not (i in drop and s == 1)])


@decomposes(aten.squeeze.dim)
def squeeze_dim(self, dim):
    return _squeeze_dims(self, [dim])


@decomposes(aten.squeeze.dims, core=False)
def squeeze_dims(self, dim):
    return _squeeze_dims(self, list(dim))


@decomposes(aten.split.Tensor)
def split(self, split_size, dim=0):
    size = self.shape[dim]
    starts = range(0, size, split_size) if size else [0]
    return [aten.slice.Tensor(self, dim, start, min(start + split_size, size))
            for start in starts]


@decomposes(aten.unbind.int)
def unbind(self, dim=0):
    return [aten.select.int(self, dim, i) for i in range(self.shape[dim])]


@decomposes(aten.stack.default)
def stack(tensors, dim=0):
    ndim = tensors[0].ndim + 1
    return aten.cat.default([aten.unsqueeze.default(t, dim % ndim) for t in tensors],
                            dim % ndim)


def _at_least(t, ndim):
    """atleast_1d/2d/3d as PyTorch's composites do it (a 0-d tensor is reshaped, a 1-d one
    unsqueezed), so a mode sees the same ops."""
    if t.ndim >= ndim:
        return t
    if t.ndim == 0:
        return aten.view.default(t, [1] * ndim)
    if ndim == 2:
        return aten.unsqueeze.default(t, 0)
    if t.ndim == 1:
        return aten.unsqueeze.default(aten.unsqueeze.default(t, 0), -1)
    return aten.unsqueeze.default(t, -1)


@composite(aten.hstack.default, core=True)
def hstack(tensors):
    parts = [_at_least(t, 1) for t in tensors]
    return aten.cat.default(parts, 0 if parts[0].ndim == 1 else 1)


@composite(aten.vstack.default, core=True)
def vstack(tensors):
    return aten.cat.default([_at_least(t, 2) for t in tensors], 0)


@composite(aten.dstack.default, core=True)
def dstack(tensors):
    return aten.cat.default([_at_least(t, 3) for t in tensors], 2)


@composite(aten.column_stack.default, core=True)
def column_stack(tensors):
    parts = [aten.view.default(t, [t.numel(), 1]) if t.ndim <= 1 else t for t in tensors]
    return aten.cat.default(parts, 1)


@composite(aten.fliplr.default, core=True)
def fliplr(self):
    return aten.flip.default(self, [1])


@composite(aten.flipud.default, core=True)
def flipud(self):
    return aten.flip.default(self, [0])


@composite(aten.tile.default, core=True)
def tile(self, dims):
    dims = list(dims)
    if len(dims) < self.ndim:
        dims = [1] * (self.ndim - len(dims)) + dims
    return aten.repeat.default(self, dims)


@decomposes(aten.roll.default)
def roll(self, shifts, dims=()):
    shifts = [shifts] if isinstance(shifts, int) else list(shifts)
    dims = [dims] if isinstance(dims, int) else list(dims)
    if self.numel() == 0:        # (an empty tensor's dims are not checked: _ops/shape.py)
        return aten.clone.default(self)
    if not dims:
        flat = aten.reshape.default(self, [-1])
        return aten.view.default(roll(flat, shifts, [0]), list(self.shape))
    out = self
    for shift, dim in zip(shifts, dims):
        size = out.shape[dim]
        if size == 0:
            continue
        start = (size - shift % size) % size
        head = aten.slice.Tensor(out, dim, start, size)
        tail = aten.slice.Tensor(out, dim, 0, start)
        out = aten.cat.default([head, tail], dim)
    return out


@decomposes(aten.rot90.default)
def rot90(self, k=1, dims=(0, 1)):
    a, b = dims
    k %= 4
    if k == 1:
        return aten.transpose.int(aten.flip.default(self, [b]), a, b)
    if k == 2:
        return aten.flip.default(self, [a, b])
    if k == 3:
        return aten.flip.default(aten.transpose.int(self, a, b), [b])
    return aten.clone.default(self)


def _triangle_mask(self, diagonal, lower):
    rows, cols = self.shape[-2], self.shape[-1]
    row = aten.unsqueeze.default(aten.arange.start_step(0, rows, 1, device=self.device), -1)
    col = aten.arange.start_step(0, cols, 1, device=self.device)
    offset = aten.sub.Tensor(col, row)
    return aten.le.Tensor(offset, diagonal) if lower else aten.ge.Tensor(offset, diagonal)


@decomposes(aten.tril.default)
def tril(self, diagonal=0):
    return aten.where.self(_triangle_mask(self, diagonal, True), self,
                           aten.zeros_like.default(self))


@decomposes(aten.triu.default)
def triu(self, diagonal=0):
    return aten.where.self(_triangle_mask(self, diagonal, False), self,
                           aten.zeros_like.default(self))


@decomposes(aten.take.default)
def take(self, index):
    return aten.index.Tensor(aten.reshape.default(self, [-1]), [index])


@decomposes(aten.pixel_shuffle.default)
def pixel_shuffle(self, upscale_factor):
    r = upscale_factor
    lead = list(self.shape[:-3])
    c, h, w = self.shape[-3:]
    n = len(lead)
    split = aten.view.default(self, lead + [c // (r * r), r, r, h, w])
    order = list(range(n)) + [n, n + 3, n + 1, n + 4, n + 2]
    moved = aten.permute.default(split, order)
    return aten.reshape.default(moved, lead + [c // (r * r), h * r, w * r])


@decomposes(aten.pixel_unshuffle.default)
def pixel_unshuffle(self, downscale_factor):
    r = downscale_factor
    lead = list(self.shape[:-3])
    c, h, w = self.shape[-3:]
    n = len(lead)
    split = aten.view.default(self, lead + [c, h // r, r, w // r, r])
    order = list(range(n)) + [n, n + 2, n + 4, n + 1, n + 3]
    moved = aten.permute.default(split, order)
    return aten.reshape.default(moved, lead + [c * r * r, h // r, w // r])


@decomposes(aten.channel_shuffle.default, aten.native_channel_shuffle.default)
def channel_shuffle(self, groups):
    n, c = self.shape[0], self.shape[1]
    rest = list(self.shape[2:])
    split = aten.view.default(self, [n, groups, c // groups] + rest)
    moved = aten.transpose.int(split, 1, 2)
    return aten.reshape.default(moved, [n, c] + rest)
