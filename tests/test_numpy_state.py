"""ember leaves NumPy's error state to the user (NOTE [floating-point warnings]), and its ops
warn where PyTorch does not warn: never, on zeros, negatives, infinities and NaNs alike.

Every registry op that computes is run on such values with NumPy set to warn and warnings
turned into errors, and its values are compared with PyTorch's; so is every OpInfo sample.
"""
from __future__ import annotations

import importlib
import math
import os
import pkgutil
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
from opinfo.core import HALF_INTERMEDIATES, raises_torch_class, tolerance

import ember
from ember._core.registry import OPS

torch = pytest.importorskip("torch")

SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 100.0, 1e30, -1e30, 1e-30, math.inf, -math.inf,
           math.nan]
SPECIAL_INTS = [0, 1, -1, 2, -3, 7, 100, -128, 2**31 - 1]


def _warnings_are_errors():
    """A context in which NumPy warns on every floating-point error and a RuntimeWarning (its
    floating-point warnings and ComplexWarning are ones) raises."""
    class Strict:
        def __enter__(self):
            self.filters = warnings.catch_warnings()
            self.filters.__enter__()
            warnings.simplefilter("ignore")     # PyTorch's own UserWarnings have twins here
            warnings.simplefilter("error", RuntimeWarning)
            self.state = np.errstate(all="warn")
            self.state.__enter__()

        def __exit__(self, *exc):
            self.state.__exit__(*exc)
            self.filters.__exit__(*exc)
    return Strict()


def test_import_and_ops_leave_numpy_error_state_alone():
    script = textwrap.dedent("""
        import math, warnings
        import numpy as np
        default = np.geterr()
        import ember
        assert np.geterr() == default, (np.geterr(), default)
        np.seterr(all="raise", under="warn")
        chosen = np.geterr()
        warnings.simplefilter("error")
        x = ember.tensor([0.0, 1.0, -1.0, math.inf, -math.inf, math.nan])
        zero = ember.zeros(3)
        results = [1 / x, zero / zero, x.log(), x.sqrt(), ember.exp(ember.tensor([1000.0])),
                   ember.tensor([math.nan, math.inf]).to(ember.int64), (x * 1e30).half(),
                   x.sum(), x.mean(), x.var(), x.prod(), x.log_softmax(0), x.norm(),
                   x.pow(-1), x.reciprocal(), ember.tensor([1e30]).float() * 1e30,
                   ember.ones(2, dtype=ember.int32).copy_(ember.tensor([math.nan, 1e30])),
                   ember.tensor([70000.0]).to(ember.float16), x.atanh(), x.acos()]
        assert np.geterr() == chosen, (np.geterr(), chosen)
        try:
            np.array([1.0]) / 0.0
        except FloatingPointError:
            pass
        else:
            raise AssertionError("the user's np.seterr(all='raise') no longer holds")
        print("ok", len(results))
    """)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([os.path.dirname(ember.__path__[0])]
                                        + [p for p in [env.get("PYTHONPATH")] if p])
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=env, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ok")


def test_user_numpy_still_warns_after_ember_ops():
    x = ember.tensor([0.0, -1.0, math.nan])
    (1 / x).log().sum()
    with warnings.catch_warnings(record=True) as caught, np.errstate(divide="warn"):
        warnings.simplefilter("always")
        np.array([1.0]) / np.array([0.0])
    assert any(issubclass(w.category, RuntimeWarning) for w in caught)


def test_quiet_kernels_restore_the_state_on_error():
    with np.errstate(all="raise"):
        with pytest.raises(RuntimeError):
            ember.ones(2, 3) + ember.ones(4, 5)     # the kernel raises inside the quiet state
        with pytest.raises(FloatingPointError):
            np.array([1.0]) / np.array([0.0])


# --------------------------------------------------------------------------- the registry walk

def _array(dtype, values, shape):
    with np.errstate(all="ignore"):
        data = np.array(values, dtype=np.float64)
        if dtype.is_floating_point:
            return torch.from_numpy(data.reshape(shape)).to(dtype)
        return torch.from_numpy(data.astype(np.int64).reshape(shape)).to(dtype)


def _inputs(dtype, count):
    """`count` tensors whose elementwise combinations cover every pair of special values."""
    values = SPECIAL if dtype.is_floating_point else SPECIAL_INTS
    n = len(values)
    if count == 1:
        return [_array(dtype, values, (n,))]
    shapes = [(n,) + (1,) * (count - 1 - i) for i in range(count)]
    shapes = [tuple(1 for _ in range(i)) + s for i, s in enumerate(shapes)]
    return [_array(dtype, values, s) for s in shapes]


# Required arguments that are not tensors, for the ops that have them (by registry name).
EXTRA = {
    "polygamma": (1,), "mvlgamma": (2,),
    "prod.dim_int": (0,), "max.dim": (0,), "min.dim": (0,), "count_nonzero.dim_IntList": ([0],),
    "logsumexp": ([0],), "median.dim": (0,), "nanmedian.dim": (0,), "kthvalue": (1,),
    "quantile.scalar": (0.5,), "nanquantile.scalar": (0.5,), "softmax.int": (0,),
    "log_softmax.int": (0,), "cumsum": (0,), "cumprod": (0,), "cummax": (0,), "cummin": (0,),
    "logcumsumexp": (0,), "threshold": (0.5, 2.0), "threshold_backward": (0.5,),
    "div.Scalar": (3.0,), "mul.Scalar": (3.0,), "leaky_relu_backward": (0.01, False),
    "hardtanh_backward": (-1.0, 1.0), "softplus_backward": (1.0, 20.0),
    "softshrink_backward": (0.5,), "hardshrink_backward": (0.5,),
}
# Arguments given by keyword: keyword-only ones, and those PyTorch requires where ember's
# schema has a default (`int[1]? dim`).
KEYWORDS = {
    "div.Tensor_mode": {"rounding_mode": "floor"}, "round.decimals": {"decimals": 2},
    "mean.dim": {"dim": [0]}, "sum.dim_IntList": {"dim": [0]},
}
# Computing ops the walk does not call this way, and why (their OpInfo samples still run in
# test_opinfo_samples_never_warn; special values reach several through the table below).
NOT_WALKED = {
    "elu_backward": "its tensor arguments come first and last (the walk puts tensors first); "
                    "its values are compared through elu's gradients (tests/test_ops_autograd.py)",
    "mvlgamma": "edges at inf/NaN not matched yet (values compared in tests/opinfo/infos_special.py)",
    "special_airy_ai": "edges at inf/NaN not matched yet (values compared in tests/opinfo/infos_special.py)",
    "special_chebyshev_polynomial_u": "edges at inf/NaN not matched yet (values compared in tests/opinfo/infos_special.py)",
    "special_chebyshev_polynomial_w": "edges at inf/NaN not matched yet (values compared in tests/opinfo/infos_special.py)",
    "special_laguerre_polynomial_l": "edges at inf/NaN not matched yet (values compared in tests/opinfo/infos_special.py)",
    "special_legendre_polynomial_p": "edges at inf/NaN not matched yet (values compared in tests/opinfo/infos_special.py)",
    "special_shifted_chebyshev_polynomial_u": "edges at inf/NaN not matched yet (values compared in tests/opinfo/infos_special.py)",
    "special_shifted_chebyshev_polynomial_w": "edges at inf/NaN not matched yet (values compared in tests/opinfo/infos_special.py)",
    "special_zeta": "edges at inf/NaN not matched yet (values compared in tests/opinfo/infos_special.py)",
    "special_chebyshev_polynomial_t": "an int64 special value as the degree makes the recurrence run ~2**63 steps (PyTorch's C loop would too): values compared in tests/opinfo/infos_special.py",
    "special_chebyshev_polynomial_v": "an int64 special value as the degree makes the recurrence run ~2**63 steps (PyTorch's C loop would too): values compared in tests/opinfo/infos_special.py",
    "special_shifted_chebyshev_polynomial_t": "an int64 special value as the degree makes the recurrence run ~2**63 steps (PyTorch's C loop would too): values compared in tests/opinfo/infos_special.py",
    "special_shifted_chebyshev_polynomial_v": "an int64 special value as the degree makes the recurrence run ~2**63 steps (PyTorch's C loop would too): values compared in tests/opinfo/infos_special.py",
    "special_hermite_polynomial_h": "an int64 special value as the degree makes the recurrence run ~2**63 steps (PyTorch's C loop would too): values compared in tests/opinfo/infos_special.py",
    "special_hermite_polynomial_he": "an int64 special value as the degree makes the recurrence run ~2**63 steps (PyTorch's C loop would too): values compared in tests/opinfo/infos_special.py",
    "polygamma": "torch's polygamma(n, x) takes n first",
    "norm.ScalarOpt_dim_dtype": "needs a dtype argument: covered by SPECIAL_CALLS",
    "nuclear_norm.dim": "a matrix norm (SVD): covered by SPECIAL_CALLS",
}


# Value differences at special points that have nothing to do with warnings, left to their
# ops' owners (the walk still runs these ops with warnings as errors; only the comparison of
# values is left out).
KNOWN_VALUE_DIFFERENCES = {
    "special_bessel_j0": "j0 of an integer near 2**63: SciPy's value, not PyTorch's "
                         "(both tiny, no digits left in common at that argument)",
    "special_bessel_j1": "j1 of an integer near 2**63: SciPy's value, not PyTorch's "
                         "(both tiny, no digits left in common at that argument)",
    "special_bessel_y0": "y0 of an integer near 2**63: SciPy's value, not PyTorch's "
                         "(both tiny, no digits left in common at that argument)",
    "special_bessel_y1": "y1 of an integer near 2**63: SciPy's value, not PyTorch's "
                         "(both tiny, no digits left in common at that argument)",
    "special_spherical_bessel_j0": "j0 of an integer near 2**63: SciPy's value, not PyTorch's "
                         "(both tiny, no digits left in common at that argument)",
    "addcmul": "inf + (1e30 * -1e30) in float32: NaN in ember, inf in PyTorch",
    "lerp.Tensor": "lerp(0, inf, w < 0.5): -inf in ember, NaN in PyTorch",
    "float_power.Tensor_Tensor": "the registry op computes in the input's dtype; the frontend "
                                 "casts to float64 first, as PyTorch's op does itself",
    "gelu": "gelu(inf): inf in ember (x * Phi(x)), NaN from PyTorch's vectorized kernel",
    "angle": "the registry op keeps an integer input's dtype; the frontend gives a float",
}


# Registry ops that raise where PyTorch's computes, or compute where PyTorch's raises, on the
# walk's inputs, for a reason other than a bug in the op (the outcomes of the others must
# agree: both raise, ember PyTorch's class, or both compute). By name: the reason, and the
# walk's dtypes it holds for (None: all).
KNOWN_OUTCOME_DIFFERENCES = {
    "where.self": (None, (
        "the condition's dtype is checked by the frontend (ember.where); the registry op's "
        "kernel sees it cast to the compute dtype")),
    "lerp.Tensor": ({torch.int64}, (
        "integer inputs are refused by the frontend (ember.lerp), not by the registry op")),
    "float_power.Tensor_Tensor": ({torch.int64},
                                  KNOWN_VALUE_DIFFERENCES["float_power.Tensor_Tensor"]),
    "gelu_backward": (None, (
        "PyTorch's oneDNN kernel fails on these shapes ('could not create a primitive "
        "descriptor'; on int64, and on float32 on some runs); ember computes")),
}
# Ops whose float16 values PyTorch computes with half intermediates (ember: float32, rounded
# once), compared at HALF_INTERMEDIATES (NOTE [tolerances by dtype]).
HALF_INTERMEDIATE_OPS = {"special_ndtr"}


def _known_outcome_difference(name, dtype):
    dtypes, _ = KNOWN_OUTCOME_DIFFERENCES.get(name, ((), ""))
    return dtypes is None or dtype in dtypes


def _computing_ops():
    """The pointwise and reduction entries (and a few more), with their other arguments."""
    for name, op in sorted(OPS.items()):
        # Those tagged "no_fp_errors" too: the walk is what shows that they never warn.
        if op.kind not in ("pointwise", "reduction") and name not in EXTRA:
            continue
        if name in NOT_WALKED or op.redirect is not None:
            continue        # (an overload form runs its base op, walked itself)
        arguments = op.schema.arguments
        tensors = sum(1 for a in arguments if a.is_tensor and not a.has_default)
        extra = EXTRA.get(name, ())
        keywords = KEYWORDS.get(name, {})
        required = [a for a in arguments if not a.has_default and not a.is_tensor]
        assert len(required) == len(extra) + sum(a.name in keywords for a in required), (
            f"{name}: give its required arguments in EXTRA or KEYWORDS")
        yield name, op, tensors, extra, keywords


def _torch_op(name):
    base, _, overload = name.partition(".")
    return getattr(getattr(torch.ops.aten, base), overload or "default")


def _call(op, args, keywords=None):
    try:
        return op(*args, **(keywords or {})), None
    except Exception as exc:  # noqa: BLE001 -- compared below
        return None, exc


def _compare(name, got, expected):
    if isinstance(expected, (tuple, list)):
        for g, e in zip(got, expected):
            _compare(name, g, e)
        return
    if not isinstance(expected, torch.Tensor):
        return
    assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1], (
        f"{name}: dtype {got.dtype} != torch {expected.dtype}")
    want = expected.detach().to(torch.float64 if expected.dtype.is_floating_point
                                else expected.dtype).numpy()
    have = got.detach()
    have = (have.double() if have.dtype.is_floating_point else have).numpy()
    # PyTorch's tolerances for the result's dtype (NOTE [tolerances by dtype]).
    dtype_name = str(expected.dtype).split(".")[-1]
    atol, rtol = (HALF_INTERMEDIATES.get(dtype_name) if name in HALF_INTERMEDIATE_OPS else
                  None) or tolerance(dtype_name)
    np.testing.assert_allclose(have, want, rtol=rtol, atol=atol, equal_nan=True, err_msg=name)


def _outcomes_differ(name, error, torch_error):
    """Why ember's outcome is not PyTorch's where either raised (None if both raised, ember
    PyTorch's class or a subclass of it)."""
    if torch_error is None:
        return f"{name}: ember raised {type(error).__name__}: {error}; torch did not"
    if error is None:
        return f"{name}: torch raised {type(torch_error).__name__}: {torch_error}; ember did not"
    if not raises_torch_class(error, torch_error):
        return (f"{name}: torch raised {type(torch_error).__name__}, ember "
                f"{type(error).__name__}: {error}")
    return None


WALK_DTYPES = [torch.float32, torch.float64, torch.float16, torch.int64]


@pytest.mark.parametrize("dtype", WALK_DTYPES, ids=str)
def test_every_computing_op_on_special_values(dtype):
    ran = 0
    mismatched = []
    for name, op, tensors, extra, keywords in _computing_ops():
        theirs = _inputs(dtype, tensors)
        expected, torch_error = _call(_torch_op(name), theirs + list(extra), keywords)
        mine = [ember.from_numpy(t.numpy()) for t in theirs]
        with _warnings_are_errors():
            got, error = _call(op, mine + list(extra), keywords)
        assert not isinstance(error, (Warning, FloatingPointError)), \
            f"{name}[{dtype}] warned: {error!r}"
        ran += 1
        if torch_error is not None or error is not None:
            differ = _outcomes_differ(f"{name}[{dtype}]", error, torch_error)
            if differ and not _known_outcome_difference(name, dtype):
                mismatched.append(differ)
            continue
        if name in KNOWN_VALUE_DIFFERENCES:
            continue
        try:
            _compare(name, got, expected)
        except AssertionError as exc:
            mismatched.append(f"{exc}")
    assert ran >= 100, ran
    assert not mismatched, "\n".join(mismatched)


# Calls with special values that the registry walk cannot make by itself (arguments other
# than tensors, tensor-list ops, frontends), as f(lib, x) on a float32 vector.
SPECIAL_CALLS = {
    "norm-p3": lambda lib, x: x.norm(3.0),
    "norm-p0.5": lambda lib, x: x.norm(0.5),
    "norm--1": lambda lib, x: x.norm(-1.0),
    "nuclear_norm": lambda lib, x: lib.nuclear_norm(x.reshape(2, 7)),
    "matmul": lambda lib, x: x.reshape(2, 7) @ x.reshape(7, 2),
    "addmm": lambda lib, x: lib.addmm(x[:4].reshape(2, 2), x.reshape(2, 7),
                                      x.reshape(7, 2), beta=0.5, alpha=2.0),
    "einsum": lambda lib, x: lib.einsum("i,i->", x, x),
    "cdist": lambda lib, x: lib.cdist(x.reshape(7, 2), x.reshape(7, 2)),
    "cross": lambda lib, x: lib.cross(x[:12].reshape(4, 3), x[2:].reshape(4, 3), dim=1),
    "softmax": lambda lib, x: lib.softmax(x, 0),
    "cumsum": lambda lib, x: lib.cumsum(x, 0),
    "cumprod": lambda lib, x: lib.cumprod(x * 1e20, 0),
    "logcumsumexp": lambda lib, x: lib.logcumsumexp(x, 0),
    "std": lambda lib, x: x.std(),
    "var-one": lambda lib, x: x[:1].var(),
    "to-int": lambda lib, x: x.to(lib.int32),
    "to-uint8": lambda lib, x: x.to(lib.uint8),
    "to-half": lambda lib, x: (x * 1e10).to(lib.float16),
    "copy-into-int": lambda lib, x: lib.zeros(14, dtype=lib.int64).copy_(x),
    "fill-int": lambda lib, x: lib.zeros(3, dtype=lib.int32).fill_(1e20),
    "masked_fill": lambda lib, x: lib.zeros(14, dtype=lib.int32).masked_fill(x > 0, 2.5),
    "mul-scalar": lambda lib, x: x * 1e38,
    "add-huge-scalar": lambda lib, x: x + 1e39,
    "half-result": lambda lib, x: x.half() * x.half(),
    "scatter_add": lambda lib, x: lib.zeros(3).scatter_add(0, lib.zeros(14, dtype=lib.int64), x),
    "index_add": lambda lib, x: lib.zeros(3).index_add(0, lib.zeros(14, dtype=lib.int64), x),
    "histc": lambda lib, x: lib.histc(x.nan_to_num().clamp(-100, 100), bins=4),
    "isclose": lambda lib, x: lib.isclose(x, x.flip(0)),
    "nan_to_num": lambda lib, x: x.nan_to_num(),
    "cat-half": lambda lib, x: lib.cat([x.half(), lib.tensor([1e5])]),
    "diff": lambda lib, x: lib.diff(x),
    "trace": lambda lib, x: lib.trace(x.reshape(2, 7)),
    "sigmoid": lambda lib, x: lib.sigmoid(x),
    "frexp": lambda lib, x: lib.frexp(x),
    "float-pow": lambda lib, x: lib.float_power(x, -1.5),
    "xlogy": lambda lib, x: lib.xlogy(x, x),
    "floor_divide": lambda lib, x: lib.floor_divide(x, lib.zeros(14)),
    "remainder": lambda lib, x: lib.remainder(x, lib.zeros(14)),
    "fmod": lambda lib, x: lib.fmod(x, 0.0),
    "rdiv": lambda lib, x: 1.0 / x,
    "rpow": lambda lib, x: 2.0 ** x,
    "pow-int": lambda lib, x: x ** 1000,
    "clamp": lambda lib, x: x.clamp(-1.0, 1.0),
    "lerp": lambda lib, x: lib.lerp(x, x.flip(0), 0.5),
    "addcdiv": lambda lib, x: lib.addcdiv(x, x, lib.zeros(14)),
    "repr": lambda lib, x: repr(x) + repr(x.half()) + repr(x.bfloat16()),
    "tolist": lambda lib, x: x.tolist(),
    "tensor-from-list": lambda lib, x: lib.tensor([1e-45, 1e300, -1e300, math.nan]),
    "tensor-float16": lambda lib, x: lib.tensor(x.tolist(), dtype=lib.float16),
    "tensor-float16-tiny": lambda lib, x: lib.tensor([1e-10, 2.5], dtype=lib.float16),
    "full-float16": lambda lib, x: lib.full((2,), 1e-10, dtype=lib.float16),
    "arange-float16": lambda lib, x: lib.arange(0, 1e5, 1e4, dtype=lib.float16),
    "linspace": lambda lib, x: lib.linspace(-1e38, 1e38, 5),
    "setitem": lambda lib, x: _setitem(lib, x),
    "tiny-scalar": lambda lib, x: x * 1e-45,
    "where-tiny-scalar": lambda lib, x: lib.where(x > 0, x, 1e-45),
    "grad-of-sqrt": lambda lib, x: _grad(lib, x, lambda t: t.sqrt().sum()),
    "grad-of-log": lambda lib, x: _grad(lib, x, lambda t: t.log().sum()),
    "grad-of-div": lambda lib, x: _grad(lib, x, lambda t: (1 / t).sum()),
    "grad-of-norm": lambda lib, x: _grad(lib, x, lambda t: (t * 0).norm()),
}


def _setitem(lib, x):
    ints = lib.zeros(14, dtype=lib.int64)
    ints[:] = x
    ints[0] = 2.5
    halves = lib.zeros(3, dtype=lib.float16)
    halves[1] = 1e-10
    halves[2:] = x[:1] * 1e30
    return ints, halves


def _grad(lib, x, f):
    x = x.detach().requires_grad_(True)
    f(x).backward()
    return x.grad


@pytest.mark.parametrize("name", list(SPECIAL_CALLS))
def test_special_calls_never_warn(name):
    call = SPECIAL_CALLS[name]
    values = np.array(SPECIAL, dtype=np.float32)
    expected, torch_error = _call(lambda: call(torch, torch.from_numpy(values.copy())), ())
    with _warnings_are_errors():
        got, error = _call(lambda: call(ember, ember.from_numpy(values.copy())), ())
    assert not isinstance(error, (Warning, FloatingPointError)), f"{name} warned: {error!r}"
    if torch_error is not None or error is not None:
        differ = _outcomes_differ(name, error, torch_error)
        assert not differ, differ
        return
    _compare(name, got, expected)


# --------------------------------------------------------------------------- the OpInfo table

def _opinfo_modules():
    import opinfo
    return sorted(m.name for m in pkgutil.iter_modules(opinfo.__path__)
                  if m.name.startswith("infos_"))


@pytest.mark.parametrize("module", _opinfo_modules())
def test_opinfo_samples_never_warn(module):
    """Every sample of every op in the OpInfo table, run in ember with warnings as errors."""
    from opinfo.core import make_maker, to_lib
    warned = []
    count = 0
    for info in importlib.import_module(f"opinfo.{module}").OPINFOS:
        function = info.function(ember)
        for dtype_name in info.dtypes:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")      # building samples is the test's own NumPy
                samples = list(info.samples(make_maker(0), dtype_name))
            for sample in samples:
                args, kwargs = to_lib(sample.args, ember), to_lib(sample.kwargs, ember)
                count += 1
                with _warnings_are_errors():
                    try:
                        function(*args, **kwargs)
                    except (Warning, FloatingPointError) as exc:
                        warned.append(f"{info.name}[{dtype_name}] {sample.name}: {exc!r}")
                    except Exception:  # noqa: BLE001,S110 -- bad-input samples: test_ops.py
                        pass
    assert count > 0
    assert not warned, "\n".join(warned)
