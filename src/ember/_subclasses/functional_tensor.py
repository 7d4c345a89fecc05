"""Functionalization: `FunctionalTensor` and `FunctionalTensorMode`, as PyTorch's
`torch._subclasses.functional_tensor`; `ember.func.functionalize` runs a function under them.

NOTE [functionalization]: inside a FunctionalTensorMode every tensor is a FunctionalTensor, a
wrapper (no array of its own) around its current value, a plain tensor. The ops a mode below
this one sees are functional only:
- an in-place op (`add_`, `copy_`, `fill_`, `index_put_`, `relu_` ...) runs as its out-of-place
  op (`add`, `copy`, `fill`, `index_put`, `relu`; the in-place form's `op`) on the values, and
  the result, cast to the tensor's dtype, becomes the tensor's new value; `out=` likewise
  (handled one level up, in `__torch_function__`, where ember's `out=` calls are seen);
- a view op gives a FunctionalTensor that shares its base's `FunctionalStorage` and remembers
  the steps (functional_views.ViewStep) from the base to itself. Writing to a view replays the
  steps on the base's value and scatters the new value back through their inverses
  (`select_scatter`, `slice_scatter`, ...; PyTorch's ops), then regenerates the view from the
  new base. That bumps the storage's generation, so every other view of the base is
  regenerated from it (its steps replayed) the next time its value is read.
With `remove="mutations_and_views"` each view op, and each replay, runs as its `*_copy` form,
so no value aliases another; with "mutations" views stay views of their base's value, as in
PyTorch (`reapply_views=True`). A mutated input's new value is copied back into it once, at
the end (`ember.func.functionalize`).
"""
from __future__ import annotations

from ember._backends.meta import MetaArray
from ember._C import DisableTorchFunctionSubclass
from ember._core.checks import _check, _check_not_implemented
from ember._core.dispatch import stack as _dispatch_stack
from ember._core.dispatch.inplace_out import InplaceOp
from ember._core.dispatch.out_forms import OutOp
from ember._core.registry import OPS, OpDef
from ember._ops.view import view_strides
from ember._subclasses import functional_views as views
from ember._tensor import Tensor
from ember.autograd import grad_mode
from ember.utils._python_dispatch import TorchDispatchMode

__all__ = ["FunctionalTensor", "FunctionalTensorMode", "mb_unwrap_functional_tensor"]


class FunctionalStorage:
    """What a base and all its views share: the base's current value and a generation that
    counts the writes to it (a view whose generation is older regenerates itself)."""

    __slots__ = ("copies", "generation", "mutated", "value")

    def __init__(self, value, copies):
        self.value = value
        self.generation = 0
        self.mutated = False
        self.copies = copies        # views replayed as their *_copy forms


class FunctionalTensor(Tensor):
    """A tensor under functionalization: its value is a plain tensor, replaced (never written)
    by in-place ops; views of it share its FunctionalStorage (NOTE [functionalization])."""

    @staticmethod
    def _wrap(value, storage, steps=()):
        t = Tensor._make_wrapper_subclass(FunctionalTensor, value.shape, dtype=value.dtype,
                                          device=value.device)
        t._fn_storage = storage
        t._fn_steps = tuple(steps)
        t._fn_set(value)
        return t

    def _fn_set(self, value, layout=True):
        # The shape and strides the tensor reports are eager's: taken from its value when it
        # is made (or reshaped: t_, resize_), kept when a write or a regeneration replaces the
        # value (a scatter's result may be laid out otherwise; eager writes keep the layout).
        self._fn_value = value
        self._fn_generation = self._fn_storage.generation
        if layout:
            data = value._data
            self._data = MetaArray(tuple(data.shape), data.dtype,
                                   getattr(data, "strides", None))

    @property
    def elem(self):
        """The current value, a plain tensor (regenerated from the base when it is stale)."""
        return self._fn_sync()

    @staticmethod
    def to_functional(x):
        """`x` (a plain tensor) wrapped by the innermost FunctionalTensorMode open."""
        modes = [m for m in _dispatch_stack.modes.dispatch_modes
                 if isinstance(m, FunctionalTensorMode)]
        _check(bool(modes), "FunctionalTensor.to_functional: no FunctionalTensorMode is open")
        return modes[-1].wrap(x)

    def from_functional(self):
        """The current value (a plain tensor)."""
        return self._fn_sync()

    def _fn_sync(self):
        storage = self._fn_storage
        if self._fn_generation != storage.generation:
            with _BelowFunctionalization():
                value = storage.value
                for step in self._fn_steps:
                    value = step.replay(value, storage.copies)
            self._fn_set(value, layout=False)
        return self._fn_value

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if kwargs.get("out") is not None:
            return _call_with_out(func, args, kwargs)
        if func in _READS_VALUES:
            return func(*[_unwrap(a) for a in args], **kwargs)
        if func is _GETITEM:        # index tensors are read (masks, lists): their values
            args = (args[0], _plain_index(args[1]))
        name = getattr(func, "__name__", "")
        _check_not_implemented(
            not (name.endswith("_") and not name.endswith("__") and args
                 and type(args[0]) is FunctionalTensor and args[0]._requires_grad
                 and grad_mode.is_grad_enabled()),
            lambda: f"functionalization: in-place {name} on a FunctionalTensor that requires "
                    "grad (a transform such as grad inside functionalize) is not supported")
        with DisableTorchFunctionSubclass():
            return func(*args, **kwargs)

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        raise RuntimeError("Attempting to use FunctionalTensor on its own. Instead, please use "
                           "it with a corresponding FunctionalTensorMode()")

    def __setitem__(self, index, value):
        # PyTorch's setitem: the indexed view, then copy_ into it (a number lifted to a
        # tensor first); advanced indices go through index_put_.
        index = _plain_index(index)
        if _basic_index(index):
            if not isinstance(value, Tensor):
                from ember._ops.creation_data import tensor
                value = tensor(value)
            self[index].copy_(value)
            return
        from ember._ops.indexing import _setitem_with_grad
        _setitem_with_grad(self, index, value)

    # The in-place view ops (t_, squeeze_ ...) give a tensor the view's shape and strides: a
    # FunctionalTensor becomes that view of its base (its steps and value).
    def _become(self, view):
        self._fn_steps = view._fn_steps
        self._fn_set(view.elem, layout=False)
        self._data = view._data
        return self

    def t_(self):
        return self._become(Tensor.t(self))

    def transpose_(self, dim0, dim1):
        return self._become(Tensor.transpose(self, dim0, dim1))

    swapaxes_ = swapdims_ = transpose_

    def squeeze_(self, *dim):
        return self._become(Tensor.squeeze(self, *dim))

    def unsqueeze_(self, dim):
        return self._become(Tensor.unsqueeze(self, dim))

    def as_strided(self, size, stride, storage_offset=None):
        # ember's as_strided op reads a flat storage (its frontend flattens the real one); a
        # FunctionalTensor's storage is its base's value, flattened here by a view.
        _check_not_implemented(not self._fn_steps and self.is_contiguous(), (
            "functionalization: as_strided of a view or of a non-contiguous tensor"))
        flat = self if self.ndim == 1 else self.view(-1)
        return OPS["as_strided"](flat, size, stride, storage_offset)

    def as_strided_(self, size, stride, storage_offset=None):
        return self._become(self.as_strided(size, stride, storage_offset))

    def resize_(self, *sizes, memory_format=None):
        """The first elements of the value (then uninitialized ones) in the new shape."""
        sizes = tuple(sizes[0]) if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)) \
            else sizes
        _check_not_implemented(not self._fn_steps, "functionalization: resize_ of a view")
        count = 1
        for size in sizes:
            count *= size
        with _BelowFunctionalization():
            flat = self.elem.reshape(-1)
            if count > flat.numel():
                flat = OPS["cat"]([flat, flat.new_empty(count - flat.numel())])
            new = flat[:count].view(sizes).clone()
        storage = self._fn_storage
        storage.value = new
        storage.generation += 1
        storage.mutated = True
        self._fn_set(new)
        return self

    def storage_offset(self) -> int:
        return self.elem.storage_offset()

    def __repr__(self, *, tensor_contents=None) -> str:
        return f"FunctionalTensor({self.elem!r})"


def _plain_index(index):
    if isinstance(index, tuple):
        return tuple(_unwrap(item) for item in index)
    return _unwrap(index)


def _basic_index(index) -> bool:
    items = index if isinstance(index, tuple) else (index,)
    return all(item is None or item is Ellipsis or type(item) in (int, slice)
               for item in items)


# Tensor methods that read values (not tensors): answered from the current value.
_READS_VALUES = frozenset((Tensor.tolist, Tensor.item, Tensor.numpy, Tensor.__bool__,
                           Tensor.__float__, Tensor.__int__, Tensor.__array__))


_GETITEM = Tensor.__getitem__
# Views that copy when the layout can't be viewed (decided from the tensor's strides, which
# are its value's: eager's in "mutations", the *_copy results' in "mutations_and_views").
_MAY_COPY = frozenset(("reshape", "reshape_as", "flatten", "ravel"))


class _BelowFunctionalization:
    """Within it, ops go to the dispatch modes below functionalization: the regenerations and
    write-backs functionalization itself runs (in `__torch_dispatch__` the mode is already
    off the stack; from `__torch_function__`, `tolist` or `out=`, it is taken off here)."""

    def __enter__(self):
        stack = _dispatch_stack.modes.dispatch_modes
        self.taken = [(k, m) for k, m in enumerate(stack) if isinstance(m, FunctionalTensorMode)]
        for k, _ in reversed(self.taken):
            del stack[k]

    def __exit__(self, *exc):
        stack = _dispatch_stack.modes.dispatch_modes
        for k, mode in self.taken:
            stack.insert(k, mode)
        return False


def _unwrap(value):
    if type(value) is FunctionalTensor:
        return value.elem
    if type(value) in (list, tuple):
        return type(value)(_unwrap(v) for v in value)
    if type(value) is dict:
        return {k: _unwrap(v) for k, v in value.items()}
    return value


# --------------------------------------------------------------------------- the mode

class FunctionalTensorMode(TorchDispatchMode):
    """Inside `with FunctionalTensorMode(remove=...)`, ops on FunctionalTensors run
    functionalized (NOTE [functionalization]); the modes below see functional ops only."""

    # The composites (reshape, flatten ...) arrive whole (NOTE [composites decompose under
    # modes]): their decompositions choose view or copy from the FunctionalTensor's strides,
    # which after a write need not be its value's, and a view that does not fit would fail.
    _sees_composites = True

    def __init__(self, pre_dispatch=False, export=False, _allow_token_discovery=False, *,
                 remove="mutations"):
        super().__init__()
        self.copies = remove == "mutations_and_views"

    def wrap(self, value):
        """A FunctionalTensor whose value is `value` (a plain tensor), its own base."""
        return FunctionalTensor._wrap(value, FunctionalStorage(value, self.copies))

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        # The functional ops run through autograd again: values that require grad (inputs
        # that do) get their graph, and so do a functionalized function's outputs.
        modes = _dispatch_stack.modes
        below, modes.below_autograd = modes.below_autograd, 0
        try:
            if isinstance(func, InplaceOp):
                return self._inplace(func.op, args, kwargs)
            if isinstance(func, OutOp):       # NOTE [out forms]: the op, then the out's value
                return _call_with_out(func.op, args, kwargs)
            if isinstance(func, OpDef) and func.kind == "view":
                return self._view(func, args, kwargs)
            result = func(*_unwrap(args), **_unwrap(kwargs))
            return self._wrap_results(result)
        finally:
            modes.below_autograd = below

    def _wrap_results(self, result):
        if isinstance(result, Tensor):
            return self.wrap(result)
        if isinstance(result, (tuple, list)):
            return type(result)(self._wrap_results(r) for r in result)
        return result

    def _inplace(self, op, args, kwargs):
        self_arg = args[0]
        _check(type(self_arg) is FunctionalTensor, lambda: (
            f"functionalization: {op.schema.name}_ writes into a tensor that is not a "
            "FunctionalTensor (one made outside the functionalized function)"))
        result = op(*_unwrap(args), **_unwrap(kwargs))
        commit(self_arg, result)
        return self_arg

    def _view(self, func, args, kwargs):
        base = args[0]
        value = _unwrap(base)
        rest, kwargs = _unwrap(args[1:]), _unwrap(kwargs)
        name = func.schema.name
        if name == "lift_fresh":    # a fresh constant: its own base, never an alias
            return self.wrap(views.copy_op(func)(value))
        if name == "narrow":        # PyTorch's narrow is a slice (a composite)
            func, rest = OPS["slice.Tensor"], views.narrow_as_slice(rest, value.shape)
        if type(base) is not FunctionalTensor:
            return self._wrap_results((views.copy_op(func) if self.copies else func)(
                value, *rest, **kwargs))
        result = (views.copy_op(func) if self.copies else func)(value, *rest, **kwargs)
        if name in _MAY_COPY and view_strides(
                tuple(base.shape), base.stride(), tuple(result.shape)) is None:
            return self.wrap(result)    # reshape copied: a tensor of its own, as in eager
        steps = base._fn_steps
        if isinstance(result, (tuple, list)):
            return type(result)(
                FunctionalTensor._wrap(piece, base._fn_storage, steps + (views.ViewStep(
                    func, rest, kwargs, k, views.piece_of(func, rest, result, k,
                                                          value.shape)),))
                for k, piece in enumerate(result))
        return FunctionalTensor._wrap(result, base._fn_storage,
                                      steps + (views.ViewStep(func, rest, kwargs),))


def commit(t, result):
    """Make `result` the new value of `t` (a FunctionalTensor): cast to t's dtype as an
    in-place write casts, written back into t's base through t's view steps, and t regenerated
    from the new base (NOTE [functionalization])."""
    value = t.elem
    _check(tuple(result.shape) == tuple(value.shape), lambda: (
        f"output with shape {list(value.shape)} doesn't match the broadcast shape "
        f"{list(result.shape)}"))
    if result.dtype is not value.dtype:
        from ember._core.promotion import can_cast
        _check(can_cast(result.dtype, value.dtype), lambda: (
            f"result type {result.dtype._cpp_name} can't be cast to the desired output type "
            f"{value.dtype._cpp_name}"))
        with _BelowFunctionalization():
            result = OPS["_to_copy"](result, dtype=value.dtype)
    storage = t._fn_storage
    steps = t._fn_steps
    new = result
    if steps:
        with _BelowFunctionalization():
            bases = [storage.value]
            for step in steps[:-1]:
                bases.append(step.replay(bases[-1], storage.copies))
            for step, base in zip(reversed(steps), reversed(bases)):
                new = step.scatter(base, new, storage.copies)
    storage.value = new
    storage.generation += 1
    storage.mutated = True
    if steps:
        t._fn_sync()        # regenerated from the new base, as PyTorch does after a write
    else:
        t._fn_set(result, layout=False)


def replace_value(t, result):
    """`out=`: `result` becomes t's value, t resized to it when t is a base (PyTorch's out=
    resize rules)."""
    if tuple(result.shape) != tuple(t.shape) and not t._fn_steps:
        from ember._core.dispatch.inplace_out import _warn_resized
        if t.numel() != 0:
            _warn_resized(tuple(t.shape), tuple(result.shape))
        value = t.elem
        if result.dtype is not value.dtype:
            with _BelowFunctionalization():
                result = OPS["_to_copy"](result, dtype=value.dtype)
        storage = t._fn_storage
        storage.value = result
        storage.generation += 1
        storage.mutated = True
        t._fn_set(result)
        return
    commit(t, result)


def _call_with_out(func, args, kwargs):
    """An `out=` call: the op without out (functional, under the mode), its result the outs'
    new values."""
    out = kwargs["out"]
    rest = {k: v for k, v in kwargs.items() if k != "out"}
    with DisableTorchFunctionSubclass():
        result = func(*args, **rest)
    several = isinstance(out, (tuple, list))
    outs, results = (out, result) if several else ((out,), (result,))
    for target, value in zip(outs, results):
        _check(type(target) is FunctionalTensor, lambda: (
            "functionalization: out= writes into a tensor that is not a FunctionalTensor "
            "(one made outside the functionalized function)"))
        replace_value(target, _unwrap(value))
    return out


def mb_unwrap_functional_tensor(t):
    """The current value of `t` if it is a FunctionalTensor, else `t`."""
    return t.elem if type(t) is FunctionalTensor else t
