"""The short-time Fourier transform and its inverse: `stft` and `istft` (functions and Tensor
methods), composites of `_fft_r2c`/`_fft_c2c`/`_fft_c2r` (fft.py) as in PyTorch.

stft cuts the (padded) signal into frames of n_fft samples every hop_length (`unfold`), weights
each by the window (zero-padded to n_fft in the middle when shorter), and transforms each
frame: (batch?, freq, frames). istft inverts it by transforming back, weighting by the window
again, summing the overlapping frames (`col2im`, the fold of nn.functional) and dividing by
the summed squared window (the envelope), which must not vanish anywhere.
"""
from __future__ import annotations

from ember._core import upcalls
from ember._core.checked_entry import checked
from ember._core.checks import _check, _warn_once
from ember._core.dispatch import call
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.registry import OPS, register_frontend
from ember._ops.fft import NORM_BY_N, NORM_BY_ROOT_N, NORM_NONE


def _flag(value):
    return "None" if value is None else str(int(bool(value)))


def _type_text(t):
    """PyTorch's toString() of a CPU tensor: torch.FloatTensor, torch.DoubleTensor ..."""
    return f"torch.{t._dtype._cpp_name}Tensor"


def _sizes(t):
    return "[" + ", ".join(str(s) for s in t.shape) + "]"


def _window_text(window):
    return "None" if window is None else f"{_type_text(window)}{{{_sizes(window)}}}"


def _padded_window(window, win_length, n_fft, like):
    """The window (ones when None) zero-padded on both sides to n_fft, centred."""
    if window is None:
        window = like.new_ones(win_length)
    if win_length == n_fft:
        return window
    left = (n_fft - win_length) // 2
    return call(OPS["constant_pad_nd"], (window, [left, n_fft - win_length - left], 0))


# NOTE [stft's check order]: PyTorch's stft is Python first: align_to_window with center, then
# the centre padding (input.dim(), n_fft // 2, F.pad with pad_mode), and only then its
# argument parser, over the schema without center and pad_mode. ember checks in that order.
@register_frontend()
def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
         pad_mode="reflect", normalized=False, onesided=None, return_complex=None,
         align_to_window=None):
    """stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
    pad_mode='reflect', normalized=False, onesided=None, return_complex=None,
    align_to_window=None) -> Tensor: the short-time Fourier transform of a 1-D signal or a
    batch of them, (batch?, n_fft // 2 + 1 or n_fft, frames)."""
    if _state.entry and _wants(locals()):
        return _handle(stft, locals())
    if center:
        _check(align_to_window is None,
               "stft align_to_window should only be set when center = false")
        F = upcalls.nn_module("functional")
        signal_dim = input.dim()
        extended = input.view([1] * (3 - signal_dim) + list(input.size()))
        pad = int(n_fft // 2)
        input = F.pad(extended, [pad, pad], pad_mode)
        input = input.view(input.shape[-signal_dim:])
    return _stft(input, n_fft, hop_length, win_length, window, normalized, onesided,
                 return_complex, align_to_window)


@checked("stft(Tensor self, int n_fft, int? hop_length=None, int? win_length=None, "
         "Tensor? window=None, bool normalized=False, bool? onesided=None, "
         "bool? return_complex=None, bool? align_to_window=None)")
def _stft(input, n_fft, hop_length, win_length, window, normalized, onesided, return_complex,
          align_to_window):
    hop = n_fft >> 2 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    if window is None:
        _warn_once("stft window", (
            "A window was not provided. A rectangular window will be applied,which is known "
            "to cause spectral leakage. Other windows such as torch.hann_window or "
            "torch.hamming_window are recommended to reduce spectral leakage.To suppress this "
            "warning and use a rectangular window, explicitly set `window=torch.ones(n_fft, "
            "device=<device>)`."))
    complex_window = window is not None and window._dtype.is_complex
    returns_complex = return_complex if return_complex is not None else (
        input._dtype.is_complex or complex_window)
    if not returns_complex:
        _check(return_complex is not None, (
            "stft requires the return_complex parameter be given for real inputs, and will "
            "further require that return_complex=True in a future PyTorch release."))
        _warn_once("stft return_complex=False", (
            "stft with return_complex=False is deprecated. In a future pytorch release, stft "
            "will return complex tensors for all inputs, and return_complex=False will raise "
            "an error.\nNote: you can still call torch.view_as_real on the complex output to "
            "recover the old return format."))

    def fail(text):
        return (f"stft({_type_text(input)}{_sizes(input)}, n_fft={n_fft}, hop_length={hop}, "
                f"win_length={win}, window={_window_text(window)}, "
                f"normalized={_flag(normalized)}, onesided={_flag(onesided)}, "
                f"return_complex={_flag(return_complex)}, "
                f"align_to_window={_flag(align_to_window)}) : {text}")
    _check(input._dtype.is_floating_point or input._dtype.is_complex,
           lambda: fail("expected a tensor of floating point or complex values"))
    _check(input.ndim in (1, 2), lambda: fail("expected a 1D or 2D tensor"))
    frames = input.unsqueeze(0) if input.ndim == 1 else input
    length = frames.shape[1]
    _check(0 < n_fft <= length,
           lambda: fail(f"expected 0 < n_fft < {length}, but got n_fft={win}"))
    _check(hop > 0, lambda: fail(f"expected hop_length > 0, but got hop_length={hop}"))
    _check(0 < win <= n_fft,
           lambda: fail(f"expected 0 < win_length <= n_fft, but got win_length={win}"))
    _check(window is None or (window.ndim == 1 and window.shape[0] == win), lambda: fail(
        f"expected a 1D window tensor of size equal to win_length={win}, but got window "
        f"with size {_sizes(window)}"))
    if align_to_window and win < n_fft:
        # The window's first point starts each frame: the frames start `left` earlier.
        left = (n_fft - win) // 2
        frames = call(OPS["constant_pad_nd"], (frames, [left, n_fft - win - left], 0))
    frames = frames.unfold(-1, n_fft, hop)              # (batch, n_frames, n_fft)
    if window is not None or win < n_fft:
        frames = frames * _padded_window(window, win, n_fft, frames)
    complex_fft = frames._dtype.is_complex
    sided = (not complex_fft) if onesided is None else onesided
    norm = NORM_BY_ROOT_N if normalized else NORM_NONE
    if complex_fft:
        _check(not sided, "Cannot have onesided output if window or input is complex")
        spectrum = call(OPS["_fft_c2c"], (frames, [frames.ndim - 1], norm, True))
    else:
        spectrum = call(OPS["_fft_r2c"], (frames, [frames.ndim - 1], norm, sided))
    spectrum = spectrum.transpose(1, 2)
    if input.ndim == 1:
        spectrum = spectrum.squeeze(0)
    return spectrum if returns_complex else call(OPS["view_as_real"], (spectrum,))


@register_frontend()
@checked("istft(Tensor self, int n_fft, int? hop_length=None, int? win_length=None, "
         "Tensor? window=None, bool center=True, bool normalized=False, bool? onesided=None, "
         "int? length=None, bool return_complex=False)")
def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
          normalized=False, onesided=None, length=None, return_complex=False):
    """istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
    normalized=False, onesided=None, length=None, return_complex=False) -> Tensor: the
    inverse of `stft`, by overlap-add of the inverse-transformed frames."""
    if _state.entry and _wants(locals()):
        return _handle(istft, locals())
    hop = n_fft >> 2 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    _check(input._dtype.is_complex, "istft requires a complex-valued input tensor matching "
                                    "the output from stft with return_complex=True.")
    if window is None:
        _warn_once("istft window", (
            "A window was not provided. A rectangular window will be applied.Please provide "
            "the same window used by stft to make the inversion lossless.To suppress this "
            "warning and use a rectangular window, explicitly set `window=torch.ones(n_fft, "
            "device=<device>)`."))

    def fail(text, separator=" : "):
        return (f"istft(CPU{input._dtype._cpp_name}Type{_sizes(input)}, n_fft={n_fft}, "
                f"hop_length={hop}, win_length={win}, window={_window_text(window)}, "
                f"center={_flag(center)}, normalized={_flag(normalized)}, "
                f"onesided={_flag(onesided)}, length={length}, "
                f"return_complex={_flag(return_complex)}){separator}{text}")
    ndim = input.ndim + 1             # PyTorch counts the dims of the real view
    _check(input.numel() > 0, lambda: fail("input tensor cannot be empty."))
    _check(ndim in (3, 4), lambda: fail(
        "expected a tensor with 3 or 4 dimensions of real, or 2 or 3 dimensions of complex, "
        f"but got {ndim}"))
    n_frames, fft_size = input.shape[-1], input.shape[-2]
    sided = fft_size != n_fft if onesided is None else onesided
    if sided:
        _check(n_fft // 2 + 1 == fft_size, lambda: fail(
            "expected the frequency dimension (3rd to the last) of the input tensor to match "
            f"n_fft / 2 + 1 when onesided=True, but got {fft_size}"))
    else:
        _check(n_fft == fft_size, lambda: fail(
            "expected the frequency dimension (3rd to the last) of the input tensor to match "
            f"n_fft when onesided=False, but got {fft_size}"))
    _check(0 < hop <= win, lambda: fail("expected 0 < hop_length <= win_length"))
    _check(0 < win <= n_fft, lambda: fail("expected 0 < win_length <= n_fft"))
    _check(window is None or (window.ndim == 1 and window.shape[0] == win), lambda: fail(
        "Invalid window shape. window has to be 1D and length of `win_length`"))
    real_dtype = input._dtype.to_real()
    if window is None:
        window = input.new_ones(win, dtype=real_dtype)
        given_window = None
    else:
        given_window = window
    window = _padded_window(window, win, n_fft, input)
    batch = input.unsqueeze(0) if ndim == 3 else input
    frames = batch.transpose(1, 2)                      # (channel, n_frames, fft_size)
    norm = NORM_BY_ROOT_N if normalized else NORM_BY_N
    if return_complex:
        _check(not sided, "Cannot have onesided output if window or input is complex")
        frames = call(OPS["_fft_c2c"], (frames, [2], norm, False))
    else:
        _check(given_window is None or not given_window._dtype.is_complex,
               "Complex windows are incompatible with return_complex=False")
        if not sided:
            frames = frames.narrow(-1, 0, n_fft // 2 + 1)
        frames = call(OPS["_fft_c2r"], (frames, [2], norm, n_fft))
    weighted = frames * window.view(1, 1, n_fft)        # (channel, n_frames, n_fft)
    total = n_fft + hop * (n_frames - 1)
    signal = _overlap_add(weighted, total, n_fft, hop)
    envelope = _overlap_add(window.pow(2).expand(1, n_frames, n_fft), total, n_fft, hop)
    start = n_fft // 2 if center else 0
    end = start + length if length is not None else (total - n_fft // 2 if center else total)
    signal = signal[:, start:min(end, total)]
    envelope = envelope[:, start:min(end, total)]
    vanishing = bool(envelope.abs().min().lt(1e-11))
    _check(not vanishing, lambda: fail("window overlap add min: 1\n[ CPUBoolType{} ]", " "))
    signal = signal / envelope
    if ndim == 3:
        signal = signal.squeeze(0)
    if end > total:
        _warn_once("istft length", (
            "The length of signal is shorter than the length parameter. Result is being "
            "padded with zeros in the tail. Please check your center and hop_length "
            "settings."))
        signal = call(OPS["constant_pad_nd"], (signal, [0, end - total], 0))
    return signal


def _overlap_add(frames, total, n_fft, hop):
    """(channel, n_frames, n_fft) frames summed into (channel, total) at multiples of hop."""
    F = upcalls.nn_module("functional")
    columns = frames.transpose(1, 2)                    # (channel, n_fft, n_frames)
    summed = F.fold(columns, output_size=(1, total), kernel_size=(1, n_fft), stride=(1, hop))
    return summed.reshape(summed.shape[0], total)
