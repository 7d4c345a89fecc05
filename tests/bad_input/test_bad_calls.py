"""Wrong calls get PyTorch's exception class (and, where PyTorch's text is stable, its message
fragment); right calls next to them still work. Each case runs on both libraries.
NOTE [argument parsing] (ember/_core/arguments.py) is what most of these exercise."""

import numpy as np
import pytest
import torch

import ember


def _x(lib):
    return lib.ones(2, 3)


def _i(lib):
    return lib.tensor([0, 1])


# (label, call(lib), message fragment both must contain or None)
CASES = [
    # ints: bool and float are not ints; NumPy ints and 0-d int tensors are
    ("unsqueeze(True)", lambda L: _x(L).unsqueeze(True), "must be int, not bool"),
    ("unsqueeze(1.0)", lambda L: _x(L).unsqueeze(1.0), "must be int, not float"),
    ("unsqueeze('a')", lambda L: _x(L).unsqueeze("a"), "must be int, not str"),
    ("unsqueeze(np.int64)", lambda L: _x(L).unsqueeze(np.int64(1)).shape, None),
    ("unsqueeze(0-d tensor)", lambda L: _x(L).unsqueeze(L.tensor(1)).shape, None),
    ("torch.unsqueeze(x, True)", lambda L: L.unsqueeze(_x(L), True), "(position 2)"),
    ("transpose(0, None)", lambda L: _x(L).transpose(0, None), None),
    ("select(0, 1.5)", lambda L: _x(L).select(0, 1.5), None),
    ("diagonal(offset='a')", lambda L: _x(L).diagonal(offset="a"), None),
    ("roll(1, dims=1.0)", lambda L: _x(L).roll(1, dims=1.0), None),
    ("cumsum('a')", lambda L: _x(L).cumsum("a"), None),
    ("argmax(dim=1.5)", lambda L: _x(L).argmax(dim=1.5), None),
    # bools
    ("sum(0, keepdim=1)", lambda L: _x(L).sum(0, keepdim=1), None),
    ("sum(0, keepdim=np.bool_)", lambda L: _x(L).sum(0, keepdim=np.bool_(True)).shape, None),
    ("cumsum ok", lambda L: _x(L).cumsum(1).tolist(), None),
    ("argmax(keepdim='y')", lambda L: _x(L).argmax(1, keepdim="y"), None),
    ("set_grad_enabled('yes')", lambda L: L.set_grad_enabled("yes"), "must be bool, not str"),
    ("set_grad_enabled(1)", lambda L: L.set_grad_enabled(1), "must be bool, not int"),
    # int lists
    ("all(b'x')", lambda L: _x(L).all(b"x"), None),
    ("sum(dim=[0, 1.5])", lambda L: _x(L).sum(dim=[0, 1.5]), None),
    ("sum(dim=Size)", lambda L: _x(L).sum(L.Size([0])).tolist(), None),
    ("sum(dim=np.array)", lambda L: _x(L).amax(np.array([0, 1])).tolist(), None),
    # floats
    ("dropout(p='a')", lambda L: L.dropout(_x(L), "a", True), None),
    ("threshold(x, 'a', 0)", lambda L: L.nn.functional.threshold(_x(L), "a", 0.0), None),
    # Scalars: strings never reach a kernel (a bfloat16 constructor crashes on one)
    (
        "masked_fill_ bf16 str",
        lambda L: L.ones(2, dtype=L.bfloat16).masked_fill_(L.ones(2, dtype=L.bool), "a"),
        None,
    ),
    ("masked_fill str", lambda L: _x(L).masked_fill(L.ones(2, 3, dtype=L.bool), "a"), None),
    ("fill_(str)", lambda L: _x(L).fill_("a"), None),
    ("fill_(None)", lambda L: _x(L).fill_(None), None),
    ("full str", lambda L: L.full((2,), "a"), "must be Number, not str"),
    ("full bf16 str", lambda L: L.full((2,), "a", dtype=L.bfloat16), None),
    ("full np.float32", lambda L: L.full((2,), np.float32(1.5)).tolist(), None),
    ("index_fill str", lambda L: L.index_fill(_x(L), 0, L.tensor([0]), "a"), None),
    ("add_(alpha='a')", lambda L: _x(L).add_(1, alpha="a"), "must be Number, not str"),
    ("add(alpha=None)", lambda L: L.add(_x(L), _x(L), alpha=None), None),
    ("clamp(min='a')", lambda L: _x(L).clamp(min="a"), None),
    ("lerp weight str", lambda L: _x(L).lerp(_x(L), "a"), None),
    ("add(x, 'a')", lambda L: L.add(_x(L), "a"), None),
    ("mul(x, [1])", lambda L: L.mul(_x(L), [1]), None),
    ("pow('a')", lambda L: _x(L).pow("a"), None),
    ("x + 'a'", lambda L: _x(L) + "a", None),
    # dtypes, layouts, memory formats, devices, generators
    ("sum(dtype=int)", lambda L: str(_x(L).sum(dtype=int).dtype).split(".")[1], None),
    ("sum(dtype=float)", lambda L: str(_x(L).sum(dtype=float).dtype).split(".")[1], None),
    ("sum(dtype=5)", lambda L: _x(L).sum(dtype=5), None),
    ("sum(dtype='float32')", lambda L: _x(L).sum(dtype="float32"), None),
    ("cumsum(0, dtype=np.float32)", lambda L: _x(L).cumsum(0, dtype=np.float32), None),
    ("byte(memory_format='a')", lambda L: _x(L).byte(memory_format="a"), "memory_format"),
    (
        "float(memory_format=cl)",
        lambda L: L.ones(1, 2, 3, 4).double(memory_format=L.channels_last).stride(),
        None,
    ),
    ("clone(memory_format=1)", lambda L: _x(L).clone(memory_format=1), None),
    ("randn(2, generator=1)", lambda L: L.randn(2, generator=1), None),
    ("ones(2, device=1.5)", lambda L: L.ones(2, device=1.5), None),
    ("ones(2, dtype='float')", lambda L: L.ones(2, dtype="float"), None),
    ("ones(2, layout='x')", lambda L: L.ones(2, layout="x"), None),
    ("manual_seed('a')", lambda L: L.manual_seed("a"), None),
    ("manual_seed('5')", lambda L: L.manual_seed("5").initial_seed(), None),
    # strings
    ("div(rounding_mode=1)", lambda L: L.div(_x(L), 2, rounding_mode=1), None),
    ("div(rounding_mode='x')", lambda L: L.div(_x(L), 2, rounding_mode="x"), None),
    # tensors where tensors are required
    ("numel(1.5)", lambda L: L.numel(1.5), "must be Tensor, not float"),
    ("type_as(3)", lambda L: _x(L).type_as(3), "must be Tensor, not int"),
    ("mm(x, 3)", lambda L: L.mm(_x(L), 3), "must be Tensor, not int"),
    ("cat(x)", lambda L: L.cat(_x(L)), None),
    ("cat([x, 1])", lambda L: L.cat([_x(L), 1]), None),
    ("stack([])", lambda L: L.stack([]), None),
    ("where(x > 0, x, 'a')", lambda L: L.where(_x(L) > 0, _x(L), "a"), None),
    # tensor() from Python data
    ("tensor('abc')", lambda L: L.tensor("abc"), "invalid data type 'str'"),
    ("tensor(b'x')", lambda L: L.tensor(b"x"), "invalid data type 'bytes'"),
    ("tensor(['a'])", lambda L: L.tensor(["a"]), "too many dimensions 'str'"),
    ("tensor([None])", lambda L: L.tensor([None]), "Could not infer dtype of NoneType"),
    ("tensor(object())", lambda L: L.tensor(object()), "Could not infer dtype of object"),
    ("tensor({1: 2})", lambda L: L.tensor({1: 2}), "Could not infer dtype of dict"),
    ("tensor(2**70)", lambda L: L.tensor(2**70), "Overflow when unpacking long long"),
    ("tensor([2**63])", lambda L: L.tensor([2**63]), "Overflow when unpacking long long"),
    ("tensor(-2**63)", lambda L: L.tensor(-(2**63)).item(), None),
    ("tensor(300, int8)", lambda L: L.tensor(300, dtype=L.int8), "without overflow"),
    ("tensor([300.5], int8)", lambda L: L.tensor([300.5], dtype=L.int8), "without overflow"),
    ("tensor([nan], int64)", lambda L: L.tensor([float("nan")], dtype=L.int64), "without overflow"),
    ("tensor([inf], int32)", lambda L: L.tensor([float("inf")], dtype=L.int32), "without overflow"),
    (
        "as_tensor([nan, inf], uint8)",
        lambda L: L.as_tensor([float("nan"), float("inf")], dtype=L.uint8),
        "without overflow",
    ),
    ("tensor([-1], uint8)", lambda L: L.tensor([-1], dtype=L.uint8).tolist(), None),
    ("tensor([1.5], int8)", lambda L: L.tensor([1.5], dtype=L.int8).tolist(), None),
    ("tensor(np [300], int8)", lambda L: L.tensor(np.array([300]), dtype=L.int8).tolist(), None),
    (
        "tensor([1+2j], float32)",
        lambda L: L.tensor([1 + 2j], dtype=L.float32),
        "must be real number, not complex",
    ),
    ("tensor([[1], [2, 3]])", lambda L: L.tensor([[1], [2, 3]]), "expected sequence of length"),
    ("tensor([1e40], float32)", lambda L: L.tensor([1e40], dtype=L.float32).tolist(), None),
    # Found by the entry-point fuzzer (fuzz_entries_nn.py, fuzz_entries_data.py):
    # modules and nn.functional given what is not a tensor
    ("Sigmoid()(3.0)", lambda L: L.nn.Sigmoid()(3.0), "argument 'input' (position 1) must be Tensor"),
    ("Tanh()(np.float32)", lambda L: L.nn.Tanh()(np.float32(1.0)), None),
    ("PReLU()(2)", lambda L: L.nn.PReLU()(2), None),
    ("PReLU()(0-d)", lambda L: tuple(L.nn.PReLU()(L.tensor(2.0)).shape), None),
    ("ZeroPad1d(1)(3.0)", lambda L: L.nn.ZeroPad1d(1)(3.0), "must be Tensor, not float"),
    ("MaxPool1d(2)(1)", lambda L: L.nn.MaxPool1d(2)(1), None),
    ("conv1d(3.0, w)", lambda L: L.nn.functional.conv1d(3.0, L.ones(1, 1, 1)), None),
    ("conv1d(x, w, groups=True)", lambda L: L.nn.functional.conv1d(
        L.ones(1, 3, 5), L.ones(4, 3, 2), groups=True), "invalid combination of arguments"),
    ("conv_transpose2d(groups=2**70)", lambda L: L.nn.functional.conv_transpose2d(
        L.ones(3), L.ones(1), groups=2**70), "Overflow when unpacking long long"),
    ("cross_entropy([1.0], t)", lambda L: L.nn.functional.cross_entropy([1.0], L.ones(2)), None),
    ("poisson_nll_loss(None, t)", lambda L: L.nn.functional.poisson_nll_loss(None, L.ones(2)),
     None),
    ("multilabel_margin_loss(x, 'a')", lambda L: L.nn.functional.multilabel_margin_loss(
        L.ones(2, 3), "a"), None),
    ("kl_div(log_target=1)", lambda L: L.nn.functional.kl_div(_x(L), _x(L), log_target=1),
     "argument 'log_target'"),
    ("binary_cross_entropy_with_logits(weight=1)", lambda L:
     L.nn.functional.binary_cross_entropy_with_logits(_x(L), _x(L), 1), None),
    ("triplet_margin_loss(margin=0)", lambda L: L.nn.functional.triplet_margin_loss(
        _x(L), _x(L), _x(L), 0.0), "margin must be greater than 0, got 0.0"),
    ("softmax(x, 1, dtype=int)", lambda L: L.nn.functional.softmax(_x(L), 1, dtype=int), None),
    ("softmax(3.0, 1)", lambda L: L.nn.functional.softmax(3.0, 1),
     "'float' object has no attribute 'softmax'"),
    ("gelu(x, 'none')", lambda L: L.nn.functional.gelu(_x(L), "none"),
     "takes 1 positional argument but 2 were given"),
    ("rrelu(lower > upper)", lambda L: L.nn.functional.rrelu(_x(L), 1.0, 0.5),
     "Lower bound should be less than or equal to the upper bound"),
    ("dropout(training=b'x')", lambda L: L.nn.functional.dropout(_x(L), training=b"x"),
     "argument 'train' (position 3) must be bool, not bytes"),
    ("threshold_(x, None, 1.0)", lambda L: L.nn.functional.threshold_(_x(L), None, 1.0),
     "must be Number, not NoneType"),
    ("cosine_similarity(eps=-1)", lambda L: L.nn.functional.cosine_similarity(
        _x(L), _x(L), eps=-1.0), "eps must be non-negative"),
    ("rms_norm(x, 3)", lambda L: L.nn.functional.rms_norm(_x(L), 3),
     "must be tuple of ints, not int"),
    ("pad(3.0, (1, 1))", lambda L: L.nn.functional.pad(3.0, (1, 1)),
     "pad(): argument 'input' (position 1) must be Tensor, not float"),
    ("pad(x, ['a'])", lambda L: L.nn.functional.pad(_x(L), ["a"]),
     "found element of type str at pos 0"),
    ("pad mode bytes", lambda L: L.nn.functional.pad(_x(L), (1, 1), mode=b"reflect").tolist(),
     None),
    ("adaptive_avg_pool1d(x, 0)", lambda L: tuple(L.nn.functional.adaptive_avg_pool1d(
        L.ones(1, 3, 4), 0).shape), None),
    ("adaptive_avg_pool2d(3.0, 2)", lambda L: L.nn.functional.adaptive_avg_pool2d(3.0, 2),
     "'float' object has no attribute 'size'"),
    ("adaptive_avg_pool2d(x, (None, 2))", lambda L: tuple(L.nn.functional.adaptive_avg_pool2d(
        L.ones(1, 3, 4, 4), (None, 2)).shape), None),
    ("avg_pool2d(ceil_mode=[True])", lambda L: L.nn.functional.avg_pool2d(
        L.ones(1, 3, 4, 4), 2, ceil_mode=[True]), "must be bool, not list"),
    ("lp_pool1d with a tuple kernel", lambda L: L.nn.functional.lp_pool1d(
        L.ones(3, 4), 2, (2,)), None),
    ("lp_pool2d with a 1-tuple kernel", lambda L: L.nn.functional.lp_pool2d(
        L.ones(1, 3, 4, 4), 2, (2,)), "not enough values to unpack"),
    ("max_unpool2d with an int output_size", lambda L: L.nn.MaxUnpool2d((1,), (2, 2), (1,))(
        L.ones(1, 3, 4, 4), L.zeros(1, 3, 4, 4, dtype=L.int64), 1), "has no len()"),
    ("upsample_nearest of 2-d without sizes", lambda L: L.nn.functional.interpolate(_x(L)),
     "either size or scale_factor should be defined"),
    ("interpolate size (1.5, 2)", lambda L: L.nn.functional.interpolate(
        L.ones(1, 3, 4, 4), size=(1.5, 2)), "expected size to be one of int"),
    # tensor, asarray, frombuffer and the legacy constructors
    ("tensor(3, device=-1, pin_memory=[True])", lambda L: L.tensor(3, device=-1,
                                                                   pin_memory=[True]),
     "argument 'pin_memory' must be bool, not list"),
    ("tensor([None], dtype=float32)", lambda L: L.tensor([None], dtype=L.float32),
     "must be real number, not NoneType"),
    ("tensor({1, 2}, dtype=int8)", lambda L: L.tensor({1, 2}, dtype=L.int8),
     "'set' object cannot be interpreted as an integer"),
    ("tensor(range(3))", lambda L: L.tensor(range(3)).tolist(), None),
    ("tensor(bytearray)", lambda L: L.tensor(bytearray(b"ab")).tolist(), None),
    ("tensor([t2 float, t2 int])", lambda L: L.tensor([L.ones(2), L.ones(2, dtype=L.int64)]),
     "only one element tensors can be converted to Python scalars"),
    ("asarray([1], copy=0)", lambda L: L.asarray([1], copy=0), "must be bool, not int"),
    ("asarray([1, 2], copy=False)", lambda L: L.asarray([1, 2], copy=False),
     "can't alias arbitrary sequence into a tensor."),
    ("asarray(bytearray)", lambda L: L.asarray(bytearray(b"abcd")).tolist(), None),
    ("asarray(b'ab')", lambda L: L.asarray(b"ab"), "must be a multiple of element size"),
    ("frombuffer(ndarray, dtype=None)", lambda L: L.frombuffer(np.ones(2), dtype=None),
     "argument 'dtype' must be torch.dtype, not NoneType"),
    ("frombuffer(count=True)", lambda L: L.frombuffer(b"abcd", dtype=L.uint8, count=True),
     "argument 'count' must be int, not bool"),
    ("frombuffer('abcd')", lambda L: L.frombuffer("abcd", dtype=L.uint8),
     "object does not implement Python buffer protocol."),
    ("frombuffer(strided memoryview)", lambda L: L.frombuffer(
        memoryview(bytearray(b"abcdefgh"))[::2], dtype=L.uint8),
     "could not retrieve buffer from object"),
    ("FloatTensor(2.0)", lambda L: L.FloatTensor(2.0), "data must be a sequence (got float)"),
    ("FloatTensor(Size)", lambda L: tuple(L.FloatTensor(L.Size([2, 3])).shape), None),
    ("FloatTensor(ndarray)", lambda L: L.FloatTensor(np.array([1.0, 2.0])).tolist(), None),
    ("FloatTensor(int64 tensor)", lambda L: L.FloatTensor(L.ones(2, dtype=L.int64)),
     "expected TensorOptions(dtype=float"),
    ("LongTensor(t, device='cpu')", lambda L: L.LongTensor(L.ones(2, dtype=L.int64),
                                                            device="cpu"),
     "Legacy tensor constructor of the form torch.Tensor(tensor, device=device)"),
    ("Tensor(2.0, device='bogus')", lambda L: L.Tensor(2.0, device="bogus"), None),
    ("DoubleTensor(2**40, 2**40)", lambda L: L.DoubleTensor(2**40, 2**40),
     "Storage size calculation overflowed with sizes=[1099511627776, 1099511627776]"),
    ("zeros(2**40, 2**40)", lambda L: L.zeros(2**40, 2**40), "Storage size calculation"),
    # indexing
    ("x['a']", lambda L: _x(L)["a"], "new(): invalid data type 'str'"),
    ("x[[0, 'a']]", lambda L: _x(L)[[0, "a"]], "new(): invalid data type 'str'"),
    ("x[np.bool_(True)]", lambda L: _x(L)[np.bool_(True)], "valid indices"),
    ("x[[0.0]]", lambda L: tuple(_x(L)[[0.0]].shape), None),
    ("x['a':]", lambda L: _x(L)["a":], "slice indices must be integers"),
    ("x[0, 1, 2]", lambda L: _x(L)[0, 1, 2], "too many indices for tensor of dimension 2"),
    ("x[True, 'a', 'a', t]", lambda L: _x(L)[True, "a", "a", L.tensor([0, 1])],
     "too many indices for tensor of dimension 2"),
    ("x[2**63]", lambda L: _x(L)[2**63], "Overflow when unpacking long long"),
    ("tensor()[::0]", lambda L: L.tensor(1.0)[::0], "slice step cannot be zero"),
    ("x[0] = 2**63", lambda L: _x(L).__setitem__(0, 2**63), "Overflow when unpacking long long"),
    ("x[0] = 1e300", lambda L: _x(L).__setitem__(0, 1e300),
     "value cannot be converted to type float without overflow"),
    ("x[b'a'] = nan", lambda L: _x(L).__setitem__(b"a", float("nan")), None),
    ("x[1j] = 1+1j (uint8)", lambda L: L.ones(2, dtype=L.uint8).__setitem__(1j, 1 + 1j),
     "without overflow"),
    # allocations that cannot be satisfied
    ("zeros(2**40)", lambda L: L.zeros(2**40), "can't allocate memory"),
    ("empty(2**40, 8)", lambda L: L.empty(2**40, 8), "can't allocate memory"),
]


def _outcome(lib, call):
    try:
        return "ok", call(lib)
    except Exception as exc:  # noqa: BLE001  (the class is what is compared)
        return type(exc), str(exc)


@pytest.mark.parametrize("label, call, fragment", CASES, ids=[c[0] for c in CASES])
def test_same_outcome_as_torch(label, call, fragment):
    want = _outcome(torch, call)
    got = _outcome(ember, call)
    if want[0] == "ok":
        assert got[0] == "ok", f"ember raised {got}"
        assert got[1] == want[1] or (hasattr(want[1], "__len__") and list(got[1]) == list(want[1]))
        return
    assert got[0] is want[0], f"ember: {got}, torch: {want}"
    if fragment is not None:
        assert fragment in want[1], want[1]  # the fragment is PyTorch's text
        assert fragment in got[1], got[1]
