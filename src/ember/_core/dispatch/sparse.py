"""Sparse layouts (COO, CSR, CSC, BSR, BSC) in the dispatcher: what a sparse tensor holds, how calls on one
find their sparse kernels, and PyTorch's error for an op that has none.

NOTE [sparse layout]: a sparse tensor is an ordinary `Tensor` whose `_data` is a `SparseCOO`,
`SparseCSR` or `SparseCSC` (its component tensors) in place of an array, and whose `_device` is
`SPARSE_CPU`: a `device` that prints, hashes and compares as `device('cpu')` but is not the
interned `CPU` object. Every fast path already asks `t._device is CPU` before touching
`t._data`, so a sparse operand falls to the layered path with no new check on the dense hot
path. Below autograd, once a sparse tensor was made (`made`, so a process that never makes
one pays nothing), the dispatcher reads the call's layout before the back-end step
(stack.backend_step) and runs the op's kernel-table entry for it (NOTE [the kernel table]:
key (layout, "cpu"), filled by `register`), or raises PyTorch's "Could not run 'aten::op' with
arguments from the 'SparseCPU' backend". Autograd records the call as usual, with the op's
own derivative formulas, above the back-end step.

A layout added later (`kernel_table.register_layout`, a quantized one say) plugs in the same
way: its tensors' `_data` class is registered with it, they live on `SPARSE_CPU` (so the fast
paths pass them by), `install()` is called when the first is made, and its kernels are its
(layout, device) entries.

Why not elsewhere: a check in the runners' fast paths would cost every dense call; a Tensor
subclass would make `type(t) is Tensor` false (PyTorch's sparse tensors are plain Tensors);
another device type would print and compare differently. The few places that read `_data` as
an array outside the dispatcher ask first: `_to_copy`'s own runner and `write_inplace` (the
device), the gradient layout (autograd/grad_layout.py), printing, pickling and checkpoints.
Sparse tensors are immutable in their components except through in-place ops, which swap in
the result's components (`write_sparse_inplace`).
"""
from __future__ import annotations

from ember._core.device import CPU, device
from ember._core.kernel_table import LAYOUT_DATA, DispatchKey, no_kernel, register_layout_data
from ember._core.registry import register_kernel

Tensor = None            # set on install (the dispatcher's Tensor class)


class _SparseHost(device):
    """The host as sparse tensors name it: equal to (and hashed as) `device('cpu')`; a
    subclass, so `device('cpu') == t.device` asks this class's `__eq__` first."""

    __slots__ = ()

    def __eq__(self, other) -> bool:
        return other is CPU or other is self

    def __hash__(self) -> int:
        return hash(CPU)


# Named as its base: code that recognises a device by its class name (Tensor.to's argument
# parsing) and users printing type(t.device) see `device`, as for any tensor.
_SparseHost.__name__ = _SparseHost.__qualname__ = "device"
SPARSE_CPU = object.__new__(_SparseHost)
SPARSE_CPU.type = "cpu"
SPARSE_CPU.index = None
SPARSE_CPU._hash = CPU._hash
SPARSE_CPU._prev_default = []


class SparseCOO:
    """The `_data` of a COO tensor: `indices` (int64, sparse_dim x nnz) and `values`
    (nnz x dense dims) tensors, the shape, and whether the entries are coalesced."""

    __slots__ = ("cache", "coalesced", "indices", "shape", "values")
    layout_name = "sparse_coo"
    backend_name = "SparseCPU"

    def __init__(self, indices, values, shape, coalesced):
        self.indices = indices
        self.values = values
        self.shape = tuple(shape)
        self.coalesced = coalesced
        self.cache = None           # a SciPy matrix of this tensor, made once (kernels)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        total = 1
        for n in self.shape:
            total *= n
        return total

    @property
    def dtype(self):
        return self.values._data.dtype

    @property
    def nnz(self) -> int:
        return self.indices._data.shape[1]

    @property
    def strides(self) -> tuple:
        # PyTorch reports zero strides for a sparse tensor (so it is never contiguous).
        return (0,) * len(self.shape)

    def tolist(self):
        raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")

    @property
    def sparse_dim(self) -> int:
        return self.indices._data.shape[0]


class SparseCSR:
    """The `_data` of a CSR matrix: `crow_indices`, `col_indices` and `values` tensors."""

    __slots__ = ("cache", "col_indices", "crow_indices", "shape", "values")
    layout_name = "sparse_csr"
    backend_name = "SparseCsrCPU"
    coalesced = True

    def __init__(self, crow_indices, col_indices, values, shape):
        self.crow_indices = crow_indices
        self.col_indices = col_indices
        self.values = values
        self.shape = tuple(shape)
        self.cache = None

    ndim = SparseCOO.ndim
    size = SparseCOO.size
    dtype = SparseCOO.dtype
    strides = SparseCOO.strides
    tolist = SparseCOO.tolist

    @property
    def nnz(self) -> int:
        return self.col_indices._data.shape[0]

    sparse_dim = 2


class SparseCSC:
    """The `_data` of a CSC matrix (what a CSR transpose is): `ccol_indices`, `row_indices`
    and `values` tensors; its arrays are those of the CSR matrix of its transpose."""

    __slots__ = ("cache", "ccol_indices", "row_indices", "shape", "values")
    layout_name = "sparse_csc"
    backend_name = "SparseCsrCPU"
    coalesced = True

    def __init__(self, ccol_indices, row_indices, values, shape):
        self.ccol_indices = ccol_indices
        self.row_indices = row_indices
        self.values = values
        self.shape = tuple(shape)
        self.cache = None

    ndim = SparseCOO.ndim
    size = SparseCOO.size
    dtype = SparseCOO.dtype
    strides = SparseCOO.strides
    tolist = SparseCOO.tolist

    @property
    def nnz(self) -> int:
        return self.row_indices._data.shape[0]

    sparse_dim = 2


class SparseBSR(SparseCSR):
    """The `_data` of a BSR matrix (blocked compressed rows): `crow_indices` and
    `col_indices` count and place blocks, `values` holds them (nnz blocks x R x C)."""

    __slots__ = ()
    layout_name = "sparse_bsr"

    @property
    def blocksize(self) -> tuple:
        return tuple(self.values._data.shape[1:3])


class SparseBSC(SparseCSC):
    """The `_data` of a BSC matrix (blocked compressed columns): `ccol_indices` and
    `row_indices` count and place blocks, `values` holds them (nnz blocks x R x C, each
    block row-major as in BSR)."""

    __slots__ = ()
    layout_name = "sparse_bsc"
    blocksize = SparseBSR.blocksize


SPARSE_TYPES = (SparseCOO, SparseCSR, SparseCSC, SparseBSR, SparseBSC)
# The layouts a sparse kernel serves (keys of its entries, NOTE [the kernel table]): COO and CSR
# share their kernels (they read the components they find); a CSC operand runs only the kernels
# written for it, and so do the blocked layouts (filled by _ops/sparse_blocked.py).
COO_CSR = ("sparse_coo", "sparse_csr")
CSC = ("sparse_csc",)
BLOCKED = ("sparse_bsr", "sparse_bsc")
_OWN_LAYOUT = (SparseCSC, SparseBSR, SparseBSC)
for _data_type in SPARSE_TYPES:
    register_layout_data(_data_type, _data_type.layout_name)

# Non-empty once a sparse tensor was made: the dispatcher reads a call's layout only then
# (stack.py), so a process that never makes one pays nothing.
made: list = []


def register(*names, layouts=COO_CSR):
    """Declare the sparse kernel of the ops `names` for `layouts`: `kernel(op, args)` gets the
    call's arguments as tensors (sparse or dense) and returns the result tensor(s). It is the
    ops' (layout, "cpu") entry in their kernel tables (NOTE [the kernel table])."""
    def decorate(fn):
        for name in names:
            for layout in layouts:
                register_kernel(name, DispatchKey(layout, "cpu"), fn)
        return fn
    return decorate


def is_sparse(t) -> bool:
    return isinstance(t, Tensor) and type(t._data) in SPARSE_TYPES


def sparse_operand(op, args):
    """The first tensor of a layout other than strided among the call's tensor arguments (a
    sparse one, or one of a layout registered later: `kernel_table.register_layout`), or
    None."""
    for i in op.tensor_positions:
        v = args[i]
        if v is not None and v.__class__ is not int and v.__class__ is not float \
                and type(getattr(v, "_data", None)) in LAYOUT_DATA:
            return v
    for i in op.list_positions:
        for v in args[i] if args[i] is not None else ():   # (a Tensor has no truth value)
            if type(getattr(v, "_data", None)) in LAYOUT_DATA:
                return v
    return None


def run_sparse(op, args, sparse):
    """A call with an operand of another layout: the op's entry for the call's key, or
    PyTorch's "Could not run 'aten::op' with arguments from the 'SparseCPU' backend"."""
    layout = _call_layout(op, args, sparse)
    device = sparse._device.type
    kernel = op.table.resolve(layout, device)
    if kernel is None:
        from ember._core.dispatch.stack import offered  # (stack imports this module)
        raise no_kernel(offered(op, args), layout, device)
    return kernel(op, args)


def _call_layout(op, args, sparse) -> str:
    """The layout of the key: the first operand's with a layout of its own (CSC, BSR, BSC),
    else the first operand's of another layout (COO or CSR, or a registered one)."""
    for i in op.tensor_positions:
        data = getattr(args[i], "_data", None)
        if type(data) in _OWN_LAYOUT:
            return data.layout_name
    return LAYOUT_DATA[type(sparse._data)]


def install() -> None:
    """Note that a sparse tensor exists (the dispatcher reads call layouts from now on)."""
    if made:
        return
    global Tensor
    from ember._core.dispatch import stack
    Tensor = stack.Tensor
    made.append(True)


def make_sparse(data, requires_grad=False):
    """A sparse tensor holding `data` (a SparseCOO or SparseCSR)."""
    install()
    return keyed_tensor(data, data.values._dtype, SPARSE_CPU, requires_grad)


def keyed_tensor(data, dtype, device, requires_grad: bool):
    """A Tensor over `data`, the `_data` of a layout the kernel table keys (sparse, quantized),
    on that layout's host `device` (NOTE [sparse layout]): no storage, no autograd history."""
    out = object.__new__(Tensor)
    out._data = data
    out._dtype = dtype
    out._device = device
    out._storage = None
    out._requires_grad = requires_grad
    out._grad_fn = None
    out._grad = None
    out._base = None
    return out


def write_sparse_inplace(self, result) -> None:
    """An in-place op on a sparse tensor (`s.mul_(2)`, `s.add_(t)`): its components become the
    result's, cast to its dtype; the layout and shape must stay."""
    from ember._core.dispatch.wrapping import bump_version
    same = type(result._data) is type(self._data) and result._data.shape == self._data.shape
    if not same:
        raise RuntimeError(f"in-place op on a {self._data.layout_name} tensor of shape "
                           f"{list(self._data.shape)} gave a result of another layout or shape")
    data = result._data
    if result._dtype is not self._dtype:
        data.values = data.values.to(self._dtype)
    self._data = data
    bump_version(self)
