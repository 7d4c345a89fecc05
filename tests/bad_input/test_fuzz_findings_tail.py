"""The bad-input fuzzer's tail (issue 19): calls answered with another class than PyTorch's
(or accepted where PyTorch refuses, or a different value), kept as plain cases compared with
PyTorch: ember raises PyTorch's class (its message too where marked) or returns its values."""
import numpy as np
import pytest
import torch

import ember
from tests.bad_input.test_fuzz_findings_entries import _outcome


def F(L):
    return L.nn.functional


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
    # nn.functional: each check in PyTorch's place and order.
    "F.batch_norm with a str running_mean": (lambda L: F(L).batch_norm(
        L.ones(2, 3), "a", running_var="a", eps=0.5), True),
    "F.batch_norm of 1-d with an array bias": (lambda L: F(L).batch_norm(
        L.ones(3, dtype=L.float64), L.ones(3), L.ones(3), bias=np.ones(2)), True),
    "torch.instance_norm of 1-d": (lambda L: L.instance_norm(
        L.ones(3), None, None, None, None, True, 0.1, 1e-5, False), True),
    "torch.instance_norm of 0-d": (lambda L: L.instance_norm(
        L.tensor(1.0), None, None, None, None, True, 0.1, 1e-5, False), True),
    "torch.instance_norm of 2-d runs": (lambda L: L.instance_norm(
        L.ones(2, 3), None, None, None, None, True, 0.1, 1e-5, False), False),
    "torch.instance_norm without statistics": (lambda L: L.instance_norm(
        L.ones(3), None, None, None, None, False, 0.1, 1e-5, False), True),
    "F.hardtanh_ with min_val above max_val (a value)": (lambda L: F(L).hardtanh_(
        L.arange(-3.0, 3.0), 2.0, True), False),
    "F.softshrink with a negative lambda": (lambda L: F(L).softshrink(L.ones(3), -0.25), True),
    "F.softshrink with a NaN lambda": (lambda L: F(L).softshrink(
        L.ones(3, dtype=L.float64), float("nan")), True),
    # (bfloat16 is computed in float32: the message names Float's range)
    "nn.Softshrink of bfloat16 with a negative lambda": (lambda L: L.nn.Softshrink(-1.0)(
        L.ones(2, dtype=L.bfloat16)), False),
    "F.softshrink of int64": (lambda L: F(L).softshrink(L.ones(3, dtype=L.int64), -1.0), True),
    "F.glu with a dim past int64": (lambda L: F(L).glu(L.ones(2, 4), dim=1 << 70), True),
    "F.adaptive_avg_pool3d of 2-d to one cell": (lambda L: F(L).adaptive_avg_pool3d(
        L.ones(2, 3), 1), True),
    "F.adaptive_avg_pool3d of 3-d to one cell runs": (lambda L: F(L).adaptive_avg_pool3d(
        L.arange(24.0).view(2, 3, 4), 1), False),
    "F.adaptive_avg_pool2d of 2-d to one cell runs": (lambda L: F(L).adaptive_avg_pool2d(
        L.arange(6.0).view(2, 3), 1), False),
    "sdpa with dropout_p 2": (lambda L: F(L).scaled_dot_product_attention(
        L.ones(3, 3), L.ones(3, 3), L.ones(3, 3), None, 2.0), False),
    "F.embedding with max_norm of float indices": (lambda L: F(L).embedding(
        L.ones(0, 3), L.ones(3, 3), 2, 0.5, 1), True),
    "F.softmin with a str dtype": (lambda L: F(L).softmin(
        L.ones(2, 3), dim=1, dtype="float32"), True),
    "F.softmin of bool into float": (lambda L: F(L).softmin(
        L.tensor([True, False]), 0, dtype=L.float32), True),
    "F.celu_ with an array alpha": (lambda L: F(L).celu_(L.ones(3), np.array([1, 2])), True),
    "F.ctc_loss with float input_lengths": (lambda L: F(L).ctc_loss(
        L.ones(5, 2, 4).log_softmax(2), L.ones(2, 3, dtype=L.long), L.tensor([5.0, 5.0]),
        L.tensor([3, 3])), True),
    "F.ctc_loss with float target_lengths": (lambda L: F(L).ctc_loss(
        L.ones(5, 2, 4).log_softmax(2), L.ones(2, 3, dtype=L.long), L.tensor([5, 5]),
        L.tensor([3.0, 3.0])), True),
    "F.ctc_loss with float tuple lengths": (lambda L: F(L).ctc_loss(
        L.ones(5, 2, 4).log_softmax(2), L.ones(2, 3, dtype=L.long), (5.0, 5.0), (3, 3)),
        False),
    "F.ctc_loss with an int and a tensor length on 5-d": (lambda L: F(L).ctc_loss(
        L.ones(2, 3, 2, 2, 2), L.ones(2, dtype=L.long), 1, L.tensor([2, 2])), False),
    "F.ctc_loss with uint8 target lengths runs": (lambda L: F(L).ctc_loss(
        L.ones(5, 2, 4).log_softmax(2), L.ones(2, 3, dtype=L.long),
        L.tensor([5, 5], dtype=L.int32), L.tensor([3, 3], dtype=L.uint8)), False),
    "F.max_unpool2d to a negative size": (lambda L: F(L).max_unpool2d(
        L.ones(1, 3, 0), L.ones(1, 3, 0), 2, padding=3), True),
    "F.max_unpool3d to a negative size": (lambda L: F(L).max_unpool3d(
        L.ones(1, 3, 4), L.ones(1, 3, 4), 1, 1, 1), True),
    "F.max_pool2d dilated with pad past half the kernel": (lambda L: F(L).max_pool2d(
        L.ones(1, 3, 4, 4), (2, 2), 1, padding=(2, 2), dilation=3), True),
    "F.max_pool3d dilated with pad past half the kernel": (lambda L: F(L).max_pool3d(
        L.ones(1, 3, 4, 4, 4), (2, 2, 3), 1, padding=(1, 2, 1), dilation=3), True),
    "F.upsample of 1-d with a str size (the rank first)": (lambda L: F(L).upsample(
        L.ones(3), size="a"), True),
    "F.upsample of 4-d with a str scale in an unknown mode": (lambda L: F(L).upsample(
        L.ones(1, 3, 4, 4, dtype=L.float64), scale_factor="ab", mode="mean"), True),
    "F.interpolate of 0-d with bytes for size": (lambda L: F(L).interpolate(
        L.tensor(1.0), b"x", mode="mean", recompute_scale_factor=0.0), True),
    "F.interpolate with a str scale recomputed": (lambda L: F(L).interpolate(
        L.arange(8.0).view(1, 2, 4), scale_factor="a", recompute_scale_factor=True), False),
    "F.interpolate by a scale, recomputed, runs": (lambda L: F(L).interpolate(
        L.arange(8.0).view(1, 2, 4), scale_factor=1.7, mode="linear",
        recompute_scale_factor=True), False),
    "LSTMCell with a tensor hx": (lambda L: L.nn.LSTMCell(3, 4)(
        L.ones(2, 3), L.ones(2, 4)), True),
    "LSTMCell with a 3-d hx[1]": (lambda L: L.nn.LSTMCell(3, 4)(
        L.ones(2, 3), (L.ones(2, 4), L.ones(1, 2, 4))), True),
    "LSTMCell unbatched with a tensor hx runs": (lambda L: L.nn.LSTMCell(3, 4)(
        L.ones(3), L.ones(2, 4))[0].detach() * 0, False),
    "fft.rfftfreq(-1)": (lambda L: L.fft.rfftfreq(-1), False),
    "fft.rfftfreq(-3)": (lambda L: L.fft.rfftfreq(-3), False),
    "fft.rfftfreq(-4)": (lambda L: L.fft.rfftfreq(-4, 2.0), True),
    "narrow_copy with a dim past the last": (lambda L: L.narrow_copy(L.ones(2, 3), 5, 0, 1),
                                            True),
    "Tensor.narrow_copy with a dim past the last": (lambda L: L.ones(2, 3).narrow_copy(
        5, 0, 1), True),
    "narrow_copy of 0-d with a dim past the last": (lambda L: L.narrow_copy(
        L.tensor(1.0), 3, 0, 1), True),
    "sparse_mask of two strided tensors": (lambda L: L.ones(2, 3).sparse_mask(L.ones(2, 3)),
                                           False),
    "detach_ of an array": (lambda L: L.detach_(np.ones(2)), True),
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
