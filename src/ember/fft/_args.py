"""What the public transforms share: argument checks and normalisation (PyTorch's messages),
dtype promotion, resizing the input to the requested sizes, and `out=`."""
from __future__ import annotations

from ember._core import dtype as dt
from ember._core.checks import _check, _check_index, _check_type
from ember._core.dispatch import call, copy_into_out
from ember._core.registry import OPS
from ember._ops.fft import NORM_BY_N, NORM_BY_ROOT_N, NORM_NONE

_FFT_TYPES = frozenset((dt.float32, dt.float64))


def norm_mode(norm, forward: bool, aten_name: str) -> int:
    """PyTorch's fft_norm_mode for a `norm` word: "backward" (the default) scales the backward
    transform by 1/n, "forward" the forward one, "ortho" both by 1/sqrt(n)."""
    _check_type(norm is None or isinstance(norm, str), lambda: (
        f"{aten_name}(): argument 'norm' must be str, not {type(norm).__name__}"))
    if norm is None or norm == "backward":
        return NORM_NONE if forward else NORM_BY_N
    if norm == "forward":
        return NORM_BY_N if forward else NORM_NONE
    _check(norm == "ortho", lambda: f'Invalid normalization mode: "{norm}"')
    return NORM_BY_ROOT_N


def fft_dtype(dtype, require_complex: bool):
    """The dtype a transform computes in: integers and bool go to the default dtype; only
    float32/float64 (and their complex types) have CPU kernels."""
    if dtype.is_complex:
        _check(dtype in (dt.complex64, dt.complex128), lambda: (
            f"MKL FFT doesn't support tensors of type: {dtype.to_real()._cpp_name}"))
        return dtype
    if not dtype.is_floating_point:
        from ember._core.dtype import get_default_dtype
        dtype = get_default_dtype()
    _check(dtype in _FFT_TYPES, lambda: f"Unsupported dtype {dtype._cpp_name}")
    return dtype.to_complex() if require_complex else dtype


def promote(x, require_complex: bool = False):
    dtype = fft_dtype(x._dtype, require_complex)
    return x if dtype is x._dtype else x.to(dtype)


def check_int(value, name, aten_name):
    _check_type(isinstance(value, int) or hasattr(value, "__index__"), lambda: (
        f"{aten_name}(): argument '{name}' must be int, not {type(value).__name__}"))
    return int(value.__index__())


def wrap_fft_dim(dim: int, ndim: int) -> int:
    """A dim of the input (a 0-d tensor has none to transform)."""
    _check_index(ndim > 0, lambda: (
        f"Dimension specified as {dim} but tensor has no dimensions"))
    _check_index(-ndim <= dim < ndim, lambda: (
        f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got "
        f"{dim})"))
    return dim + ndim if dim < 0 else dim


def check_points(n) -> None:
    _check(n >= 1, lambda: f"Invalid number of data points ({n}) specified")


def one_dim(x, n, dim, aten_name):
    """(dim, n) of a one-dimensional transform: `dim` wrapped; n None if not given."""
    dim = wrap_fft_dim(check_int(dim, "dim", aten_name), x.ndim)
    if n is not None:
        n = check_int(n, "n", aten_name)
    check_points(x.shape[dim] if n is None else n)
    return dim, n


def shape_and_dims(x, s, dim, aten_name):
    """PyTorch's canonical (sizes, dims) of an n-dimensional transform: `s` and `dim` checked
    against each other and the input; -1 in `s` means the input's size."""
    ndim = x.ndim
    if dim is not None:
        dims = [dim] if isinstance(dim, int) else list(dim)
        dims = [wrap_fft_dim(check_int(d, "dim", aten_name), ndim) for d in dims]
        _check(len(set(dims)) == len(dims), "FFT dims must be unique")
    if s is not None:
        s = [check_int(v, "s", aten_name) for v in s]
        if dim is not None:
            _check(len(dims) == len(s),
                   "When given, dim and shape arguments must have the same length")
        else:
            _check(len(s) <= ndim, lambda: (
                f"Got shape with {len(s)} values but input tensor only has {ndim} dimensions."))
            dims = list(range(ndim - len(s), ndim))
        sizes = [x.shape[d] if v == -1 else v for d, v in zip(dims, s)]
        for v in sizes:
            check_points(v)
        return sizes, dims
    if dim is None:
        dims = list(range(ndim))
    sizes = [x.shape[d] for d in dims]
    for v in sizes:
        check_points(v)
    return sizes, dims


def resize(x, dims, sizes):
    """`x` cut or zero-padded at the end of each of `dims` to the given sizes."""
    pad = [0] * (2 * x.ndim)
    padding = False
    for d, size in zip(dims, sizes):
        have = x.shape[d]
        if have > size:
            x = x.narrow(d, 0, size)
        elif have < size:
            pad[2 * (x.ndim - 1 - d) + 1] = size - have
            padding = True
    if padding:
        last = max(i for i, p in enumerate(pad) if p) + 1
        x = call(OPS["constant_pad_nd"], (x, pad[:last], 0))
    return x


def r2c(x, dims, norm, onesided):
    return call(OPS["_fft_r2c"], (x, list(dims), norm, onesided))


def c2r(x, dims, norm, last_dim_size):
    return call(OPS["_fft_c2r"], (x, list(dims), norm, last_dim_size))


def c2c(x, dims, norm, forward):
    return call(OPS["_fft_c2c"], (x, list(dims), norm, forward))


def finish(result, out, name):
    """The result, or written into `out` (whose complexness must match, as PyTorch checks)."""
    if out is None:
        return result
    want = "complex" if result._dtype.is_complex else "real"
    _check((out._dtype.is_complex) == result._dtype.is_complex, lambda: (
        f"{name} expects a {want} output tensor, but got {out._dtype._cpp_name}"))
    copy_into_out(out, result)
    return out
