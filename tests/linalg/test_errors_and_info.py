"""ember.linalg on singular and non-positive-definite input: LinAlgError with PyTorch's text,
the `info` of the `_ex` forms, and the class itself; against the oracle."""
import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def _batch_with_singular():
    A = np.zeros((3, 3, 3))
    A[0] = np.eye(3)
    A[1] = np.diag([1.0, 0.0, 2.0])
    A[2] = -np.eye(3)
    return A


def _error(fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 -- the class and text are what we compare
        return exc
    return None


def test_linalg_error_is_a_runtime_error_named_as_torchs():
    assert issubclass(ember.linalg.LinAlgError, RuntimeError)
    assert ember.linalg.LinAlgError.__name__ == torch.linalg.LinAlgError.__name__


@pytest.mark.parametrize("name,args", [
    ("linalg.inv", lambda lib, A: (A,)),
    ("linalg.cholesky", lambda lib, A: (A,)),
    ("linalg.solve", lambda lib, A: (A, A[..., :1])),
    ("inverse", lambda lib, A: (A,)),
    ("cholesky_inverse", lambda lib, A: (A,)),
])
@pytest.mark.parametrize("batched", [True, False])
def test_singular_input_raises_torchs_linalg_error(name, args, batched):
    A = _batch_with_singular()
    A = A if batched else A[1]
    raised = []
    for lib in (torch, ember):
        fn = lib
        for part in name.split("."):
            fn = getattr(fn, part)
        tensor = lib.tensor(A)
        raised.append(_error(fn, *args(lib, tensor)))
    expected, got = raised
    assert isinstance(expected, torch.linalg.LinAlgError)
    assert isinstance(got, ember.linalg.LinAlgError), got
    assert str(got) == str(expected)


@pytest.mark.parametrize("name", ["cholesky_ex", "inv_ex", "solve_ex"])
def test_ex_forms_return_info(name):
    A = _batch_with_singular()
    results = []
    for lib in (torch, ember):
        fn = getattr(lib.linalg, name)
        tensor = lib.tensor(A)
        out = fn(tensor, tensor) if name == "solve_ex" else fn(tensor)
        results.append(out)
    expected, got = results
    assert got.info.dtype == ember.int32
    np.testing.assert_array_equal(got.info.numpy(), expected.info.numpy())
    # The matrices that succeeded agree.
    np.testing.assert_allclose(got[0][0].numpy(), expected[0][0].numpy())
    error = _error(getattr(ember.linalg, name), *((ember.tensor(A),) * (
        2 if name == "solve_ex" else 1)), check_errors=True)
    assert isinstance(error, ember.linalg.LinAlgError)


def test_cholesky_upper_reads_the_upper_triangle():
    A = np.array([[4.0, 2.0], [1.0, 5.0]])
    for upper in (False, True):
        expected = torch.linalg.cholesky(torch.tensor(A), upper=upper).numpy()
        got = ember.linalg.cholesky(ember.tensor(A), upper=upper).numpy()
        np.testing.assert_allclose(got, expected)


def test_eigh_refuses_integer_input_as_torch():
    for lib in (torch, ember):
        error = _error(lib.linalg.eigh, lib.eye(3, dtype=lib.int64))
        assert isinstance(error, NotImplementedError)
        assert "linalg_eigh_cpu" in str(error)


def test_old_cholesky_warns_and_uses_its_own_name():
    A = ember.tensor(-np.eye(2))
    with pytest.warns(UserWarning, match="torch.cholesky is deprecated"):
        error = _error(ember.cholesky, A)
    assert str(error).startswith("cholesky: The factorization could not be completed")


@pytest.mark.parametrize("name,call", [
    ("linalg.svd", lambda lib, A: lib.linalg.svd(A)),
    ("linalg.svdvals", lambda lib, A: lib.linalg.svdvals(A)),
    ("linalg.matrix_norm nuc", lambda lib, A: lib.linalg.matrix_norm(A, "nuc")),
    ("linalg.matrix_norm 2", lambda lib, A: lib.linalg.matrix_norm(A, 2)),
    ("linalg.pinv", lambda lib, A: lib.linalg.pinv(A)),
    ("linalg.matrix_rank", lambda lib, A: lib.linalg.matrix_rank(A)),
])
def test_svd_of_non_finite_input_raises_torchs_linalg_error(name, call):
    A = np.array([[1.0, np.inf], [np.nan, 2.0]])
    expected, got = (_error(call, lib, lib.tensor(A)) for lib in (torch, ember))
    assert isinstance(expected, torch.linalg.LinAlgError), name
    assert isinstance(got, ember.linalg.LinAlgError), f"{name}: {got!r}"
    assert str(got) == str(expected)
