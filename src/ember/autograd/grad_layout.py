"""How a leaf's `.grad` is stored: the first gradient, and the ones that add to it.

NOTE [the gradient layout contract]: as in PyTorch, a leaf's first gradient is stored densely
with the leaf's own strides when the leaf is dense and non-overlapping (row-major otherwise),
never as an expanded or aliased view: optimizers, `zero_grad(set_to_none=False)`,
`clip_grad_norm_` and gradient buckets all write into `.grad`. Later gradients are added into
the same `.grad` in place (it stays the same object at the same address), except under
`create_graph`, where the sum is a new tensor with history.

NOTE [stealing gradients]: the engine's gradient for a leaf is usually a fresh tensor nobody
else holds; then it becomes `.grad` without a copy. "Nobody else" is read off reference counts,
as PyTorch reads `use_count()`: the Tensor object must be referenced only by the accumulating
call, and its array only by the Tensor. A gradient that another leaf, a retained non-leaf, a
hook or the user may still hold is copied. The counts a sole owner shows are measured through
the same calls (`_sole_tensor()`, `_SOLE_ARRAY`), so no interpreter detail is assumed. The
tensor's is measured at each use: while another library's compiler has a PEP 523 frame hook
installed (PyTorch's dynamo, in a process that ran torch.compile), CPython calls Python
functions through a path that keeps one more reference to each argument.
"""
from __future__ import annotations

import sys

import numpy as np

from ember._core import dispatch
from ember._core.device import CPU
from ember._core.dispatch.subclasses import OVERRIDING
from ember.autograd.grad_mode import _state as _modes

_ndarray = np.ndarray


def _refs_in_callee(obj) -> int:
    return sys.getrefcount(obj)


def _array_refs(t) -> int:
    return sys.getrefcount(t._data)


class _Probe:
    __slots__ = ("_data",)


def _sole_tensor() -> int:
    """What `sys.getrefcount(grad)` reads inside `engine._accumulate` when the engine handed
    the gradient over as a temporary (a call of the same shape, now)."""
    return _refs_in_callee(object())


# What `_array_refs` reads for an array only its Tensor holds.
_probe = _Probe()
_probe._data = np.empty(1)
_SOLE_ARRAY = _array_refs(_probe)
del _probe


def _dense_strides(array) -> bool:
    """Whether `array` is non-overlapping and dense (a permutation of a contiguous layout)."""
    if array.size <= 1:
        return True
    expected = array.itemsize
    for size, stride in sorted(zip(array.shape, array.strides), key=lambda p: abs(p[1])):
        if size == 1:
            continue
        if stride != expected:
            return False
        expected *= size
    return True


def _obeys_layout(grad_array, variable_array) -> bool:
    if grad_array.strides == variable_array.strides and variable_array.flags.c_contiguous:
        return True         # (the common case: a row-major leaf is dense, its strides match)
    if _dense_strides(variable_array):
        return grad_array.strides == variable_array.strides or grad_array.size <= 1
    return grad_array.flags.c_contiguous


def _fits(grad, variable, data) -> bool:
    """A gradient `variable.grad` may be as it is: no history, the leaf's dtype, device and
    shape, laid out as NOTE [the gradient layout contract] says (`data`: its NumPy array)."""
    return (grad._grad_fn is None and not grad._requires_grad
            and grad._dtype is variable._dtype and grad._device is variable._device
            and data.shape == variable._data.shape
            and (_obeys_layout(data, variable._data) or not _modes.grad_layout_enforced))


def can_steal(grad, variable, refcount: int) -> bool:
    """Whether `grad` may become `variable.grad` as it is (NOTE [stealing gradients])."""
    if refcount > _sole_tensor() or _array_refs(grad) > _SOLE_ARRAY:
        return False
    data = grad._data
    return (type(data) is _ndarray and grad._base is None and grad._storage is None
            and data.flags.writeable and _fits(grad, variable, data))


def can_alias(grad, variable, refcount: int) -> bool:
    """Under a mode: whether the leaf takes `grad` as a detached alias, as PyTorch's
    AccumulateGrad does for a gradient only the engine holds, a view of another gradient
    included (`can_steal` asks more of the plain path, where the alias would be a raw
    array's)."""
    data = grad._data
    return refcount <= _sole_tensor() and type(data) is _ndarray and \
        _fits(grad, variable, data)


def copy_obeying_layout(grad, variable, create_graph: bool):
    """A copy of `grad` laid out as NOTE [the gradient layout contract] says."""
    target = variable._data
    if hasattr(target, "layout_name") or hasattr(grad._data, "layout_name"):
        return _sparse_copy(grad, create_graph)
    if type(grad) in OVERRIDING:
        # A subclass with its own dispatch (a wrapper or fake tensor): its clone is its
        # business; a row-major variable gets a row-major gradient (a fake tensor's clone
        # keeps the layout the gradient was computed in).
        fmt = None
        if variable.is_contiguous() and not grad.is_contiguous():
            from ember._core.layout import contiguous_format as fmt
        if create_graph:
            return grad.clone(memory_format=fmt)
        from ember.autograd.grad_mode import no_grad
        with no_grad():
            return grad.clone(memory_format=fmt)
    if create_graph or grad._device is not CPU or type(target) is not _ndarray:
        from ember._ops.creation_ranges import empty_strided
        strides = variable.stride() if _dense_strides(target) else None
        if strides is None:
            out = grad.new_empty(tuple(target.shape))
        else:
            out = empty_strided(tuple(target.shape), strides, dtype=variable._dtype,
                                device=variable._device)
        if create_graph:
            return out.copy_(grad)
        from ember.autograd.grad_mode import no_grad
        with no_grad():
            out.copy_(grad.detach())
        return out
    order = "K" if _dense_strides(target) else "C"
    array = np.empty_like(target, order=order)
    np.copyto(array, grad._data, casting="unsafe")
    return dispatch.wrap(array, variable._dtype, CPU)


def _sparse_copy(grad, create_graph):
    """NOTE [sparse layout]: a sparse leaf keeps the gradient's own layout, as PyTorch's does
    (dense from `mm`, sparse from `sparse.mm`); only copied, never re-laid out."""
    if create_graph:
        return grad.clone()
    from ember.autograd.grad_mode import no_grad
    with no_grad():
        return grad.detach().clone()


def add_in_place(current, grad) -> None:
    """current += grad, in place, without history (the accumulation of a later gradient)."""
    data = current._data
    if hasattr(data, "layout_name") or hasattr(grad._data, "layout_name"):
        _add_sparse_in_place(current, grad)
        return
    if type(data) is _ndarray and current._device is CPU and data.flags.writeable \
            and (0 not in data.strides or data.size <= 1) and not dispatch.modes.dispatch_modes:
        np.add(data, grad._data, out=data, casting="unsafe")
        dispatch.bump_version(current)
        return
    from ember.autograd.grad_mode import no_grad
    with no_grad():       # (a mode sees PyTorch's AccumulateGrad: one `add_.Tensor`)
        current.add_(grad)


def _add_sparse_in_place(current, grad) -> None:
    """current += grad where either is sparse: a sparse sum replaces a sparse `current`'s
    components (NOTE [sparse layout]); a dense `current` takes the sparse entries in place."""
    from ember.autograd.grad_mode import no_grad
    with no_grad():
        if hasattr(current._data, "layout_name"):
            total = grad.detach() + current if not hasattr(grad._data, "layout_name") \
                else current + grad.detach()
            if hasattr(total._data, "layout_name"):
                current._data = total._data
                dispatch.bump_version(current)
                return
            raise RuntimeError("a dense gradient can't accumulate into a sparse .grad in place")
        current.add_(grad.detach().to_dense())
