"""The storage a strided geometry (sizes, element strides, storage offset) reaches, checked as
PyTorch checks it, for every path that builds a view from sizes and strides a user gave:
as_strided (and as_strided_, as_strided_scatter, as_strided_copy), empty_strided (and
new_empty_strided), Tensor.set_.

NOTE [strided views are checked against their storage]: NumPy's `as_strided` trusts its
arguments, so a geometry that reaches past its buffer (or before it: a negative stride) reads
or writes memory the tensor does not own and can crash the process. Every such path first
asks `storage_nbytes` for the bytes the geometry needs, which refuses what PyTorch refuses:
a count past int64, and a negative stride or size over more than one element (PyTorch's count
is unsigned, so those overflow too). Any size 0 needs no storage at all. The meta device
allocates nothing: there PyTorch checks only the offset, the sizes and as_strided's negative
strides, and ember does the same.
"""
from __future__ import annotations

from ember._core.checks import _check

INT64_MAX = (1 << 63) - 1


def storage_nbytes(size, stride, offset: int, itemsize: int) -> int:
    """The bytes of storage that the view (size, stride, offset) of `itemsize`-byte elements
    reads: 0 when any size is 0, else one past its last element. PyTorch's RuntimeError when
    the count overflows."""
    if 0 in size:
        return 0
    needed = offset + 1
    overflowed = False
    for n, s in zip(size, stride):
        step = s * (n - 1)
        if step < 0:
            overflowed = True
        needed += step
    nbytes = needed * itemsize
    if overflowed or nbytes > INT64_MAX:       # (tested inline: empty_strided is called often)
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} and "
                           f"strides={list(stride)}")
    return nbytes


def check_in_storage(size, stride, offset: int, itemsize: int, available_bytes: int) -> None:
    """PyTorch's check that the view (size, stride, offset) stays inside a storage of
    `available_bytes` (NOTE [strided views are checked against their storage])."""
    needed = storage_nbytes(size, stride, offset, itemsize)
    _check(needed <= available_bytes, lambda: (
        f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, and "
        f"itemsize {itemsize} requiring a storage size of {needed} are out of bounds for "
        f"storage of size {available_bytes}"))


def check_offset(offset: int) -> None:
    _check(offset >= 0, lambda: f"Tensor: invalid storage offset {offset}")


def check_numel(size) -> None:
    """PyTorch's error for sizes whose product is negative or past int64 (set_, meta views)."""
    numel = 1
    for n in size:
        numel *= n
        _check(n >= 0 and numel <= INT64_MAX, "numel: integer multiplication overflow")


def refuse_negative_strides(stride) -> None:
    """as_strided's refusal of negative strides (whatever the sizes)."""
    for s in stride:
        _check(s >= 0, lambda: ("as_strided: Negative strides are not supported at the "
                                f"moment, got strides: {list(stride)}"))


def replace_negative_strides(size, stride) -> tuple:
    """The strides PyTorch stores for a geometry given negative strides that passed the
    storage check (on size-1 dims, or in an empty tensor; or anywhere on meta): each negative
    stride becomes the one a contiguous layout would give it over the dims after it."""
    if not stride or min(stride) >= 0:
        return stride
    fixed = list(stride)
    for d in range(len(fixed) - 1, -1, -1):
        if fixed[d] < 0:
            fixed[d] = 1 if d == len(fixed) - 1 else max(size[d + 1], 1) * fixed[d + 1]
    return tuple(fixed)


def byte_strides(stride, itemsize: int) -> tuple:
    """Element strides as NumPy's byte strides, which must fit 64 bits. PyTorch keeps any
    stride of a size-1 dim or of an empty tensor; ember refuses the ones NumPy cannot hold."""
    strides = tuple([s * itemsize for s in stride])
    if strides and max(strides) > INT64_MAX:
        raise RuntimeError(f"ember: strides {list(stride)} with itemsize {itemsize} do not fit "
                           "NumPy's 64-bit byte strides")
    return strides
