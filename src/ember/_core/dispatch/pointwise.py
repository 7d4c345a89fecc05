"""Pointwise ops: type promotion (cached per op and operand dtypes) and their runners.

`run_pointwise` is the op's runner: its fast path serves plain CPU tensors of one dtype (or a
tensor and a Python int/float) with the whole stack collapsed (NOTE [the plain call], stack.py);
everything else goes to `general`, the layered path, whose back-end step is
`run_pointwise_general`.
"""
from __future__ import annotations

import numpy as np

from ember._backends import BACKENDS, get_backend
from ember._backends.meta import MetaArray, elementwise_strides
from ember._core import arguments, complex_half
from ember._core import dtype as dt
from ember._core.checks import _check, _check_not_implemented
from ember._core.device import CPU, META
from ember._core.dispatch.devices import common_device
from ember._core.dispatch.process_state import state
from ember._core.dispatch.subclasses import PLAIN
from ember._core.dispatch.wrapping import wrap
from ember._core.fp_errors import _threads as _quiet_threads
from ember._core.fp_errors import cast, nested, quiet_runner, run_plainly, scalar_as
from ember._core.promotion import result_type_from, scalar_type_of
from ember._core.registry import FRONTENDS
from ember._core.scalars import checked_scalar, scalar_into

Tensor = None            # set by ember._tensor once the class exists (set_tensor_class)
_new = object.__new__
_ndarray = np.ndarray
_np_asarray = np.asarray


general = None           # the layered path, stack.function_level (set by stack.py)


class UnsupportedOperand(TypeError):
    """An operand of a type the op can't take; dunders turn it into NotImplemented."""


_pointwise_cache: dict = {}


_WIDE_UNSIGNED = (dt.uint16, dt.uint32, dt.uint64)


def _check_wide_unsigned(op, compute) -> None:
    """NOTE [wide unsigned dtypes] (registry.py)."""
    if compute in _WIDE_UNSIGNED and "wide_unsigned" not in op.tags:
        _check_not_implemented(False, lambda: (
            f'"{op.schema.name}_cpu" not implemented for \'{compute._cpp_name}\''))


def _pointwise_dtypes(op, operands):
    """(result dtype, compute dtype, operand dtype) for the operands (tensors and Python
    scalars). The operand dtype is not None where a half type computes in float32: operands of
    other dtypes round to it first (NOTE [half operands round first])."""
    key = (op.promotion, op.compute_in_float,
           tuple([(v._dtype, v._data.ndim == 0) if isinstance(v, Tensor) else type(v)
                  for v in operands]), dt._default_float[0])
    found = _pointwise_cache.get(key)
    if found is not None:
        return found
    dim_types, zero_types, scalar_types = [], [], []
    for v in operands:
        if isinstance(v, Tensor):
            (zero_types if v._data.ndim == 0 else dim_types).append(v._dtype)
        else:
            scalar_types.append(scalar_type_of(v))
    kind = op.promotion
    if kind == "no_promotion":
        common = (dim_types or zero_types or scalar_types)[0]
    else:
        common = result_type_from(dim_types, zero_types, scalar_types)
    compute = result = common
    if kind == "int_to_float" and common._category < dt.FLOAT:
        compute = result = dt.get_default_dtype()
    elif kind == "always_bool":
        result = dt.bool_
    elif kind == "complex_to_float" and common.is_complex:
        result = common.to_real()
    elif kind == "bool_to_long" and common is dt.bool_:
        compute = result = dt.int64
    operand = None
    if op.compute_in_float and compute in (dt.float16, dt.bfloat16):
        operand, compute = compute, dt.float32
    if op.compute_in_float and compute in (dt.float8_e4m3fn, dt.float8_e5m2):
        compute = dt.float32
    if compute is dt.complex32:
        # NOTE [complex32 storage]: computed in complex64, where PyTorch has a kernel. (Not
        # cached: the key names the promotion kind, not the op, and ops of one kind differ.)
        name = op.schema.name
        _check_not_implemented(name in complex_half.POINTWISE_SUPPORTED or
                               name in complex_half.POINTWISE_OWN_COMPLEX_ERROR,
                               lambda: complex_half.refusal(name))
        return result, dt.complex64, None
    found = _pointwise_cache[key] = (result, compute, operand)
    return found


# NOTE [half operands round first]: PyTorch casts every operand to the common dtype before its
# kernel widens a float16 / bfloat16 element to float32 to compute: a number or a 0-d float64
# tensor beside a half tensor is rounded to half first (x_half + 0.3 adds half(0.3)). The
# exceptions, by tag: mul and div (all rounding modes) read a 0-d second operand unrounded, in
# float32 (their kernels' reduced-float scalar path), "unrounded_scalar_other"; they and lerp
# read a Python number unrounded (mul's through __rmul__, lerp's as its Scalar overload's
# weight), "unrounded_numbers". add, sub and rsub round a float alpha too, "rounded_alpha".
# pow refuses a number exponent past the half type's range (its overflow error),
# "range_checked_half_other"; a number base, or other ops' numbers, become inf quietly.
def _number_operand(op, value, operand_dtype, np_compute, position=1):
    """A number operand (argument `position`) as the kernel takes it: through `operand_dtype`
    (where not None) to the compute dtype."""
    if operand_dtype is None or "unrounded_numbers" in op.tags:
        return scalar_as(value, np_compute)
    if type(value) is int:
        value = float(value)    # (scalar_as converts a float past half's range quietly)
    if position == 1 and "range_checked_half_other" in op.tags:
        return np_compute.type(scalar_into(value, operand_dtype._np))
    return np_compute.type(scalar_as(value, operand_dtype._np))


def _array_operand(op, position, array, operand_dtype, np_compute, xp):
    """A tensor operand's array (NumPy's or a device library's) in the compute dtype, through
    `operand_dtype` (where not None)."""
    if operand_dtype is None or (position == 1 and "unrounded_scalar_other" in op.tags):
        return cast_operand(array, np_compute, xp)
    return cast_operand(cast(array, operand_dtype._np), np_compute, xp)


def cast_operand(array, np_dtype, xp=np):
    """array.astype(np_dtype), an expanded (stride 0) dimension kept expanded.

    NOTE [casts keep expanded dimensions]: NumPy's astype lays a copy out in the order of the
    strides, so an expanded operand's stride-0 dimensions become its fastest, and the kernel's
    result follows that order: float16 or int operands of an expanded tensor gave results with
    strides PyTorch never gives ((1, 8, 2) for (12, 4, 1)). The compact values are cast and
    expanded again, so the kernel sees the layout an operand of the compute dtype would have
    (and casts fewer elements)."""
    if array.base is not None and 0 in array.strides and array.size > 1:   # (fresh: no base)
        compact = array[tuple(slice(0, 1) if step == 0 else slice(None)
                              for step in array.strides)]
        return xp.broadcast_to(compact.astype(np_dtype), array.shape)
    return array.astype(np_dtype)


def _alpha(op, alpha, operand_dtype):
    """add's / sub's alpha as the kernel takes it (NOTE [half operands round first])."""
    if operand_dtype is not None and (type(alpha) is float or type(alpha) is int) and \
            "rounded_alpha" in op.tags:
        # (scalar_into raises PyTorch's overflow error for an alpha past the half range)
        return float(scalar_into(float(alpha), operand_dtype._np))
    return alpha


# NOTE [pointwise fast path]: the common call -- plain CPU tensors of one dtype (or one tensor
# and a Python int/float) -- skips the general promotion walk; autograd records after it. The
# (result dtype, compute dtype) pair is cached per op and operand dtypes; the cache is cleared
# when the default dtype changes. Measured per call (benchmarks/bench_dispatch.py, callgrind),
# the path avoids what costs most in CPython: Python frames (the result is wrapped inline, not
# by a helper), star-calls (the kernel is called with its arguments spelled out for up to three
# of them), NumPy attribute reads (whether an operand needs a cast to the compute dtype is read
# off the tensor's dtype, which names its array's dtype), and building NumPy scalars (a Python
# int/float operand converted once per op and dtype is kept in the cache entry, up to
# _SCALARS_KEPT of them; 0.0 is not kept, as -0.0 would find it).
_fast_cache: dict = {}
_SCALARS_KEPT = 64


def clear_promotion_caches() -> None:
    _fast_cache.clear()
    _pointwise_cache.clear()


# NOTE [kernels that are one ufunc]: the CPU kernels of the commonest binary ops (mul, div,
# and add / sub with an alpha of 1) are one NumPy ufunc call on their two operands for real
# dtypes. `one_ufunc(kernel, ufunc)` says so, and the fast path calls the ufunc itself: a Python
# frame less per call. The cache entry keeps the kernel the ufunc stands for, and the fast path
# uses the ufunc only while `op.raw_kernel` is still that kernel (a back-end override of the
# CPU entry is called as it is), and for add / sub only when alpha is the int 1.
_ONE_UFUNC: dict = {}       # kernel -> the ufunc it calls


def one_ufunc(kernel, ufunc) -> None:
    """Declare `kernel(xp, a, b[, alpha])` to be `ufunc(a, b)` on NumPy arrays of real
    (non-complex, non-bool) compute dtypes, alpha (where it has one) being the int 1."""
    _ONE_UFUNC[kernel] = ufunc


# NOTE [in-place ops that are one ufunc]: a plain in-place call (no grad recorded, no mode) of
# such an op on two plain CPU tensors of one shape and one float32/float64 dtype
# (`p.sub_(g, alpha=lr)`, `a += b`, `a.mul_(b)`) runs the ufunc with `out=` the written
# tensor's own array: the values out-of-place-then-copy writes (NumPy computes overlapping
# operands as if copied first), one pass over memory instead of three and no temporary
# (the alpha product's excepted).
_INPLACE_DTYPES = (dt.float32, dt.float64)


def run_inplace_ufunc(op, args) -> bool:
    """NOTE [in-place ops that are one ufunc]: do the call and return True when it fits."""
    if len(args) < 2:
        return False
    ufunc = _ONE_UFUNC.get(op.raw_kernel)
    self, other = args[0], args[1]
    ts, to = type(self), type(other)
    if ufunc is None or not (ts is Tensor or ts in PLAIN) or not (to is Tensor or to in PLAIN) \
            or self._device is not CPU or other._device is not CPU \
            or self._dtype is not other._dtype or self._dtype not in _INPLACE_DTYPES:
        return False
    x, y = self._data, other._data
    if x.shape != y.shape or 0 in x.strides or not x.flags.writeable:
        return False
    run = _quiet_threads.__dict__.get("run") or quiet_runner()
    if len(args) == 3:
        alpha = args[2]
        if type(alpha) is float or type(alpha) is int and alpha != 1:
            y = run(np.multiply, y, checked_scalar(alpha, x.dtype))    # as add's kernel
        elif alpha != 1 or type(alpha) is not int:
            return False
    elif len(args) > 3:
        return False
    try:
        run(ufunc, x, y, x)
    except RuntimeError as error:
        if not nested(error):
            raise
        ufunc(x, y, x)
    return True


def _fast_entry(op, key, operands):
    """The cache entry of `key`: (result np dtype, compute np dtype, result dtype, scalars,
    compute dtype, whether scalars are range-checked, the op, the operand dtype of NOTE [half
    operands round first], the kernel that is one ufunc and that ufunc (NOTE [kernels that are
    one ufunc]; None, None otherwise))."""
    if len(key) == 3:                       # (op, dtype, the type of a number operand)
        check_number_operand(op, 1, operands[1])
    result_dtype, compute_dtype, operand_dtype = _pointwise_dtypes(op, operands)
    _check_wide_unsigned(op, compute_dtype)
    if operands[0]._dtype is dt.complex32:
        return None     # complex32 takes the general path (NOTE [complex32 storage])
    kernel = op.raw_kernel
    ufunc = _ONE_UFUNC.get(kernel) if compute_dtype._np.kind in "fiu" else None
    entry = _fast_cache[key] = (result_dtype._np, compute_dtype._np, result_dtype, {},
                                compute_dtype, "range_checked_scalars" in op.tags, op,
                                operand_dtype, kernel if ufunc is not None else None, ufunc)
    return entry


def _scalar_operand(entry, value):
    """`value` (a Python int/float) as a NumPy scalar of the entry's compute dtype, kept (only
    values that passed a range check are kept)."""
    converted = _range_checked(value, entry[1]) if entry[5] else \
        _number_operand(entry[6], value, entry[7], entry[1])
    scalars = entry[3]
    if value and len(scalars) < _SCALARS_KEPT:
        scalars[value] = converted
    return converted


def _rerun_nested(kernel, x, y, args):
    """The kernel once more, plainly: its quiet run found this thread's quiet context entered
    already (NOTE [floating-point warnings]), so NumPy's errors are ignored already."""
    if len(args) == 1:
        return kernel(np, x)
    return kernel(np, x, y, *args[2:])


def run_pointwise(op, args):
    positions = op.tensor_positions
    npos = len(positions)
    if npos <= 2 and positions[0] == 0:
        a = args[0]
        ta = type(a)
        if (ta is Tensor or ta in PLAIN) and a._device is CPU:
            b = None
            if npos == 1:
                try:
                    entry = _fast_cache[op, a._dtype]
                except KeyError:
                    entry = _fast_entry(op, (op, a._dtype), (a,))
                    if entry is None:
                        return general(op, args)
                x = a._data
                if a._dtype is not entry[4]:
                    x = cast_operand(x, entry[1])
                y = args[1] if len(args) > 1 else None
                needs_grad = a._requires_grad
            elif positions[1] == 1:
                b = args[1]
                tb = type(b)
                if tb is Tensor or tb in PLAIN:
                    if b._device is not CPU or b._dtype is not a._dtype:
                        return general(op, args)
                    try:
                        entry = _fast_cache[op, a._dtype]
                    except KeyError:
                        entry = _fast_entry(op, (op, a._dtype), (a, b))
                        if entry is None:
                            return general(op, args)
                    x, y = a._data, b._data
                    if a._dtype is not entry[4]:
                        x = cast_operand(x, entry[1])
                        y = cast_operand(y, entry[1])
                    needs_grad = a._requires_grad or b._requires_grad
                elif tb is int or tb is float:
                    try:
                        entry = _fast_cache[op, a._dtype, tb]
                    except KeyError:
                        entry = _fast_entry(op, (op, a._dtype, tb), (a, b))
                        if entry is None:
                            return general(op, args)
                    x = a._data
                    if a._dtype is not entry[4]:
                        x = cast_operand(x, entry[1])
                    y = entry[3].get(b)
                    if y is None:
                        y = _scalar_operand(entry, b)
                    b = None
                    needs_grad = a._requires_grad
                else:
                    return general(op, args)
            else:
                return general(op, args)
            kernel = op.raw_kernel
            # NOTE [floating-point warnings]: the quiet runner inline.
            run = (_quiet_threads.__dict__.get("run") or quiet_runner()) if op.quiet \
                else run_plainly
            nargs = len(args)
            try:
                if entry[8] is kernel and (nargs == 2 or type(args[2]) is int and args[2] == 1):
                    result = run(entry[9], x, y)    # NOTE [kernels that are one ufunc]
                elif nargs == 2:
                    result = run(kernel, np, x, y)
                elif nargs == 1:
                    result = run(kernel, np, x)
                elif nargs == 3:
                    result = run(kernel, np, x, y, args[2] if entry[7] is None else
                                 _alpha(op, args[2], entry[7]))
                else:
                    result = run(kernel, np, x, y, *args[2:])
            except ValueError:
                if b is not None:
                    check_broadcastable(op, [a._data.shape, b._data.shape])
                raise
            except RuntimeError as error:
                if not nested(error):
                    raise
                result = _rerun_nested(kernel, x, y, args)
            # The result wrapped as `wrapping.wrap` does (inline: a frame costs more).
            if type(result) is not _ndarray:
                result = _np_asarray(result)
            if result.dtype is not entry[0]:
                result = cast(result, entry[0])
            out = _new(Tensor)
            out._data = result
            out._dtype = entry[2]
            out._device = CPU
            out._storage = None
            out._requires_grad = False
            out._grad_fn = None
            out._grad = None
            out._base = None
            if needs_grad and state.record is not None:
                state.record(op, args, out)
            return out
    return general(op, args)


dt.DEFAULT_DTYPE_LISTENERS.append(clear_promotion_caches)


def run_pointwise_general(op, args):
    """The back-end step for any pointwise call: promotion, devices, kernel; no autograd."""
    positions = op.tensor_positions
    operands = []
    tensors = []
    for i in positions:
        v = args[i]
        if isinstance(v, Tensor):
            tensors.append(v)
            operands.append(v)
        elif v is None and op.schema.arguments[i].optional:
            continue
        elif isinstance(v, (int, float, complex, np.generic)):
            if op not in NUMBERS_OK[i == 0]:
                check_number_operand(op, i, v)
            operands.append(v)
        else:
            raise UnsupportedOperand(
                f"{op.schema.name}(): argument '{op.schema.arguments[i].name}' must be Tensor, "
                f"not {type(v).__name__}")
    if not tensors:
        _check(False, lambda: f"{op.schema.name}(): expected at least one Tensor argument")
    result_dtype, compute_dtype, operand_dtype = _pointwise_dtypes(op, operands)
    if compute_dtype in _WIDE_UNSIGNED:
        _check_wide_unsigned(op, compute_dtype)
    device = tensors[0]._device
    if len(tensors) > 1:
        device = common_device(op, tensors)
    if device is META:
        shape = np.broadcast_shapes(*[t._data.shape for t in tensors])
        np_dtype = result_dtype._np
        strides = elementwise_strides(shape, [t._data for t in tensors], np_dtype.itemsize)
        out = wrap(MetaArray(shape, np_dtype, strides), result_dtype, META)
    else:
        np_compute = compute_dtype._np
        backend = BACKENDS.get(device.type) or get_backend(device.type)
        call_args = list(args)
        for i in positions:
            v = args[i]
            if isinstance(v, Tensor):
                a = v._data
                if v._dtype is not compute_dtype:     # the tensor's dtype names its array's
                    if v._dtype is dt.complex32:
                        a = complex_half.widen(a, backend.xp).astype(np_compute, copy=False)
                    elif "own_operand_dtypes" in op.tags:
                        pass    # (the kernel casts: NOTE [ldexp's power], pointwise_binary.py)
                    elif v._dtype is operand_dtype or operand_dtype is None:
                        a = cast_operand(a, np_compute, backend.xp)
                    else:
                        a = _array_operand(op, i, a, operand_dtype, np_compute, backend.xp)
                if v._device is not device:
                    # A zero-dim CPU tensor beside a device tensor (common_device): a scalar,
                    # which CuPy takes where it refuses a NumPy array.
                    a = a[()]
                call_args[i] = a
            elif v is not None:
                call_args[i] = _range_checked(v, np_compute) if np_compute.kind in "iu" and \
                    "range_checked_scalars" in op.tags else \
                    _number_operand(op, v, operand_dtype, np_compute, i)
        if operand_dtype is not None and len(call_args) == 3:
            call_args[2] = _alpha(op, call_args[2], operand_dtype)
        try:
            result = run_kernel(op, device, backend.xp, call_args)
        except ValueError:
            check_broadcastable(op, [t._data.shape for t in tensors])
            raise
        if type(result) is not _ndarray and device is CPU:
            result = _np_asarray(result)
        if result.dtype != result_dtype._np:
            result = cast(result, result_dtype._np)
        out = wrap(result, result_dtype, device)
    return out


def check_number_operand(op, i, value) -> None:
    """A Python or NumPy number in the place of tensor argument `i` of an op whose public
    form is its generated binding: only where PyTorch's parser takes one (NOTE [the parser's
    errors come first], arguments.NUMBERS_FIRST/_BESIDE). Checked when a number is first met
    (the fast path makes its cache entry for the number's type once) and on the general path
    (where the ops found to take numbers are remembered, NUMBERS_OK). A hand-written frontend
    parses its own numbers (lerp's Scalar weight, where's values)."""
    if op.python_name in FRONTENDS or op.schema.name in (
            arguments.NUMBERS_FIRST if i == 0 else arguments.NUMBERS_BESIDE):
        NUMBERS_OK[i == 0].add(op)
        return
    raise UnsupportedOperand(
        f"{op.schema.name}(): argument '{op.schema.arguments[i].name}' (position {i + 1}) "
        f"must be Tensor, not {type(value).__name__}")


NUMBERS_OK = (set(), set())     # [first argument?] -> the ops found to take a number there


def _range_checked(value, np_dtype):
    """A Python number for an op that converts its Scalars as PyTorch's `to<T>()` does (clamp's
    bounds, where's values): out of an integer dtype's range is an error, not a wrap-around.
    (run_pointwise's fast path checks a number when it first meets it, `_scalar_operand`.)"""
    return checked_scalar(value, np_dtype)


def run_kernel(op, device, xp, call_args):
    """The op's kernel for `device` (its table's entry, NOTE [the kernel table]) on `call_args`.
    The CPU entry of a quiet op runs through the quiet runner here (NOTE [floating-point warnings]), not through its `quiet` wrapper: a
    Python frame and a star-call less."""
    kernel = op.kernels.get(device.type) or op.kernel_for(device.type)
    if kernel is not op.kernel or not op.quiet:
        return kernel(xp, *call_args)
    run = _quiet_threads.__dict__.get("run") or quiet_runner()
    try:
        return run(op.raw_kernel, xp, *call_args)
    except RuntimeError as error:
        if not nested(error):
            raise
    return op.raw_kernel(xp, *call_args)


def check_broadcastable(op, shapes) -> None:
    """Raise PyTorch's message when `shapes` don't broadcast."""
    ndim = max(len(s) for s in shapes)
    padded = [(1,) * (ndim - len(s)) + tuple(s) for s in shapes]
    names = "abcdefgh"
    for axis in range(ndim):
        sizes = [(p[axis], k) for k, p in enumerate(padded) if p[axis] != 1]
        for size, k in sizes[1:]:
            first, j = sizes[0]
            if size != first:
                _check(False, f"The size of tensor {names[j]} ({first}) must match the size of "
                              f"tensor {names[k]} ({size}) at non-singleton dimension {axis}")


