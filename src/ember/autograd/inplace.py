"""In-place ops under autograd, including writes through a view.

An in-place op runs out of place on self's old value; the result is written into self's memory
and self's history becomes the new node. When self is a view, the write changes its base too:

NOTE [in-place through a view]: after `view.op_(...)` the base gets a `CopySlices` node. Its
backward takes the base's gradient, hands the part under the view to the op's node, writes what
that node returns for the view's old value back into the same place, and sends the result to
the base's previous history; the op's other inputs get their gradients as usual. The view
itself gets an `AsStridedBackward0` node reading its elements out of the base's new history.
Where a view sits in its base is kept as the base-flat positions of its elements, so any
strided view works (narrow, select, diagonal, transpose ...).

Other views of the same base made before the write are rebuilt the same way when next used
(NOTE [stale views] in graph.py).
"""
from __future__ import annotations

import numpy as np

from ember._core import arguments, dispatch
from ember._core.checks import _check
from ember._core.registry import OPS
from ember.autograd import graph
from ember.autograd.graph import Node, edge_of


def record_inplace(op, args):
    """Run in-place `op` on args[0] with autograd (the dispatcher calls this)."""
    self = args[0]
    if self._requires_grad and self._grad_fn is None:
        # (PyTorch's parser refused a bad argument before autograd looks: NOTE [the parser's
        # errors come first])
        arguments.parser_error(op, args, op.schema.name + "_", True)
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation.")
    base = self._base
    _check(base is None or not (base._requires_grad and base._grad_fn is None),
           "a view of a leaf Variable that requires grad is being used in an in-place "
           "operation.")
    old = self
    if op.saves is None or "self" in op.saves:
        # The formulas read self's value from before the write: give them a copy of it.
        old = dispatch.wrap(self._data.copy(), self._dtype, self._device)
        old._grad_fn = self._grad_fn
        old._requires_grad = self._requires_grad
        if "_output_nr" in self.__dict__:
            old.__dict__["_output_nr"] = self.__dict__["_output_nr"]
    result = dispatch.call(op, (old,) + tuple(args[1:]))
    dispatch.write_inplace(op, self, result)
    fn = result._grad_fn
    if fn is None:
        return self
    if base is None:
        self._grad_fn = fn
        self._requires_grad = True
        self.__dict__.pop("_output_nr", None)
        return self
    rebase_view(self, base, fn)
    return self


def rebase_view(view, base, fn):
    """Make `base`'s history a CopySlices of `fn` (which wrote `view`) and `view`'s history a
    read of the base (see NOTE [in-place through a view])."""
    positions = view_positions(view, base)
    copy = CopySlices(fn, positions, tuple(base._data.shape))
    copy.next_functions = ((edge_of(base) if base._requires_grad else None),) + \
        tuple(fn.next_functions[1:])
    base._grad_fn = copy
    base._requires_grad = True
    base.__dict__.pop("_output_nr", None)
    read = AsStridedBackward0(positions, tuple(base._data.shape))
    read.next_functions = ((copy, 0),)
    view._grad_fn = read
    view._requires_grad = True
    view.__dict__.pop("_output_nr", None)
    view.__dict__["_view_version"] = view._version


def refresh_view(view) -> None:
    """Rebuild a stale view's history from its base's (see NOTE [stale views] in graph.py)."""
    base = view._base
    if base._requires_grad:
        read = AsStridedBackward0(view_positions(view, base), tuple(base._data.shape))
        read.next_functions = (edge_of(base),)
        view._grad_fn = read
        view._requires_grad = True
        view.__dict__.pop("_output_nr", None)
    view.__dict__["_view_version"] = view._version


def view_positions(view, base):
    """For each element of `view`, its position in `base` read in row-major order (int64
    array of view's shape)."""
    base_address = _addresses(base)
    view_address = _addresses(view)
    flat = base_address.reshape(-1)
    order = np.argsort(flat, kind="stable")
    found = order[np.searchsorted(flat, view_address.reshape(-1), sorter=order)]
    return found.reshape(view_address.shape).astype(np.int64)


def _addresses(t):
    """Storage offsets (in elements) of every element of `t`."""
    address = np.full(tuple(t.shape), t.storage_offset(), dtype=np.int64)
    for d, (size, stride) in enumerate(zip(t.shape, t.stride())):
        shape = [1] * len(t.shape)
        shape[d] = size
        address = address + (np.arange(size, dtype=np.int64) * stride).reshape(shape)
    return address


def _index_tensor(positions, like):
    t = dispatch.wrap_array(positions.reshape(-1))
    return t if like._device is t._device else t.to(like._device)


class CopySlices(Node):
    """The base's history after an in-place write through one of its views."""

    __slots__ = ("fn", "positions", "base_shape")

    def __init__(self, fn, positions, base_shape):
        super().__init__()
        self.fn = fn
        self.positions = positions
        self.base_shape = base_shape

    def name(self) -> str:
        return "torch::autograd::CopySlices"

    def apply(self, grad_outputs):
        grad = grad_outputs[0]
        index = _index_tensor(self.positions, grad)
        flat = grad.reshape(-1)
        view_grad = flat.take(index).reshape(self.positions.shape)
        results = list(self.fn.apply([view_grad]))
        written = results[0]
        if written is None:
            written = view_grad.new_zeros(view_grad.shape)
        flat = dispatch.call(OPS["index_put"], (flat, [index], written.reshape(-1), False))
        return [flat.reshape(self.base_shape)] + results[1:]

    def release(self) -> None:
        self.fn.release()


class AsStridedBackward0(Node):
    """A view's history after an in-place write through it: its elements, read off the base."""

    __slots__ = ("positions", "base_shape")

    def __init__(self, positions, base_shape):
        super().__init__()
        self.positions = positions
        self.base_shape = base_shape

    def apply(self, grad_outputs):
        grad = grad_outputs[0]
        index = _index_tensor(self.positions, grad)
        zeros = grad.new_zeros((int(np.prod(self.base_shape, dtype=np.int64)),))
        flat = dispatch.call(OPS["index_put"], (zeros, [index], grad.reshape(-1), True))
        return [flat.reshape(self.base_shape)]


dispatch.state.record_inplace = record_inplace
graph.refresh_view = refresh_view
