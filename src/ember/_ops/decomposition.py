"""Matrix decompositions as registry ops: linalg_svd (U, S, Vh) with its derivative.

They are the building blocks for derivatives that need them (the nuclear norm's gradient is
U @ Vh); `ember.linalg` will expose them when it arrives. Reached today as
`ember.ops.aten.linalg_svd`.

NOTE [svd derivative]: for A = U diag(S) Vh (reduced, k = min(m, n)) and incoming gU, gS, gVh:

    gA = U [ sym(U^H gU) / E @ S + S @ sym(V^H gV) / E + diag(gS)
             + i Im diag(U^H gU - V^H gV) / 2S ] Vh
         + (I - U U^H) gU S^-1 Vh + U S^-1 gVh (I - V V^H)

where gV = gVh^H, sym(X) = X - X^H (skew part, doubled), E[i, j] = S[j]^2 - S[i]^2 off the
diagonal (1 on it, whose entries are zero anyway), and the imaginary term exists only for
complex input. It is undefined for repeated singular values, as in PyTorch.
"""
from __future__ import annotations

from ember._core import dtype as dt
from ember._core.checks import _check
from ember._core.dispatch import call
from ember._core.host_kernels import host_kernel
from ember._core.registry import OPS, register_form, register_op
from ember._ops.linalg_common import svd_arrays


def _svd_meta(A, full_matrices=True, driver=None):
    m, n = A._data.shape[-2:]
    k = min(m, n)
    batch = tuple(A._data.shape[:-2])
    u_cols, v_rows = (m, n) if full_matrices else (k, k)
    real = A._dtype.to_real()
    return [(batch + (m, u_cols), A._dtype), (batch + (k,), real),
            (batch + (v_rows, n), A._dtype)]


def _svd_grad(c):
    _check(not c.full_matrices or c.A.shape[-1] == c.A.shape[-2] or (
        c.grads[0] is None and c.grads[2] is None),
        "svd_backward: The singular vectors in the complex case are specified up to "
        "multiplication by e^{i phi}. Setting full_matrices=True with a non-square input is "
        "not supported for the derivative.")
    U, S, Vh = c.results
    gU, gS, gVh = c.grads
    complex_input = c.A._dtype.is_complex
    S_c = S.to(U._dtype) if complex_input else S
    if not _nonzero(gU) and not _nonzero(gVh):
        return U @ (gS.to(U._dtype).unsqueeze(-1) * Vh) if complex_input else \
            U @ (gS.unsqueeze(-1) * Vh)
    gV = gVh.mH
    UhgU = U.mH @ gU
    VhgV = Vh @ gV
    squares = S * S
    eye = squares.new_ones(squares.shape[-1]).diag_embed()
    # F[i, j] = 1 / (S_j^2 - S_i^2) off the diagonal, 0 on it.
    F = (1 - eye) / (squares.unsqueeze(-2) - squares.unsqueeze(-1) + eye)
    if complex_input:
        F = F.to(U._dtype)
    inner = F * (UhgU - UhgU.mH) * S_c.unsqueeze(-2) + \
        S_c.unsqueeze(-1) * (F * (VhgV - VhgV.mH))
    inner = inner + (gS.to(U._dtype) if complex_input else gS).diag_embed()
    if complex_input:
        imag_diag = (UhgU.diagonal(0, -2, -1).imag - VhgV.diagonal(0, -2, -1).imag) / (2 * S)
        inner = inner + (imag_diag.to(U._dtype) * 1j).diag_embed()
    gA = U @ inner @ Vh
    m, n, k = c.A.shape[-2], c.A.shape[-1], S.shape[-1]
    inverse_S = (1 / S_c).unsqueeze(-2)
    if m > k:
        gA = gA + (gU - U @ UhgU) * inverse_S @ Vh
    if n > k:
        gA = gA + U @ ((gVh - VhgV.mH @ Vh) * inverse_S.mT)
    return gA


def _nonzero(t):
    # The engine hands missing gradients of a multi-output op in as zeros.
    return t is not None and bool(t.ne(0).any())


@register_op("linalg_svd(Tensor A, bool full_matrices=True, *, str? driver=None) -> "
             "(Tensor U, Tensor S, Tensor Vh)", kind="generic", function=False, method=False,
             meta=_svd_meta, saves=("result",), derivatives={"A": _svd_grad},
             node_name="LinalgSvdBackward0", tags=("fp_errors",))
def linalg_svd(xp, A, full_matrices=True, driver=None):
    """linalg.svd(A, full_matrices=True, *, driver=None) -> (U, S, Vh)."""
    _check(A.ndim >= 2, "linalg.svd: The input tensor A must have at least 2 dimensions.")
    kind = dt.NP_TO_DTYPE[A.dtype]
    _check(kind.is_floating_point or kind.is_complex, lambda: (
        f"linalg.svd: Expected a floating point or complex tensor as input. Got "
        f"{kind._cpp_name}"))
    if kind in (dt.float16, dt.bfloat16):
        # PyTorch has no half SVD kernel (it answers an empty input before looking for one);
        # LAPACK through NumPy refused float16 with a TypeError and iterated for ever on a
        # bfloat16 matrix holding an infinity.
        if A.size:
            raise NotImplementedError(
                f'"linalg_svd_cpu" not implemented for \'{kind._cpp_name}\'')
        U, S, Vh = svd_arrays(xp, A.astype("float32"), full_matrices=full_matrices)
    else:
        U, S, Vh = svd_arrays(xp, A, full_matrices=full_matrices)
    return U.astype(A.dtype), S.astype(kind.to_real()._np), Vh.astype(A.dtype)


# linalg.svd, svdvals and the functions made of them reach a mode as PyTorch's composites call
# the op: `_linalg_svd` (NOTE [overload forms]).
register_form("linalg_svd", "_linalg_svd(Tensor A, bool full_matrices=False, bool compute_uv=True,"
              " *, str? driver=None) -> (Tensor U, Tensor S, Tensor Vh)", when=lambda args: True,
              to_base=lambda A, full_matrices=False, compute_uv=True, driver=None: (
                  A, full_matrices, driver), saves=("result",))


def svd(A, full_matrices=False):
    """(U, S, Vh) through the registry (differentiable)."""
    return call(OPS["linalg_svd"], (A, full_matrices, None))


def _qr_meta(A, mode="reduced"):
    m, n = A._data.shape[-2:]
    k = min(m, n)
    batch = tuple(A._data.shape[:-2])
    if mode == "r":
        return [(batch + (0,), A._dtype), (batch + (k, n), A._dtype)]
    q_cols, r_rows = (m, m) if mode == "complete" else (k, k)
    return [(batch + (m, q_cols), A._dtype), (batch + (r_rows, n), A._dtype)]


def _qr_square_grad(Q, R, gQ, gR):
    """A = Q R with R square (m >= n, reduced): M = R gR^H - gQ^H Q,
    gA = (gQ + Q copyltu(M)) R^-H, copyltu(M) = tril(M) + tril(M, -1)^H (real diagonal for
    complex input, whose R has a real diagonal)."""
    M = R @ gR.mH - gQ.mH @ Q
    lower = M.tril(-1)
    diagonal = M.diagonal(0, -2, -1)
    if M._dtype.is_complex:
        diagonal = diagonal.real.to(M._dtype)
    copied = lower + lower.mH + diagonal.diag_embed()
    left = gQ + Q @ copied
    return call(OPS["linalg_solve_triangular"], (R.mH, left, False, False, False))


def _qr_grad(c):
    """NOTE [qr derivative]: the square-R case above; for m < n, A = [X Y] with X = Q R1,
    Y = Q R2: gY = Q gR2 and X takes the square case with gQ + Y gR2^H."""
    _check(c.mode != "r", "The derivative of linalg.qr depends on Q, which is not computed "
                          "when mode='r'. Please use linalg.qr(A, mode='reduced') if you are "
                          "going to differentiate through linalg.qr.")
    Q, R = c.results
    gQ, gR = c.grads
    m, n = c.A.shape[-2], c.A.shape[-1]
    _check(c.mode == "reduced" or m <= n, "The QR decomposition is not differentiable when "
                                          "mode='complete' and nrows > ncols.")
    if m >= n:
        return _qr_square_grad(Q, R, gQ, gR)
    A = c.A
    Y = A[..., :, m:]
    gR1, gR2 = gR[..., :, :m], gR[..., :, m:]
    gX = _qr_square_grad(Q, R[..., :, :m], gQ + Y @ gR2.mH, gR1)
    return call(OPS["cat"], ([gX, Q @ gR2], -1))


@register_op("linalg_qr(Tensor A, str mode='reduced') -> (Tensor Q, Tensor R)", kind="generic",
             function=False, method=False, meta=_qr_meta, saves=("A", "result"),
             derivatives={"A": _qr_grad}, node_name="LinalgQrBackward0", tags=("fp_errors",))
@host_kernel
def linalg_qr(xp, A, mode="reduced"):
    """linalg.qr(A, mode='reduced') -> (Q, R), by Householder reflections as in LAPACK
    (so Q and R carry the signs PyTorch's do)."""
    _check(A.ndim >= 2, "linalg.qr: The input tensor A must have at least 2 dimensions.")
    kind = dt.NP_TO_DTYPE[A.dtype]
    _check(kind.is_floating_point or kind.is_complex, lambda: (
        f"linalg.qr: Expected a floating point or complex tensor as input. Got "
        f"{kind._cpp_name}"))
    _check(mode in ("reduced", "complete", "r"), lambda: (
        f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), "
        f"'r', or 'complete'"))
    # A pivot of -0.0: Householder's reflection takes beta = -sign(alpha) |x|, and PyTorch's
    # LAPACK (MKL) reads sign(-0.0) as +, NumPy's as -, flipping that row of R and column of
    # Q; adding 0 makes every zero +0.0 (the one reading both share).
    A = A + A.dtype.type(0)
    if mode == "r":
        R = xp.linalg.qr(A, mode="r")
        return xp.empty(A.shape[:-2] + (0,), dtype=A.dtype), R.astype(A.dtype)
    Q, R = xp.linalg.qr(A, mode=mode)
    return Q.astype(A.dtype), R.astype(A.dtype)


def qr(A, mode="reduced"):
    """(Q, R) through the registry."""
    return call(OPS["linalg_qr"], (A, mode))
