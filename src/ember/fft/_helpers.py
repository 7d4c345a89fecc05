"""Sample frequencies (`fftfreq`, `rfftfreq`) and the half-swaps that centre a spectrum
(`fftshift`, `ifftshift`)."""
from __future__ import annotations

from ember._core.checked_entry import checked
from ember._core.dispatch import call
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.registry import OPS
from ember.fft._args import check_int, finish


def _frequencies(name, n, d, dtype, layout, device, requires_grad, out):
    """The factory op fft_<name> (what PyTorch's modes see), marked and written into `out`."""
    import ember
    n = check_int(n, "n", f"fft_{name}")
    dtype = dtype if dtype is not None else (
        out.dtype if out is not None else ember.get_default_dtype())
    values = call(OPS[f"fft_{name}"], (n, float(d), dtype, layout, device, None))
    if requires_grad:
        values.requires_grad_(True)
    return finish(values, out, name)


@checked("fft_fftfreq(int n, float d=1.0, *, ScalarType? dtype=None, Layout? layout=None, "
         "Device? device=None, bool? pin_memory=None)")
def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False,
            pin_memory=False):
    """fftfreq(n, d=1.0, *, out=None, dtype=None, layout=torch.strided, device=None,
    requires_grad=False) -> Tensor: the sample frequencies of a length-`n` transform with
    sample spacing `d`: [0, 1, ..., (n - 1) // 2, -(n // 2), ..., -1] / (d * n)."""
    if _state.entry and _wants(locals()):
        return _handle(fftfreq, locals())
    return _frequencies("fftfreq", n, d, dtype, layout, device, requires_grad, out)


@checked("fft_rfftfreq(int n, float d=1.0, *, ScalarType? dtype=None, Layout? layout=None, "
         "Device? device=None, bool? pin_memory=None)")
def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False,
             pin_memory=False):
    """rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=torch.strided, device=None,
    requires_grad=False) -> Tensor: the n // 2 + 1 non-negative sample frequencies of `rfft`."""
    if _state.entry and _wants(locals()):
        return _handle(rfftfreq, locals())
    return _frequencies("rfftfreq", n, d, dtype, layout, device, requires_grad, out)


def _shift(x, dim, inverse):
    if dim is None:
        dims = list(range(x.ndim))
    else:
        dims = [dim] if isinstance(dim, int) else list(dim)
    sizes = x.shape
    from ember._core.shape import wrap_dim
    shifts = [(sizes[wrap_dim(d, x.ndim)] + inverse) // 2 for d in dims]
    return call(OPS["roll"], (x, shifts, dims))


@checked("fft_fftshift(Tensor self, int[1]? dim=None)")
def fftshift(input, dim=None):
    """fftshift(input, dim=None) -> Tensor: move the zero frequency of an `fftn` result to the
    centre of `dim` (every dim by default)."""
    if _state.entry and _wants(locals()):
        return _handle(fftshift, locals())
    return _shift(input, dim, 0)


@checked("fft_ifftshift(Tensor self, int[1]? dim=None)")
def ifftshift(input, dim=None):
    """ifftshift(input, dim=None) -> Tensor: the inverse of `fftshift`."""
    if _state.entry and _wants(locals()):
        return _handle(ifftshift, locals())
    return _shift(input, dim, 1)


# PyTorch's public names of these functions (`torch.fft.fft.__name__` is "fft_fft"), which a
# TorchFunctionMode is shown.
for _public in (fftfreq, rfftfreq, fftshift, ifftshift):
    _public.__name__ = f"fft_{_public.__name__}"
del _public
