"""Global switches, one function each with a matching getter.

Deterministic algorithms, matmul precision, warn-always, thread count. Each switch is stored in
one place and read from there by the subsystems it affects: the dispatcher reads the
deterministic switch through `dispatch.state` (the slow path is taken only while it is on).
"""
from __future__ import annotations

import threading
import warnings

from ember._core import checks, dispatch
from ember._core.checks import _check, _check_type, _check_value, _user_stacklevel


class _Switches:
    __slots__ = (
        "deterministic",
        "matmul_precision",
        "num_interop_threads",
        "num_threads",
        "warn_always",
        "warn_only",
    )

    def __init__(self):
        self.deterministic = False
        self.warn_only = False
        self.matmul_precision = "highest"
        self.warn_always = False
        self.num_threads = None
        self.num_interop_threads = None


switches = _Switches()
_lock = threading.Lock()


# --------------------------------------------------------------------------- determinism

def _nondeterministic_alert(op) -> None:
    """Called (through `dispatch.state.deterministic`) by an op without a deterministic kernel:
    raise PyTorch's error, or warn with warn_only. `op` is an OpDef or an op's name."""
    name = op if isinstance(op, str) else op.schema.name
    if switches.warn_only:
        message = (f"{name} does not have a deterministic implementation, but you set "
                   "'ember.use_deterministic_algorithms(True, warn_only=True)'.")
        warnings.warn(message, UserWarning, stacklevel=_user_stacklevel())
        return
    raise RuntimeError(
        f"{name} does not have a deterministic implementation, but you set "
        "'ember.use_deterministic_algorithms(True)'. You can turn off determinism just for "
        "this operation, or you can use the 'warn_only=True' option, if that's acceptable for "
        "your application.")


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Make ops without a deterministic kernel raise PyTorch's error (or warn, with warn_only).

    Such ops are tagged "nondeterministic" in the registry, or (when only some arguments make
    them so, as `put_` without accumulate) call `dispatch.state.deterministic` themselves."""
    _check_type(isinstance(mode, bool), lambda: (
        f"use_deterministic_algorithms(): argument 'mode' must be bool, not "
        f"{type(mode).__name__}"))
    _check_type(isinstance(warn_only, bool), lambda: (
        f"use_deterministic_algorithms(): argument 'warn_only' must be bool, not "
        f"{type(warn_only).__name__}"))
    with _lock:
        switches.deterministic = mode
        switches.warn_only = warn_only if mode else False
        dispatch.state.deterministic = _nondeterministic_alert if mode else None
        dispatch.refresh_slow_path()


def are_deterministic_algorithms_enabled() -> bool:
    """Whether `use_deterministic_algorithms(True)` is in force."""
    return switches.deterministic


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    """Whether deterministic mode only warns (`warn_only=True`) instead of raising."""
    return switches.warn_only


_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


def set_deterministic_debug_mode(debug_mode) -> None:
    """"default"/0 (off), "warn"/1 (warn only), "error"/2 (raise)."""
    if isinstance(debug_mode, str):
        _check(debug_mode in _DEBUG_MODES, lambda: (
            "invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got "
            f"{debug_mode}"))
        debug_mode = _DEBUG_MODES[debug_mode]
    _check_type(isinstance(debug_mode, int) and not isinstance(debug_mode, bool), lambda: (
        f"debug_mode must be str or int, but got {type(debug_mode).__name__}"))
    _check(debug_mode in (0, 1, 2), lambda: (
        f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}"))
    if debug_mode == 0:
        use_deterministic_algorithms(False)
    else:
        use_deterministic_algorithms(True, warn_only=debug_mode == 1)


def get_deterministic_debug_mode() -> int:
    """The deterministic mode as a number: 0 off, 1 warn only, 2 error."""
    if not switches.deterministic:
        return 0
    return 1 if switches.warn_only else 2


# --------------------------------------------------------------------------- matmul precision

_PRECISIONS = ("highest", "high", "medium")


def set_float32_matmul_precision(precision: str) -> None:
    """"highest" (float32 throughout), "high" or "medium" (faster internal precision allowed).

    ember validates the value (PyTorch only warns); the CPU back-end computes float32 matmuls
    in float32 whatever the setting, which every setting allows."""
    _check_value(precision in _PRECISIONS, lambda: (
        f"set_float32_matmul_precision(): {precision!r} is not one of 'highest', 'high', or "
        "'medium'"))
    switches.matmul_precision = precision


def get_float32_matmul_precision() -> str:
    """The float32 matmul precision setting: 'highest', 'high' or 'medium'."""
    return switches.matmul_precision


# --------------------------------------------------------------------------- warnings

def set_warn_always(b: bool) -> None:
    """Warnings given once per process (NOTE [warn once]) are given every time while on."""
    _check(isinstance(b, bool), lambda: f"set_warn_always expects a bool, but got "
                                       f"{type(b).__name__}")
    switches.warn_always = b
    checks.warn_always[0] = switches.warn_always


def is_warn_always_enabled() -> bool:
    """Whether once-per-process warnings are given every time (`set_warn_always`)."""
    return switches.warn_always


# --------------------------------------------------------------------------- threads

def set_num_threads(num: int) -> None:
    """ember's intra-op thread count: its own pool's (NOTE [convolution chunks on the
    intra-op threads], the large sums) and, through threadpoolctl, the BLAS libraries' its
    kernels call (NumPy's and SciPy's), as PyTorch sets its OpenMP and MKL pools. Other
    libraries' OpenMP runtimes are left as they are."""
    # RuntimeError for a wrong type too, as PyTorch raises.
    _check(isinstance(num, int) and not isinstance(num, bool), lambda: (
        f"set_num_threads expects an int, but got {type(num).__name__}"))
    _check(num > 0, "set_num_threads expects a positive integer")
    from threadpoolctl import threadpool_limits
    with _lock:
        limiter = threadpool_limits(limits=num, user_api="blas")
        switches.num_threads = (num, limiter)
        from ember._core.threads import set_intra_op_threads
        set_intra_op_threads(num)


def get_num_threads() -> int:
    """The number of threads ember's intra-op work may use."""
    if switches.num_threads is not None:
        return switches.num_threads[0]
    from ember._core.threads import intra_op_threads
    return intra_op_threads()


def set_num_interop_threads(num: int) -> None:
    """Set the inter-op thread count, once (ember records it; it runs no inter-op pool)."""
    _check(switches.num_interop_threads is None, (
        "Error: cannot set number of interop threads after parallel work has started or "
        "set_num_interop_threads called"))
    _check(isinstance(num, int) and num > 0, "Number of interop threads must be positive")
    switches.num_interop_threads = num


def get_num_interop_threads() -> int:
    """The inter-op thread count (`set_num_interop_threads`)."""
    return switches.num_interop_threads or 1
