"""Calls the fuzzer (tests/bad_input/fuzz_*.py) found answered differently from PyTorch, kept
as plain cases: the outcome (result or exception class and message) and the warnings."""
import warnings

import pytest
import torch

import ember

CASES = {
    "nanmean complex": lambda L: L.nanmean(L.ones(2, 3, dtype=L.complex64)),
    "nanmean complex to float64": lambda L: L.ones(2, dtype=L.complex64).nanmean(
        dtype=L.float64),
    "scalar_tensor complex": lambda L: L.scalar_tensor(1 + 1j),
    "scalar_tensor complex into double": lambda L: L.scalar_tensor(2 + 1j, dtype=L.float64),
    "scalar_tensor real complex": lambda L: L.scalar_tensor(1 + 0j),
    "scalar_tensor complex into complex": lambda L: L.scalar_tensor(1 + 1j, dtype=L.complex64),
    "adjoint of a 0-d tensor": lambda L: L.adjoint(L.tensor(1.0 + 2j)),
    "adjoint method of a 0-d tensor": lambda L: L.tensor(3.0).adjoint(),
    "adjoint of a 1-d tensor": lambda L: L.adjoint(L.tensor([1.0, 2.0])),
    "adjoint of a list": lambda L: L.adjoint([1.0, 2.0]),
    "mvlgamma_ with p past int64 (was a hang)": lambda L: L.ones(3).mvlgamma_(1 << 63),
    "mvlgamma with p too large to count": lambda L: L.mvlgamma(L.ones(3), 1 << 62),
    # NOTE [deprecated argument orders]: the Scalars first, as PyTorch's parser still takes.
    "addr in the old order (beta, input, alpha, vec1, vec2)": lambda L: L.addr(
        2, L.ones(2, 3), 3, L.arange(2.0), L.arange(3.0)),
    "addmm with beta first": lambda L: L.addmm(2, L.ones(2, 3), L.ones(2, 4), L.ones(4, 3)),
    "addmv_ with beta and alpha first": lambda L: L.ones(2).addmv_(
        2, 3, L.ones(2, 3), L.arange(3.0)),
    "addr_ with beta first and the vectors by name (was a collision)": lambda L: L.ones(
        2, 3).addr_(2, vec1=L.arange(2.0), vec2=L.arange(3.0)),
    "addr_ with beta first and a 2-d vec2": lambda L: L.ones(2, 3).addr_(
        1, vec1=L.ones(3), vec2=L.ones(2, 3)),
    "addbmm in the old order, with out": lambda L: L.addbmm(
        2, L.ones(2, 3), L.ones(4, 2, 5), L.ones(4, 5, 3), out=L.empty(2, 3)),
    "baddbmm method with beta first": lambda L: L.ones(4, 2, 3).baddbmm(
        0.5, L.ones(4, 2, 5), L.ones(4, 5, 3)),
    "addcdiv with value second": lambda L: L.addcdiv(L.ones(3), 2, L.ones(3), L.full((3,), 4.0)),
    "addcdiv_ with value first, tensors by name": lambda L: L.ones(3).addcdiv_(
        2, tensor1=L.ones(3), tensor2=L.full((3,), 4.0)),
    "addcmul_ with value first": lambda L: L.ones(3).addcmul_(2, L.ones(3), L.full((3,), 4.0)),
    "addcmul by keywords only": lambda L: L.addcmul(input=L.ones(3), tensor1=L.ones(3),
                                                    tensor2=L.ones(3), value=3),
    "addr with beta first and beta by name too": lambda L: L.ones(2, 3).addr(
        2, vec1=L.ones(2), vec2=L.ones(3), beta=3),
    "addr with too many arguments": lambda L: L.ones(2, 3).addr(1, 2, 3, 4, 5),
    "addr missing vec2": lambda L: L.ones(2, 3).addr(L.ones(2)),
    "addcdiv with a bool for tensor1 and value by name": lambda L: L.ones(3).addcdiv(
        True, L.ones(3), value=0.5),
    # PyTorch reads the result's sizes (batch1.size(1), batch2.size(2)) first.
    "addbmm with a 2-d batch2": lambda L: L.addbmm(L.ones(2, 3), L.ones(2, 3), L.ones(2, 3)),
    "addbmm_ with a 0-d batch1": lambda L: L.ones(3, 4).addbmm_(L.tensor(1.0), L.ones(2, 3, 4)),
    "baddbmm with a 1-d batch1": lambda L: L.baddbmm(L.ones(2, 3, 4), L.ones(3), L.ones(2, 3, 4)),
    "addmv_ into a 0-d input": lambda L: L.tensor(1.0).addmv_(
        L.ones(2, 3, dtype=L.complex64), L.ones(3)),
    "addmv with a 0-d input and a size mismatch": lambda L: L.addmv(
        L.tensor(1.0), L.ones(2, 3), L.ones(2)),
    # The entry-point fuzzer (fuzz_entries_*.py): each library's own LinAlgError, same text.
    "pinverse of a NaN matrix": lambda L: L.pinverse(L.full((2, 2), float("nan"))),
    "PReLU of a 0-d tensor keeps it 0-d": lambda L: L.nn.PReLU()(L.tensor(-2.0)).detach(),
    "adaptive_avg_pool1d to size 0": lambda L: L.nn.functional.adaptive_avg_pool1d(
        L.ones(1, 3, 4), 0),
    "lp_pool1d with a one-tuple stride": lambda L: L.nn.functional.lp_pool1d(
        L.ones(1, 3, 4), 2, 2, (2,)),
    "pad with a bytes mode": lambda L: L.nn.functional.pad(L.ones(2, 3), (1, 1),
                                                           mode=b"reflect"),
    "avg_pool2d of a 2-d tensor reads size(-3) first": lambda L: L.nn.functional.avg_pool2d(
        L.ones(2, 3), 1),
    "lp_pool2d of a 2-d tensor": lambda L: L.nn.functional.lp_pool2d(L.ones(2, 3), 1, 3),
    "hardtanh_ does not check the bounds' order": lambda L: L.nn.functional.hardtanh_(
        L.ones(2, 3), 1.0, -1.5),
    "LSTMCell iterates its hx": lambda L: L.nn.LSTMCell(3, 2)(L.ones(2, 3), 1),
}


def _outcome(lib, call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = call(lib)
        except Exception as exc:  # noqa: BLE001 -- the class is what is compared
            outcome = (type(exc).__name__, str(exc))
        else:
            outcome = ("result", result.tolist(), str(result.dtype).split(".")[-1])
    return outcome, sorted({(w.category.__name__, str(w.message)[:60]) for w in caught})


@pytest.fixture
def warn_always():
    """Warn-once warnings every time in both libraries, so test order does not matter."""
    before = torch.is_warn_always_enabled(), ember.is_warn_always_enabled()
    torch.set_warn_always(True)
    ember.set_warn_always(True)
    yield
    torch.set_warn_always(before[0])
    ember.set_warn_always(before[1])


@pytest.mark.parametrize("label", list(CASES))
def test_same_outcome_and_warnings_as_pytorch(label, warn_always):
    assert _outcome(ember, CASES[label]) == _outcome(torch, CASES[label])


def test_triangular_solves_of_a_singular_matrix_give_infinities_as_torch():
    import numpy as np
    results = []
    for T in (torch, ember):
        A = T.tensor([[[1.0, 0.0], [2.0, 0.0]], [[2.0, 0.0], [1.0, 3.0]]])
        B = T.tensor([[[1.0], [1.0]], [[4.0], [5.0]]])
        results.append([T.linalg.solve_triangular(A, B, upper=False).numpy(),
                        T.linalg.solve_triangular(A, B.mT, upper=False, left=False).numpy(),
                        T.cholesky_solve(B, A).numpy()])
    for got, want in zip(results[1], results[0]):
        np.testing.assert_allclose(got, want, rtol=1e-6)
