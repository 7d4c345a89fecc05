"""The deprecated `ember.*` norms PyTorch keeps for TorchScript: nuclear_norm and
frobenius_norm, each a warned-once call of the torch.linalg norm that replaces it."""
from __future__ import annotations

from ember._core.checked_entry import checked
from ember._core.checks import _check, _check_type, _warn_once
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.registry import register_frontend
from ember._ops.linalg_frontends import into


def _linalg():
    """Where ember.linalg's norms live (ember.linalg re-exports them)."""
    from ember._ops import linalg_composite
    return linalg_composite


@register_frontend("nuclear_norm", method=False)
def nuclear_norm(input, dim=None, keepdim=False, *, out=None):
    """nuclear_norm(input, keepdim=False, *, out=None) or nuclear_norm(input, dim,
    keepdim=False, *, out=None) -> Tensor: the sum of the singular values over the two
    dimensions `dim` (the last two by default). Deprecated: linalg.matrix_norm(A, 'nuc', ...)."""
    if _state.entry and _wants(locals()):
        return _handle(nuclear_norm, locals())
    if dim is True or dim is False:          # the (input, keepdim) overload
        _check_type(keepdim is False, (
            "nuclear_norm() received an invalid combination of arguments - got (Tensor, bool, "
            "bool), but expected one of:\n * (Tensor input, tuple of ints dim, bool keepdim = "
            "False, *, Tensor out = None)\n * (Tensor input, bool keepdim = False, *, Tensor "
            "out = None)\n"))
        dim, keepdim = None, dim
    _warn_once("nuclear_norm", (
        "at::nuclear_norm is deprecated and it is just left for JIT compatibility. It will be "
        "removed in a future PyTorch release. Please use `linalg.matrix_norm(A, 'nuc', dim, "
        "keepdim)` instead"))
    dim = (-2, -1) if dim is None else dim
    return into(out, _linalg().matrix_norm(input, "nuc", dim=dim, keepdim=keepdim))


@register_frontend("frobenius_norm", method=False)
@checked("frobenius_norm(Tensor self, int[1] dim, bool keepdim=False)")
def frobenius_norm(input, dim, keepdim=False, *, out=None):
    """frobenius_norm(input, dim, keepdim=False, *, out=None) -> Tensor: the 2-norm of the
    elements over at most two dimensions `dim`. Deprecated: linalg.vector_norm(A, 2, ...)."""
    if _state.entry and _wants(locals()):
        return _handle(frobenius_norm, locals())
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    _check(len(dims) <= 2, lambda: (
        f"Expected at most 2 dimensions, but got {len(dims)} dimensions instead."))
    _warn_once("frobenius_norm", (
        "at::frobenius_norm is deprecated and it is just left for JIT compatibility. It will be "
        "removed in a future PyTorch release. Please use `linalg.vector_norm(A, 2., dim, "
        "keepdim)` instead"))
    return into(out, _linalg().vector_norm(input, 2.0, dim=dims, keepdim=keepdim))
