"""The bad-input fuzzer's tail (issue 19): calls answered with another class than PyTorch's
(or accepted where PyTorch refuses, or a different value), kept as plain cases compared with
PyTorch: ember raises PyTorch's class (its message too where marked) or returns its values."""
import pytest
import torch

import ember
from tests.bad_input.test_fuzz_findings_entries import _outcome


def _csr(L, *indices, **kwargs):
    return L.sparse_csr_tensor(*indices, **kwargs)


# label -> (call, whether the message is PyTorch's too)
CASES = {
    # Compressed sparse constructors: PyTorch's two signatures (object data, size or none).
    "sparse_bsc_tensor of str indices": (lambda L: L.sparse_bsc_tensor(
        L.ones(3), "a", L.ones(3, 3)), True),
    "sparse_csc_tensor of float indices": (lambda L: L.sparse_csc_tensor(
        L.ones(3), L.ones(2), L.ones(2)), True),
    "sparse_csr_tensor of bool indices": (lambda L: _csr(
        L, L.ones(2, dtype=L.bool), L.ones(1, dtype=L.bool), L.ones(1)), True),
    "sparse_csr_tensor of uint8 indices runs": (lambda L: _csr(
        L, L.tensor([0, 1, 2], dtype=L.uint8), L.tensor([0, 1], dtype=L.uint8),
        L.ones(2)).to_dense(), False),
    "sparse_csc_tensor with a float device": (lambda L: L.sparse_csc_tensor(
        L.ones(2, 3, 4, dtype=L.int32), L.ones(2, 3), L.ones(2, 3, 4), device=1.5), True),
    "sparse_bsr_tensor with a type for dtype": (lambda L: L.sparse_bsr_tensor(
        L.ones(2, 3), L.ones(2, 3), L.ones(2, 0, 3), dtype=str), True),
    "sparse_csr_tensor with a str size": (lambda L: _csr(
        L, L.tensor([0, 1]), L.tensor([0]), L.ones(1), "ab"), False),
    "sparse_csr_tensor with an int size": (lambda L: _csr(
        L, L.tensor([0, 1]), L.tensor([0]), L.ones(1), 1), True),
    "sparse_csr_tensor with size=None": (lambda L: _csr(
        L, L.tensor([0, 1]), L.tensor([0]), L.ones(1), size=None), True),
    "sparse_csr_tensor with requires_grad=None": (lambda L: _csr(
        L, L.tensor([0, 1]), L.tensor([0]), L.ones(1), requires_grad=None), True),
    "sparse_csr_tensor with an int check_invariants": (lambda L: _csr(
        L, L.tensor([0, 1]), L.tensor([0]), L.ones(1), check_invariants=1), True),
    "sparse_csr_tensor with a bool device": (lambda L: _csr(
        L, L.tensor([0, 1]), L.tensor([0]), L.ones(1), device=True), True),
    "sparse_csr_tensor of 0-d values": (lambda L: _csr(
        L, L.tensor([0, 1]), L.tensor([0]), L.tensor(1.0)), True),
    "sparse_compressed_tensor of an array": (lambda L: L.sparse_compressed_tensor(
        [0, 1], L.tensor([0]), L.ones(1), layout=L.strided), True),
    "sparse_compressed_tensor runs": (lambda L: L.sparse_compressed_tensor(
        [0, 1], L.tensor([0]), L.ones(1), layout=L.sparse_csc).to_dense(), False),
}


@pytest.mark.parametrize("label", list(CASES))
def test_same_as_pytorch(label):
    call, same_message = CASES[label]
    got, want = _outcome(ember, call), _outcome(torch, call)
    assert got[0] == want[0], (got, want)
    if got[0] == "raised":
        assert got[1] == want[1], (got, want)
        if same_message:
            assert got[2] == want[2].split("  (Could this error message")[0], (got, want)
    else:
        assert len(got[1]) == len(want[1])
        for a, b in zip(got[1], want[1]):
            assert a.shape == b.shape and a.dtype == b.dtype, (a, b)
            assert (abs(a - b) <= 1e-3 + 1e-3 * abs(b)).all(), (a, b)
