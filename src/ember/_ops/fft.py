"""Discrete Fourier transforms as registry ops, in PyTorch's aten naming: `_fft_r2c` (real to
complex), `_fft_c2r` (Hermitian complex to real) and `_fft_c2c`.

Every public function of `ember.fft` (fft, rfftn, hfft2 ...) and `ember.stft`/`istft` is a
composite of these three, as in PyTorch: so autograd sees the same nodes (FftR2CBackward0,
FftC2RBackward0, FftC2CBackward0) and a derivative is written once per kind of transform
rather than once per public function.

`normalization` is PyTorch's fft_norm_mode: 0 scales by nothing, 1 by 1/sqrt(n), 2 by 1/n,
where n is the product of the transformed sizes (the logical sizes for c2r), whichever the
direction. Kernels run on `scipy.fft` (loaded on first use; it keeps float32 as float32 and
splits batches over `workers`), or on the array module's own `fft` without SciPy.
"""
from __future__ import annotations

import numpy as np

from ember._backends.array_helpers import backend_helpers
from ember._core import dtype as dt
from ember._core.checks import _check
from ember._core.dispatch import call
from ember._core.registry import OPS, register_op
from ember._core.threads import intra_op_threads

NORM_NONE, NORM_BY_ROOT_N, NORM_BY_N = 0, 1, 2

# scipy.fft's `norm` words for a normalization mode, for the forward (exp(-i...)) and the
# backward (exp(+i...)) transforms: scipy names the direction that carries the scale.
_FORWARD_NORM = {NORM_NONE: "backward", NORM_BY_ROOT_N: "ortho", NORM_BY_N: "forward"}
_BACKWARD_NORM = {NORM_NONE: "forward", NORM_BY_ROOT_N: "ortho", NORM_BY_N: "backward"}

_fft_modules: dict = {}


def _fft_module(xp):
    """scipy.fft for NumPy arrays (numpy.fft without SciPy), the array module's fft otherwise;
    the second item says whether it takes `workers`."""
    found = _fft_modules.get(xp)
    if found is None:       # (NOTE [back-end helpers]; SciPy is imported on first use)
        found = _fft_modules[xp] = backend_helpers(xp).fft()
    return found


def _run(xp, name, x, norm, **kwargs):
    module, takes_workers = _fft_module(xp)
    if takes_workers:
        kwargs["workers"] = intra_op_threads()
    return getattr(module, name)(x, norm=norm, **kwargs)


def _check_dtype(x, complex_input: bool):
    """PyTorch's CPU FFT takes float32/float64 (complex64/complex128) only."""
    kind = "c" if complex_input else "f"
    _check(x.dtype.kind == kind and x.dtype.itemsize in ((8, 16) if complex_input else (4, 8)),
           lambda: f"Unsupported dtype {dt.NP_TO_DTYPE[np.dtype(x.dtype)]._cpp_name}")


def _sizes(shape, dim, last=None):
    sizes = [shape[d] for d in dim]
    if last is not None:
        sizes[-1] = last
    return sizes


def _transformed_shape(shape, dim, last):
    shape = list(shape)
    shape[dim[-1]] = last
    return tuple(shape)


# --------------------------------------------------------------------------- meta rules

def _r2c_meta(self, dim, normalization, onesided):
    shape = self._data.shape
    if onesided and dim:
        shape = _transformed_shape(shape, dim, shape[dim[-1]] // 2 + 1)
    return (tuple(shape), self._dtype.to_complex())


def _c2r_meta(self, dim, normalization, last_dim_size):
    return (_transformed_shape(self._data.shape, dim, last_dim_size), self._dtype.to_real())


def _c2c_meta(self, dim, normalization, forward):
    return (tuple(self._data.shape), self._dtype)


# --------------------------------------------------------------------------- derivatives

def _pad_last(grad, dim, size):
    """`grad` zero-padded at the end of `dim` to `size`."""
    missing = size - grad.shape[dim]
    if missing <= 0:
        return grad
    pad = [0, 0] * (grad.ndim - 1 - dim) + [0, missing]
    return call(OPS["constant_pad_nd"], (grad, pad, 0))


def _r2c_grad(c):
    # The adjoint of a forward transform is the backward one with the same scale; the half
    # of the spectrum a onesided result drops has no gradient (zeros).
    dim = list(c.dim)
    grad = c.grad
    if c.onesided and len(dim) == 1:
        return _onesided_r2c_grad(grad, dim[0], c.normalization, c.self.shape[dim[0]])
    if c.onesided:
        grad = _pad_last(grad, dim[-1], c.self.shape[dim[-1]])
    return call(OPS["_fft_c2c"], (grad, dim, c.normalization, False)).real


def _onesided_r2c_grad(grad, dim, normalization, size):
    """Re(ifft(g padded with zeros to `size`)) for a onesided spectrum g along one dim, as a
    c2r transform (half the work of the complex one): the real part of ifft(z) is the c2r
    transform of the Hermitian (z_k + conj(z_-k)) / 2, and with the upper half of z zero that
    is z_k / 2, except the bins that are their own mirror image (0 and, for an even size, the
    last), where it is z_k's real part, all a c2r reads there."""
    bins = grad.shape[dim]
    weights = np.full(bins, 0.5, dtype=np.float32)
    weights[0] = 1
    if size % 2 == 0:
        weights[-1] = 1
    shape = [1] * grad.ndim
    shape[dim] = bins
    weight = grad.new_tensor(weights.reshape(shape), dtype=grad._dtype.to_real())
    return call(OPS["_fft_c2r"], (grad * weight, [dim], normalization, size))


def _c2r_grad(c):
    # The adjoint of c2r is r2c, with the bins that stand for two (their mirror image is
    # implied) counted twice: every bin but the first and, for an even size, the last.
    dim = list(c.dim)
    grad_input = call(OPS["_fft_r2c"], (c.grad, dim, c.normalization, True))
    last = dim[-1]
    doubled = c.grad.shape[last] - grad_input.shape[last]
    if doubled <= 0:
        return grad_input
    weights = np.ones(grad_input.shape[last], dtype=np.float32)
    weights[1:1 + doubled] = 2
    shape = [1] * grad_input.ndim
    shape[last] = weights.shape[0]
    weight = grad_input.new_tensor(weights.reshape(shape), dtype=grad_input._dtype.to_real())
    return grad_input * weight


def _c2c_grad(c):
    return call(OPS["_fft_c2c"], (c.grad, list(c.dim), c.normalization, not c.forward))


# --------------------------------------------------------------------------- the ops

@register_op("_fft_r2c(Tensor self, int[] dim, int normalization, bool onesided) -> Tensor",
             kind="generic", method=False, meta=_r2c_meta, saves=(), tags=("fp_errors",),
             derivatives={"self": _r2c_grad}, node_name="FftR2CBackward0")
def fft_r2c(xp, self, dim, normalization, onesided):
    """_fft_r2c(input, dim, normalization, onesided) -> Tensor: the forward transform of a
    real tensor over `dim`, keeping only the non-negative frequencies of the last one when
    `onesided`."""
    _check_dtype(self, complex_input=False)
    dim = tuple(dim)
    norm = _FORWARD_NORM[normalization]
    if not dim:
        return self.astype(np.result_type(self.dtype, np.complex64))
    if onesided:
        return _run(xp, "rfftn", self, norm, axes=dim)
    return _run(xp, "fftn", self, norm, axes=dim)


@register_op("_fft_c2r(Tensor self, int[] dim, int normalization, SymInt last_dim_size) -> "
             "Tensor", kind="generic", method=False, meta=_c2r_meta, saves=(),
             tags=("fp_errors",), derivatives={"self": _c2r_grad}, node_name="FftC2RBackward0")
def fft_c2r(xp, self, dim, normalization, last_dim_size):
    """_fft_c2r(input, dim, normalization, last_dim_size) -> Tensor: the backward transform
    of a onesided Hermitian spectrum over `dim`, giving `last_dim_size` real values along the
    last one."""
    _check_dtype(self, complex_input=True)
    dim = tuple(dim)
    sizes = _sizes(self.shape, dim, last_dim_size)
    return _run(xp, "irfftn", self, _BACKWARD_NORM[normalization], s=sizes, axes=dim)


@register_op("_fft_c2c(Tensor self, SymInt[] dim, int normalization, bool forward) -> Tensor",
             kind="generic", method=False, meta=_c2c_meta, saves=(), tags=("fp_errors",),
             derivatives={"self": _c2c_grad}, node_name="FftC2CBackward0")
def fft_c2c(xp, self, dim, normalization, forward):
    """_fft_c2c(input, dim, normalization, forward) -> Tensor: the forward (exp(-i...)) or
    backward (exp(+i...)) transform of a complex tensor over `dim`."""
    _check_dtype(self, complex_input=True)
    dim = tuple(dim)
    if not dim:
        return self.copy()
    if forward:
        return _run(xp, "fftn", self, _FORWARD_NORM[normalization], axes=dim)
    return _run(xp, "ifftn", self, _BACKWARD_NORM[normalization], axes=dim)
