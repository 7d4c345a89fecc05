"""The loop-level IR: what a lowered graph value is before C is written for it.

A value is a `TensorBox` (shape, dtype) whose `data` is one of
- `Pointwise`: `inner(kernel, index) -> C variable`, computed wherever it is loaded (inlined);
- `View`: another box read through an index map (permute, expand, reshape, slices ...);
- `BufferRead`: a `Buffer`, memory with known strides (a graph input, a constant, an extern
  result, or a `ComputedBuffer` that a kernel writes).
A `ComputedBuffer` holds a `Pointwise` or a `Reduction` and is what the scheduler turns into
loops. Realizing a box (`realize`) swaps its data for a read of a new ComputedBuffer, so every
closure that loads through the box reads the buffer from then on.
Indices are lists of C expressions (strings), one per dimension.
"""
from __future__ import annotations

import math

from ember._inductor.sizes import symbolic


def contiguous_strides(shape) -> tuple:
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return tuple(reversed(strides))


def numel(shape) -> int:
    return math.prod(shape)


def linear_index(index, strides, offset=0) -> str:
    """`i0*s0 + i1*s1 ...` with zero strides and unit factors left out."""
    terms = [str(offset)] if offset else []
    for i, s in zip(index, strides):
        if s == 0 or i == "0":
            continue
        terms.append(f"({i})" if s == 1 else f"({i})*{s}")
    return " + ".join(terms) or "0"


class Buffer:
    """Memory the generated code reads or writes. kind: 'input', 'constant', 'extern',
    'computed'."""

    def __init__(self, name, shape, dtype, strides=None, kind="computed", offset=0):
        self.name = name
        self.offset = offset      # in elements, for aliases (a slice of a buffer)
        self.shape = symbolic(shape)     # NOTE [symbolic sizes in kernels]
        self.dtype = dtype
        self.strides = tuple(strides) if strides is not None else \
            contiguous_strides(self.shape)
        self.kind = kind

    def alias(self, shape, strides, offset):
        """The same memory read with other sizes and strides (a view of a buffer)."""
        return Buffer(self.name, shape, self.dtype, strides, self.kind, offset)

    def __repr__(self) -> str:
        return f"Buffer({self.name}, {self.shape}, {self.dtype}, {self.kind})"


class ComputedBuffer(Buffer):
    """A buffer a generated kernel writes: `data` is a Pointwise or a Reduction."""

    def __init__(self, name, data):
        super().__init__(name, data.shape, data.dtype)
        self.data = data
        self.reads = set()      # names of the buffers its kernel loads (filled by codegen)


class Pointwise:
    def __init__(self, shape, dtype, inner, expensive=False, loads=1):
        self.shape = symbolic(shape)
        self.dtype = dtype
        self.inner = inner          # inner(kernel, index) -> C variable name
        self.expensive = expensive  # holds a transcendental (never recomputed per use)
        self.loads = loads          # buffer loads per element when inlined


class Reduction:
    """`shape`: the output's; `ranges`: the reduced sizes. `inner(kernel, index, rindex)`
    gives one element; `post(kernel, acc)` the stored value (mean's division, rsqrt ...)."""

    def __init__(self, shape, dtype, reduction_type, ranges, inner, acc_dtype, post=None):
        self.shape = symbolic(shape)
        self.dtype = dtype
        self.reduction_type = reduction_type     # 'sum', 'max', 'min'
        self.ranges = symbolic(ranges)
        self.inner = inner
        self.acc_dtype = acc_dtype
        self.post = post


class Loops:
    """A value whose kernel writes its own loop nests: `write(kernel, node) -> C lines`
    (cat: one loop per part, each storing at its offset). Nothing is fused into it (NOTE
    [values written by loops of their own] in codegen_c.py)."""

    def __init__(self, shape, dtype, write):
        self.shape = symbolic(shape)
        self.dtype = dtype
        self.write = write


class BufferRead:
    def __init__(self, buffer):
        self.buffer = buffer
        self.shape = buffer.shape
        self.dtype = buffer.dtype

    def load(self, kernel, index):
        return kernel.load(self.buffer, index)


class View:
    """`base` (a TensorBox) read through `index_map(index) -> base index`."""

    def __init__(self, base, shape, index_map):
        self.base = base
        self.shape = symbolic(shape)
        self.dtype = base.dtype
        self.index_map = index_map

    def load(self, kernel, index):
        return self.base.load(kernel, self.index_map(index))


class TensorBox:
    """A lowered value; `eager_view` = (fx node, base box) when it is a view op the wrapper
    can replay on a real tensor (so an extern call gets the view, not a copy)."""

    def __init__(self, data, eager_view=None):
        self.data = data
        self.eager_view = eager_view

    @property
    def shape(self):
        return self.data.shape

    @property
    def dtype(self):
        return self.data.dtype

    def load(self, kernel, index):
        data = self.data
        if type(data) is Pointwise:
            return kernel.inline(self, data, index)
        return data.load(kernel, index)

    def buffer(self):
        data = self.data
        return data.buffer if type(data) is BufferRead else None

    def is_expensive(self) -> bool:
        data = self.data
        while type(data) is View:
            data = data.base.data
        return type(data) is Pointwise and data.expensive

    def loads(self) -> int:
        """Buffer loads per element a reader makes when this value is inlined into it."""
        data = self.data
        while type(data) is View:
            data = data.base.data
        if type(data) is Pointwise:
            return data.loads
        return 1 if type(data) is BufferRead else 0


# --------------------------------------------------------------------------- index maps

def permute_map(dims):
    def index_map(index):
        old = [None] * len(dims)
        for new_pos, old_pos in enumerate(dims):
            old[old_pos] = index[new_pos]
        return old
    return index_map


def expand_map(old_shape, new_shape):
    offset = len(new_shape) - len(old_shape)

    def index_map(index):
        return ["0" if size == 1 and new_shape[offset + k] != 1 else index[offset + k]
                for k, size in enumerate(old_shape)]
    return index_map


def reshape_map(old_shape, new_shape):
    """Through the flat (row-major) position: exact for any reshape of a contiguous order.
    NOTE [reshape index maps by groups]: with static sizes, the dims are split into runs of
    equal products (a (1024, 512) read as (16, 64, 512): [16, 64] | [512]), so each old index
    is its run's own expression (`i0*64 + i1`; a split dim's `(i / 64) % 16`), and a dim
    carried over unchanged is its loop variable: no division over the whole flat position,
    so the loop stays vectorisable. Symbolic sizes (NOTE [symbolic sizes in kernels]) keep
    the flat form, whose C text holds for every size."""
    grouped = _grouped_reshape_map(old_shape, new_shape)
    if grouped is not None:
        return grouped
    new_strides = contiguous_strides(new_shape)
    old_strides = contiguous_strides(old_shape)

    def index_map(index):
        flat = linear_index(index, new_strides)
        return [f"(({flat}) / {stride}) % {size}" if size != 1 else "0"
                for size, stride in zip(old_shape, old_strides)]
    return index_map


def _grouped_reshape_map(old_shape, new_shape):
    if not all(type(s) is int for s in (*old_shape, *new_shape)):
        return None
    if math.prod(old_shape) != math.prod(new_shape) or 0 in old_shape:
        return None
    old_dims = [k for k, s in enumerate(old_shape) if s != 1]
    new_dims = [k for k, s in enumerate(new_shape) if s != 1]
    groups = []         # (old dims, new dims) with equal products
    i = j = 0
    while i < len(old_dims) and j < len(new_dims):
        olds, news = [old_dims[i]], [new_dims[j]]
        po, pn = old_shape[old_dims[i]], new_shape[new_dims[j]]
        i, j = i + 1, j + 1
        while po != pn:
            if po < pn:
                olds.append(old_dims[i])
                po *= old_shape[old_dims[i]]
                i += 1
            else:
                news.append(new_dims[j])
                pn *= new_shape[new_dims[j]]
                j += 1
        groups.append((olds, news))

    def index_map(index):
        out = ["0"] * len(old_shape)
        for olds, news in groups:
            flat = index[news[0]] if len(news) == 1 else linear_index(
                [index[k] for k in news], contiguous_strides([new_shape[k] for k in news]))
            if len(olds) == 1:
                out[olds[0]] = flat
                continue
            strides = contiguous_strides([old_shape[k] for k in olds])
            run = object()
            for n, (k, stride) in enumerate(zip(olds, strides)):
                term = f"({flat}) / {stride}" if stride != 1 else f"({flat})"
                out[k] = SplitIndex(term if n == 0 else f"({term}) % {old_shape[k]}",
                                    run, flat, stride, len(olds))
        return out
    return index_map


class SplitIndex(str):
    """One old index of a dim split by a reshape (NOTE [reshape index maps by groups]): its C
    text, and the run it belongs to (`flat`, the run's position; `div`, this dim's stride
    within the run), so that a load whose buffer keeps the run's dims dense reads
    `flat * stride` instead (`simplify_index`)."""

    def __new__(cls, text, run, flat, div, count):
        self = super().__new__(cls, text)
        self.run, self.flat, self.div, self.count = run, flat, div, count
        return self


def simplify_index(index, strides):
    """(index, strides) with each whole run of SplitIndex entries whose strides are the
    run's dense strides times its last one merged into one entry: the run's flat position."""
    if not any(type(i) is SplitIndex for i in index):
        return index, strides
    runs = {}
    for k, i in enumerate(index):
        if type(i) is SplitIndex:
            runs.setdefault(id(i.run), []).append(k)
    out_index, out_strides, done = [], [], set()
    for k, (i, st) in enumerate(zip(index, strides)):
        if type(i) is not SplitIndex:
            out_index.append(i)
            out_strides.append(st)
            continue
        members = runs[id(i.run)]
        last = strides[members[-1]]
        if len(members) != i.count or \
                any(strides[m] != index[m].div * last for m in members):
            out_index.append(i)
            out_strides.append(st)
            continue
        if id(i.run) not in done:
            done.add(id(i.run))
            out_index.append(i.flat)
            out_strides.append(last)
    return out_index, out_strides


def squeeze_insert_map(positions, ndim_old):
    """For unsqueeze (drop the new dims) and squeeze (put 0 back at the removed dims)."""
    def index_map(index):
        it = iter(index)
        return ["0" if k in positions else next(it) for k in range(ndim_old)]
    return index_map


def drop_map(positions):
    def index_map(index):
        return [i for k, i in enumerate(index) if k not in positions]
    return index_map


def slice_map(dim, start, step):
    def index_map(index):
        index = list(index)
        index[dim] = f"{start} + ({index[dim]})*{step}" if step != 1 else \
            (f"{start} + ({index[dim]})" if start else index[dim])
        return index
    return index_map


def select_map(dim, position):
    def index_map(index):
        index = list(index)
        index.insert(dim, str(position))
        return index
    return index_map
