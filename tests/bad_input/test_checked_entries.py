"""Hand-written public functions checked against PyTorch's schemas (NOTE [checked entries],
ember/_core/checked_entry.py): every declared schema fits its function, and the classes of bad
calls the namespace and api fuzz families found get PyTorch's exception class (or its result)."""
import inspect

import numpy as np
import pytest
import torch

import ember


def _checked_functions():
    # (the frontends of families loaded on first use are resolved first: NOTE [op families
    # load on first use])
    from ember._core.lazy_method import LazyMethod
    from ember._generated.bindings import LAZY_FUNCTIONS
    for name in LAZY_FUNCTIONS:
        getattr(ember, name)
    for name, value in list(vars(ember.Tensor).items()):
        if isinstance(value, LazyMethod):
            getattr(ember.Tensor, name)
    found = {}
    for where, space in (("ember", ember), ("Tensor", ember.Tensor), ("linalg", ember.linalg),
                         ("fft", ember.fft), ("special", ember.special)):
        for name in dir(space):
            value = inspect.getattr_static(space, name, None)
            if callable(getattr(value, "checked_build", None)):
                found[f"{where}.{name}"] = value
    return found


def test_every_checked_schema_fits_its_function():
    found = _checked_functions()
    assert len(found) > 100, sorted(found)
    for label, function in found.items():
        positional, entries, _, _, _ = function.checked_build()      # raises where one does not
        assert entries, label


_X = np.arange(9.0).reshape(3, 3) / 4


def _x(L):
    return L.tensor(_X, dtype=L.float32)


CASES = {
    # a non-tensor where the schema has a Tensor: PyTorch's parser's TypeError
    "fft of a list": lambda L: L.fft.ihfft2([1.0, 2.0], [1]),
    "householder_product tau a list": lambda L: L.linalg.householder_product(_x(L), [1.0]),
    "airy_ai of a list": lambda L: L.special.airy_ai([1.0]),
    "t_copy of a list": lambda L: L.t_copy([1.0]),
    "is_complex of None": lambda L: L.is_complex(None),
    "is_floating_point of a float": lambda L: L.is_floating_point(1.5),
    "atleast_1d of an int": lambda L: L.atleast_1d(1),
    "meshgrid of an int": lambda L: L.meshgrid(1),
    "lstsq with a list": lambda L: L.linalg.lstsq(_x(L), [1.0]),
    "embedding_renorm_ without indices": lambda L: L.embedding_renorm_(_x(L), None, 1.0, 2.0),
    # wrong kinds of the other arguments
    "fftn dim a tensor": lambda L: L.fft.fftn(_x(L), dim=L.tensor([0, 1])),
    "fftfreq layout a list": lambda L: L.fft.fftfreq(3, layout=[1]),
    "lu_solve left a list": lambda L: L.linalg.lu_solve(
        *L.linalg.lu_factor(_x(L) + L.eye(3)), _x(L), left=[1]),
    "fft n a NumPy integer": lambda L: L.fft.fft(L.ones(4), n=np.int64(3)),
    "cumprod_ dtype a list": lambda L: L.ones(2, 3).cumprod_(0, dtype=["a"]),
    "stft n_fft None": lambda L: L.ones(16).stft(None),
    # keywords by PyTorch's names
    "cholesky by the keyword A": lambda L: L.linalg.cholesky(A=L.eye(2)),
    "cholesky by the keyword input": lambda L: L.linalg.cholesky(input=L.eye(2)),
    "hermite_polynomial_he by x and n": lambda L: L.special.hermite_polynomial_he(
        x=L.ones(3), n=2),
    "hermite_polynomial_he by input": lambda L: L.special.hermite_polynomial_he(
        input=L.ones(3), n=2),
    "airy_ai by x": lambda L: L.special.airy_ai(x=L.ones(3)),
    "hsplit by indices": lambda L: L.hsplit(_x(L), indices=(1,)),
    "hsplit by sections": lambda L: L.hsplit(_x(L), sections=3),
    "tensorsolve by other": lambda L: L.linalg.tensorsolve(L.eye(3), other=L.ones(3)),
    # an int for an int list: repeated to a sized list, refused by an unsized one
    "fftn with an int s": lambda L: L.fft.fftn(_x(L), s=2),
    "fft2 with an int s": lambda L: L.fft.fft2(_x(L), s=2),
    "tensorsolve with an int dims": lambda L: L.linalg.tensorsolve(
        L.eye(3), L.ones(3), dims=0),
    "matrix_norm with an int dim": lambda L: L.linalg.matrix_norm(_x(L), dim=0),
    # overloads: a call that fits none
    "zeta of two floats": lambda L: L.special.zeta(1.0, 2.0),
    "zeta of a tensor and a float": lambda L: L.special.zeta(L.ones(3) * 2, 2.0),
    "cond with a tensor p": lambda L: L.linalg.cond(_x(L), L.ones(2)),
    "vsplit of a NumPy float": lambda L: L.vsplit(np.float32(1.0), L.ones(2)),
    # nn.functional's own entries with a schema (float and int-list arguments)
    "avg_pool1d with a tensor padding": lambda L: L.nn.functional.avg_pool1d(
        L.ones(2, 3), 1, 1, L.ones(2)),
    "avg_pool1d with stride None": lambda L: L.nn.functional.avg_pool1d(L.ones(1, 2, 4), 2, None),
    "HingeEmbeddingLoss with a complex margin": lambda L: L.nn.HingeEmbeddingLoss(1j)(
        L.ones(3), L.ones(3)),
    "margin_ranking_loss with an array margin": lambda L: L.nn.functional.margin_ranking_loss(
        L.ones(3), L.ones(3), L.ones(3), margin=np.array([1, 2])),
    "triplet_margin_loss with a string p": lambda L: L.nn.functional.triplet_margin_loss(
        _x(L), _x(L), _x(L), p="a"),
    # PyTorch's own checks
    "vecdot of integers": lambda L: L.linalg.vecdot(L.ones(3, dtype=L.int64),
                                                   L.ones(3, dtype=L.int64)),
    "norm with an empty dim": lambda L: L.linalg.norm(_x(L), 2, dim=()),
    "cond of a vector": lambda L: L.linalg.cond(L.ones(3)),
    "cond of a vector, fro": lambda L: L.linalg.cond(L.ones(3), "fro"),
    "lu_unpack with float pivots": lambda L: L.lu_unpack(_x(L), L.ones(3)),
    "lu_unpack with float pivots not unpacked": lambda L: L.lu_unpack(
        _x(L), L.ones(3), unpack_pivots=False)[1],
    "lu_solve with float pivots": lambda L: L.linalg.lu_solve(_x(L), L.ones(3), _x(L)),
    "ihfft of nothing": lambda L: L.fft.ihfft(L.ones(0)),
    "rfft of nothing": lambda L: L.fft.rfft(L.ones(0)),
    "ihfft2 over an empty dim": lambda L: L.fft.ihfft2(L.ones(2, 0, 3)),
}


def _outcome(lib, call):
    try:
        result = call(lib)
    except Exception as exc:  # noqa: BLE001 -- the class is what is compared
        return ("raised", type(exc).__name__)
    if isinstance(result, (tuple, list)):
        return ("result", [np.asarray(r.detach().tolist()) for r in result])
    return ("result", np.asarray(result.detach().tolist()))


@pytest.mark.parametrize("label", list(CASES))
def test_same_class_or_result_as_pytorch(label):
    got, want = _outcome(ember, CASES[label]), _outcome(torch, CASES[label])
    assert got[0] == want[0], (got, want)
    if got[0] == "raised":
        assert got[1] == want[1]
    else:
        values = got[1] if isinstance(got[1], list) else [got[1]]
        expected = want[1] if isinstance(want[1], list) else [want[1]]
        assert len(values) == len(expected)
        for a, b in zip(values, expected):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_checks_stay_on_once_an_overriding_subclass_exists():
    # Defining a subclass with __torch_function__ anywhere in the process (a library does it
    # at import) must not switch the checks off for plain calls; a call on the subclass still
    # reaches its __torch_function__ first.
    def define(lib):
        class Logged(lib.Tensor):
            seen = []

            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                cls.seen.append(getattr(func, "__name__", str(func)))
                return super().__torch_function__(func, types, args, kwargs or {})
        return Logged

    for lib in (ember, torch):
        logged = define(lib)
        with pytest.raises(TypeError, match="must be Tensor, not list"):
            lib.fft.fft([1.0, 2.0])
        assert type(lib.fft.fft(lib.ones(4).as_subclass(logged))) is logged
        assert logged.seen


@pytest.mark.parametrize("call", [
    lambda L: L.rrelu_(L.ones(3), 2.5, training=True),
    lambda L: L.rrelu(L.ones(3), 2.5, 0.3),
    lambda L: L.geqrf(L.ones(2, 3, 4, dtype=L.int32)),
    lambda L: L.geqrf(L.ones(3, 4, dtype=L.float16)),
    lambda L: L.cudnn_grid_sampler(L.ones(3), L.ones(2, 3, 4), bogus_keyword=1),
    lambda L: L.miopen_convolution_relu(L.ones(1, 2, 3, 2), L.ones(()), L.ones(3, 3), (2,),
                                        2.0, [2, 1], 3),
    lambda L: L.batch_norm_stats(L.ones(2, 3), "x"),
    lambda L: L.mkldnn_max_pool2d(L.ones(1, 1, 4, 4), 2),
], ids=["rrelu_ bounds", "rrelu bounds", "geqrf int", "geqrf half", "vendor keyword",
        "vendor int list", "vendor float", "vendor valid call"])
def test_found_by_the_api_family(call):
    got, want = _outcome(ember, call), _outcome(torch, call)
    assert got == want
