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
