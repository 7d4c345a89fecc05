"""ember.fft beyond the op table (tests/opinfo/infos_fft.py): complex gradients by finite
differences, the frequency helpers, out=, result dtypes, the node names, and what loads when."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from opinfo.core import tolerance

import ember

torch = pytest.importorskip("torch")


def _pair(array):
    return ember.tensor(array), torch.tensor(array)


def _close(got, expected):
    dtype_name = str(expected.dtype).split(".")[-1]
    assert str(got.dtype).split(".")[-1] == dtype_name
    assert tuple(got.shape) == tuple(expected.shape)
    atol, rtol = tolerance(dtype_name)      # PyTorch's for the dtype (NOTE [tolerances by dtype])
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().resolve_conj().numpy(),
                               atol=atol, rtol=rtol, equal_nan=True)


COMPLEX_CASES = [
    ("fft", {"n": 5}), ("ifft", {"norm": "ortho"}), ("irfft", {}), ("hfft", {"n": 5}),
    ("fft2", {}), ("ifftn", {"s": (2, 4)}), ("irfftn", {"norm": "forward"}), ("hfftn", {}),
    ("irfft2", {"s": (3, 3)}), ("hfft2", {"norm": "ortho"}),
]


@pytest.mark.parametrize("name,kwargs", COMPLEX_CASES, ids=lambda v: str(v))
def test_complex128_gradcheck_and_gradgradcheck(name, kwargs):
    rng = np.random.default_rng(0)
    x = ember.tensor(rng.standard_normal((2, 3)) + 1j * rng.standard_normal((2, 3)),
                     requires_grad=True)
    fn = getattr(ember.fft, name)

    def f(t):
        return fn(t, **kwargs)
    assert ember.autograd.gradcheck(f, (x,))
    assert ember.autograd.gradgradcheck(f, (x,))


@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "ihfft", "fftn", "ifftn", "rfftn",
                                  "ihfftn", "ihfft2", "irfft", "hfft", "hfftn", "irfftn"])
def test_node_names_are_pytorchs(name):
    rng = np.random.default_rng(1)
    real = name in ("fft", "ifft", "rfft", "ihfft", "fftn", "ifftn", "rfftn", "ihfftn", "ihfft2")
    array = rng.standard_normal((3, 4)) if real else rng.standard_normal((3, 4)) * (1 + 1j)
    e, t = _pair(array)
    got = getattr(ember.fft, name)(e.requires_grad_())
    expected = getattr(torch.fft, name)(t.requires_grad_())
    assert type(got.grad_fn).__name__ == expected.grad_fn.name()


def test_float32_stays_single_precision():
    e, t = _pair(np.arange(8, dtype=np.float32))
    for name in ("fft", "rfft", "ihfft", "fftn", "rfft2"):
        got, expected = getattr(ember.fft, name)(e.reshape(2, 4)), \
            getattr(torch.fft, name)(t.reshape(2, 4))
        assert got.dtype is ember.complex64 and expected.dtype is torch.complex64
    assert ember.fft.irfft(ember.fft.rfft(e)).dtype is ember.float32


def test_integer_input_takes_the_default_dtype():
    e, t = _pair(np.arange(6))
    ember.set_default_dtype(ember.float64)
    torch.set_default_dtype(torch.float64)
    try:
        _close(ember.fft.rfft(e), torch.fft.rfft(t))
        _close(ember.fft.fft(e > 2), torch.fft.fft(t > 2))
    finally:
        torch.set_default_dtype(torch.float32)


@pytest.mark.parametrize("n,d", [(0, 1.0), (1, 1.0), (5, 1.0), (6, 0.3), (7, 2.5)])
def test_frequencies(n, d):
    _close(ember.fft.fftfreq(n, d), torch.fft.fftfreq(n, d))
    _close(ember.fft.rfftfreq(n, d), torch.fft.rfftfreq(n, d))
    _close(ember.fft.fftfreq(n, d, dtype=ember.float64),
           torch.fft.fftfreq(n, d, dtype=torch.float64))
    for lib in (ember, torch):
        with pytest.raises(NotImplementedError, match="not implemented for 'ComplexFloat'"):
            lib.fft.rfftfreq(n, d=d, dtype=lib.complex64)


def test_frequency_options():
    got = ember.fft.fftfreq(4, requires_grad=True)
    assert got.requires_grad and got.is_leaf
    out = ember.empty(4, dtype=ember.float64)
    assert ember.fft.fftfreq(4, out=out) is out
    _close(out, torch.fft.fftfreq(4, out=torch.empty(4, dtype=torch.float64)))
    with pytest.raises(RuntimeError, match="requires a floating point or complex dtype"):
        ember.fft.fftfreq(5, dtype=ember.int64)
    with pytest.raises(RuntimeError, match="requires a floating point or complex dtype"):
        torch.fft.fftfreq(5, dtype=torch.int64)


def test_out_takes_the_result_and_refuses_the_wrong_kind():
    e, t = _pair(np.random.default_rng(2).standard_normal(6).astype(np.float32))
    out = ember.empty(4, dtype=ember.complex64)
    assert ember.fft.rfft(e, out=out) is out
    _close(out, torch.fft.rfft(t))
    for lib, x in ((ember, e), (torch, t)):
        with pytest.raises(RuntimeError, match="fft expects a complex output tensor, but got "
                                               "Float"):
            lib.fft.fft(x, out=lib.empty(6))
    real_out = ember.empty(6)
    assert ember.fft.irfft(ember.fft.rfft(e), out=real_out) is real_out


def test_argument_types_are_checked_as_pytorch():
    e, t = _pair(np.ones(4, dtype=np.float32))
    for lib, x in ((ember, e), (torch, t)):
        with pytest.raises(TypeError, match="argument 'dim' must be int, not float"):
            lib.fft.fft(x, dim=1.5)
        with pytest.raises(TypeError, match="argument 'norm' must be str, not int"):
            lib.fft.fft(x, norm=5)
        with pytest.raises(RuntimeError, match="Unsupported dtype BFloat16"):
            lib.fft.rfft(x.to(lib.bfloat16))
        with pytest.raises(RuntimeError, match="must transform at least one axis"):
            lib.fft.irfftn(x.to(lib.complex64), dim=())


def test_inverse_round_trips_and_zero_dim_fftn():
    rng = np.random.default_rng(3)
    e = ember.tensor(rng.standard_normal((4, 6)))
    np.testing.assert_allclose(ember.fft.irfftn(ember.fft.rfftn(e), s=(4, 6)).numpy(),
                               e.numpy(), atol=1e-12)
    np.testing.assert_allclose(ember.fft.ihfft(ember.fft.hfft(ember.fft.ihfft(e))).numpy(),
                               ember.fft.ihfft(e).numpy(), atol=1e-12)
    _close(ember.fft.fftn(ember.tensor(2.0)), torch.fft.fftn(torch.tensor(2.0)))


def test_shift_errors_as_pytorch():
    for lib, x in zip((ember, torch), _pair(np.zeros((3, 4)))):
        with pytest.raises(IndexError, match="Dimension out of range"):
            lib.fft.fftshift(x, dim=5)


def test_scipy_loads_on_first_transform_not_on_import():
    code = ("import sys, ember; assert 'scipy' not in sys.modules; import ember.fft; "
            "assert 'scipy.fft' not in sys.modules; ember.fft.rfft(ember.ones(4)); "
            "assert 'scipy.fft' in sys.modules; print('ok')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False)
    assert done.stdout.strip() == "ok", done.stderr


def test_namespace_lists_pytorchs_names():
    assert ember.fft.__all__ == torch.fft.__all__
    for name in ("hfft2", "hfftn", "ihfft2", "ihfftn"):
        assert callable(getattr(ember.fft, name))
