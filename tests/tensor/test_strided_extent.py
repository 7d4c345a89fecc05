"""Strided views built from user-given sizes, strides and offsets are checked against their
storage as PyTorch checks them (NOTE [strided views are checked against their storage],
src/ember/_core/strided.py): as_strided (function, method, as_strided_, as_strided_scatter,
as_strided_copy), empty_strided, new_empty_strided, Tensor.set_."""
from __future__ import annotations

import pytest
import torch

import ember

BIG = 1 << 36
HUGE = 1 << 62


def _storage(lib, n=4, device="cpu"):
    return lib.ones(n, device=device).untyped_storage()


# Each case raises in PyTorch; ember must raise the same class with the same first line.
REFUSED = {
    # empty_strided / new_empty_strided
    "empty_strided_negative_stride": lambda lib: lib.empty_strided((2,), (-BIG,)),
    "empty_strided_negative_stride_tolist":
        lambda lib: lib.empty_strided((2,), (-BIG,)).tolist(),
    "empty_strided_small_negative_stride": lambda lib: lib.empty_strided((2,), (-1,)),
    "empty_strided_negative_size": lambda lib: lib.empty_strided((-1,), (1,)),
    "empty_strided_rank": lambda lib: lib.empty_strided((2, 2), (1,)),
    "empty_strided_overflow": lambda lib: lib.empty_strided((2,), (HUGE,)),
    "empty_strided_overflow_by_itemsize": lambda lib: lib.empty_strided((2,), (1 << 61,)),
    "empty_strided_overflow_2d":
        lambda lib: lib.empty_strided((1 << 32, 1 << 32), (1 << 32, 1)),
    "empty_strided_huge": lambda lib: lib.empty_strided((2,), (1 << 60,)),
    "empty_strided_huge_uint8":
        lambda lib: lib.empty_strided((2,), (HUGE,), dtype=lib.uint8),
    "empty_strided_huge_contiguous": lambda lib: lib.empty_strided((1 << 40,), (1,)),
    "empty_strided_meta_negative_size":
        lambda lib: lib.empty_strided((-2,), (1,), device="meta"),
    "new_empty_strided_negative_stride":
        lambda lib: lib.ones(3).new_empty_strided((2,), (-BIG,)),
    "new_empty_strided_overflow": lambda lib: lib.ones(3).new_empty_strided((2,), (HUGE,)),
    "new_empty_strided_huge": lambda lib: lib.ones(3).new_empty_strided((2,), (1 << 60,)),
    "new_empty_strided_negative_size":
        lambda lib: lib.ones(3).new_empty_strided((-2,), (1,)),
    # as_strided and its relatives
    "as_strided_negative_stride": lambda lib: lib.ones(4).as_strided((2,), (-1,)),
    "as_strided_negative_stride_size_1": lambda lib: lib.ones(4).as_strided((1,), (-1,)),
    "as_strided_negative_stride_empty": lambda lib: lib.ones(4).as_strided((0,), (-1,)),
    "as_strided_negative_size": lambda lib: lib.ones(4).as_strided((-1,), (1,)),
    "as_strided_negative_size_zero_stride": lambda lib: lib.ones(4).as_strided((-1,), (0,)),
    "as_strided_negative_offset": lambda lib: lib.ones(4).as_strided((1,), (1,), -1),
    "as_strided_rank": lambda lib: lib.ones(4).as_strided((2, 2), (1,)),
    "as_strided_past_the_end": lambda lib: lib.ones(4).as_strided((3,), (2,)),
    "as_strided_offset_past_the_end": lambda lib: lib.ones(4).as_strided((2,), (1,), 3),
    "as_strided_overflow": lambda lib: lib.ones(4).as_strided((2,), (HUGE,)),
    "as_strided_overflow_by_itemsize": lambda lib: lib.ones(4).as_strided((2,), (1 << 61,)),
    "as_strided_overflow_size": lambda lib: lib.ones(4).as_strided((HUGE,), (1,)),
    "as_strided_overflow_offset":
        lambda lib: lib.ones(4).as_strided((2,), (1,), (1 << 63) - 1),
    "as_strided_overflow_uint8":
        lambda lib: lib.ones(4, dtype=lib.uint8).as_strided((2,), ((1 << 63) - 1,)),
    "as_strided_largest_uint8_past_the_end":
        lambda lib: lib.ones(4, dtype=lib.uint8).as_strided((2,), ((1 << 63) - 2,)),
    "as_strided_of_a_view_past_the_end": lambda lib: lib.ones(4)[1:].as_strided((3,), (1,), 2),
    "as_strided_function_negative_stride":
        lambda lib: lib.as_strided(lib.ones(4), (2,), (-1,)),
    "as_strided_function_past_the_end": lambda lib: lib.as_strided(lib.ones(4), (3,), (2,)),
    "as_strided__negative_stride": lambda lib: lib.ones(4).as_strided_((2,), (-1,)),
    "as_strided__past_the_end": lambda lib: lib.ones(4).as_strided_((3,), (2,)),
    "as_strided__negative_offset": lambda lib: lib.ones(4).as_strided_((1,), (1,), -1),
    "as_strided_meta_negative_stride":
        lambda lib: lib.ones(4, device="meta").as_strided((2,), (-1,)),
    "as_strided_meta_negative_size":
        lambda lib: lib.ones(4, device="meta").as_strided((-1,), (1,)),
    "as_strided_meta_negative_offset":
        lambda lib: lib.ones(4, device="meta").as_strided((1,), (1,), -1),
    "as_strided_scatter_negative_stride":
        lambda lib: lib.as_strided_scatter(lib.ones(4), lib.ones(2), (2,), (-1,)),
    "as_strided_scatter_past_the_end":
        lambda lib: lib.as_strided_scatter(lib.ones(4), lib.ones(3), (3,), (2,)),
    "as_strided_scatter_overflow":
        lambda lib: lib.as_strided_scatter(lib.ones(4), lib.ones(2), (2,), (HUGE,)),
    "as_strided_copy_negative_stride":
        lambda lib: lib.as_strided_copy(lib.ones(4), (2,), (-1,)),
    "as_strided_copy_overflow": lambda lib: lib.as_strided_copy(lib.ones(4), (2,), (HUGE,)),
    # set_ with a storage, or a tensor, and a geometry
    "set_negative_stride": lambda lib: lib.ones(0).set_(_storage(lib), 0, (2,), (-1,)),
    "set_tensor_negative_stride": lambda lib: lib.ones(0).set_(lib.ones(4), 0, (2,), (-1,)),
    "set_big_negative_stride": lambda lib: lib.ones(0).set_(_storage(lib), 0, (2,), (-BIG,)),
    "set_overflow": lambda lib: lib.ones(0).set_(_storage(lib), 0, (2,), (HUGE,)),
    "set_overflow_offset":
        lambda lib: lib.ones(0).set_(_storage(lib), (1 << 63) - 1, (2,), (1,)),
    "set_huge": lambda lib: lib.ones(0).set_(_storage(lib), 0, (2,), (1 << 60,)),
    "set_negative_size": lambda lib: lib.ones(0).set_(_storage(lib), 0, (-1,), (1,)),
    "set_negative_size_zero_stride":
        lambda lib: lib.ones(0).set_(_storage(lib), 0, (-1,), (0,)),
    "set_negative_offset": lambda lib: lib.ones(0).set_(_storage(lib), -1, (1,), (1,)),
    "set_rank": lambda lib: lib.ones(0).set_(_storage(lib), 0, (2, 2), (1,)),
    "set_numel_overflow":
        lambda lib: lib.ones(0).set_(_storage(lib), 0, (1 << 31, 1 << 31, 1 << 3)),
    "set_numel_overflow_64": lambda lib: lib.ones(0).set_(_storage(lib), 0, (1 << 32, 1 << 32)),
    "set_meta_negative_offset":
        lambda lib: lib.ones(0, device="meta").set_(_storage(lib, device="meta"), -1, (1,),
                                                    (1,)),
}


def _first_line(exc) -> str:
    text = str(exc)
    return text.splitlines()[0] if text else ""


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused_geometry_raises_pytorchs_error(name):
    case = REFUSED[name]
    with pytest.raises(Exception) as expected:
        case(torch)
    with pytest.raises(Exception) as got:
        case(ember)
    assert type(got.value) is type(expected.value)
    want = _first_line(expected.value)
    if "DefaultCPUAllocator" in want:      # (the allocator's source line may move)
        want = want[want.index("DefaultCPUAllocator"):]
    assert want in _first_line(got.value)


def _geometry(t):
    return tuple(t.shape), t.stride(), t.storage_offset()


# Each case succeeds in PyTorch; ember must give the same geometry (and values, where read).
ACCEPTED = {
    "empty_strided_gaps": lambda lib: lib.empty_strided((2, 3), (1, 2)),
    "empty_strided_overlap": lambda lib: lib.empty_strided((2, 3), (0, 1)),
    "empty_strided_negative_stride_size_1": lambda lib: lib.empty_strided((1,), (-1,)),
    "empty_strided_negative_stride_empty": lambda lib: lib.empty_strided((0,), (-1,)),
    "empty_strided_negative_strides_size_1_dims":
        lambda lib: lib.empty_strided((2, 1, 3), (1, -5, 7)),
    "empty_strided_negative_last_stride": lambda lib: lib.empty_strided((2, 1), (5, -5)),
    "empty_strided_negative_stride_empty_2d": lambda lib: lib.empty_strided((0, 2), (-1, 1)),
    "empty_strided_big_stride_empty": lambda lib: lib.empty_strided((0, 5), (1 << 40, 1 << 40)),
    "empty_strided_size_1_big_stride": lambda lib: lib.empty_strided((1,), (7,)),
    "empty_strided_meta_negative_stride":
        lambda lib: lib.empty_strided((2,), (-BIG,), device="meta"),
    "empty_strided_meta_negative_strides":
        lambda lib: lib.empty_strided((2, 3, 4), (-1, -1, -1), device="meta"),
    "empty_strided_meta_some_negative":
        lambda lib: lib.empty_strided((2, 3, 4), (100, -1, 1), device="meta"),
    "empty_strided_meta_huge": lambda lib: lib.empty_strided((2,), (1 << 60,), device="meta"),
    "new_empty_strided": lambda lib: lib.ones(3).new_empty_strided((2, 2), (1, 2)),
    "as_strided": lambda lib: lib.arange(6.0).as_strided((2, 2), (1, 2), 1),
    "as_strided_whole_storage": lambda lib: lib.arange(6.0).as_strided((2, 3), (3, 1)),
    "as_strided_last_element": lambda lib: lib.arange(6.0).as_strided((1,), (1,), 5),
    "as_strided_of_a_view": lambda lib: lib.arange(6.0)[1:].as_strided((2,), (1,)),
    "as_strided_empty_big_offset": lambda lib: lib.ones(4).as_strided((0, 3), (BIG, BIG), 100),
    "as_strided_meta_past_the_end": lambda lib: lib.ones(4, device="meta").as_strided((3,), (2,)),
    "as_strided_meta_big_stride":
        lambda lib: lib.ones(4, device="meta").as_strided((2,), (1 << 40,)),
    "as_strided_function": lambda lib: lib.as_strided(lib.arange(6.0), (2, 2), (2, 1), 2),
    "as_strided_": lambda lib: lib.arange(6.0).as_strided_((3,), (2,)),
    "as_strided_scatter":
        lambda lib: lib.as_strided_scatter(lib.zeros(6), lib.ones(3), (3,), (2,), 1),
    "set_storage": lambda lib: lib.ones(0).set_(lib.arange(6.0).untyped_storage(), 1, (2, 2),
                                                (1, 2)),
    "set_tensor": lambda lib: lib.ones(0).set_(lib.arange(6.0), 1, (2, 2), (1, 2)),
    "set_contiguous": lambda lib: lib.ones(0).set_(lib.arange(6.0).untyped_storage(), 2,
                                                   (2, 2)),
    "set_negative_stride_size_1":
        lambda lib: lib.ones(0).set_(lib.arange(4.0).untyped_storage(), 1, (1,), (-1,)),
    "set_negative_stride_size_1_2d":
        lambda lib: lib.ones(0).set_(lib.arange(8.0).untyped_storage(), 0, (2, 1), (1, -1)),
    "set_negative_stride_empty":
        lambda lib: lib.ones(0).set_(lib.arange(4.0).untyped_storage(), 0, (0,), (-1,)),
    "set_meta_past_the_end":
        lambda lib: lib.ones(0, device="meta").set_(_storage(lib, device="meta"), 0, (3,),
                                                    (2,)),
    "set_meta_negative_stride":
        lambda lib: lib.ones(0, device="meta").set_(_storage(lib, device="meta"), 0, (2,),
                                                    (-1,)),
}


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_accepted_geometry_matches_pytorch(name):
    expected, got = ACCEPTED[name](torch), ACCEPTED[name](ember)
    assert _geometry(got) == _geometry(expected)
    if name.startswith(("as_strided", "set_storage", "set_tensor", "set_contiguous")) and \
            expected.numel() and expected.device.type == "cpu":
        assert got.tolist() == expected.tolist()


def test_set_past_the_end_grows_the_storage():
    def case(lib):
        t = lib.ones(0).set_(lib.arange(4.0).untyped_storage(), 2, (3,), (1,))
        return _geometry(t), t[:2].tolist(), t.untyped_storage().nbytes()
    assert case(ember) == case(torch)


def test_empty_strided_negative_stride_no_longer_crashes():
    with pytest.raises(RuntimeError, match="Storage size calculation overflowed"):
        ember.empty_strided((2,), (-(1 << 36),)).tolist()


def test_strided_view_writes_reach_the_base():
    for lib in (torch, ember):
        base = lib.zeros(6)
        base.as_strided((3,), (2,), 1).fill_(1.0)
        assert base.tolist() == [0.0, 1.0, 0.0, 1.0, 0.0, 1.0]


# Where ember differs on purpose (NOTE [strided views are checked against their storage]).

def test_as_strided__refuses_an_overflowing_geometry():
    # PyTorch 2.13's as_strided_ lets (2,), (2**62,) through: its byte count wraps to 4 and
    # fits; reading the view would read far outside the storage. ember refuses it.
    with pytest.raises(RuntimeError, match="Storage size calculation overflowed"):
        ember.ones(4).as_strided_((2,), (HUGE,))


def test_strides_past_numpys_byte_strides_are_refused():
    # PyTorch keeps any stride of an empty tensor or of a size-1 dim; NumPy's byte strides
    # are 64-bit, so ember refuses those that do not fit instead of failing inside NumPy.
    with pytest.raises(RuntimeError, match="do not fit NumPy's 64-bit byte strides"):
        ember.empty_strided((0, 5), (HUGE, HUGE))
    with pytest.raises(RuntimeError, match="do not fit NumPy's 64-bit byte strides"):
        ember.ones(4).as_strided((1,), (HUGE,))
