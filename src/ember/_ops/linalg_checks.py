"""`_linalg_check_errors`: the op that turns a LAPACK `info` tensor into PyTorch's error, and
`call_checked`, how the checking linalg functions (inv, cholesky, solve, lu_factor, ldl_factor)
call their `_ex` op: NOTE [error checks are an op].
"""
from __future__ import annotations

import numpy as np

from ember._core.checks import _check
from ember._core.dispatch import call
from ember._core.dispatch.process_state import state
from ember._core.host_kernels import host_kernel
from ember._core.registry import OPS, register_op
from ember._ops.linalg_common import raise_from_info
from ember._ops.linalg_factor import raise_lu_error

# NOTE [error checks are an op]: PyTorch's linalg.inv, linalg.cholesky, linalg.solve,
# linalg.lu_factor and linalg.ldl_factor are composites of the `_ex` op, run without checks,
# and `_linalg_check_errors(info, api_name, is_matrix=True)`, which raises from `info`; a
# dispatch mode sees both (the `_ex` functions called with check_errors=True check inside their
# kernel, and a mode sees that op alone). ember's frontends call `call_checked`: on the plain
# path (`state.slow` False) the `_ex` kernel checks as it runs (one op, as before); while a mode,
# handler or guard is open they make PyTorch's two calls. Fake and meta tensors check nothing.


class _Info:
    """The shape `raise_from_info` reads a batch prefix from: the matrices' batch is info's."""

    def __init__(self, info):
        self.ndim = info.ndim + 2


def _check_meta(info, api_name, is_matrix=True):
    return None


@register_op("_linalg_check_errors(Tensor info, str api_name, *, bool is_matrix) -> ()",
             kind="generic", function=False, method=False, meta=_check_meta,
             differentiable=False, tags=("no_fp_errors",))
@host_kernel
def _linalg_check_errors(xp, info, api_name, is_matrix=True):
    """Raise PyTorch's error for the first nonzero entry of `info` (NOTE [error checks are an
    op])."""
    info = np.asarray(info)
    if not info.any():
        return None
    shaped = _Info(info)
    if "lu_factor" in api_name:
        raise_lu_error(api_name, shaped, info)
    if "ldl_factor" in api_name:
        _check(False, lambda: f"{api_name}: the factorization failed (info "
                              f"{int(info.reshape(-1)[np.flatnonzero(info)[0]])})")
    kind = ("cholesky" if "cholesky" in api_name else "inverse" if "inv" in api_name
            else "solve")
    raise_from_info(api_name, shaped, info, kind)
    return None


def call_checked(name, args, api_name, in_kernel=True):
    """The `_ex` op `name` on `args` (check_errors last) with its errors raised as
    PyTorch's `api_name` does (NOTE [error checks are an op]); its results. `in_kernel`: the
    op's own check raises PyTorch's message (else the plain path checks the info here)."""
    op = OPS[name]
    if not state.slow and in_kernel:
        return call(op, args + (True,))
    out = call(op, args + (False,))
    if state.slow:
        call(OPS["_linalg_check_errors"], (out[-1], api_name, True))
    elif not out[-1].is_meta:
        _linalg_check_errors(np, out[-1]._host(), api_name)
    return out
