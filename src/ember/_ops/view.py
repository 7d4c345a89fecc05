"""View ops: results share the input's storage (see NOTE [views share one version counter]).

Kernels return views of their input array and never copy; the dispatcher (kind="view") makes
the result share the base's storage. On the meta device the same kernels run on a zero-stride
stand-in array to find the result's shape. An op tagged "maybe_view" (reshape) returns a view
when the layout allows it and a fresh copy otherwise.
"""
from __future__ import annotations

import math

from ember._core.checks import _check
from ember._core.registry import register_op
from ember._core.shape import wrap_dim, wrap_dims


def infer_size(shape, numel: int) -> tuple:
    """Resolve one -1 in `shape` so that it holds `numel` elements (PyTorch's messages)."""
    shape = tuple(int(s) for s in shape)
    infer_at = None
    known = 1
    for i, s in enumerate(shape):
        if s == -1:
            _check(infer_at is None, "only one dimension can be inferred")
            infer_at = i
        else:
            _check(s >= 0, lambda: f"invalid shape dimension {s}")
            known *= s
    if infer_at is not None:
        _check(known != 0 and numel % known == 0, lambda: (
            f"shape '{list(shape)}' is invalid for input of size {numel}"))
        return shape[:infer_at] + (numel // known,) + shape[infer_at + 1:]
    _check(known == numel, lambda: f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape


@register_op("view(Tensor(a) self, SymInt[] size) -> Tensor(a)", kind="view")
def view(xp, self, size):
    """view(*shape) -> Tensor: the same data with another shape (no copy; may raise)."""
    shape = infer_size(size, self.size)
    try:
        return xp.reshape(self, shape, copy=False)
    except ValueError:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
        ) from None


@register_op("reshape(Tensor(a) self, SymInt[] shape) -> Tensor(a)", kind="view",
             tags=("maybe_view",))
def reshape(xp, self, shape):
    """reshape(input, shape) -> Tensor: a view when possible, else a copy."""
    return xp.reshape(self, infer_size(shape, self.size))


@register_op("transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)", kind="view",
             aliases=("swapaxes", "swapdims"))
def transpose(xp, self, dim0, dim1):
    """transpose(input, dim0, dim1) -> Tensor: swap two dimensions (a view)."""
    return xp.swapaxes(self, wrap_dim(dim0, self.ndim), wrap_dim(dim1, self.ndim))


@register_op("permute(Tensor(a) self, int[] dims) -> Tensor(a)", kind="view")
def permute(xp, self, dims):
    """permute(input, dims) -> Tensor: reorder the dimensions (a view)."""
    _check(len(dims) == self.ndim, lambda: (
        f"permute(sparse_coo): number of dimensions in the tensor input does not match the "
        f"length of the desired ordering of dimensions i.e. input.dim() = {self.ndim} is not "
        f"equal to len(dims) = {len(dims)}"))
    return xp.transpose(self, wrap_dims(dims, self.ndim))


@register_op("expand(Tensor(a) self, SymInt[] size, *, bool implicit=False) -> Tensor(a)",
             kind="view")
def expand(xp, self, size, implicit=False):
    """expand(*sizes) -> Tensor: broadcast singleton dimensions to `sizes` (a view)."""
    size = tuple(int(s) for s in size)
    _check(len(size) >= self.ndim, lambda: (
        f"expand(torch.FloatTensor{{{list(self.shape)}}}, size={list(size)}): the number of "
        f"sizes provided ({len(size)}) must be greater or equal to the number of dimensions in "
        f"the tensor ({self.ndim})"))
    lead = len(size) - self.ndim
    target = []
    for i, s in enumerate(size):
        if i < lead:
            _check(s >= 0, lambda: f"The expanded size of the tensor ({s}) isn't allowed in a "
                                   "leading, non-existing dimension {i}")
            target.append(s)
            continue
        current = self.shape[i - lead]
        if s == -1:
            s = current
        _check(current == s or current == 1, lambda: (
            f"The expanded size of the tensor ({s}) must match the existing size ({current}) "
            f"at non-singleton dimension {i}.  Target sizes: {list(size)}.  Tensor sizes: "
            f"{list(self.shape)}"))
        target.append(s)
    return xp.broadcast_to(self, tuple(target))


@register_op("unsqueeze(Tensor(a) self, int dim) -> Tensor(a)", kind="view")
def unsqueeze(xp, self, dim):
    """unsqueeze(input, dim) -> Tensor: insert a size-1 dimension at `dim` (a view)."""
    return xp.expand_dims(self, wrap_dim(dim, self.ndim + 1))


@register_op("flatten.using_ints(Tensor(a) self, int start_dim=0, int end_dim=-1) -> Tensor(a)",
             kind="view", tags=("maybe_view",))
def flatten(xp, self, start_dim=0, end_dim=-1):
    """flatten(input, start_dim=0, end_dim=-1) -> Tensor: merge a range of dims into one."""
    if self.ndim == 0:
        return xp.reshape(self, (1,))
    start, end = wrap_dim(start_dim, self.ndim), wrap_dim(end_dim, self.ndim)
    _check(start <= end, "flatten() has invalid args: start_dim cannot come after end_dim")
    shape = self.shape[:start] + (math.prod(self.shape[start:end + 1]),) + self.shape[end + 1:]
    return xp.reshape(self, shape)
