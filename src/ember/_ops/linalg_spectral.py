"""Determinants and the Hermitian eigendecomposition: det, slogdet (ember.logdet is their
composite, in linalg_frontends.py) and linalg_eigh, with their derivatives.

NOTE [determinant derivatives]: d det = det tr(A^-1 dA), so gA = g conj(det) A^-H. For
slogdet, log det = logabsdet + i angle(sign): gA = w A^-H with w = g_logabsdet +
i Im(conj(sign) g_sign) (w = g_logabsdet for real input). Both solve with A^H rather than
invert, as PyTorch does; a singular A gives NaN gradients here (PyTorch falls back to an SVD).

NOTE [eigh derivative]: for A = V diag(L) V^H and incoming gL, gV:
    gA = V (diag(gL) + skew(V^H gV) / E) V^H,  E[i, j] = L[j] - L[i] (off the diagonal),
skew(X) = (X - X^H) / 2. Each eigenvector is fixed only up to a phase; a loss that depends on
the phase has Im diag(V^H gV) != 0 and raises PyTorch's error (the gauge check).
"""
from __future__ import annotations

import importlib.util

import numpy as np

from ember._core.checks import _check
from ember._core.dispatch import call
from ember._core.registry import OPS, kernel_entry, register_form, register_op
from ember._core.threads import intra_op_threads, parallel_map
from ember._ops.linalg_common import (
    check_floating,
    check_kernel_dtype,
    check_square,
    real_dtype,
)
from ember._ops.linalg_solve import solve


def _nonzero(t):
    # The engine hands a missing gradient of a multi-output op in as zeros.
    return t is not None and bool(t.ne(0).any())


def _times_inverse_transpose(A, scale):
    """scale[..., None, None] * A^-H, as a solve (NOTE [determinant derivatives])."""
    n = A.shape[-1]
    eye = A.new_ones(n).diag_embed()
    return solve(A.mH, eye * scale.unsqueeze(-1).unsqueeze(-1))


# --------------------------------------------------------------------------- det, slogdet

def _det_checks(A):
    check_square("linalg.det", A)
    check_floating("linalg.det", A, low_precision=False)
    check_kernel_dtype("lu_cpu", A)


def _det_meta(self):
    _det_checks(self._data)
    return tuple(self.shape[:-2]), self._dtype


def _det_grad(c):
    from ember._ops.grad_utils import conj
    return _times_inverse_transpose(c.self, c.grad * conj(c.result))


@register_op("det(Tensor self) -> Tensor", kind="generic", meta=_det_meta,
             saves=("self", "result"), derivatives={"self": _det_grad},
             node_name="LinalgDetBackward0", tags=("fp_errors",))
def det(xp, self):
    """det(input) -> Tensor: the determinant of each square matrix (linalg.det)."""
    _det_checks(self)
    if self.size == 0:
        return xp.ones(self.shape[:-2], dtype=self.dtype)
    return xp.asarray(xp.linalg.det(self), dtype=self.dtype, order="C")


def _slogdet_checks(A):
    check_square("linalg.slogdet", A)
    check_floating("linalg.slogdet", A)


def _slogdet_meta(self):
    _slogdet_checks(self._data)
    batch = tuple(self.shape[:-2])
    return [(batch, self._dtype), (batch, self._dtype.to_real())]


def _slogdet_grad(c):
    sign = c.results[0]
    g_sign, g_logabsdet = c.grads
    if c.self._dtype.is_complex:
        weight = g_logabsdet.to(sign._dtype) + 1j * (sign.conj() * g_sign).imag
    else:
        weight = g_logabsdet
    return _times_inverse_transpose(c.self, weight)


@register_op("slogdet(Tensor self) -> (Tensor sign, Tensor logabsdet)", kind="generic",
             function=False, method=False, meta=_slogdet_meta, saves=("self", "result"),
             derivatives={"self": _slogdet_grad}, node_name="LinalgSlogdetBackward0",
             tags=("fp_errors",))
def slogdet(xp, self):
    """slogdet(input) -> (sign, logabsdet): the sign (a unit complex number for complex input)
    and the log of the absolute value of the determinant."""
    _slogdet_checks(self)
    batch = self.shape[:-2]
    if self.size == 0:
        return (xp.ones(batch, dtype=self.dtype),
                xp.zeros(batch, dtype=real_dtype(self.dtype)))
    sign, logabsdet = xp.linalg.slogdet(self)
    return (xp.asarray(sign, dtype=self.dtype, order="C"),
            xp.asarray(logabsdet, dtype=real_dtype(self.dtype), order="C"))


# --------------------------------------------------------------------------- eigh

def _eigh_checks(A, UPLO):
    check_square("linalg.eigh", A)
    check_kernel_dtype("linalg_eigh_cpu", A)
    _check(UPLO in ("L", "U", "l", "u"), lambda: (
        f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}"))


def _eigh_meta(A, UPLO="L"):
    _eigh_checks(A._data, UPLO)
    return [(tuple(A.shape[:-1]), A._dtype.to_real()), (tuple(A.shape), A._dtype)]


_GAUGE = ("linalg_eigh_backward: The eigenvectors in the complex case are specified up to "
          "multiplication by e^{i phi}. The specified loss function depends on this quantity, "
          "so it is ill-defined.")


def _eigh_grad(c):
    L, V = c.results
    gL, gV = c.grads
    complex_input = V._dtype.is_complex
    if not _nonzero(gV):
        scale = gL.to(V._dtype) if complex_input else gL
        return (V * scale.unsqueeze(-2)) @ V.mH
    VhgV = V.mH @ gV
    if complex_input:
        phase = VhgV.diagonal(0, -2, -1).imag
        _check(bool((phase.abs() <= 1e-3).all()), _GAUGE)
    skew = 0.5 * (VhgV - VhgV.mH)
    n = L.shape[-1]
    off = 1 - L.new_ones(n).diag_embed()
    # 1 / (L[j] - L[i]) off the diagonal, 0 on it.
    inverse_gaps = off / (L.unsqueeze(-2) - L.unsqueeze(-1) + (1 - off))
    diag = gL.to(V._dtype) if complex_input else gL
    inner = skew * (inverse_gaps.to(V._dtype) if complex_input else inverse_gaps)
    inner = inner + diag.diag_embed()
    return V @ inner @ V.mH


@register_op("linalg_eigh(Tensor A, str UPLO=\"L\") -> (Tensor eigenvalues, "
             "Tensor eigenvectors)", kind="generic", function=False, method=False,
             meta=_eigh_meta, saves=("result",), derivatives={"A": _eigh_grad},
             node_name="LinalgEighBackward0", tags=("fp_errors",))
def linalg_eigh(xp, A, UPLO="L"):
    """linalg.eigh(A, UPLO='L') -> (eigenvalues, eigenvectors), eigenvalues ascending."""
    _eigh_checks(A, UPLO)
    if A.size == 0:
        return (xp.zeros(A.shape[:-1], dtype=real_dtype(A.dtype)), xp.zeros(A.shape, A.dtype))
    values, vectors = xp.linalg.eigh(A, UPLO=UPLO.upper())
    return (xp.asarray(values, dtype=real_dtype(A.dtype), order="C"),
            xp.asarray(vectors, dtype=A.dtype, order="C"))


# linalg.eigh / eigvalsh reach a mode as the op PyTorch's composites call (NOTE [overload
# forms]).
register_form("linalg_eigh", "_linalg_eigh(Tensor A, str UPLO=\"L\", bool compute_v=True) -> "
              "(Tensor eigenvalues, Tensor eigenvectors)", when=lambda args: True,
              to_base=lambda A, UPLO="L", compute_v=True: (A, UPLO), saves=("result",))


@kernel_entry("linalg_eigh", "CPU")
def _linalg_eigh_cpu(xp, A, UPLO="L"):
    """linalg_eigh's CPU entry (NOTE [the kernel table]): LAPACK's divide and conquer through
    SciPy (`_lapack_eigh`), the array library's eigh where that finds nothing."""
    _eigh_checks(A, UPLO)
    found = _lapack_eigh(A, UPLO.upper() == "L") if A.size else None
    if found is None:
        return linalg_eigh(np, A, UPLO)
    values, vectors = found
    return (np.asarray(values, dtype=real_dtype(A.dtype), order="C"),
            np.asarray(vectors, dtype=A.dtype, order="C"))


def _lapack_eigh(A, lower):
    """(eigenvalues, eigenvectors) by LAPACK's divide-and-conquer syevd/heevd through SciPy,
    one matrix at a time (on the intra-op threads), or None where SciPy is missing or LAPACK
    reports a failure (NumPy's eigh then decides). NumPy's batched eigh runs the same
    routine, ~1.5x slower for a batch of 128 x 128 float32 matrices (its bundled LAPACK)."""
    if importlib.util.find_spec("scipy") is None:
        return None
    from scipy.linalg import lapack
    n = A.shape[-1]
    flat = A.reshape((-1, n, n))
    hermitian = A.dtype.kind == "c"
    prefix = {"f": "s", "d": "d", "F": "c", "D": "z"}[A.dtype.char]
    routine = getattr(lapack, prefix + ("heevd" if hermitian else "syevd"))
    sizes = getattr(lapack, prefix + ("heevd" if hermitian else "syevd") + "_lwork")(
        n, compute_v=1, lower=int(lower))
    workspace = {"lwork": int(sizes[0].real), "liwork": int(sizes[1])}
    if hermitian:
        workspace["lrwork"] = int(sizes[2])
    values = np.empty(flat.shape[:2], dtype=real_dtype(A.dtype))
    vectors = np.empty(flat.shape, dtype=A.dtype)

    def one(k):
        w, v, info = routine(flat[k], compute_v=1, lower=int(lower), **workspace)
        values[k], vectors[k] = w, v
        return info

    batch = range(flat.shape[0])
    infos = parallel_map(one, batch) if intra_op_threads() > 1 and len(batch) > 1 \
        else [one(k) for k in batch]
    if any(infos):
        return None
    return values.reshape(A.shape[:-1]), vectors.reshape(A.shape)


def eigh(A, UPLO="L"):
    return call(OPS["linalg_eigh"], (A, UPLO))

