"""The value-differential fuzzer: valid calls on edge tensors, ember's results against PyTorch's.

    python tests/value_diff/vd_cli.py [--examples N] [--seconds S] [--seed K] [--show M]
                                      [--family F]

(`make fuzz-values`; EMBER_FUZZ_EXAMPLES sets N there.) Draws N valid calls
(vd_strategies.py), runs each in an ember and a PyTorch worker (vd_worker.py, in processes of
their own) and judges the pair (`judge`); --family narrows the draw to one family
(vd_strategies.FAMILIES: functions, methods, functional, modules, linalg, fft, special):

    same        equal results: kind, shape and dtype equal; NaN and infinity positions (and the
                infinities' signs) exact; finite values within the result dtype's tolerance
    differs     both returned, and the results are not the same as above: a silent wrong result
    refused     PyTorch returned and ember raised
    accepted    PyTorch raised and ember returned (the bad-input fuzzer's territory)
    both raised the call was not valid after all
    strides     equal results with other strides (reported, not failed)
    crash/hang  the ember worker died or stopped answering

The exit status is 1 when any call differs, is refused, crashed or hung.
"""
from __future__ import annotations

import argparse
import collections
import os
import pathlib
import sys
import time

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "bad_input"))

from fuzz_runner import Pair, draw  # noqa: E402
from vd_strategies import FAMILIES, valid_calls  # noqa: E402

# What fails a run: a silent wrong result, a crash or a hang. A valid call ember refuses is
# listed (and counted) but does not fail: it is loud, and the CI draw shifts whenever the op
# pool grows, so a refusal unrelated to a change would stop it.
HARD = ("differs", "crash", "hang")

# Relative and absolute tolerance by result dtype (the test suite's table, tests/opinfo/core.py).
TOLERANCES = {"float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5), "float32": (1.3e-6, 1e-5),
              "float64": (1e-7, 1e-7), "complex32": (1e-3, 1e-5), "complex64": (1.3e-6, 1e-5),
              "complex128": (1e-7, 1e-7)}


# The largest finite value by result dtype.
LARGEST = {"float16": 65504.0, "bfloat16": 3.3895e38, "float32": 3.4028e38,
           "float64": 1.7976e308, "complex32": 65504.0, "complex64": 3.4028e38,
           "complex128": 1.7976e308}


def _special_positions_equal(a, b, overflow_near=np.inf) -> bool:
    """NaN positions exact, infinities at the same places with the same signs; except that
    where the inputs hold values near overflow (`overflow_near` is then the magnitude a sum
    reaches before it may overflow in one order and not in another), an infinity beside a
    finite value at least that large, a NaN or an infinity of the other sign counts as the
    same overflow."""
    for part_a, part_b in ((a.real, b.real), (a.imag, b.imag)) if a.dtype.kind == "c" else \
            ((a, b),):
        nan_a, nan_b = np.isnan(part_a), np.isnan(part_b)
        inf_a, inf_b = np.isinf(part_a), np.isinf(part_b)
        order = (inf_a & ~inf_b & (np.abs(part_b) >= overflow_near)) | \
            (inf_b & ~inf_a & (np.abs(part_a) >= overflow_near))
        if overflow_near < np.inf:
            # inf + (-inf) happens in one order (or without a fused multiply-add) and not in
            # another: NaN beside an infinity is the same overflow. And where huge terms of
            # both signs meet, which partial sum overflows first, and so the infinity's sign,
            # is the summation order's (a float32 convolution over 3.4e38 and -3.4e38 taps:
            # inf in PyTorch's oneDNN order, -inf in ember's).
            order |= nan_a & inf_b | nan_b & inf_a | inf_a & inf_b & (
                np.sign(part_a) != np.sign(part_b))
        if not np.array_equal(nan_a & ~order, nan_b & ~order):
            return False
        inf_a, inf_b = inf_a & ~order, inf_b & ~order
        if not np.array_equal(inf_a, inf_b) or \
                not np.array_equal(np.sign(part_a[inf_a]), np.sign(part_b[inf_b])):
            return False
    return True


# The unit roundoff by result dtype: a sum of terms as large as the inputs' largest finite
# magnitude M may differ by a few dozen units of M between two summation orders (PyTorch's own
# order differs by CPU capability), so where the inputs hold huge values the comparison allows
# 64 eps M (NaN and infinity positions stay exact).
EPS = {"float16": 2 ** -11, "bfloat16": 2 ** -8, "float32": 2 ** -24, "float64": 2 ** -53,
       "complex32": 2 ** -11, "complex64": 2 ** -24, "complex128": 2 ** -53}


# Products whose BLAS kernels differ between PyTorch (MKL) and ember (OpenBLAS) in fused
# multiply-adds and complex product formulas: on non-finite inputs an output may be NaN in
# one and an infinity in the other; which outputs are non-finite must still agree.
NONFINITE_ALIKE = {"inner", "matmul", "mm", "bmm", "mv", "dot", "vdot", "addmm", "addmv",
                   "addbmm", "baddbmm", "addr", "outer", "ger", "tensordot", "einsum",
                   "kron", "chain_matmul", "linalg_multi_dot", "linalg.multi_dot", "linalg.matmul",
                   "nn.functional.linear", "nn.functional.bilinear", "nn.Bilinear(4, 4, 2)",
                   "nn.Linear(4, 3)", "linalg.vecdot", "linalg.cross", "cross"} | {
    # NOTE [gelu at +inf] (_ops/nn_activation.py): PyTorch's float32 GELU gives NaN at +inf in
    # its vectorised loop and inf in its scalar one (which loop runs depends on the CPU's
    # vector width and the tensor's size); ember gives inf, the limit, always.
    "gelu", "nn.functional.gelu", "nn.GELU()"}


# PyTorch's vectorised float fmod (AVX2, AVX-512; remainder is built on it) takes
# a - trunc(a / b) * b, which is NaN where a / b overflows (a denormal divisor: -2.6 % -1e-45),
# in chunks of a full vector only; its DEFAULT kernel (and shorter tensors) give the exact
# fmod, as ember does. So where PyTorch gives NaN beside ember's finite value, the call passes;
# a NaN of ember's that PyTorch lacks still fails.
QUOTIENT_OVERFLOW_NAN = {"remainder.Tensor", "remainder.Scalar", "remainder.Scalar_Tensor",
                         "fmod.Tensor", "fmod.Scalar"}


# Orthogonal polynomials whose PyTorch kernels (torch 2.13) return an uninitialised value at a
# NaN input for n >= 2 (chebyshev_polynomial_u(nan, 3) gives -1.9e-14 in one call, 6.9e-310 or
# inf in another; with a tensor n, legendre_polynomial_p(nan, 2.) gives 0 or 1.5e-323): where
# ember's result is NaN, PyTorch's value there is not compared (one-sided: a NaN of PyTorch's
# that ember lacks still fails).
POLYNOMIAL_NAN_UNDEFINED = {f"{prefix}{name}_polynomial_{kind}" for prefix in (
    "special.", "special_") for name, kinds in (
    ("chebyshev", "tuvw"), ("shifted_chebyshev", "tuvw"), ("hermite", ("h", "he")),
    ("laguerre", "l"), ("legendre", "p")) for kind in kinds}


# Special functions whose PyTorch kernels (Cephes' series in the input's own dtype) are
# accurate to about 100 units of the result dtype's tolerance near poles and zeros, where
# ember's (SciPy's, in float64) are accurate to the last bit: their tolerance is 100 times.
LOOSE_SPECIAL = {"polygamma", "special.polygamma", "digamma", "special.digamma", "lgamma",
                 "special.gammaln", "mvlgamma", "igamma", "igammac", "special.bessel_j0",
                 "special.bessel_j1", "special_bessel_j0", "special_bessel_j1",
                 "special_bessel_y0", "special_bessel_y1", "special.bessel_y0",
                 "special.bessel_y1", "special.erfcx", "special_erfcx",
                 "special.zeta", "special_zeta", "special.i0e", "special.i1", "special.i1e",
                 "special_i1", "special_i1e", "special_i0e", "i0", "special.i0",
                 "special_modified_bessel_k0", "special_modified_bessel_k1",
                 "special_scaled_modified_bessel_k0", "special_scaled_modified_bessel_k1",
                 "special_modified_bessel_i0", "special_modified_bessel_i1"}


# Special functions whose PyTorch float64 kernels are accurate to a fixed absolute error, not
# to the result's last bits (measured against SciPy / mpmath on a grid of 2e5 points, torch
# 2.13): airy_ai's asymptotic branch just below x = -2.09 is off by up to 3.0e-6 (7e-7 of
# Ai(-2.59) = -0.1720632), bessel_y1 near its switch at x = 5 by up to 8.7e-7; near their zeros
# that is any relative error. Their values are compared with that absolute error allowed
# (ember's, SciPy's, are exact; copying the kernels' error is not the aim).
KERNEL_ABSOLUTE_ERROR = {"special.airy_ai": 4e-6, "special_airy_ai": 4e-6,
                         "special.bessel_y1": 1e-6, "special_bessel_y1": 1e-6}


# The cross product's entries are differences of two products: of equal (or parallel) inputs
# they cancel to the rounding error of a product, kept by a fused multiply-add (PyTorch's
# vectorised kernel where the CPU has one: cross(a, a) is 5.6e60 for entries near 3.4e38 in
# float64) and 0 without one (ember's). So the tolerance is relative to the products' scale,
# the square of the inputs' largest magnitude.
PRODUCT_SCALE = {"linalg.cross", "cross", "linalg_cross"}


# The pseudo-inverse and the condition number through an SVD in float32 are accurate to about
# cond(A) units of float32
# (PyTorch's 10.203874 for 10.203915 at cond 137; ember's, through double, 10.203915): its
# relative tolerance is LOOSE_SPECIAL's.
CONDITIONED = {"linalg.pinv", "pinverse", "linalg_pinv", "linalg.cond"}


def _tensors_equal(got, want, scale=0.0, rtol_factor=1.0, nonfinite_alike=False,
                   normwise=False, kernel_atol=0.0):
    """None when equal, else the reason."""
    if got[1] != want[1]:
        return f"shape {got[1]} vs {want[1]}"
    if got[2] != want[2]:
        return f"dtype {got[2]} vs {want[2]}"
    a, b = got[3], want[3]
    if a is None or b is None:
        return None
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return f"values of shape {a.shape} vs {b.shape}"
    if got[2] not in TOLERANCES:
        return None if np.array_equal(a, b) else "values differ"
    a = a.astype(np.complex128 if a.dtype.kind == "c" or b.dtype.kind == "c" else np.float64)
    b = b.astype(a.dtype)
    largest = LARGEST[got[2]]
    near = largest / 1e4 if scale > largest / 64 else np.inf
    if nonfinite_alike == "their_nan":
        a = np.where(np.isnan(b) & np.isfinite(a), b, a)      # (QUOTIENT_OVERFLOW_NAN)
    elif nonfinite_alike == "our_nan":
        a = np.where(np.isnan(a), b, a)                      # (POLYNOMIAL_NAN_UNDEFINED)
    elif nonfinite_alike is True:
        a = np.where(np.isfinite(a), a, np.inf)      # (NaN and infinity as one class)
        b = np.where(np.isfinite(b), b, np.inf)
    if not _special_positions_equal(a, b, near):
        return "NaN or infinity positions differ"
    finite = np.isfinite(a) & np.isfinite(b)
    rtol, atol = TOLERANCES[got[2]]
    # (a float64 result of float32 inputs: the inputs' dtype decides how near overflow is)
    atol = max(atol, 64 * EPS[got[2]] * scale, kernel_atol)     # (KERNEL_ABSOLUTE_ERROR)
    if normwise and finite.any():                     # (MATRIX_EXP)
        atol = max(atol, rtol * float(np.abs(b[finite]).max()))
    if got[2] in ("float16", "bfloat16", "complex32") and finite.any():
        # Half results are float32 results rounded once: an input rounded the other way
        # moves a result near zero by a unit of the results' own scale.
        atol = max(atol, rtol * float(np.abs(b[finite]).max()) / 4)
    with np.errstate(all="ignore"):
        # (rtol_factor: LOOSE_SPECIAL's relative tolerance is 100 times)
        close = np.abs(a[finite] - b[finite]) <= atol + rtol_factor * rtol * np.abs(b[finite])
    if not close.all():
        where = np.flatnonzero(finite)[np.flatnonzero(~close)[0]]
        return f"values differ (first at flat {where}: {a.flat[where]!r} vs {b.flat[where]!r})"
    return None


def _results_differ(got, want, loose, scale=0.0, rtol_factor=1.0, nonfinite_alike=False,
                    kernel_atol=0.0):
    """None when the summaries are the same result, else the reason."""
    if got[0] != want[0]:
        return f"{got[0]} vs {want[0]}"
    if got[0] == "tensor":
        if loose:
            return None if got[1:3] == want[1:3] else f"{got[1:3]} vs {want[1:3]}"
        return _tensors_equal(got, want, scale, rtol_factor, nonfinite_alike,
                              nonfinite_alike == "normwise", kernel_atol)
    if got[0] == "sequence":
        if len(got[1]) != len(want[1]):
            return f"{len(got[1])} results vs {len(want[1])}"
        for i, (g, w) in enumerate(zip(got[1], want[1])):
            reason = _results_differ(g, w, loose, scale, rtol_factor, nonfinite_alike,
                                     kernel_atol)
            if reason:
                return f"result {i}: {reason}"
        return None
    if got[0] == "plain" and isinstance(got[1], float) and isinstance(want[1], float):
        a, b = got[1], want[1]
        if a != a and b != b or a == b or loose:
            return None
        return None if abs(a - b) <= 1e-6 * abs(b) else f"{a!r} vs {b!r}"
    return None if got[1] == want[1] or loose else f"{got[1]!r} vs {want[1]!r}"


def _strides(summary):
    """A result's strides (an empty tensor's strides are not compared)."""
    if summary[0] == "tensor":
        empty = 0 in summary[1]
        return summary[4] if len(summary) > 4 and not empty else None
    if summary[0] == "sequence":
        return tuple(_strides(item) for item in summary[1])
    return None


# Ops whose results on inputs holding NaN or infinity follow the algorithm's order (LAPACK's
# pivots, the FFT's butterflies: which entries a NaN reaches differs between PyTorch's MKL and
# ember's LAPACK / pocketfft): compared by shape and dtype there.
ALGORITHM_ORDER = {"fft.fft", "fft.ifft", "fft.rfft", "fft.irfft", "fft.hfft", "fft.ihfft",
                   "fft.fftn", "fft.rfftn", "_fft_r2c", "_fft_c2r", "_fft_c2c", "stft",
                   "istft",
                   "linalg.inv", "linalg.solve", "linalg.cholesky_ex", "linalg.lu_factor_ex",
                "linalg.det", "linalg.slogdet", "linalg.pinv", "linalg.svdvals",
                "linalg.eigvalsh", "linalg.matrix_rank", "linalg.cond", "linalg.matrix_norm",
                "linalg.matrix_power", "inverse", "det", "logdet", "slogdet", "pinverse",
                "cholesky_inverse", "linalg_solve_ex", "linalg_inv_ex", "linalg_cholesky_ex",
                "linalg.inv_ex", "linalg.solve_ex", "linalg.lu_factor", "linalg.lu",
                "linalg.cholesky", "linalg.solve_triangular", "linalg.matrix_exp", "linalg.qr",
                "fft.fft2", "fft.ifft2", "fft.rfft2", "fft.irfft2", "fft.hfft2", "fft.ihfft2",
                "fft.ifftn", "fft.irfftn", "fft.hfftn", "fft.ihfftn"}


# Ops returning the index of a value that may occur more than once: PyTorch documents no
# choice among equal values, so there the indices are compared by shape and dtype only.
TIED_INDICES = {"kthvalue", "median.dim", "nanmedian.dim", "mode"}


# Convolutions whose bfloat16 kernel in PyTorch is oneDNN's where the CPU has one (its sums
# round differently from the float32 sums PyTorch's own kernel and ember take, so which outputs
# overflow depends on the CPU): compared by shape and dtype in bfloat16.
ONEDNN_BFLOAT16 = {"conv1d", "conv2d", "conv3d", "convolution", "conv_transpose1d",
                   "conv_transpose2d", "conv_transpose3d", "conv_tbc"} | {
    f"nn.functional.{name}" for name in ("conv1d", "conv2d", "conv3d", "conv_transpose1d",
                                         "conv_transpose2d", "conv_transpose3d")}


# PyTorch's float32 CPU convolution runs in oneDNN or in its own im2col kernel by a heuristic
# on the shapes and thread count, and within oneDNN by the implementation the CPU's ISA picks;
# some skip the padded positions, others multiply the padded zeros like any value, so an
# infinite or NaN weight meeting the padding gives NaN in one and a number in the other
# (conv1d of a (2, 3, 7) batch with stride 2 and padding 1: a number; the same with one image
# and stride 1: NaN). ember multiplies the zeros, as PyTorch's float64 kernel does (compared
# exactly); in float32, where ember's result is NaN, PyTorch's value there is not compared
# (one-sided).
PADDING_TAPS_BY_BACKEND = ONEDNN_BFLOAT16 | {
    "nn.Conv1d(2, 3, 3)", "nn.Conv2d(3, 2, 3, padding=1)", "nn.Conv3d(2, 2, 2)"}


# The matrix exponential by scaling and squaring: the error of an entry is relative to the
# result's norm, not to the entry (PyTorch's float32 answer has 9.285915 for 9.2858745 beside
# 254.6; ember's, through double, 9.2858744), so the absolute tolerance is the relative one
# times the result's largest magnitude. Where exp of the input's norm is past the dtype's
# largest value, the squarings overflow, and which entries are inf and which inf - inf = NaN
# is the algorithm's order (PyTorch's float64 gives inf for [[-0.63, 1e300], [3.61, -2.96]],
# SciPy's NaN; its float32 NaN for a matrix holding 1e30 whose exponential is finite):
# compared by shape and dtype there.
MATRIX_EXP = {"linalg.matrix_exp", "matrix_exp", "linalg_matrix_exp"}


def _matrix_exp_overflows(want, scale):
    if want[0] != "tensor" or want[2] not in LARGEST or not want[1]:
        return False
    return scale * want[1][-1] >= np.log(LARGEST[want[2]])


# Attention's scores are matrix products: where two input magnitudes multiply past the dtype's
# largest value, a fused multiply-add keeps the product exact (3.4e68 + -inf = -inf) and a plain
# one rounds it to inf first (inf + -inf = NaN), and PyTorch's MKL and ember's OpenBLAS fuse in
# different orders (q @ k.T of the same float32 rows: NaN in MKL, -inf in OpenBLAS, whose
# einsum gives NaN). A NaN score is a NaN row, a -inf one a zero weight, so these entries are
# compared by shape and dtype where the inputs' largest magnitude squared overflows.
ATTENTION = {"nn.functional.scaled_dot_product_attention", "nn.MultiheadAttention(4, 2)",
             "nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0)",
             "nn.TransformerDecoderLayer(4, 2, 8, dropout=0.0)",
             "nn.Transformer(4, 2, 1, 1, 8, dropout=0.0)"}


def _products_overflow(want, scale):
    if want[0] == "sequence" and want[1]:
        return _products_overflow(want[1][0], scale)
    # (half types: PyTorch's CPU attention computes in float32, NOTE [half attention in float32])
    dtype = "float32" if want[0] == "tensor" and want[2] in ("float16", "bfloat16") else \
        want[2] if want[0] == "tensor" else None
    return dtype in LARGEST and scale * scale >= LARGEST[dtype]


def judge(got, want, loose=False, key=None):
    if got[0] in ("crash", "hang"):
        return got[0], got[1]
    if want[0] != "ok" and want[0] != "raised":
        return "skipped", f"torch {want[0]}: {want[1]}"
    if got[0] == "setup":
        return "refused", f"setting up the call failed: {got[1]}"
    if want[0] == "raised":
        return ("both raised", None) if got[0] == "raised" else \
            ("accepted", f"torch {want[1][0]}: {want[1][3]}")
    if got[0] == "raised":
        return "refused", f"ember {got[1][0]}: {got[1][3]}"
    scale = max(got[2] if len(got) > 2 else 0.0, want[2] if len(want) > 2 else 0.0)
    if key in PRODUCT_SCALE:
        scale = min(scale * scale, LARGEST["float64"])
    if key in ALGORITHM_ORDER and (got[3] if len(got) > 3 else False):
        loose = True
    if key in ONEDNN_BFLOAT16 and want[1][0] == "tensor" and want[1][2] == "bfloat16":
        loose = True
    if key in MATRIX_EXP and _matrix_exp_overflows(want[1], scale):
        loose = True
    if key in ATTENTION and _products_overflow(want[1], scale):
        loose = True
    mine, theirs = got[1], want[1]
    if key in TIED_INDICES and mine[0] == theirs[0] == "sequence" and len(mine[1]) == 2:
        reason = _results_differ(mine[1][1], theirs[1][1], True)
        mine, theirs = mine[1][0], theirs[1][0]
    else:
        reason = None
    reason = reason or _results_differ(mine, theirs, loose, scale,
                                       100.0 if key in LOOSE_SPECIAL or key in CONDITIONED
                                       else 1.0,
                                       "their_nan" if key in QUOTIENT_OVERFLOW_NAN else
                                       "normwise" if key in MATRIX_EXP else
                                       "our_nan" if key in POLYNOMIAL_NAN_UNDEFINED or
                                       key in PADDING_TAPS_BY_BACKEND and
                                       want[1][0] == "tensor" and want[1][2] == "float32" else
                                       key in NONFINITE_ALIKE,
                                       KERNEL_ABSOLUTE_ERROR.get(key, 0.0))
    if reason:
        return "differs", reason
    if not loose and _strides(got[1]) != _strides(want[1]):
        return "strides", f"{_strides(got[1])} vs {_strides(want[1])}"
    return "same", None


class Report:
    def __init__(self):
        self.counts = collections.Counter()
        self.findings = collections.defaultdict(list)
        self.tried = 0

    def add(self, call, verdict, detail):
        self.tried += 1
        self.counts[verdict] += 1
        if verdict not in ("same", "both raised"):
            self.findings[verdict].append((call, detail))

    def hard_failures(self):
        return [(verdict, call, detail) for verdict in HARD
                for call, detail in self.findings[verdict]]

    def text(self, show: int = 3) -> str:
        lines = [f"calls tried: {self.tried}"] + [
            f"{verdict}: {self.counts[verdict]}" for verdict in (
                "same", "differs", "refused", "accepted", "both raised", "strides", "crash",
                "hang", "skipped")]
        for verdict in HARD + ("refused", "accepted", "strides"):
            by_op = collections.defaultdict(list)
            for call, detail in self.findings[verdict]:
                by_op[f"{call['form']} {call['name']} ({call['key']})"].append((call, detail))
            if by_op:
                lines.append(f"\n{verdict} by op:")
            for label, found in sorted(by_op.items(), key=lambda kv: -len(kv[1])):
                lines.append(f"  {label}: {len(found)}")
                for call, detail in found[:show]:
                    lines.append(f"      {describe(call)}")
                    lines.append(f"        -> {str(detail)[:300]}")
        return "\n".join(lines)


def describe(call) -> str:
    args = ", ".join(_show(v) for v in call["args"])
    kwargs = ", ".join(f"{k}={_show(v)}" for k, v in call["kwargs"].items())
    where = {"function": "torch.", "path": "torch."}.get(call["form"], "Tensor.")
    return f"{where}{call['name']}({', '.join(p for p in (args, kwargs) if p)})"


def _show(desc) -> str:
    kind = desc[0]
    if kind == "edge":
        return f"E{list(desc[1])}:{desc[2]}:{desc[4]}:seed={desc[3]}"
    if kind in ("probs", "labels", "signs", "grid"):
        return f"{kind}{list(desc[1])}:{desc[2]}:seed={desc[3]}"
    if kind in ("list", "tuple"):
        inner = ", ".join(_show(v) for v in desc[1])
        return f"[{inner}]" if kind == "list" else f"({inner},)"
    if kind in ("int", "float", "bool", "complex", "str", "bytes"):
        return repr(desc[1])
    if kind == "none":
        return "None"
    if kind == "nan":
        return "nan"
    return f"{kind}:{desc[1] if len(desc) > 1 else ''}"


def collect(examples: int, seconds: float, derandomize: bool = True, seed_value=None,
            timeout: float = 20.0, family=None) -> Report:
    """Draw up to `examples` valid calls (no new ones after `seconds`) and judge them."""
    report = Report()
    pair = Pair(timeout=timeout, script=HERE / "vd_worker.py")
    pair.start()
    stop_at = time.monotonic() + seconds

    def each(call):
        got, want = pair.run(call)
        verdict, detail = judge(got, want, loose=call["random"], key=call["key"])
        report.add(call, verdict, detail)

    try:
        draw(valid_calls(family), examples, stop_at, derandomize, seed_value, each)
    finally:
        pair.close()
    return report


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int,
                        default=int(os.environ.get("EMBER_FUZZ_EXAMPLES", "3000")))
    parser.add_argument("--seconds", type=float, default=3600.0)
    parser.add_argument("--seed", type=int, default=None,
                        help="a random seed (default: the fixed draw CI makes)")
    parser.add_argument("--show", type=int, default=3, help="examples listed per op")
    parser.add_argument("--family", choices=FAMILIES, default=None,
                        help="draw only this family's calls (default: all)")
    options = parser.parse_args(argv)
    started = time.monotonic()
    report = collect(options.examples, options.seconds, derandomize=options.seed is None,
                     seed_value=options.seed, family=options.family)
    print(report.text(options.show))
    print(f"\n{time.monotonic() - started:.1f} s")
    return 1 if report.hard_failures() else 0


if __name__ == "__main__":
    sys.exit(main())
