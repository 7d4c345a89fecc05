"""Writing results into existing tensors: `out=` arguments and in-place ops (`add_`, `+=`).

    call_out(op, args, out)   -> runs the op, then copies into `out` (PyTorch's out= rules)
    call_inplace(op, args)    -> writes the op's result into args[0] and bumps its version

In-place calls with grad recorded go to autograd's `record_inplace`. On the layered path a
TorchDispatchMode sees the in-place form of the op (`InplaceOp`, named like
`ember.ops.aten.add_.Tensor`), not the out-of-place op it is computed with.
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np

from ember._backends import get_backend
from ember._backends.meta import MetaArray
from ember._core.checks import _check, _check_type
from ember._core.device import CPU, META
from ember._core.dispatch.pointwise import run_inplace_ufunc
from ember._core.dispatch.process_state import state
from ember._core.dispatch.quantized import QUANTIZED_CPU, write_quantized_inplace
from ember._core.dispatch.sparse import _SparseHost, write_sparse_inplace
from ember._core.dispatch.subclasses import DISPATCH, OVERRIDING
from ember._core.dispatch.wrapping import bump_version
from ember._core.fp_errors import cast, run_quietly
from ember._core.scalars import CXX_NAMES

Tensor = None            # set by ember._tensor once the class exists (set_tensor_class)
layered = None           # the stack module (set by stack.py; it imports this one)
out_forms = None         # the out_forms module (set by it; it imports this one)


def _dtype_name(d):
    return d._cpp_name


def call_out(op, args, out, public=None):
    """`public`: the public function making the call (NOTE [the public function reaches
    level 1], stack.py)."""
    if (state.slow or state.overriding) and (layered.modes.function_modes or state.overriding and
                        layered.overloaded_args(op, args + (out,))):
        return layered.function_level(op, args, out, public)
    several = op.num_outputs > 1
    if not (isinstance(out, (tuple, list)) if several else isinstance(out, Tensor)):
        raise TypeError(f"{op.schema.name}(): argument 'out' must be "
                        f"{'tuple of Tensors' if several else 'Tensor'}, not {type(out).__name__}")
    if state.slow and layered.modes.dispatch_modes and out_forms.offers(op):
        return out_forms.offer(op, args, out)      # NOTE [out forms]
    return compute_out(op, args, out, layered.call)


def compute_out(op, args, out, run):
    """The op's result (`run(op, args)`) written into `out` with PyTorch's out= rules."""
    several = op.num_outputs > 1
    tags = op.tags
    if op.differentiable and state.grad_enabled() and "out_without_autograd" not in tags:
        check_out_without_grad(op.schema.name, [args[i] for i in op.tensor_positions] + [
            t for i in op.list_positions for t in (args[i] or ())], out)
    if "out_dtype_computes" in tags and not several:
        args = _with_out_dtype(op, args, out)
    result = run(op, args)
    if several:
        _check(isinstance(result, tuple) and len(out) == len(result),
               lambda: f"{op.schema.name}(): expected out= to hold {op.num_outputs} tensors")
        for o, r in zip(out, result):
            _check_type(isinstance(o, Tensor), lambda o=o: (
                f"{op.schema.name}(): argument 'out' must be tuple of Tensors, not "
                f"{type(o).__name__}"))
            check_exact_out_dtype(o, r)   # several results: NOTE [out dtypes]
            copy_into_out(o, r, op, args)
        return tuple(out)
    if out._dtype is not result._dtype and (
            op.kind == "generic" and "out_casts" not in tags or "out_dtype_exact" in tags):
        check_exact_out_dtype(out, result)
    copy_into_out(out, result, op, args)
    return out


# NOTE [out= refuses autograd]: as PyTorch's autograd layer, a differentiable op called with
# `out=` while grad mode is on refuses an input or an `out` that requires grad, before the op
# checks anything else ("add(): functions with out=... arguments don't support automatic
# differentiation, but one of the arguments requires grad."). Ops whose out= form PyTorch
# registers below autograd (floor_divide, tensordot, softmax) are tagged
# "out_without_autograd". Factories (`zeros(out=)`) and composites that compute their result
# and then copy it (`linalg.inv(out=)`, `fft.fft(out=)`, `normal(mean, std, out=)`) are
# refused in `copy_into_out`, after the result is computed: it requires grad exactly when an
# input that reached it does.
def check_out_without_grad(name, inputs, out):
    outs = out if isinstance(out, (tuple, list)) else (out,)
    for t in (*inputs, *outs):
        if isinstance(t, Tensor) and t._requires_grad:
            raise RuntimeError(f"{name + '(): ' if name else ''}functions with out=... "
                               "arguments don't support "
                               "automatic differentiation, but one of the arguments requires "
                               "grad.")


# NOTE [out dtypes]: which dtypes an `out=` may have, as PyTorch 2.13: element-wise ops and
# most reductions write their result cast to out's dtype when it can be cast ("result type
# Float can't be cast to the desired output type Long" otherwise); the other ops (matrix
# products, indexing, linear algebra: kind "generic") and ops with several results want out's
# dtype to be the result's exactly, except those tagged "out_casts" (cat, stack, kron, cumsum,
# cumprod); reductions tagged "out_dtype_exact" (amax, argmax ...) want it exactly too. Ops
# tagged "out_dtype_computes" (sum, prod, cumsum ...) compute in out's dtype when their own
# `dtype` argument is not given.
def _with_out_dtype(op, args, out):
    names = [argument.name for argument in op.schema.arguments]
    position = names.index("dtype")
    if position >= len(args) or args[position] is not None or not isinstance(out, Tensor):
        return args
    return args[:position] + (out._dtype,) + args[position + 1:]


def check_exact_out_dtype(out, result):
    _check(not isinstance(out, Tensor) or out._dtype is result._dtype, lambda: (
        f"Expected out tensor to have dtype {_cxx_name(result._dtype)}, but got "
        f"{_cxx_name(out._dtype)} instead"))


def _cxx_name(dtype):
    return CXX_NAMES.get(dtype._np.name, dtype._np.name)


def copy_into_out(out, result, op=None, inputs=()):
    """PyTorch's out= rules: dtype must be castable, no aliasing the inputs (NOTE [out
    aliasing]), shape resized when it differs. Without `op` (a factory's `zeros(out=)`, a
    composite's `linalg.inv(out=)`), an `out` or a result that requires grad is refused here
    (NOTE [out= refuses autograd])."""
    if op is None and (out._requires_grad or result._requires_grad) and state.grad_enabled():
        check_out_without_grad(None, (result,), out)
    if result._dtype is not out._dtype:
        from ember._core.promotion import can_cast
        _check(can_cast(result._dtype, out._dtype), lambda: (
            f"result type {_dtype_name(result._dtype)} can't be cast to the desired output "
            f"type {_dtype_name(out._dtype)}"))
    if out._device is not result._device:
        raise RuntimeError(f"Expected out tensor to have device {result._device}, but got "
                           f"{out._device} instead")
    resized = out._data.shape != result._data.shape
    if op is not None and out._device is CPU and op.kind != "reduction":
        if resized and "out_aliasing_after_resize" in op.tags:
            _warn_resized(out._data.shape, result._data.shape)
            _check_out_aliasing(out._data, inputs, full_overlap_allowed=False)
            resize_out(out, result._data.shape, warn=False)
        else:
            _check_out_aliasing(out._data, inputs, full_overlap_allowed=True)
    if out._data.shape != result._data.shape:
        resize_out(out, result._data.shape)
    write_array(out, result)


# NOTE [out aliasing]: an `out=` tensor is checked against the call's tensor inputs as
# PyTorch's TensorIterator does, before anything is written: an out that writes one memory
# location through several elements (expanded: a zero stride) is refused, and so is an out
# that partially overlaps an input (reading an element after it has been overwritten would
# give an order-dependent answer). Exactly the same elements in the same order (out=x for an
# input x) are fine; so is memory whose layout is not dense (PyTorch calls that "too hard" to
# decide and lets it pass). Reductions are not checked (PyTorch's are not). `cat` refuses even
# the full overlap, after the resize warning (tag "out_aliasing_after_resize").
def _check_out_aliasing(out, inputs, full_overlap_allowed):
    if out.size == 0:
        return
    if 0 in out.strides:
        check_not_overlapping(out)
    for item in inputs:
        if isinstance(item, Tensor):
            array = item._data
            if array is not out or not full_overlap_allowed:
                _check_no_partial_overlap(out, array, full_overlap_allowed)
        elif isinstance(item, (tuple, list)):
            for element in item:
                if isinstance(element, Tensor):
                    _check_no_partial_overlap(out, element._data, full_overlap_allowed)


def _check_no_partial_overlap(out, array, full_overlap_allowed):
    if not isinstance(array, np.ndarray) or array.size == 0 or \
            not may_share_memory(out, array):
        return
    if not (_dense(out) and _dense(array)):
        return
    out_begin = out.__array_interface__["data"][0]
    begin = array.__array_interface__["data"][0]
    out_end, end = out_begin + out.nbytes, begin + array.nbytes
    same = out_begin == begin and out_end == end and out.strides == array.strides
    _check((same and full_overlap_allowed) or not (out_begin < end and begin < out_end), (
        "unsupported operation: some elements of the input tensor and the written-to tensor "
        "refer to a single memory location. Please clone() the tensor before performing the "
        "operation."))


may_share_memory = np.may_share_memory


def _dense(array):
    """Whether the array's elements fill a block of memory without gaps or repeats."""
    expected = array.itemsize
    for size, stride in sorted(zip(array.shape, array.strides), key=lambda pair: pair[1]):
        if size != 1:
            if stride != expected:
                return False
            expected *= size
    return True


def _warn_resized(old_shape, shape):
    import warnings
    warnings.warn(
        f"An output with one or more elements was resized since it had shape "
        f"{list(old_shape)}, which does not match the required output shape "
        f"{list(shape)}. This behavior is deprecated, and in a future PyTorch release outputs "
        "will not be resized unless they have zero elements. You can explicitly reuse an "
        "out tensor t by resizing it, inplace, to zero elements with t.resize_(0).",
        UserWarning, stacklevel=5)


def resize_out(out, shape, warn=True):
    if warn and out._data.size != 0:
        _warn_resized(out._data.shape, shape)
    if out._device is META:
        out._data = MetaArray(shape, out._data.dtype)
    else:
        xp = get_backend(out._device.type).xp
        out._data = xp.empty(shape, out._data.dtype)
    out._storage = None


def call_inplace(op, args, public=None):
    """`public`: the in-place method making the call, passed while `state.slow` is True
    (NOTE [the public function reaches level 1], stack.py)."""
    # NOTE [plain in-place calls]: an overriding subclass existing somewhere (`overriding`,
    # True once nn is imported: its lazy placeholders) sends only the calls it could see down
    # the levels: one with an operand of such a class, or one autograd records (whose own
    # calls the levels hide from __torch_function__). p.sub_(g, alpha=lr) under no_grad, on
    # Parameters, stays on the plain path.
    if state.slow or (state.overriding and _overriding_operand(op, args)):
        return _call_inplace_layered(op, args, public)
    self = args[0]
    _check_type(isinstance(self, Tensor), lambda: (
        f"{op.schema.name}_(): self must be a Tensor, not {type(self).__name__}"))
    if state.record is not None and state.grad_enabled() and layered.needs_grad(op, args):
        if state.overriding:
            return _call_inplace_layered(op, args, public)
        if state.inplace_guard is not None:
            state.inplace_guard(self)
        return state.record_inplace(op, args)
    if state.inplace_guard is not None:
        state.inplace_guard(self)
    if run_inplace_ufunc(op, args):     # NOTE [in-place ops that are one ufunc]
        bump_version(self)
        return self
    result = layered.call(op, args)
    write_inplace(op, self, result)
    return self


def _overriding_operand(op, args) -> bool:
    """Whether a tensor operand of this call (or an element of a tensor list) is of a class
    that sees calls (subclasses.OVERRIDING)."""
    for i in op.tensor_positions:
        if type(args[i]) in OVERRIDING:
            return True
    for i in op.list_positions:
        values = args[i]
        if type(values) is list or type(values) is tuple:
            for v in values:
                if type(v) in OVERRIDING:
                    return True
        elif type(values) in OVERRIDING:
            return True
    return False


def _call_inplace_layered(op, args, public):
    """call_inplace through the levels (see stack.py): __torch_function__ sees the in-place
    method, autograd records it, a TorchDispatchMode sees its in-place form."""
    modes = layered.modes
    if state.deterministic is not None and "nondeterministic" in op.tags:
        state.deterministic(op)
    if not modes.function_off and (modes.function_modes or (
            state.overriding and layered.overloaded_args(op, args))):
        func, fargs, fkwargs = layered._public_call(op, args, None, public, inplace=True)
        return layered.handle_torch_function(func, fargs, fargs, fkwargs)
    self = args[0]
    _check_type(isinstance(self, Tensor), lambda: (
        f"{op.schema.name}_(): self must be a Tensor, not {type(self).__name__}"))
    if state.inplace_guard is not None:
        state.inplace_guard(self)
    if not modes.below_autograd and state.record is not None and state.grad_enabled() \
            and layered.needs_grad(op, args):
        modes.function_off += 1       # its own calls are not the user's
        try:
            return state.record_inplace(op, args)
        finally:
            modes.function_off -= 1
    if modes.dispatch_modes or state.overriding and type(self) in DISPATCH:
        # A subclass with __torch_dispatch__ (a wrapper: no array to write into) answers the
        # in-place form itself, as a mode does.
        # (the in-place form of the overload the call fits: `lerp_.Scalar`, NOTE [overload
        # forms])
        return layered.dispatch_level(op, args, inplace_op(layered.offered(op, args)))
    result = layered.autograd_level(op, args)    # forward AD's handler gives it a tangent
    write_inplace(op, self, result)
    if state.on_inplace is not None:
        state.on_inplace(self, result)
    return self


def run_inplace_below_modes(op, args):
    """An in-place op below every dispatch mode: compute, write into args[0]."""
    result = layered.dispatch_level(op, args)
    write_inplace(op, args[0], result)
    return args[0]


class OpForm:
    """Another form of an op entry as a TorchDispatchMode sees it: `SUFFIX` added to the op's
    name (`aten.add_.Tensor` for the in-place form, `aten.view_copy.default` for a view's copy
    form in functionalization); a subclass says what calling it does."""

    __slots__ = ("op",)
    SUFFIX = ""
    # Overloads this form names differently from its op ({"bernoulli.p": "float"}: PyTorch's
    # in-place bernoulli with a number is `bernoulli_.float`).
    OVERLOADS: ClassVar[dict] = {}

    def __init__(self, op):
        self.op = op

    def _bound(self, args, kwargs):
        """The op entry a call of this form runs and its arguments: an overload form runs its
        base op (NOTE [overload forms])."""
        op = self.op
        args = op.bind(args, kwargs)
        if op.redirect is not None:
            op, to_base = op.redirect
            if to_base is not None:
                args = to_base(*args)
        return op, args

    @property
    def __name__(self) -> str:
        return f"{self._packet_name}.{self._overloadname}"

    @property
    def _packet_name(self) -> str:
        name = self.op.schema.name
        if self.SUFFIX == "_" and name.startswith("__"):
            return "__i" + name[2:]          # an operator's in-place form: `__ilshift__`
        return name + self.SUFFIX

    @property
    def _overloadname(self) -> str:
        overload = self.op.schema.overload or "default"
        return self.OVERLOADS.get(f"{self.op.schema.name}.{overload}", overload)

    def name(self) -> str:
        return f"aten::{self.__name__}"

    @property
    def overloadpacket(self):
        return OpPacketName(self._packet_name)

    def __str__(self) -> str:
        return f"aten.{self.__name__}"

    __repr__ = __str__


class OpPacketName:
    """The `overloadpacket` of an OpForm: its name only."""

    def __init__(self, name):
        self.__name__ = name

    def __str__(self) -> str:
        return f"aten.{self.__name__}"


class InplaceOp(OpForm):
    """The in-place form of an op entry (`aten.add_.Tensor`), or of an overload form of one
    (`aten.lerp_.Scalar`, NOTE [overload forms]); calling it runs the in-place op below the
    current mode."""

    __slots__ = ()
    SUFFIX = "_"
    OVERLOADS: ClassVar[dict] = {"bernoulli.p": "float", "pow.Tensor_Scalar": "Scalar",
                                  "pow.Tensor_Tensor": "Tensor"}

    @property
    def _schema(self):
        return self.op.schema

    def __call__(self, *args, **kwargs):
        op, args = self._bound(args, kwargs)
        return layered.dispatch_level(op, args, self)


_inplace_ops: dict = {}


def inplace_op(op) -> InplaceOp:
    found = _inplace_ops.get(op)
    if found is None:
        found = _inplace_ops[op] = InplaceOp(op)
    return found


def write_inplace(op, self, result):
    """Copy an op's result into `self` with PyTorch's in-place checks; bump the version."""
    if self._device.__class__ is _SparseHost:    # a sparse or a quantized tensor
        if self._device is QUANTIZED_CPU:
            write_quantized_inplace(self, result)
        else:
            write_sparse_inplace(self, result)
        return
    if 0 in self._data.strides and self._data.size and "writes_through_repeats" not in op.tags:
        if "writes_where_changed" in op.tags and self._device is CPU and \
                result._dtype is self._dtype and result._data.shape == self._data.shape:
            _write_where_changed(self, result)
            return
        check_not_overlapping(self._data)
    rdt, sdt = result._dtype, self._dtype
    if rdt is not sdt:
        from ember._core.promotion import can_cast
        _check(can_cast(rdt, sdt), lambda: (
            f"result type {_dtype_name(rdt)} can't be cast to the desired output type "
            f"{_dtype_name(sdt)}"))
    if result._data.shape != self._data.shape:
        _check(False, lambda: (
            f"output with shape {list(self._data.shape)} doesn't match the broadcast shape "
            f"{list(np.broadcast_shapes(self._data.shape, result._data.shape))}"))
    write_array(self, result)


# NOTE [masking writes through repeats]: PyTorch's tril_, triu_ and fill_diagonal_ write only
# the elements they change (the zeros outside the band, the diagonal's value) and leave the
# rest untouched, so on an expanded self (several positions, one memory element) an element
# takes the written value when any of its positions is written, whatever the order: triu_ of
# ones(3, 1).expand(3, 3) zeroes rows 1 and 2, where copying the whole result back would leave
# the last position's 1. Ops tagged "writes_where_changed" write so: the result's positions
# whose bits differ from self's (so NaN and -0.0 count as values) and only those.
def _write_where_changed(self, result):
    before, after = self._data, result._data
    raw = np.dtype(f"V{before.dtype.itemsize}")        # (the bits, whatever the dtype)
    np.copyto(before, after, where=before.view(raw) != after.view(raw))
    bump_version(self)


def check_not_overlapping(array):
    for size, stride in zip(array.shape, array.strides):
        _check(stride != 0 or size <= 1, (
            "unsupported operation: more than one element of the written-to tensor refers to a "
            "single memory location. Please clone() the tensor before performing the "
            "operation."))


def write_array(dst, src):
    """Copy `src`'s values into `dst`'s memory (casting, broadcasting) and bump its version."""
    if dst._device is not META:
        if dst._device is CPU:
            if dst._data.dtype == src._data.dtype:
                np.copyto(dst._data, src._data)     # no cast: nothing to overflow
            else:
                run_quietly(np.copyto, dst._data, src._data, "unsafe")
        else:
            dst._data[...] = cast(src._data, dst._data.dtype)
    bump_version(dst)
