"""ember.stft / ember.istft (and the Tensor methods) against PyTorch: values, shapes and dtypes
over the options, gradients, and the errors and warnings."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def _pair(array):
    return ember.tensor(array), torch.tensor(array)


def _close(got, expected, atol=1e-4):
    assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    assert tuple(got.shape) == tuple(expected.shape)
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), atol=atol,
                               rtol=1e-4)


SIGNAL = np.random.default_rng(0).standard_normal((2, 40)).astype(np.float32)
STFT_CASES = {
    "defaults": {},
    "hop and win": {"hop_length": 3, "win_length": 10, "window": "hann10"},
    "no center": {"center": False, "window": "hann16"},
    "constant pad normalized": {"pad_mode": "constant", "normalized": True},
    "circular pad twosided": {"pad_mode": "circular", "onesided": False, "window": "hann16"},
    "aligned window": {"center": False, "win_length": 10, "window": "hann10",
                       "align_to_window": True},
    "float64 window": {"window": "hann16 float64"},
}


def _window(lib, spec):
    if spec is None or not isinstance(spec, str):
        return spec
    length = int(spec.split()[0][4:])
    dtype = lib.float64 if spec.endswith("float64") else lib.float32
    return lib.hann_window(length, dtype=dtype)


@pytest.mark.parametrize("name", list(STFT_CASES))
@pytest.mark.parametrize("shape", ["1-d", "batch"])
def test_stft_matches_pytorch(name, shape):
    options = STFT_CASES[name]
    data = SIGNAL[0] if shape == "1-d" else SIGNAL
    results = []
    for lib, x in zip((ember, torch), _pair(data)):
        kwargs = dict(options, window=_window(lib, options.get("window")))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            results.append(lib.stft(x, 16, return_complex=True, **kwargs))
    _close(*results)


def test_real_output_complex_input_and_method():
    e, t = _pair(SIGNAL)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        _close(ember.stft(e, 16, window=ember.hann_window(16), return_complex=False),
               torch.stft(t, 16, window=torch.hann_window(16), return_complex=False))
        ec, tc = _pair(SIGNAL * (1 + 0.5j))
        _close(ember.stft(ec, 16, window=ember.hann_window(16)),
               torch.stft(tc, 16, window=torch.hann_window(16)))
        _close(e.stft(12, hop_length=5, return_complex=True),
               t.stft(12, hop_length=5, return_complex=True))


ISTFT_CASES = {
    "round trip": {},
    "length longer": {"length": 45},
    "length shorter": {"length": 30},
    "normalized": {"normalized": True, "stft": {"normalized": True}},
    "no center": {"center": False, "stft": {"center": False}, "window": "bartlett"},
    "win shorter": {"win_length": 12, "hop_length": 3, "window": "hann12",
                    "stft": {"win_length": 12, "hop_length": 3}},
    "twosided complex": {"return_complex": True, "onesided": False,
                         "stft": {"onesided": False}},
}


def _istft_window(lib, spec):
    if spec == "bartlett":
        return lib.bartlett_window(16) + 0.1
    if spec == "hann12":
        return lib.hann_window(12)
    return lib.hann_window(16)


@pytest.mark.parametrize("name", list(ISTFT_CASES))
def test_istft_matches_pytorch(name):
    options = dict(ISTFT_CASES[name])
    stft_options = options.pop("stft", {})
    window_spec = options.pop("window", None)
    results = []
    for lib, x in zip((ember, torch), _pair(SIGNAL)):
        window = _istft_window(lib, window_spec)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            spectrum = torch.stft(torch.tensor(SIGNAL), 16, window=_istft_window(
                torch, window_spec), return_complex=True, **stft_options)
            spectrum = lib.tensor(spectrum.numpy())
            results.append(lib.istft(spectrum, 16, window=window, **options))
    _close(*results)


def test_stft_istft_round_trip_recovers_the_signal():
    e = ember.tensor(SIGNAL)
    window = ember.hann_window(16)
    back = ember.istft(ember.stft(e, 16, window=window, return_complex=True), 16,
                       window=window, length=40)
    np.testing.assert_allclose(back.numpy(), SIGNAL, atol=1e-5)
    method = ember.stft(e, 16, window=window, return_complex=True).istft(16, window=window)
    np.testing.assert_allclose(method.numpy(), SIGNAL, atol=1e-5)


def test_gradients_match_pytorch_and_finite_differences():
    data = np.random.default_rng(1).standard_normal(20)
    grads = []
    for lib, x in zip((ember, torch), _pair(data)):
        x.requires_grad_(True)
        window = lib.hann_window(8, dtype=lib.float64)
        spectrum = lib.stft(x, 8, hop_length=2, window=window, return_complex=True)
        back = lib.istft(spectrum * (1 + 0.5j), 8, hop_length=2, window=window, length=20)
        (spectrum.abs().sum() + back.pow(2).sum()).backward()
        grads.append(x.grad)
    _close(*grads, atol=1e-8)
    x = ember.tensor(data[:12], requires_grad=True)
    window = ember.hann_window(6, dtype=ember.float64)
    assert ember.autograd.gradcheck(
        lambda t: ember.stft(t, 6, hop_length=2, window=window, return_complex=True), (x,))
    spectrum = ember.stft(ember.tensor(data[:12]), 6, hop_length=2, window=window,
                          return_complex=True).detach().contiguous().requires_grad_(True)
    assert ember.autograd.gradcheck(
        lambda s: ember.istft(s, 6, hop_length=2, window=window), (spectrum,))


def _message(lib, make):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            make(lib)
    except Exception as error:  # noqa: BLE001 -- the class and text are what we compare
        return type(error), str(error)
    return None


ERRORS = {
    "return_complex missing": lambda L, x: L.stft(x, 16),
    "n_fft too big": lambda L, x: L.stft(x, 50, center=False, return_complex=True),
    "hop 0": lambda L, x: L.stft(x, 16, hop_length=0, return_complex=True),
    "win too long": lambda L, x: L.stft(x, 16, win_length=20, return_complex=True),
    "window size": lambda L, x: L.stft(x, 16, window=L.ones(5), return_complex=True),
    "complex onesided": lambda L, x: L.stft(x.to(L.complex64), 16, onesided=True,
                                            return_complex=True),
    "integer input": lambda L, x: L.stft(x.to(L.int64), 16, return_complex=True),
    "3-d input": lambda L, x: L.stft(x.reshape(2, 1, 40), 16, return_complex=True),
    "align with center": lambda L, x: L.stft(x, 16, align_to_window=True, return_complex=True),
    "istft real input": lambda L, x: L.istft(x, 16),
    "istft window": lambda L, x: L.istft(L.stft(x, 16, return_complex=True), 16,
                                         window=L.ones(3)),
    "istft hop": lambda L, x: L.istft(L.stft(x, 16, return_complex=True), 16, hop_length=20),
    "istft frequencies": lambda L, x: L.istft(L.stft(x, 16, return_complex=True), 18),
    "istft zero window": lambda L, x: L.istft(L.stft(x, 16, return_complex=True), 16,
                                              window=L.zeros(16)),
    "istft onesided complex": lambda L, x: L.istft(L.stft(x, 16, return_complex=True), 16,
                                                   return_complex=True),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_as_pytorch(name):
    make = ERRORS[name]
    e, t = _pair(SIGNAL)
    expected = _message(torch, lambda L: make(L, t))
    assert expected is not None
    assert _message(ember, lambda L: make(L, e)) == expected


def test_warnings_as_pytorch():
    e = ember.tensor(SIGNAL)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ember.set_warn_always(True)
        try:
            ember.stft(e, 16, return_complex=False)
            ember.istft(ember.stft(e, 16, return_complex=True), 16, length=60)
        finally:
            ember.set_warn_always(False)
    texts = [str(w.message) for w in caught]
    assert any(t.startswith("stft with return_complex=False is deprecated") for t in texts)
    assert any(t.startswith("A window was not provided. A rectangular window will be "
                            "applied,which") for t in texts)
    assert any(t.startswith("A window was not provided. A rectangular window will be "
                            "applied.Please") for t in texts)
    assert any(t.startswith("The length of signal is shorter than the length parameter")
               for t in texts)
