"""The public transforms, each a composite of `_fft_r2c`, `_fft_c2r` and `_fft_c2c`
(`_ops/fft.py`) as in PyTorch: promote the input, cut or pad it to the requested sizes, pick
the normalisation, run one or two of the three ops."""
from __future__ import annotations

from ember._core.checked_entry import checked
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.checks import _check
from ember.fft._args import (
    c2c,
    c2r,
    check_points,
    finish,
    norm_mode,
    one_dim,
    promote,
    r2c,
    resize,
    shape_and_dims,
)

# --------------------------------------------------------------------------- one dimension

# PyTorch's schemas of the three shapes of transform (NOTE [checked entries]).
_ONE = "fft_{}(Tensor self, SymInt? n=None, int dim=-1, str? norm=None)"
_TWO = "fft_{}(Tensor self, SymInt[1]? s=None, int[1] dim=[-2, -1], str? norm=None)"
_ANY = "fft_{}(Tensor self, SymInt[1]? s=None, int[1]? dim=None, str? norm=None)"


def _c2c_1d(name, x, n, dim, norm, forward, out):
    aten = f"fft_{name}"
    dim, n = one_dim(x, n, dim, aten)
    if n is not None:
        x = resize(x, [dim], [n])
    return finish(c2c(x, [dim], norm_mode(norm, forward, aten), forward), out, name)


def _r2c_1d(name, x, n, dim, norm, forward, onesided, out):
    aten = f"fft_{name}"
    _check(not x._dtype.is_complex, lambda: (
        f"{name} expects a real input tensor, but got {x._dtype._cpp_name}"))
    x = promote(x)
    dim, n = one_dim(x, n, dim, aten)
    if n is not None:
        x = resize(x, [dim], [n])
    result = r2c(x, [dim], norm_mode(norm, forward, aten), onesided)
    return finish(result if forward else result.conj(), out, name)


def _c2r_1d(name, x, n, dim, norm, forward, out):
    aten = f"fft_{name}"
    x = promote(x, require_complex=True)
    dim, n = one_dim(x, n, dim, aten)
    last = n if n is not None else 2 * (x.shape[dim] - 1)
    check_points(last)
    if n is not None:
        x = resize(x, [dim], [last // 2 + 1])
    if forward:
        x = x.conj()
    return finish(c2r(x, [dim], norm_mode(norm, forward, aten), last), out, name)


@checked(_ONE.format("fft"))
def fft(input, n=None, dim=-1, norm=None, *, out=None):
    """fft(input, n=None, dim=-1, norm=None, *, out=None) -> Tensor: the one-dimensional
    discrete Fourier transform of `input` along `dim`."""
    if _state.entry and _wants(locals()):
        return _handle(fft, locals())
    if input._dtype.is_complex:
        return _c2c_1d("fft", input, n, dim, norm, True, out)
    return _r2c_1d("fft", input, n, dim, norm, True, False, out)


@checked(_ONE.format("ifft"))
def ifft(input, n=None, dim=-1, norm=None, *, out=None):
    """ifft(input, n=None, dim=-1, norm=None, *, out=None) -> Tensor: the inverse of `fft`."""
    if _state.entry and _wants(locals()):
        return _handle(ifft, locals())
    if input._dtype.is_complex:
        return _c2c_1d("ifft", input, n, dim, norm, False, out)
    return _r2c_1d("ifft", input, n, dim, norm, False, False, out)


@checked(_ONE.format("rfft"))
def rfft(input, n=None, dim=-1, norm=None, *, out=None):
    """rfft(input, n=None, dim=-1, norm=None, *, out=None) -> Tensor: the transform of a real
    signal, keeping the n // 2 + 1 non-negative frequencies."""
    if _state.entry and _wants(locals()):
        return _handle(rfft, locals())
    return _r2c_1d("rfft", input, n, dim, norm, True, True, out)


@checked(_ONE.format("irfft"))
def irfft(input, n=None, dim=-1, norm=None, *, out=None):
    """irfft(input, n=None, dim=-1, norm=None, *, out=None) -> Tensor: the inverse of `rfft`;
    `n` real values (default 2 * (input.size(dim) - 1))."""
    if _state.entry and _wants(locals()):
        return _handle(irfft, locals())
    return _c2r_1d("irfft", input, n, dim, norm, False, out)


@checked(_ONE.format("hfft"))
def hfft(input, n=None, dim=-1, norm=None, *, out=None):
    """hfft(input, n=None, dim=-1, norm=None, *, out=None) -> Tensor: the transform of a
    Hermitian-symmetric signal given by its first half; a real result."""
    if _state.entry and _wants(locals()):
        return _handle(hfft, locals())
    return _c2r_1d("hfft", input, n, dim, norm, True, out)


@checked(_ONE.format("ihfft"))
def ihfft(input, n=None, dim=-1, norm=None, *, out=None):
    """ihfft(input, n=None, dim=-1, norm=None, *, out=None) -> Tensor: the inverse of `hfft`:
    the first half of the Hermitian spectrum of a real signal."""
    if _state.entry and _wants(locals()):
        return _handle(ihfft, locals())
    return _r2c_1d("ihfft", input, n, dim, norm, False, True, out)


# --------------------------------------------------------------------------- n dimensions

def _c2c_nd(name, x, s, dim, norm, forward, out):
    aten = f"fft_{name}"
    sizes, dims = shape_and_dims(x, s, dim, aten)
    x = resize(promote(x, require_complex=True), dims, sizes)
    return finish(c2c(x, dims, norm_mode(norm, forward, aten), forward), out, name)


def _c2r_sizes(name, x, s, dim):
    """(sizes, dims, last_dim_size) of an n-dimensional transform to real values: the last
    dim's logical size defaults to 2 * (input size - 1), and the input keeps its half."""
    sizes, dims = shape_and_dims(x, s, dim, f"fft_{name}")
    _check(len(dims) > 0, lambda: f"{name} must transform at least one axis")
    last = sizes[-1] if s is not None else 2 * (x.shape[dims[-1]] - 1)
    check_points(last)
    sizes[-1] = last // 2 + 1
    return sizes, dims, last


@checked(_ANY.format("fftn"))
def fftn(input, s=None, dim=None, norm=None, *, out=None):
    """fftn(input, s=None, dim=None, norm=None, *, out=None) -> Tensor: the N-dimensional
    discrete Fourier transform over `dim` (every dim by default)."""
    if _state.entry and _wants(locals()):
        return _handle(fftn, locals())
    return _c2c_nd("fftn", input, s, dim, norm, True, out)


@checked(_ANY.format("ifftn"))
def ifftn(input, s=None, dim=None, norm=None, *, out=None):
    """ifftn(input, s=None, dim=None, norm=None, *, out=None) -> Tensor: the inverse of
    `fftn`."""
    if _state.entry and _wants(locals()):
        return _handle(ifftn, locals())
    return _c2c_nd("ifftn", input, s, dim, norm, False, out)


@checked(_TWO.format("fft2"))
def fft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """fft2(input, s=None, dim=(-2, -1), norm=None, *, out=None) -> Tensor: `fftn` over two
    dims."""
    if _state.entry and _wants(locals()):
        return _handle(fft2, locals())
    return _c2c_nd("fft2", input, s, dim, norm, True, out)


@checked(_TWO.format("ifft2"))
def ifft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """ifft2(input, s=None, dim=(-2, -1), norm=None, *, out=None) -> Tensor: the inverse of
    `fft2`."""
    if _state.entry and _wants(locals()):
        return _handle(ifft2, locals())
    return _c2c_nd("ifft2", input, s, dim, norm, False, out)


def _rfftn(name, x, s, dim, norm, out):
    aten = f"fft_{name}"
    _check(not x._dtype.is_complex, lambda: (
        f"rfftn expects a real-valued input tensor, but got {x._dtype._cpp_name}"))
    sizes, dims = shape_and_dims(x, s, dim, aten)
    _check(len(dims) > 0, "rfftn must transform at least one axis")
    x = resize(promote(x), dims, sizes)
    return finish(r2c(x, dims, norm_mode(norm, True, aten), True), out, name)


def _irfftn(name, x, s, dim, norm, out):
    sizes, dims, last = _c2r_sizes("irfftn", x, s, dim)
    x = resize(promote(x, require_complex=True), dims, sizes)
    return finish(c2r(x, dims, norm_mode(norm, False, f"fft_{name}"), last), out, name)


@checked(_ANY.format("rfftn"))
def rfftn(input, s=None, dim=None, norm=None, *, out=None):
    """rfftn(input, s=None, dim=None, norm=None, *, out=None) -> Tensor: `fftn` of a real
    tensor, keeping the non-negative frequencies of the last dim."""
    if _state.entry and _wants(locals()):
        return _handle(rfftn, locals())
    return _rfftn("rfftn", input, s, dim, norm, out)


@checked(_TWO.format("rfft2"))
def rfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """rfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None) -> Tensor: `rfftn` over two
    dims."""
    if _state.entry and _wants(locals()):
        return _handle(rfft2, locals())
    return _rfftn("rfft2", input, s, dim, norm, out)


@checked(_ANY.format("irfftn"))
def irfftn(input, s=None, dim=None, norm=None, *, out=None):
    """irfftn(input, s=None, dim=None, norm=None, *, out=None) -> Tensor: the inverse of
    `rfftn`."""
    if _state.entry and _wants(locals()):
        return _handle(irfftn, locals())
    return _irfftn("irfftn", input, s, dim, norm, out)


@checked(_TWO.format("irfft2"))
def irfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """irfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None) -> Tensor: the inverse of
    `rfft2`."""
    if _state.entry and _wants(locals()):
        return _handle(irfft2, locals())
    return _irfftn("irfft2", input, s, dim, norm, out)


def _hfftn(name, x, s, dim, norm, out):
    sizes, dims, last = _c2r_sizes("hfftn", x, s, dim)
    mode = norm_mode(norm, True, f"fft_{name}")
    x = resize(promote(x, require_complex=True), dims, sizes)
    if len(dims) > 1:
        x = c2c(x, dims[:-1], mode, True)
    return finish(c2r(x.conj(), dims[-1:], mode, last), out, name)


def _ihfftn(name, x, s, dim, norm, out):
    aten = f"fft_{name}"
    _check(not x._dtype.is_complex, lambda: (
        f"Only supports floating-point dtypes, but found: {x._dtype._cpp_name}"))
    sizes, dims = shape_and_dims(x, s, dim, aten)
    _check(len(dims) > 0, "ihfftn must transform at least one axis")
    mode = norm_mode(norm, False, aten)
    x = resize(promote(x), dims, sizes)
    half = r2c(x, dims[-1:], mode, True)
    if len(dims) == 1:
        return finish(half.conj(), out, name)
    return finish(c2c(half.conj_physical(), dims[:-1], mode, False), out, name)


@checked(_ANY.format("hfftn"))
def hfftn(input, s=None, dim=None, norm=None, *, out=None):
    """hfftn(input, s=None, dim=None, norm=None, *, out=None) -> Tensor: the N-dimensional
    transform of a Hermitian-symmetric signal given by the first half of its last dim."""
    if _state.entry and _wants(locals()):
        return _handle(hfftn, locals())
    return _hfftn("hfftn", input, s, dim, norm, out)


@checked(_TWO.format("hfft2"))
def hfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """hfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None) -> Tensor: `hfftn` over two
    dims."""
    if _state.entry and _wants(locals()):
        return _handle(hfft2, locals())
    return _hfftn("hfft2", input, s, dim, norm, out)


@checked(_ANY.format("ihfftn"))
def ihfftn(input, s=None, dim=None, norm=None, *, out=None):
    """ihfftn(input, s=None, dim=None, norm=None, *, out=None) -> Tensor: the inverse of
    `hfftn`."""
    if _state.entry and _wants(locals()):
        return _handle(ihfftn, locals())
    return _ihfftn("ihfftn", input, s, dim, norm, out)


@checked(_TWO.format("ihfft2"))
def ihfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """ihfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None) -> Tensor: the inverse of
    `hfft2`."""
    if _state.entry and _wants(locals()):
        return _handle(ihfft2, locals())
    return _ihfftn("ihfft2", input, s, dim, norm, out)


# PyTorch's public names of these functions (`torch.fft.fft.__name__` is "fft_fft"), which a
# TorchFunctionMode is shown.
for _public in (fft, ifft, rfft, irfft, hfft, ihfft, fftn, ifftn, fft2, ifft2, rfftn, rfft2, irfftn, irfft2, hfftn, hfft2, ihfftn, ihfft2):
    _public.__name__ = f"fft_{_public.__name__}"
del _public
