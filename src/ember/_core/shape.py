"""`ember.Size` and the shape helpers every op family uses (dim wrapping, broadcasting)."""
from __future__ import annotations

import math
import operator

from ember._core.checks import _check, _check_index, _check_type


class Size(tuple):
    """A tensor's shape: a tuple of ints that prints as `ember.Size([2, 3])`.

    Built from user data it converts its items as PyTorch's does (`size_item`); ember's own
    shapes, ints already, are made with `trusted_size`, which skips the check."""

    __slots__ = ()

    def __new__(cls, sizes=()):
        items = tuple(sizes)
        for item in items:
            if type(item) is not int or not _INT64_MIN <= item <= _INT64_MAX:
                items = tuple([size_item(v, i) for i, v in enumerate(items)])
                break
        return tuple.__new__(cls, items)

    def __repr__(self) -> str:
        return f"ember.Size([{', '.join(map(str, self))}])"

    __str__ = __repr__

    def numel(self) -> int:
        return math.prod(self)

    def __getitem__(self, index):
        found = tuple.__getitem__(self, index)
        return trusted_size(Size, found) if isinstance(index, slice) else found

    def __add__(self, other):
        return Size(tuple.__add__(self, tuple(other)))

    def __radd__(self, other):
        return Size(tuple(other) + tuple(self))

    def __mul__(self, times):
        return trusted_size(Size, tuple.__mul__(self, times))

    __rmul__ = __mul__

    def __reduce__(self):
        return (Size, (tuple(self),))


# trusted_size(Size, ints): a Size of items known to be ints (tuple's constructor, no check).
trusted_size = tuple.__new__
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def size_item(value, position):
    """One item of `Size(...)` as PyTorch's constructor takes it: ints (bools as ints) within
    64 bits, NumPy integers as they are, SymInts, and one-element integer or bool tensors as
    their int; anything else is a TypeError naming the item's type."""
    kind = type(value)
    if kind is bool:
        return int(value)
    if kind is int or isinstance(value, int):
        if not _INT64_MIN <= value <= _INT64_MAX:
            raise ValueError("Overflow when unpacking long long")
        return value
    module = getattr(kind, "__module__", "")
    if module == "numpy" and hasattr(value, "__index__") and kind.__name__ != "bool":
        return value
    if kind.__name__ == "SymInt":
        return value
    dtype = getattr(value, "_dtype", None)
    if dtype is not None and hasattr(value, "numel") and value.numel() == 1 and (
            not (dtype.is_floating_point or dtype.is_complex)):
        return int(value.item())
    name = f"numpy.{kind.__name__}" if module == "numpy" else kind.__name__
    raise TypeError(f"ember.Size() takes an iterable of 'int' (item {position} is '{name}')")


def wrap_dim(dim, ndim: int) -> int:
    """A dim in [-ndim, ndim) as a non-negative index (a 0-d tensor accepts -1 and 0)."""
    # (A bool is no dim: PyTorch's parser refuses it in an int or an int list.)
    _check_type((isinstance(dim, int) or hasattr(dim, "__index__")) and dim is not True and
                dim is not False, lambda: f"dim must be an int, not {type(dim).__name__}")
    dim = int(dim.__index__())
    low, high = (-ndim, ndim - 1) if ndim > 0 else (-1, 0)
    _check_index(low <= dim <= high, lambda: (
        f"Dimension out of range (expected to be in range of [{low}, {high}], but got {dim})"))
    if dim < 0:
        dim += max(ndim, 1)
    return dim


def size_at(shape, dim: int) -> int:
    """`tensor.size(dim)` as PyTorch's kernels read it, with its IndexError for a dim the
    tensor lacks (a 0-d tensor has none at all)."""
    _check_index(len(shape) > 0, lambda: (
        f"Dimension specified as {dim} but tensor has no dimensions"))
    return shape[wrap_dim(dim, len(shape))]


def wrap_dims(dims, ndim: int) -> tuple:
    """Wrap a dim or a sequence of dims; repeated dims raise as in PyTorch."""
    if isinstance(dims, int):
        return (wrap_dim(dims, ndim),)
    found = tuple(wrap_dim(d, ndim) for d in dims)
    for i, d in enumerate(found):
        _check(d not in found[:i], lambda: f"dim {d} appears multiple times in the list of dims")
    return found


def normalize_shape(args) -> tuple:
    """Sizes given as varargs `(2, 3)` or as one sequence `((2, 3),)` -> `(2, 3)`."""
    if len(args) == 1:
        only = args[0]
        if type(only) is int:
            return args if type(args) is tuple else (only,)    # x.view(-1): nothing to do
        if type(only) is tuple or type(only) is list:
            args = only
        else:
            ndim = getattr(only, "ndim", None)
            # A lone bool is no size (PyTorch's parser: "must be tuple of ints, not bool"); a
            # NumPy integer or 0-d integer tensor is one; an array or tensor of sizes is not.
            # Bytes and str are no sequence of sizes either.
            if type(only) is bool or isinstance(only, (bytes, str)) or (
                    ndim is not None and ndim != 0):
                raise TypeError(
                    f"argument 'size' must be tuple of ints, not {type(only).__name__}")
            # One size: a 0-d integer (NumPy's, a tensor) or any object with __index__.
            single = ndim == 0 or (ndim is None and hasattr(type(only), "__index__"))
            args = (only,) if single else only
    if type(args) is tuple:
        for s in args:
            if type(s) is not int:
                break
        else:
            return args         # sizes spelled out as ints (`x.expand(2, 8)`): as they are
    if args and (args[0] is True or args[0] is False):
        # NOTE [int lists] (_core/arguments.py): the first item decides, and a bool is no int.
        raise TypeError("argument 'size' must be tuple of ints, but found element of type bool "
                        "at pos 0")
    try:
        shape = tuple(map(operator.index, args))
    except TypeError:
        raise TypeError(f"expected a sequence of integers as sizes, but got {args!r}") from None
    return shape


def sizes_or_keyword(sizes: tuple, keyword, label: str, name: str) -> tuple:
    """The sizes of a call that takes them as varargs or as one keyword list, as PyTorch's
    parser does: `zeros(2, 3)`, `zeros((2, 3))` and `zeros(size=(2, 3))` are one call, while
    the keyword form wants a sequence (`zeros(size=3)` is a TypeError) and not both forms."""
    if keyword is None:
        if not sizes:
            raise TypeError(f'{label}() missing 1 required positional arguments: "{name}"')
        return normalize_shape(sizes)
    if sizes:
        raise TypeError(f"{label}() got multiple values for argument '{name}'")
    if isinstance(keyword, int) or not hasattr(keyword, "__len__"):
        raise TypeError(f"{label}(): argument '{name}' must be tuple of ints, "
                        f"not {type(keyword).__name__}")
    return normalize_shape((keyword,))


def check_shape(shape) -> None:
    for s in shape:
        _check(s >= 0, lambda: f"Trying to create tensor with negative dimension {s}: "
                               f"{list(shape)}")


def infer_size(a, b) -> tuple:
    """The broadcast of two shapes, with PyTorch's message for sizes that don't broadcast."""
    ndim = max(len(a), len(b))
    a = (1,) * (ndim - len(a)) + tuple(a)
    b = (1,) * (ndim - len(b)) + tuple(b)
    out = [0] * ndim
    for i in range(ndim - 1, -1, -1):      # (from the right: PyTorch names the last mismatch)
        x, y = a[i], b[i]
        _check(x == y or x == 1 or y == 1, lambda: (
            f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
            f"non-singleton dimension {i}"))
        out[i] = y if x == 1 else x
    return tuple(out)


def contiguous_strides(shape) -> tuple:
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return tuple(reversed(strides))
