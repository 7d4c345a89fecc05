"""The windows of torch.signal.windows as compositions of ember ops (linspace, cos, exp, i0
...), taking the same steps as PyTorch's so float32 results agree to rounding.

Each samples a closed-form curve on M points: `sym=True` gives the symmetric window used in
filter design, `sym=False` the periodic one used in spectral analysis (the symmetric window
of M + 1 points without its last)."""
from __future__ import annotations

import math
from collections.abc import Iterable


def _ember():
    import ember
    return ember


def _start(name, M, dtype, layout):
    """The dtype to build in (the default when None), after PyTorch's checks."""
    ember = _ember()
    dtype = ember.get_default_dtype() if dtype is None else dtype
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout is not ember.strided:
        raise ValueError(f"{name} is implemented for strided tensors only, got: {layout}")
    if dtype not in (ember.float32, ember.float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dtype}")
    return dtype


def _empty_or_one(M, dtype, layout, device, requires_grad, one=True):
    """The windows of 0 points (and of 1, where the curve is flat there), else None."""
    ember = _ember()
    if M == 0:
        return ember.empty((0,), dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)
    if M == 1 and one:
        return ember.ones((1,), dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)
    return None


def _points(start, end, M, dtype, layout, device, requires_grad):
    return _ember().linspace(start, end, M, dtype=dtype, layout=layout, device=device,
                             requires_grad=requires_grad)


def _span(M, sym):
    """The denominator of the sampling: M - 1 points apart for a symmetric window, M for a
    periodic one."""
    return M - 1 if sym else M


def exponential(M, *, center=None, tau=1.0, sym=True, dtype=None, layout=None, device=None,
                requires_grad=False):
    """exponential(M, *, center=None, tau=1.0, sym=True, dtype=None, layout=torch.strided,
    device=None, requires_grad=False) -> Tensor: exp(-|n - center| / tau)."""
    layout = _ember().strided if layout is None else layout
    dtype = _start("exponential", M, dtype, layout)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    made = _empty_or_one(M, dtype, layout, device, requires_grad, one=False)
    if made is not None:
        return made
    if center is None:
        center = (M if not sym and M > 1 else M - 1) / 2.0
    scale = 1 / tau
    k = _points(-center * scale, (-center + (M - 1)) * scale, M, dtype, layout, device,
                requires_grad)
    return (-k.abs()).exp()


def cosine(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """cosine(M, *, sym=True, dtype=None, layout=torch.strided, device=None,
    requires_grad=False) -> Tensor: the sine (cosine) window, sin(pi (n + 0.5) / M)."""
    layout = _ember().strided if layout is None else layout
    dtype = _start("cosine", M, dtype, layout)
    made = _empty_or_one(M, dtype, layout, device, requires_grad, one=False)
    if made is not None:
        return made
    step = math.pi / (M + 1 if not sym and M > 1 else M)
    k = _points(0.5 * step, (0.5 + (M - 1)) * step, M, dtype, layout, device, requires_grad)
    return k.sin()


def gaussian(M, *, std=1.0, sym=True, dtype=None, layout=None, device=None,
             requires_grad=False):
    """gaussian(M, *, std=1.0, sym=True, dtype=None, layout=torch.strided, device=None,
    requires_grad=False) -> Tensor: exp(-((n - (M - 1) / 2) / std)^2 / 2)."""
    layout = _ember().strided if layout is None else layout
    dtype = _start("gaussian", M, dtype, layout)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    made = _empty_or_one(M, dtype, layout, device, requires_grad, one=False)
    if made is not None:
        return made
    first = -(M if not sym and M > 1 else M - 1) / 2.0
    scale = 1 / (std * math.sqrt(2))
    k = _points(first * scale, (first + (M - 1)) * scale, M, dtype, layout, device,
                requires_grad)
    return (-(k ** 2)).exp()


def kaiser(M, *, beta=12.0, sym=True, dtype=None, layout=None, device=None,
           requires_grad=False):
    """kaiser(M, *, beta=12.0, sym=True, dtype=None, layout=torch.strided, device=None,
    requires_grad=False) -> Tensor: I0(sqrt(beta^2 - k^2)) / I0(beta), k from -beta to
    beta."""
    ember = _ember()
    layout = ember.strided if layout is None else layout
    dtype = _start("kaiser", M, dtype, layout)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    made = _empty_or_one(M, dtype, layout, device, requires_grad)
    if made is not None:
        return made
    beta_t = ember.tensor(beta, dtype=dtype, device=device)
    step = 2.0 * beta_t / _span(M, sym)
    end = ember.minimum(beta_t, -beta_t + (M - 1) * step)
    k = _points(-beta_t, end, M, dtype, layout, device, requires_grad)
    return ember.i0((beta_t * beta_t - k.pow(2)).sqrt()) / ember.i0(beta_t)


def general_cosine(M, *, a, sym=True, dtype=None, layout=None, device=None,
                   requires_grad=False):
    """general_cosine(M, *, a, sym=True, dtype=None, layout=torch.strided, device=None,
    requires_grad=False) -> Tensor: sum over i of (-1)^i a[i] cos(2 pi i n / (M - 1))."""
    ember = _ember()
    layout = ember.strided if layout is None else layout
    dtype = _start("general_cosine", M, dtype, layout)
    made = _empty_or_one(M, dtype, layout, device, requires_grad)
    if made is not None:
        return made
    if not isinstance(a, Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    step = 2 * math.pi / _span(M, sym)
    k = _points(0, (M - 1) * step, M, dtype, layout, device, requires_grad)
    signed = ember.tensor([(-1) ** i * w for i, w in enumerate(a)], device=device,
                          dtype=dtype, requires_grad=requires_grad)
    order = ember.arange(signed.shape[0], dtype=signed.dtype, device=signed.device,
                         requires_grad=signed.requires_grad)
    return (signed.unsqueeze(-1) * (order.unsqueeze(-1) * k).cos()).sum(0)


def general_hamming(M, *, alpha=0.54, sym=True, dtype=None, layout=None, device=None,
                    requires_grad=False):
    """general_hamming(M, *, alpha=0.54, sym=True, dtype=None, layout=torch.strided,
    device=None, requires_grad=False) -> Tensor: alpha - (1 - alpha) cos(2 pi n / (M - 1))."""
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


def hamming(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """hamming(M, *, sym=True, dtype=None, layout=torch.strided, device=None,
    requires_grad=False) -> Tensor: `general_hamming` with alpha 0.54."""
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def hann(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """hann(M, *, sym=True, dtype=None, layout=torch.strided, device=None,
    requires_grad=False) -> Tensor: `general_hamming` with alpha 0.5."""
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def blackman(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """blackman(M, *, sym=True, dtype=None, layout=torch.strided, device=None,
    requires_grad=False) -> Tensor: `general_cosine` with a = [0.42, 0.5, 0.08]."""
    layout = _ember().strided if layout is None else layout
    dtype = _start("blackman", M, dtype, layout)
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


def bartlett(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """bartlett(M, *, sym=True, dtype=None, layout=torch.strided, device=None,
    requires_grad=False) -> Tensor: the triangle 1 - |2n / (M - 1) - 1|."""
    layout = _ember().strided if layout is None else layout
    dtype = _start("bartlett", M, dtype, layout)
    made = _empty_or_one(M, dtype, layout, device, requires_grad)
    if made is not None:
        return made
    step = 2 / _span(M, sym)
    k = _points(-1, -1 + (M - 1) * step, M, dtype, layout, device, requires_grad)
    return 1 - k.abs()


def nuttall(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """nuttall(M, *, sym=True, dtype=None, layout=torch.strided, device=None,
    requires_grad=False) -> Tensor: the minimum 4-term Blackman-Harris window of Nuttall."""
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym,
                          dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)
