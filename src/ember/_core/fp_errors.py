"""NumPy's floating-point warnings, turned off around ember's own kernels only.

NOTE [floating-point warnings]: PyTorch never warns on overflow, 0/0, log(0), sqrt(-1) or a
cast of NaN to an integer; NumPy does (RuntimeWarning, or FloatingPointError under
np.seterr(all="raise")). ember must not change the user's NumPy error state, so the kernels
that can meet such a case run with every NumPy floating-point error ignored, and the user's
state is back the moment the kernel returns. An op's entry says so with the tag "fp_errors"
(every pointwise and reduction op has it unless its entry says "no_fp_errors"); the registry
wraps such a kernel once, at registration, with `quiet`.

`np.errstate` costs about 0.8 us a use (it builds its state object each time), more than a tiny
op itself. NumPy 2 keeps the error state in a context variable. Each thread gets one
`contextvars.Context` of its own in which that variable ignores every error, made once; a
quiet kernel runs through that context's `run`, a C call that swaps the context in and out
(cheaper than setting and resetting the variable, and no Python frame when the dispatcher's
fast paths, and its back-end steps through `pointwise.run_kernel`, call it with the op's
`raw_kernel` directly instead of the `quiet` wrapper). The user's own context, and so their NumPy state, is never
touched. A quiet call nested in another (a kernel that dispatches) finds the context already
entered (`nested`) and simply runs: its errors are ignored already. NumPy 1.x has no such
variable: there `quiet` falls back on `np.errstate` (slower, same behaviour).
"""
from __future__ import annotations

import contextvars
import functools
import numbers
import operator
import threading

import numpy as np

_ufunc_config = getattr(getattr(np, "_core", None), "_ufunc_config", None)
_state_variable = getattr(_ufunc_config, "_extobj_contextvar", None)

if _state_variable is not None:
    with np.errstate(all="ignore"):
        _IGNORE_ALL = _state_variable.get()
    _threads = threading.local()

    def quiet_runner():
        """This thread's `run(fn, *args)`: fn(*args) inside a context of its own whose NumPy
        error state ignores everything (NOTE [floating-point warnings])."""
        context = contextvars.Context()
        context.run(_state_variable.set, _IGNORE_ALL)
        run = _threads.run = context.run
        return run

    def quiet(kernel):
        """`kernel` running with NumPy's floating-point errors ignored (see the NOTE)."""
        @functools.wraps(kernel)
        def quiet_kernel(*args):
            run = _threads.__dict__.get("run") or quiet_runner()
            try:
                return run(kernel, *args)
            except RuntimeError as error:
                if not nested(error):
                    raise
            return kernel(*args)        # already inside this thread's quiet context
        quiet_kernel.unwrapped = kernel
        return quiet_kernel

    def run_quietly(fn, *args):
        """fn(*args) with NumPy's floating-point errors ignored (for work on other threads)."""
        run = _threads.__dict__.get("run") or quiet_runner()
        try:
            return run(fn, *args)
        except RuntimeError as error:
            if not nested(error):
                raise
        return fn(*args)
else:  # NumPy 1.x
    _threads = threading.local()

    def quiet_runner():
        """Without NumPy 2's context variable: a runner that uses np.errstate."""
        def run(fn, *args):
            with np.errstate(all="ignore"):
                return fn(*args)
        _threads.run = run
        return run

    def quiet(kernel):
        """`kernel` running with NumPy's floating-point errors ignored (see the NOTE)."""
        @functools.wraps(kernel)
        def quiet_kernel(*args):
            with np.errstate(all="ignore"):
                return kernel(*args)
        quiet_kernel.unwrapped = kernel
        return quiet_kernel

    def run_quietly(fn, *args):
        """fn(*args) with NumPy's floating-point errors ignored (for work on other threads)."""
        with np.errstate(all="ignore"):
            return fn(*args)


# `run_plainly(fn, *args)` is fn(*args): what the fast paths call a kernel that needs no quiet
# runner through, in the same spelling (operator.call, a C function, from Python 3.11).
run_plainly = getattr(operator, "call", None) or (lambda fn, *args: fn(*args))


def nested(error) -> bool:
    """Whether `error` is Context.run refusing a context this thread is already inside: the
    call is nested in a quiet one, and NumPy's errors are ignored already."""
    return str(error).startswith("cannot enter context")


def cast(array, np_dtype):
    """array.astype(np_dtype), quietly: overflow to inf and NaN to an integer, as PyTorch."""
    return run_quietly(array.astype, np_dtype)


# A Python float of magnitude between these (or 0) casts to any float dtype ember computes in
# without overflow or underflow (float16's largest and smallest normal numbers).
_FLOAT16_MAX = 65504.0
_FLOAT16_TINY = 6.104e-05


def scalar_as(value, np_dtype):
    """A Python scalar as a NumPy scalar of `np_dtype` (wrapping around like a C cast)."""
    if type(value) is float and not (-_FLOAT16_MAX <= value <= _FLOAT16_MAX and (
            value == 0.0 or not -_FLOAT16_TINY < value < _FLOAT16_TINY)):
        return run_quietly(_scalar_as, value, np_dtype)   # huge, tiny, inf or NaN
    if type(value) is not int and type(value) is not float and \
            not isinstance(value, (numbers.Number, np.generic)) and not number_like(value):
        # Never hand a string or an object to a NumPy/ml_dtypes scalar constructor: some
        # crash the process on one (bfloat16 on a str).
        raise TypeError(f"expected a number, not {type(value).__name__}")
    try:
        return np_dtype.type(value)
    except (OverflowError, ValueError):
        return np.array(value).astype(np_dtype)[()]


def number_like(value) -> bool:
    """A 0-d tensor or another object that converts itself to a number (not a str)."""
    cls = type(value)
    return hasattr(cls, "__float__") or hasattr(cls, "__index__") or \
        hasattr(cls, "__complex__")


def _scalar_as(value, np_dtype):
    try:
        return np_dtype.type(value)
    except (OverflowError, ValueError):
        return np.array(value).astype(np_dtype)[()]
