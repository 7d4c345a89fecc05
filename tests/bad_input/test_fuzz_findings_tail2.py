"""The bad-input fuzzer's tail, second part (issue 19): each case is a class of calls that got
another exception class than PyTorch's (or was accepted where PyTorch refuses, or refused
where PyTorch answers), compared with PyTorch: ember raises its class (its message too where
marked) or returns its values."""
import numpy as np
import pytest
import torch

import ember
from tests.bad_input.test_fuzz_findings_entries import _outcome


def F(L):
    return L.nn.functional


def _dense(call):
    """A sparse result compared as its dense values."""
    def run(L):
        result = call(L)
        return result.to_dense() if result.is_sparse else result
    return run


def _grid(L):
    return L.arange(-6.0, 6.0).view(3, 4) * 0.37


_AUTOGRAD = True     # (the out= refusals' messages are PyTorch's)

# label -> (call, whether the message is PyTorch's too)
CASES = {
    # NOTE [out= refuses autograd]: registry ops, composites, factories and the *_copy forms.
    "add(out=) of an input that requires grad": (lambda L: L.add(
        L.ones(3, requires_grad=True), 1, out=L.empty(3)), _AUTOGRAD),
    "add(out=) into an out that requires grad": (lambda L: L.add(
        L.ones(3), 1, out=L.empty(3, requires_grad=True)), _AUTOGRAD),
    "mm(out=) of an input that requires grad": (lambda L: L.mm(
        L.ones(3, 3, requires_grad=True), L.ones(3, 3), out=L.empty(3, 3)), _AUTOGRAD),
    "cat(out=) of a list holding a tensor that requires grad": (lambda L: L.cat(
        [L.ones(3, requires_grad=True)], out=L.empty(3)), _AUTOGRAD),
    "max(dim, out=) with two results": (lambda L: L.max(
        L.ones(3, 3, requires_grad=True), 0, out=(L.empty(3), L.empty(3, dtype=L.long))),
        _AUTOGRAD),
    "linalg.inv(out=) of a matrix that requires grad": (lambda L: L.linalg.inv(
        L.eye(3, requires_grad=True), out=L.empty(3, 3)), False),
    "linalg.det(out=) of a matrix that requires grad": (lambda L: L.linalg.det(
        L.eye(3, requires_grad=True), out=L.empty(())), False),
    "fft.fft(out=) of an input that requires grad": (lambda L: L.fft.fft(
        L.eye(3, requires_grad=True), out=L.empty(3, 3, dtype=L.complex64)), False),
    "normal(mean, std, out=) with a mean that requires grad": (lambda L: L.normal(
        L.ones(3, requires_grad=True), L.ones(3), out=L.empty(3)), False),
    "narrow_copy(out=) of an input that requires grad": (lambda L: L.narrow_copy(
        L.eye(3, requires_grad=True), 0, 0, 1, out=L.empty(1, 3)), False),
    "zeros(out=) into an out that requires grad": (lambda L: L.zeros(
        3, out=L.empty(3, requires_grad=True)), False),
    "arange(out=) into an out that requires grad": (lambda L: L.arange(
        3.0, out=L.empty(3, requires_grad=True)), False),
    # In-place functions of the torch namespace given no tensor: the parser's TypeError.
    "torch.abs_ of an int": (lambda L: L.abs_(1), True),
    "torch.as_strided_ of a list": (lambda L: L.as_strided_([1.0, 2.0], (2,), (1,)), True),
    "torch.as_strided_ of None": (lambda L: L.as_strided_(None, (6,), np.int64(2), 2), True),
    "torch.resize_as_sparse_ of an int": (lambda L: L.resize_as_sparse_(1, 1), True),
    # NOTE [fake quantization's checks]
    "fake_quantize_per_tensor_affine with quant_min above quant_max": (
        lambda L: L.fake_quantize_per_tensor_affine(L.ones(3), 0.1, 0, 5, 2), True),
    "fake_quantize_per_tensor_affine with a zero_point out of range": (
        lambda L: L.fake_quantize_per_tensor_affine(L.ones(3), 0.1, 300, 0, 255), True),
    "fake_quantize_per_tensor_affine of int64": (
        lambda L: L.fake_quantize_per_tensor_affine(L.ones(3, dtype=L.long), 0.1, 0, 0, 255),
        True),
    "fake_quantize_per_tensor_affine with a bool quant_max": (
        lambda L: L.fake_quantize_per_tensor_affine(L.ones(3), 0.1, 0, 0, True), False),
    "fake_quantize_per_tensor_affine with tensor qparams truncates the zero point": (
        lambda L: L.fake_quantize_per_tensor_affine(_grid(L), L.tensor(0.1), L.tensor(2.7),
                                                    0, 10), False),
    "fake_quantize_per_channel_affine with a 2-d scale": (
        lambda L: L.fake_quantize_per_channel_affine(
            L.ones(2, 3), L.ones(1, 3), L.zeros(3, dtype=L.int32), 1, 0, 255), True),
    "fake_quantize_per_channel_affine with a float64 scale": (
        lambda L: L.fake_quantize_per_channel_affine(
            L.ones(2, 3), L.ones(3, dtype=L.float64), L.zeros(3, dtype=L.int32), 1, 0, 255),
        True),
    "fake_quantize_per_channel_affine with a float axis (the parser first)": (
        lambda L: L.fake_quantize_per_channel_affine(
            L.ones(2, 3), L.ones(3), L.ones(3, dtype=L.complex64), 1.5, 0, 255), True),
    "fake_quantize_per_channel_affine with a negative axis": (
        lambda L: L.fake_quantize_per_channel_affine(
            L.ones(2, 3), L.ones(2), L.zeros(2, dtype=L.int32), -2, 0, 255), True),
    "fake_quantize_per_channel_affine of int64": (
        lambda L: L.fake_quantize_per_channel_affine(
            L.ones(2, 3, dtype=L.long), L.ones(3), L.zeros(3, dtype=L.int32), 1, 0, 255), True),
    # sparse_coo_tensor: PyTorch's schemas first, indices of any dtype, negative indices.
    "sparse_coo_tensor with a list dtype (the parser first)": (
        lambda L: L.sparse_coo_tensor(L.ones(2, 2, dtype=L.uint8), L.ones(2), dtype=["a"]),
        False),
    "sparse_coo_tensor with an int requires_grad": (lambda L: L.sparse_coo_tensor(
        [[1, 0]], [1.0, 2.0], requires_grad=1), False),
    "sparse_coo_tensor with size None": (lambda L: L.sparse_coo_tensor(
        [[1, 0]], [1.0, 2.0], None), False),
    "sparse_coo_tensor of float indices runs": (_dense(lambda L: L.sparse_coo_tensor(
        L.ones(2, 2), L.ones(2), (3, 3))), False),
    "sparse_coo_tensor of float list indices runs": (_dense(lambda L: L.sparse_coo_tensor(
        [[1.5, 0]], [1.0, 2.0])), False),
    "sparse_coo_tensor of a negative index, size inferred": (lambda L: L.sparse_coo_tensor(
        L.tensor([[-1, 0], [0, 0]]), L.ones(2)), True),
    "sparse_coo_tensor of a negative size": (lambda L: L.sparse_coo_tensor(
        [[1, 0], [0, 0]], [1.0, 2.0], (-3, 3)), True),
    # nn.functional: PyTorch's composites' order.
    "F.multilabel_soft_margin_loss of a bool target runs": (
        lambda L: F(L).multilabel_soft_margin_loss(L.arange(12.0).view(1, 3, 4), True), False),
    "F.multilabel_soft_margin_loss of 0-d input and an int target": (
        lambda L: F(L).multilabel_soft_margin_loss(L.tensor(1.0, dtype=L.float64), 2), True),
    "F.avg_pool1d of bool": (lambda L: F(L).avg_pool1d(L.ones(2, 3, dtype=L.bool), 2,
                                                       padding=(1,)), True),
    "F.avg_pool3d of bool": (lambda L: F(L).avg_pool3d(L.ones(1, 2, 3, 3, 3, dtype=L.bool),
                                                       1), True),
    "F.avg_pool2d of int32": (lambda L: F(L).avg_pool2d(L.ones(1, 2, 3, 3, dtype=L.int32), 1),
                              True),
    "F.avg_pool1d of complex64": (lambda L: F(L).avg_pool1d(
        L.ones(1, 2, 3, dtype=L.complex64), 1), True),
    "F.adaptive_avg_pool1d of 4-d with a tensor size (the parser first)": (
        lambda L: F(L).adaptive_avg_pool1d(L.ones(1, 3, 4, 4), L.tensor([2, 2])), False),
    "F.adaptive_max_pool1d_with_indices with a float size (the parser first)": (
        lambda L: F(L).adaptive_max_pool1d_with_indices(L.ones(1, 3, 4, 4), (1.5,)), False),
    "F.group_norm with a tensor num_groups (the parser first)": (
        lambda L: F(L).group_norm(L.ones(2, 3, dtype=L.long), L.tensor(-2.5),
                                  bias=L.ones(4)), True),
    "F.group_norm with an int weight (the parser first)": (
        lambda L: F(L).group_norm(L.ones(3, 3), 2, 1), True),
    "F.gaussian_nll_loss with a bool var": (lambda L: F(L).gaussian_nll_loss(
        L.ones(3, 3), L.ones(3, 3), True), False),
    "F.gaussian_nll_loss with an int var": (lambda L: F(L).gaussian_nll_loss(
        L.ones(3, 3), L.ones(3, 3), 1), False),
    "F.rrelu_ with a lower past uint64": (lambda L: F(L).rrelu_(
        L.ones(2, 3), 1 << 70), True),
    # Hand-written entries: PyTorch's parser before their own checks.
    "quantize_per_tensor with zero_point by keyword (another overload says zero_points)": (
        lambda L: L.quantize_per_tensor(L.ones(2, dtype=L.bfloat16), 0.1, zero_point=2,
                                        dtype=L.quint8), True),
    "fbgemm_pack_quantized_matrix with K but no N": (
        lambda L: L.fbgemm_pack_quantized_matrix(L.ones(3, dtype=L.float16), 1), False),
    "Tensor.exponential_ of a leaf with a device for generator": (
        lambda L: L.ones(2, 3, requires_grad=True).exponential_(
            -1.5, generator=L.device("cpu")), False),
    "Tensor.requires_grad_ with a NumPy bool": (lambda L: L.ones(2, dtype=L.bool)
                                                .requires_grad_(np.bool_(True)), True),
    "Tensor.requires_grad = 1": (lambda L: setattr(L.ones(2), "requires_grad", 1), True),
    "Tensor.to with an int copy": (lambda L: L.ones(2, 3, dtype=L.bool).to(
        L.device("cpu"), L.complex64, copy=1), False),
    "Tensor.to with a list copy": (lambda L: L.ones(2).to(
        L.device("cpu"), dtype=L.complex64, non_blocking=True, copy=["a"]), False),
    "Tensor.sum_to_size of a str": (lambda L: L.ones(3).sum_to_size("a"), True),
    "DoubleTensor of floats with a negative device (the overload first)": (
        lambda L: L.DoubleTensor(2.0, 2.0, 2.0, device=-1), False),
    "LongTensor of a str and a list with a bad device": (
        lambda L: L.LongTensor("a", [[1], [1, 2]], device="bogus"), False),
    "unravel_index of an object (its is_complex() first)": (lambda L: L.unravel_index(
        object(), None), False),
    "cond of a NumPy array": (lambda L: L.cond(np.array([1, 2]), lambda: L.ones(1),
                                               lambda: L.zeros(1)), True),
    "cond of a NumPy bool": (lambda L: L.cond(np.bool_(True), lambda: L.ones(1),
                                              lambda: L.zeros(1)), True),
    "ctc_loss of complex64 (the dtype before the targets' size)": (lambda L: L.ctc_loss(
        L.ones(2, 3, dtype=L.complex64), L.ones(0, 3, dtype=L.uint8), [2], [2], 1), True),
    "ctc_loss of 1-d float16 (the dtype before the rank)": (lambda L: L.ctc_loss(
        L.ones(3, dtype=L.float16), L.ones(2, 3, dtype=L.long), (2, 1, 2), (1, 1, 1), 1), True),
    "torch.triplet_margin_loss with a negative margin runs (no F prelude)": (
        lambda L: L.triplet_margin_loss(L.arange(6.0).view(2, 3), L.ones(2, 3), L.zeros(2, 3),
                                        margin=-1.5), False),
    "torch.triplet_margin_loss: the dims before the margin": (lambda L: L.triplet_margin_loss(
        L.ones(2, 3, 4), L.ones(3), L.ones(3), margin=-1.5, reduction=1), True),
    # Indexing: the items apply in order, an int out of bounds before a bad slice is the error.
    "getitem with an int out of bounds before a str slice": (lambda L: L.ones(1, 2, 3, 2)[
        -7, slice("a", None)], True),
    "getitem with None, then an int out of bounds, then a str slice": (lambda L: L.ones(
        1, 2, 3, 2)[None, 5, slice("a", None)], True),
    "setitem with an int out of bounds before a str slice": (lambda L: L.ones(
        1, 2, 3, 2).__setitem__((-7, slice("a", None)), 1.5), True),
    # asarray (PyTorch 2.13's rules).
    "asarray of a NumPy scalar with copy=False": (lambda L: L.asarray(
        np.float64(2.0), copy=False), True),
    "asarray of a NumPy int8 scalar copied into float32": (lambda L: L.asarray(
        np.int8(-1), dtype=L.float32, copy=True), True),
    "asarray of a tensor that requires grad into int64": (lambda L: L.asarray(
        L.tensor(1.0, requires_grad=True), dtype=L.int64), True),
    "asarray of an int past int64 into float64 runs": (lambda L: L.asarray(
        2 ** 63, dtype=L.float64), False),
    "tensor of ints past int64 into bool runs": (lambda L: L.tensor(
        [1, 2 ** 64], dtype=L.bool), False),
}

# Calls next to those classes that PyTorch answers, kept so that the checks above refuse no
# more than PyTorch's (they passed before the fixes too).
CONTROLS = {
    "Tensor.sum_to_size of a tuple that does not fit": (lambda L: L.ones(1, 2, 2).sum_to_size(
        (6,)), True),
    "add(out=) under no_grad runs": (lambda L: L.add(
        L.ones(3, requires_grad=True).detach(), 1, out=L.empty(3)), False),
    "floor_divide(out=) is below autograd and runs": (lambda L: L.floor_divide(
        L.ones(3, requires_grad=True), 2, out=L.empty(3)), False),
    "softmax(out=) is below autograd and runs": (lambda L: L.softmax(
        L.eye(3, requires_grad=True), 0, out=L.empty(3, 3)), False),
    "F.gaussian_nll_loss of int64 with a float var runs": (lambda L: F(L).gaussian_nll_loss(
        L.arange(3), L.ones(3), 2.0), False),
}


@pytest.mark.parametrize("label", list(CASES) + list(CONTROLS))
def test_same_as_pytorch(label):
    call, same_message = CASES[label] if label in CASES else CONTROLS[label]
    got, want = _outcome(ember, call), _outcome(torch, call)
    assert got[0] == want[0], (got, want)
    if got[0] == "raised":
        assert got[1] == want[1], (got, want)
        if same_message:
            assert got[2] == want[2].split("  (Could this error message")[0], (got, want)
    else:
        assert len(got[1]) == len(want[1])
        for a, b in zip(got[1], want[1]):
            np.testing.assert_allclose(np.asarray(a, dtype=complex), np.asarray(b, dtype=complex),
                                       rtol=1e-3, atol=1e-3)
