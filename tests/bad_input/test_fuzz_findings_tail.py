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
    "InstanceNorm2d of an array (input.dim())": (lambda L: L.nn.InstanceNorm2d(2)(
        np.ones(2)), False),
    "GroupNorm of a NumPy scalar (input.dim())": (lambda L: L.nn.GroupNorm(2, 4)(
        np.float32(1.0)), False),
    "UpsamplingNearest2d of an array (input.dim())": (lambda L: L.nn.UpsamplingNearest2d()(
        np.ones(2)), False),
    "F.nll_loss of 1-d input and 2-d target": (lambda L: F(L).nll_loss(
        L.ones(3), L.ones(2, 3, dtype=L.long)), True),
    "F.nll_loss of 1-d input and a 1-d target of two": (lambda L: F(L).nll_loss(
        L.ones(3), L.ones(2, dtype=L.long)), True),
    "F.adaptive_max_pool3d with one size": (lambda L: F(L).adaptive_max_pool3d(
        L.ones(1, 3, 4, 4), (1,)), True),
    "F.adaptive_avg_pool2d with one size": (lambda L: F(L).adaptive_avg_pool2d(
        L.ones(1, 3, 4, 4), (1,)), True),
    "BCEWithLogitsLoss with a weight wider than the loss": (lambda L: L.nn.BCEWithLogitsLoss(
        L.ones(4, 3, 1, 1, 1))(L.ones(1, 3, 0), L.ones(1, 3, 0)), True),
    "torch.binary_cross_entropy_with_logits with a wider input": (
        lambda L: L.binary_cross_entropy_with_logits(L.ones(2, 3), L.ones(3), reduction=0),
        True),
    "torch.binary_cross_entropy_with_logits with a wider target runs": (
        lambda L: L.binary_cross_entropy_with_logits(L.ones(3), L.ones(2, 3), reduction=0),
        False),
    "torch.binary_cross_entropy_with_logits with a wider pos_weight": (
        lambda L: L.binary_cross_entropy_with_logits(
            L.ones(3), L.ones(3), None, L.ones(2, 3), reduction=0), True),
    # NOTE [the top-level losses' reduction default]: values, not errors.
    "torch.binary_cross_entropy_with_logits's default reduction": (
        lambda L: L.binary_cross_entropy_with_logits(L.arange(6.0).view(2, 3),
                                                     L.zeros(2, 3)), False),
    "torch.kl_div's default reduction": (lambda L: L.kl_div(
        L.arange(6.0).view(2, 3), L.full((2, 3), 0.5)), False),
    "torch.hinge_embedding_loss's third positional is the margin": (
        lambda L: L.hinge_embedding_loss(L.arange(6.0).view(2, 3), L.ones(2, 3), 1), False),
    "torch.margin_ranking_loss's default reduction": (lambda L: L.margin_ranking_loss(
        L.arange(3.0), L.zeros(3), L.ones(3)), False),
    "torch.cosine_embedding_loss's default reduction": (lambda L: L.cosine_embedding_loss(
        L.arange(6.0).view(2, 3), L.ones(2, 3), L.ones(2)), False),
    "torch.triplet_margin_loss's default reduction": (lambda L: L.triplet_margin_loss(
        L.arange(6.0).view(2, 3), L.zeros(2, 3), L.ones(2, 3)), False),
    "torch.ctc_loss's default reduction": (lambda L: L.ctc_loss(
        L.ones(5, 2, 4).log_softmax(2), L.ones(2, 3, dtype=L.long), [5, 5], [3, 3]), False),
    "F.celu inplace of a float": (lambda L: L.nn.CELU(0.0, True)(3.0), True),
    "F.celu with alpha 0": (lambda L: F(L).celu(L.ones(2), 0.0), True),
    "linalg.lu_solve of a 1-d LU": (lambda L: L.linalg.lu_solve(
        L.ones(3), L.ones(3, dtype=L.int32), L.ones(3, 2)), True),
    "linalg.lu_solve with LU and B of two dtypes": (lambda L: L.linalg.lu_solve(
        L.eye(3), L.ones(3, dtype=L.int32), L.ones(3, 2, dtype=L.float64)), True),
    "linalg.lu_solve with too few pivots": (lambda L: L.linalg.lu_solve(
        L.eye(3), L.ones(2, dtype=L.int32), L.ones(3, 2)), True),
    "linalg.lu_solve with batched pivots": (lambda L: L.linalg.lu_solve(
        L.eye(3), L.ones(2, 3, dtype=L.int32), L.ones(3, 2)), True),
    "Tensor.lu_solve of a 1-d LU of another dtype": (lambda L: L.ones(
        3, 3, dtype=L.bool).lu_solve(L.ones(0, dtype=L.bfloat16), L.ones(3, dtype=L.int32)),
        True),
    "rnn_tanh_cell with a short w_hh": (lambda L: L.rnn_tanh_cell(
        L.ones(2, 3), L.ones(1, 2, 2, 2, 2), L.ones(3), w_hh=L.ones(2, 3)), True),
    "rnn_tanh_cell with a 1-d w_ih": (lambda L: L.rnn_tanh_cell(
        L.ones(2, 3), L.ones(2, 4), L.ones(3), L.ones(4, 4)), True),
    "lstm_cell with w_hh of 3 gates": (lambda L: L.lstm_cell(
        L.ones(2, 3), (L.ones(2, 4), L.ones(2, 4)), L.ones(16, 3), L.ones(12, 4)), True),
    "gru_cell with a w_ih one row short": (lambda L: L.gru_cell(
        L.ones(2, 3), L.ones(2, 4), L.ones(11, 3), L.ones(12, 4)), True),
    "rms_norm of int64": (lambda L: L.rms_norm(L.ones(2, 3, dtype=L.long), (3,)), True),
    "rms_norm with a normalized_shape that does not fit": (lambda L: L.rms_norm(
        L.ones(2, 3), (2, 4)), True),
    "meshgrid with a float indexing and no tensors": (lambda L: L.meshgrid(indexing=-1.0),
                                                      True),
    "meshgrid with an int indexing": (lambda L: L.meshgrid(L.ones(2), indexing=1), True),
    "cudnn_is_acceptable of None": (lambda L: L.cudnn_is_acceptable(None), True),
    "kl_div of int64": (lambda L: L.kl_div(L.ones(2, 3, dtype=L.long), L.ones(2, 3), 1), True),
    "kl_div of a bool target": (lambda L: L.kl_div(L.ones(2, 3), L.ones(2, 3, dtype=L.bool)),
                                True),
    "can_cast to Python's int": (lambda L: L.tensor(L.can_cast(L.int32, int)), False),
    "can_cast from Python's float": (lambda L: L.tensor(L.can_cast(float, L.int32)), False),
    "can_cast from a str": (lambda L: L.can_cast("a", L.int32), True),
    "lstm_cell of a 0-d input reads its width before the weights": (lambda L: L.lstm_cell(
        L.tensor(1.0), (L.ones(2, 4), L.ones(2, 4)), L.ones(5, 3), L.ones(16, 4)), True),
    "gru_cell checks the input's width before the weights": (lambda L: L.gru_cell(
        L.ones(2, 7), L.ones(2, 4), L.ones(12, 3), L.ones(11, 4)), True),
    "rnn_relu_cell checks the weights before the input": (lambda L: L.rnn_relu_cell(
        L.tensor(1.0), L.ones(2, 4), L.ones(5, 3), L.ones(4, 4)), True),
    # (was a heap corruption: LAPACK's sytrs read pivots of any shape, dtype and value)
    "linalg.ldl_solve with 2-d pivots": (lambda L: L.linalg.ldl_solve(
        L.ones(3, 3), L.ones(3, 3), L.ones(3, 3), hermitian=True), True),
    "linalg.ldl_solve with float pivots": (lambda L: L.linalg.ldl_solve(
        L.ones(3, 3), L.ones(3), L.ones(3, 3)), True),
    "linalg.ldl_solve with 0-d pivots": (lambda L: L.linalg.ldl_solve(
        L.eye(3), L.tensor(1, dtype=L.int32), L.ones(3, 3)), True),
    "linalg.ldl_solve of a 1-d B": (lambda L: L.linalg.ldl_solve(
        L.eye(3), L.ones(3, dtype=L.int32), L.ones(3)), True),
    "linalg.ldl_solve with B of another dtype": (lambda L: L.linalg.ldl_solve(
        L.eye(3), L.ones(3, dtype=L.int32), L.ones(3, 3, dtype=L.float64)), True),
    "linalg.ldl_solve with B of other rows": (lambda L: L.linalg.ldl_solve(
        L.eye(3), L.ones(3, dtype=L.int32), L.ones(2, 3)), True),
    "linalg.ldl_solve of int64": (lambda L: L.linalg.ldl_solve(
        L.eye(3, dtype=L.long), L.ones(3, dtype=L.int32), L.ones(3, 3, dtype=L.long)), True),
    "linalg.ldl_solve of float16": (lambda L: L.linalg.ldl_solve(
        L.eye(3, dtype=L.half), L.ones(3, dtype=L.int32), L.ones(3, 3, dtype=L.half)), True),
    "linalg.ldl_solve with uint8 pivots runs": (lambda L: L.linalg.ldl_solve(
        L.eye(3), L.tensor([1, 2, 3], dtype=L.uint8), L.ones(3, 2)), False),
    "Tensor.narrow_copy with a dim past int64": (lambda L: L.ones(3, dtype=L.bool).narrow_copy(
        1 << 70, 2, 3), True),
    "Tensor.narrow_copy with a float start": (lambda L: L.ones(3).narrow_copy(2, 1.0, 3),
                                              False),
    "F.adaptive_avg_pool2d with a str size (the parser before the length)": (
        lambda L: F(L).adaptive_avg_pool2d(L.ones(1, 3, 4, 4), ["a"]), True),
    "F.ctc_loss of 0-d log_probs": (lambda L: F(L).ctc_loss(
        L.tensor(1.0), L.tensor(1), input_lengths=L.tensor(1), target_lengths=L.tensor(1),
        blank=3), True),
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
            np.testing.assert_allclose(a, b, rtol=1e-3, atol=1e-3)
