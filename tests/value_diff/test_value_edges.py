"""More classes of silent wrong results the value-differential fuzzer found at the edges, each
pinned against PyTorch (the oracle) on the edge inputs themselves."""
import math
import warnings

import numpy as np
import pytest
import torch

import ember

inf, nan = math.inf, math.nan


def same(got, want, rtol=1e-6, atol=1e-6, strides=True):
    """Values (NaN and infinity positions exact), dtype, shape and strides."""
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    assert tuple(got.shape) == tuple(want.shape)
    a, b = np.asarray(got.detach().tolist()), np.asarray(want.detach().tolist())
    if a.dtype.kind == "c" or b.dtype.kind == "c":
        for part in (np.real, np.imag):
            np.testing.assert_allclose(part(a), part(b), rtol=rtol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, equal_nan=True)
    if strides and got.numel():
        assert got.stride() == want.stride()


def both(fn):
    return fn(ember), fn(torch)


def _integers_at_the_edges(dtype):
    info = np.iinfo(dtype)
    values = [info.min, info.min + 1, -6, -1, 0, 1, 2, 3, 12, 64, info.max - 1, info.max]
    return [v for v in values if info.min <= v <= info.max]


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8"])
def test_gcd_at_the_most_negative_integer(dtype):
    # NOTE [gcd at the most negative integer]: gcd(-128, -6) is -2 in int8 there.
    values = _integers_at_the_edges(dtype)
    a = np.array([[x] * len(values) for x in values], dtype=dtype)

    def run(L):
        return L.gcd(L.tensor(a), L.tensor(a.T.copy()))
    same(*both(run))


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8"])
def test_lcm_wraps_as_pytorchs(dtype):
    # PyTorch's int32/int64 lcm traps (SIGFPE) on the most negative value divided by -1, so
    # that value is left out of the wide types here; int8/int16 divide in C's int.
    values = _integers_at_the_edges(dtype) + [1000003, 65536, 2 ** 15 + 1]
    info = np.iinfo(dtype)
    values = [v for v in values if info.min < v <= info.max or
              v == info.min and info.bits < 32]
    a = np.array([[x] * len(values) for x in values], dtype=dtype)

    def run(L):
        return L.lcm(L.tensor(a), L.tensor(a.T.copy()))
    same(*both(run))


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_logaddexp_at_infinities_and_nan(dtype):
    # complex_log_add_exp (pointwise_binary.py): PyTorch's complex helper, shared with
    # logcumsumexp: any NaN gives NaN in both parts, two +inf real parts add the exponentials.
    parts = (inf, -inf, nan, 0.0, 1.0, -2.0, 1e30, 3e38, -3e38)
    values = [complex(r, i) for r in parts for i in (inf, -inf, nan, 0.0, 1.5, -0.5, 1e30)]
    a = np.array([[x] * len(values) for x in values])

    def run(L):
        return L.logaddexp(L.tensor(a.astype(dtype)), L.tensor(a.T.astype(dtype)))
    same(*both(run), rtol=1e-5, atol=1e-5)


EDGES = [inf, -inf, nan, 0.0, -0.0, 1e30, -1e30, 1e-30, 3.4e38, -3.4e38, 1e-40, -1e-45, 0.5,
         1.0, 1.5, 2.0, 3.0, -1.0, -2.5, -3.0, 9.5, 10.0, 50.0, 1e5, -0.5, -1.5, 0.01, -0.01,
         -4.0, -100.0, -1e6, 1e17, -0.99, -0.4966, -2.4993]


def _close_with_specials(got, want, rtol):
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    a, b = got.double().numpy(), want.double().numpy()
    np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
    np.testing.assert_array_equal(np.where(np.isinf(b), a, 0.0), np.where(np.isinf(b), b, 0.0))
    finite = np.isfinite(b)
    np.testing.assert_allclose(a[finite], b[finite], rtol=rtol, atol=0)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("n", [1, 2, 3])
def test_polygamma_follows_pytorchs_series_at_poles_and_edges(dtype, n):
    # NOTE [zeta and trigamma follow PyTorch's series]: a pole of trigamma is huge but finite
    # (sin(pi x) rounds away from 0), zeta(s, inf) is NaN.
    rtol = {"float32": 2e-6, "float64": 1e-12}.get(dtype, 1e-2)
    x = np.array(EDGES + list(np.random.default_rng(n).uniform(-10, 30, 200)))
    got, want = both(lambda L: L.polygamma(n, L.tensor(x).to(getattr(L, dtype))))
    _close_with_specials(got, want, rtol)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_zeta_follows_pytorchs_series_at_the_edges(dtype):
    grid = np.array(EDGES)
    a = np.repeat(grid, len(grid))
    b = np.tile(grid, len(grid))
    rng = np.random.default_rng(0)
    a = np.concatenate([a, rng.uniform(1, 12, 500)])
    b = np.concatenate([b, rng.uniform(-5, 20, 500)])
    got, want = both(lambda L: L.special.zeta(L.tensor(a).to(getattr(L, dtype)),
                                              L.tensor(b).to(getattr(L, dtype))))
    _close_with_specials(got, want, 2e-6 if dtype == "float32" else 1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("p", [1, 2, 3, 4])
def test_mvlgamma_shifts_in_the_input_dtype(dtype, p):
    # PyTorch's composite: x + shift in the input's dtype (float16's 6e-8 - 1 is the pole -1),
    # lgamma(-inf) = inf.
    x = np.array(EDGES + [6e-8, 1e-5, 65504.0, 0.75, 1.25, 2.5, -0.25])
    rtol = {"float32": 2e-6, "float64": 1e-12}.get(dtype, 1e-2)
    got, want = both(lambda L: L.mvlgamma(L.tensor(x).to(getattr(L, dtype)), p))
    _close_with_specials(got, want, rtol)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "int64", "uint8"])
@pytest.mark.parametrize("count", [1, 2, 9, 10, 12, 40])
def test_isin_compares_in_its_paths_dtype(dtype, count):
    # NOTE [isin compares in its path's dtype]: below 10 test elements a number weakens to the
    # tensor's dtype; from 10 on (the sorting path) it compares as a double.
    values = np.resize([0.0, 1.0, 3.0, 16777216.0, 2.5, 100.0, -0.0], count)
    for element in (1e-30, 3.0000001, 16777217, 2.5):
        def run(L, element=element):
            tensor = L.tensor(values).to(getattr(L, dtype))
            return (L.isin(element, tensor), L.isin(tensor, element),
                    L.isin(L.tensor(element, dtype=L.float64), tensor),
                    L.isin(L.tensor([element] * 3, dtype=L.float64), tensor))
        for got, want in zip(*both(run)):
            assert got.tolist() == want.tolist()


@pytest.mark.parametrize("dtype", ["uint8", "int32", "float16", "bfloat16", "float32"])
def test_searchsorted_promotes_as_arithmetic(dtype):
    # NOTE [searchsorted promotes as arithmetic]: a number or 0-d value weakens.
    for value in (-1, 300, 2.5, 5, -0.5, 1e30, nan, inf, 5.50001, 70000, 3e9, 5.0000001):
        def run(L, value=value):
            boundaries = L.tensor([1.0, 2.0, 5.5, 9.0, 9.0]).to(getattr(L, dtype))
            results = []
            for right in (False, True):
                results += [L.bucketize(value, boundaries, right=right),
                            L.searchsorted(boundaries, value, right=right),
                            L.bucketize(L.tensor(value, dtype=L.float64), boundaries,
                                        right=right),
                            L.searchsorted(boundaries, L.tensor([value], dtype=L.float64),
                                           right=right)]
            return results
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got, want = both(run)
        assert [g.tolist() for g in got] == [w.tolist() for w in want], value


EMPTY_CALLS = {
    "softmax int dtype": lambda L: L.softmax(L.zeros(0), 0, dtype=L.int32),
    "log_softmax bool dtype": lambda L: L.log_softmax(L.zeros(2, 0), 1, dtype=L.bool),
    "softmax of complex to int": lambda L: L.softmax(L.zeros(0, dtype=L.complex64), -1,
                                                     dtype=L.int32),
    "diff n=0 any dim": lambda L: L.diff(L.zeros(3), 0, 5),
    "cummin any dim": lambda L: L.cummin(L.zeros(2, 0), 5)[1],
    "cummax any dim": lambda L: L.cummax(L.zeros(0), -7)[0],
    "normal int8": lambda L: L.normal(L.zeros(2, 0, dtype=L.int8)),
    "normal int8 std": lambda L: L.normal(1.0, L.zeros(2, 0, dtype=L.int8)),
    "nanmedian complex": lambda L: L.nanmedian(L.zeros(2, 0, dtype=L.complex64)),
    "median bool": lambda L: L.median(L.zeros(0, dtype=L.bool)),
    "median int32": lambda L: L.median(L.zeros(0, dtype=L.int32)),
    "bucketize bool": lambda L: L.bucketize(L.zeros(0, dtype=L.bool),
                                            L.ones(3, dtype=L.bool), out_int32=True),
}


@pytest.mark.parametrize("name", sorted(EMPTY_CALLS))
def test_empty_inputs_return_before_the_dtype_check(name):
    # PyTorch returns an empty input (or NaN for a median of nothing) before it looks for a
    # kernel of the dtype, or before it wraps the dim; ember refused these.
    got, want = both(EMPTY_CALLS[name])
    same(got, want)


def test_complex_diff_subtracts_as_pytorchs_sub():
    # NOTE [complex alpha multiplies]: z[i+1] - 1 * z[i] with a complex product, so an
    # infinite real part beside a finite imaginary one gives a NaN imaginary part.
    parts = (inf, -inf, nan, 0.0, 1.5, -3.4e38, 1e30)
    values = np.array([[complex(r, i) for r in parts for i in parts]])

    def run(L):
        x = L.tensor(values.astype(np.complex64))
        return (L.diff(x), L.diff(x, 2), L.diff(x, 1, -1, prepend=L.tensor([[2.29, -inf]]),
                                                  append=L.tensor([[-inf, 1.0]])))
    for got, want in zip(*both(run)):
        same(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_svd_is_refused_and_answers_empty_input(dtype):
    # LAPACK iterated for ever on a bfloat16 matrix holding -inf (a hang in the fuzzer) and
    # NumPy refused float16 with a TypeError; PyTorch has no half SVD kernel.
    rows = [[-0.8086, 0.0, 3.8125], [1.3594, 3.5312, -2.2969], [-inf, -inf, -2.4844]]
    for fn in (lambda L: L.linalg.svdvals(L.tensor(rows).to(getattr(L, dtype))),
               lambda L: L.linalg.svd(L.ones(3, 3).to(getattr(L, dtype)))):
        with pytest.raises(NotImplementedError):
            fn(torch)
        with pytest.raises(NotImplementedError):
            fn(ember)
    for shape in ((0, 3), (2, 0, 0)):
        got, want = both(lambda L, shape=shape: L.linalg.svd(L.ones(shape).to(getattr(L, dtype))))
        for g, w in zip(got, want):
            same(g, w, strides=False)     # (LAPACK's column-major Vh: a stride class apart)
