"""OpInfo entries for ember.fft (src/ember/fft/) and its registry ops _fft_r2c, _fft_c2r,
_fft_c2c (src/ember/_ops/fft.py)."""
from opinfo.core import ALL_FLOAT, COMPLEX, ErrorSample, OpInfo, Sample, T

FFT_TYPES = ALL_FLOAT + COMPLEX + ("int64",)
NORMS = (None, "ortho", "forward")


def _t(make, shape, d):
    return T(make(shape, d))


# --------------------------------------------------------------------------- samples

def one_dim_samples(make, d):
    for norm in NORMS:
        yield Sample((_t(make, (6,), d),), {"norm": norm}, name=f"6 norm={norm}")
    yield Sample((_t(make, (3, 5), d),), {"dim": 0}, name="dim 0")
    yield Sample((_t(make, (2, 5), d),), {"n": 8}, name="padded")
    yield Sample((_t(make, (2, 7), d),), {"n": 4, "dim": -1, "norm": "ortho"}, name="cut")
    yield Sample((_t(make, (1,), d),), name="one point")


def c2r_samples(make, d):
    """The inverse-to-real transforms: default n, odd and even n, cut and padded."""
    for norm in NORMS:
        yield Sample((_t(make, (5,), d),), {"norm": norm}, name=f"5 norm={norm}")
    yield Sample((_t(make, (3, 4), d),), {"dim": 0}, name="dim 0")
    yield Sample((_t(make, (2, 4), d),), {"n": 7}, name="odd n")
    yield Sample((_t(make, (2, 6), d),), {"n": 4, "norm": "forward"}, name="cut")
    yield Sample((_t(make, (2, 3), d),), {"n": 10}, name="padded")


def n_dim_samples(make, d, default_dims=None):
    # Small enough for gradgradcheck (NOTE [finite-difference budget]).
    yield Sample((_t(make, (2, 2), d),), {"norm": "ortho"}, name="small")
    for norm in NORMS:
        yield Sample((_t(make, (3, 4), d),), {"norm": norm}, name=f"3x4 norm={norm}")
    yield Sample((_t(make, (2, 3, 4), d),), {"s": (4, 2)}, name="s resizes")
    yield Sample((_t(make, (2, 3, 4), d),), {"s": (3, -1, 5), "dim": (2, 0, 1)}, name="s and dim")
    if default_dims is None:
        yield Sample((_t(make, (2, 3, 4), d),), {"dim": (0, -1)}, name="dims")
        yield Sample((_t(make, (3, 4), d),), {"dim": 1}, name="one dim")


def two_dim_samples(make, d):
    yield from n_dim_samples(make, d, default_dims=(-2, -1))
    yield Sample((_t(make, (2, 3, 4), d),), {"dim": (0, 2)}, name="dims")


def c2r_n_dim_samples(make, d):
    yield Sample((_t(make, (2, 2), d),), name="small")
    for norm in NORMS:
        yield Sample((_t(make, (3, 4), d),), {"norm": norm}, name=f"3x4 norm={norm}")
    yield Sample((_t(make, (2, 3, 4), d),), {"s": (4, 5)}, name="s odd last")
    yield Sample((_t(make, (2, 3, 4), d),), {"s": (3, 6), "dim": (2, 0)}, name="s and dim")
    yield Sample((_t(make, (2, 3, 4), d),), {"dim": (0, -1)}, name="dims")


def c2r_two_dim_samples(make, d):
    yield from c2r_n_dim_samples(make, d)


def shift_samples(make, d):
    yield Sample((_t(make, (5,), d),), name="odd")
    yield Sample((_t(make, (4, 5), d),), name="every dim")
    yield Sample((_t(make, (4, 5), d),), {"dim": 0}, name="dim 0")
    yield Sample((_t(make, (3, 4, 5), d),), {"dim": (0, 2)}, name="dims")


def r2c_op_samples(make, d):
    yield Sample((_t(make, (2, 3), d), [0, 1], 1, True), name="small")
    yield Sample((_t(make, (3, 6), d), [1], 0, True), name="onesided")
    yield Sample((_t(make, (3, 5), d), [0, 1], 2, True), name="2-d odd")
    yield Sample((_t(make, (3, 5), d), [1], 1, False), name="twosided")


def c2r_op_samples(make, d):
    yield Sample((_t(make, (3, 4), d), [1], 0, 6), name="even")
    yield Sample((_t(make, (3, 4), d), [0, 1], 2, 7), name="2-d odd")


def c2c_op_samples(make, d):
    yield Sample((_t(make, (3, 4), d), [1], 0, True), name="forward")
    yield Sample((_t(make, (3, 4), d), [0, 1], 1, False), name="backward")


# --------------------------------------------------------------------------- errors

def _errors(name, complex_input=False, n_dim=False):
    def errors(make):
        d = "complex64" if complex_input else "float32"
        key = "s" if n_dim else "n"
        zero = (0,) if n_dim else 0
        yield ErrorSample(Sample((_t(make, (4,), d),), {key: zero}), RuntimeError,
                          "Invalid number of data points")
        yield ErrorSample(Sample((_t(make, (4,), d),), {"norm": "bad"}), RuntimeError,
                          "Invalid normalization mode")
        yield ErrorSample(Sample((_t(make, (4,), d),), {"dim": 3}), IndexError,
                          "Dimension out of range")
        yield ErrorSample(Sample((_t(make, (4,), "float16"),)), RuntimeError,
                          "Unsupported dtype Half")
        if n_dim:
            yield ErrorSample(Sample((_t(make, (4,), d),), {"dim": (0, 0)}), RuntimeError,
                              "FFT dims must be unique")
            yield ErrorSample(Sample((_t(make, (3, 4), d),), {"s": (2,), "dim": (0, 1)}),
                              RuntimeError, "must have the same length")
            yield ErrorSample(Sample((_t(make, (4,), d),), {"s": (2, 2)}), RuntimeError,
                              "Got shape with 2 values")
        else:
            yield ErrorSample(Sample((_t(make, (), d),)), IndexError, "has no dimensions")
    return errors


def real_only_errors(name, n_dim=False, match="real"):
    base = _errors(name, n_dim=n_dim)

    def errors(make):
        yield from base(make)
        yield ErrorSample(Sample((_t(make, (4,), "complex64"),)), RuntimeError, match)
    return errors


# --------------------------------------------------------------------------- the table

def _info(name, samples, errors, dtypes=FFT_TYPES, **options):
    return OpInfo(f"fft.{name}", samples, dtypes=dtypes, method=False, errors=errors,
                  supports_autograd=True, **options)


REAL_TYPES = ALL_FLOAT + ("int64",)

OPINFOS = [
    _info("fft", one_dim_samples, _errors("fft")),
    _info("ifft", one_dim_samples, _errors("ifft")),
    _info("rfft", one_dim_samples, real_only_errors("rfft"), dtypes=REAL_TYPES),
    _info("ihfft", one_dim_samples, real_only_errors("ihfft"), dtypes=REAL_TYPES),
    _info("irfft", c2r_samples, _errors("irfft", complex_input=True)),
    _info("hfft", c2r_samples, _errors("hfft", complex_input=True)),
    _info("fftn", n_dim_samples, _errors("fftn", n_dim=True)),
    _info("ifftn", n_dim_samples, _errors("ifftn", n_dim=True)),
    _info("fft2", two_dim_samples, None),
    _info("ifft2", two_dim_samples, None),
    _info("rfftn", n_dim_samples, real_only_errors("rfftn", n_dim=True), dtypes=REAL_TYPES),
    _info("rfft2", two_dim_samples, None, dtypes=REAL_TYPES),
    _info("ihfftn", n_dim_samples, real_only_errors("ihfftn", n_dim=True, match="floating-point"), dtypes=REAL_TYPES),
    _info("ihfft2", two_dim_samples, None, dtypes=REAL_TYPES),
    _info("irfftn", c2r_n_dim_samples, _errors("irfftn", complex_input=True, n_dim=True)),
    _info("irfft2", c2r_two_dim_samples, None),
    _info("hfftn", c2r_n_dim_samples, _errors("hfftn", complex_input=True, n_dim=True)),
    _info("hfft2", c2r_two_dim_samples, None),
    OpInfo("fft.fftshift", shift_samples, dtypes=ALL_FLOAT + ("int64", "complex64"),
           method=False, supports_out=False, supports_autograd=True),
    OpInfo("fft.ifftshift", shift_samples, dtypes=ALL_FLOAT + ("int64", "complex64"),
           method=False, supports_out=False, supports_autograd=True),
    OpInfo("_fft_r2c", r2c_op_samples, dtypes=ALL_FLOAT, method=False, supports_out=True,
           supports_autograd=True),
    OpInfo("_fft_c2r", c2r_op_samples, dtypes=COMPLEX, method=False, supports_out=True,
           supports_autograd=True),
    OpInfo("_fft_c2c", c2c_op_samples, dtypes=COMPLEX, method=False, supports_out=True,
           supports_autograd=True),
]
