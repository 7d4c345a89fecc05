"""The back-end seam: each op's kernels, keyed by dispatch key (layout, device type, dtype
extension), and the lookup that resolves a call's key to one kernel.

NOTE [the kernel table]: every `OpDef` owns a `KernelTable`. An entry is keyed by a
`DispatchKey(layout, device, extension)`:
- layout: "strided" (dense arrays), or a sparse layout ("sparse_coo", "sparse_csr",
  "sparse_csc", "sparse_bsr", "sparse_bsc");
- device: a device type ("cpu", "cuda", "meta", a privateuse1 name such as "npdev"), or None:
  the entry serves every device of the layout (the op's shared `xp` kernel, PyTorch's
  CompositeExplicitAutograd);
- extension: None, or a dtype the array libraries have no type for and that an entry of its own
  serves ("complex32", NOTE [complex32 storage]).
The kernel's calling convention follows the layout: a strided kernel is `f(xp, *arrays and
arguments)`; a sparse kernel `f(op, args)` gets the call's tensors (PyTorch's SparseCPU kernels
see tensors too); an extension entry runs around the op's plain entry for the same layout and
device, `f(plain_kernel, xp, *args)` (complex32: widen, run the plain kernel, narrow).

Lookup (`resolve`), first found wins: (layout, device, ext), (layout, None, ext), and for an
extension with no entry of its own the plain key; (layout, device, None), (layout, None, None).
A sparse layout has no shared fallback: no entry means PyTorch's "Could not run 'aten::op' with
arguments from the 'SparseCPU' backend" (`no_kernel`, raised by dispatch/sparse.py). The names
torch.library uses ('CPU', 'CUDA', 'Meta', 'SparseCPU', 'SparseCsrCPU', 'PrivateUse1',
'CompositeExplicitAutograd') name keys too (`as_key`).

The table is open: `register_layout` adds a layout (a quantized one, say) with the backend names
PyTorch gives its keys ('QuantizedCPU') and the class of its tensors' `_data`, which the
dispatcher reads a call's layout off (NOTE [sparse layout]); `register_extension` adds a dtype
extension. Neither changes a lookup that existed before.

The hot path reads the table through caches the table keeps current on every registration:
`op.raw_kernel` / `op.kernel` are the (strided, "cpu", None) entry (as written / run quietly,
NOTE [floating-point warnings]), which the runners' CPU fast paths call with no lookup at all;
`op.kernels` maps a device type to its strided kernel, filled on first use. The extension is
read off the arguments only for ops that have extension entries: their strided entries are
wrapped once in a guard that looks at the operands' dtypes (`_guarded`); every other op's cached
entry is its kernel itself, so the plain call pays nothing for the key's third part.
"""
from __future__ import annotations

import functools
from typing import NamedTuple

STRIDED = "strided"
SPARSE_LAYOUTS = ("sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc")

# Layout -> {device type: the backend name PyTorch's messages give that key}. A device type
# missing here is named by `backend_name`'s rule (a privateuse1 type: 'PrivateUse1').
LAYOUTS: dict = {
    STRIDED: {"cpu": "CPU", "cuda": "CUDA", "meta": "Meta"},
    "sparse_coo": {"cpu": "SparseCPU", "cuda": "SparseCUDA", "meta": "SparseMeta"},
    **{layout: {"cpu": "SparseCsrCPU", "cuda": "SparseCsrCUDA", "meta": "SparseCsrMeta"}
       for layout in SPARSE_LAYOUTS[1:]},
}

# The classes of `_data` that make a tensor's layout other than strided -> that layout; read by
# the dispatcher once such a tensor exists (dispatch/sparse.py, NOTE [sparse layout]).
LAYOUT_DATA: dict = {}


class DispatchKey(NamedTuple):
    """Which calls a kernel serves: its layout, device type (None: every device) and dtype
    extension (None: the ordinary dtypes). NOTE [the kernel table]."""

    layout: str = STRIDED
    device: str | None = None
    extension: str | None = None


# torch.library's dispatch key names (and ember's own for its compressed layouts). A
# privateuse1 name is read when the key is made: 'PrivateUse1' is the renamed device type.
_NAMED = {
    "CPU": DispatchKey(STRIDED, "cpu"),
    "CUDA": DispatchKey(STRIDED, "cuda"),
    "Meta": DispatchKey(STRIDED, "meta"),
    "CompositeExplicitAutograd": DispatchKey(STRIDED, None),
    "SparseCPU": DispatchKey("sparse_coo", "cpu"),
    "SparseCsrCPU": DispatchKey("sparse_csr", "cpu"),
    "SparseCscCPU": DispatchKey("sparse_csc", "cpu"),
    "SparseBsrCPU": DispatchKey("sparse_bsr", "cpu"),
    "SparseBscCPU": DispatchKey("sparse_bsc", "cpu"),
    "ComplexHalf": DispatchKey(STRIDED, None, "complex32"),
}


def register_layout(name: str, backends: dict, data_type=None) -> None:
    """Open the table to a new layout (NOTE [the kernel table]): `backends` maps a device type to
    PyTorch's name for the key ({'cpu': 'QuantizedCPU'}), which `as_key` then reads too;
    `data_type` is the class of its tensors' `_data`, by which the dispatcher tells the layout."""
    if name in LAYOUTS:
        raise ValueError(f"register_layout: layout {name!r} is registered already")
    LAYOUTS[name] = dict(backends)
    for device, key_name in backends.items():
        _NAMED.setdefault(key_name, DispatchKey(name, device))
    if data_type is not None:
        LAYOUT_DATA[data_type] = name


def register_layout_data(data_type, layout: str) -> None:
    """`data_type` (a class of `_data`) holds tensors of `layout`, a registered layout."""
    if layout not in LAYOUTS:
        raise ValueError(f"register_layout_data: unknown layout {layout!r}")
    LAYOUT_DATA[data_type] = layout


def backend_name(layout: str, device) -> str:
    """PyTorch's name for the key (layout, device type), as its dispatcher's messages give it."""
    found = LAYOUTS.get(layout, {}).get(device)
    if found is not None:
        return found
    from ember._core.device import privateuse1_name
    if device == privateuse1_name():
        return "PrivateUse1"
    return "CompositeExplicitAutograd" if device is None else str(device).upper()


def no_kernel(op, layout: str, device) -> NotImplementedError:
    """PyTorch's error for a call of `op` (the overload the call fits, NOTE [overload forms])
    whose key (layout, device type) has no kernel."""
    schema = op.schema
    name = f"{schema.name}.{schema.overload}" if schema.overload else schema.name
    return NotImplementedError(
        f"Could not run '{op.namespace}::{name}' with arguments from the "
        f"'{backend_name(layout, device)}' backend. This could be because the operator doesn't "
        "exist for this backend, or was omitted during the selective/custom build process (if "
        "using custom build).")


def as_key(key) -> DispatchKey:
    """A `DispatchKey` from one, from a name torch.library uses ('CPU', 'SparseCPU',
    'PrivateUse1' ...), or from a device type ('cpu', 'cuda', 'npdev': its strided entry)."""
    if type(key) is DispatchKey:
        return key
    if isinstance(key, tuple):
        return DispatchKey(*key)
    if not isinstance(key, str):
        raise TypeError(f"a dispatch key is a str or a DispatchKey, not {type(key).__name__}")
    found = _NAMED.get(key)
    if found is not None:
        return found
    if key == "PrivateUse1":
        from ember._core.device import privateuse1_name
        return DispatchKey(STRIDED, privateuse1_name())
    if key.isidentifier() and key.islower():       # a device type: its strided entry
        return DispatchKey(STRIDED, key)
    raise ValueError(f"unknown dispatch key {key!r}: use a DispatchKey, one of {sorted(_NAMED)}, "
                     "'PrivateUse1', or a device type ('cpu', 'cuda', a plug-in's)")


# Dtype extensions: name -> (test of the leading operand, test of every operand), each over
# the kernel's arguments (arrays). Set by the module that owns the extension's storage.
EXTENSIONS: dict = {}


def register_extension(name, leading_test, any_test) -> None:
    EXTENSIONS[name] = (leading_test, any_test)


def checked_key(key) -> DispatchKey:
    """`as_key(key)`, refused (ValueError) where its layout or dtype extension is unknown."""
    key = as_key(key)
    if key.layout not in LAYOUTS:
        raise ValueError(f"unknown layout {key.layout!r} in dispatch key {key}")
    if key.extension is not None and key.extension not in EXTENSIONS:
        raise ValueError(f"unknown dtype extension {key.extension!r} in dispatch key {key}")
    return key


class KernelTable:
    """One op's kernels by dispatch key (NOTE [the kernel table])."""

    __slots__ = ("_resolved", "_running", "entries", "op")

    def __init__(self, op):
        self.op = op
        self.entries = {}          # DispatchKey -> kernel, as registered
        self._resolved = {}        # (layout, device, extension) -> kernel, as written
        self._running = {}         # kernel as written -> kernel as run (quiet where the op is)

    def register(self, key, kernel) -> None:
        key = checked_key(key)
        self.entries[key] = kernel
        self._resolved.clear()
        self._running.clear()
        self.op._refresh_kernels()

    def resolve(self, layout=STRIDED, device="cpu", extension=None):
        """The kernel (as written) for a call of this key, or None."""
        key = (layout, device, extension)
        try:
            return self._resolved[key]
        except KeyError:
            found = self._resolved[key] = self._find(layout, device, extension)
            return found

    def running(self, device) -> object:
        """The strided kernel for `device` as the back-end steps run it: quiet where the op
        computes (one wrapper per kernel, shared by the devices that resolve to it)."""
        kernel = self.resolve(STRIDED, device)
        if kernel is None or not self.op.quiet:
            return kernel
        found = self._running.get(kernel)
        if found is None:
            # (imported here: fp_errors imports complex_half, which registers its extension)
            from ember._core.fp_errors import quiet
            found = self._running[kernel] = quiet(kernel)
        return found

    def _find(self, layout, device, extension):
        entries = self.entries
        if extension is not None:
            around = entries.get((layout, device, extension)) or \
                entries.get((layout, None, extension))
            plain = self._plain(layout, device)
            if around is None or plain is None:
                return plain
            return functools.partial(around, plain)
        plain = self._plain(layout, device)
        if plain is None or layout != STRIDED:
            return plain
        for name, tests in EXTENSIONS.items():
            around = entries.get((layout, device, name)) or entries.get((layout, None, name))
            if around is not None:
                plain = _guarded(self.op, plain, functools.partial(around, plain), tests)
        return plain

    def _plain(self, layout, device):
        entries = self.entries
        return entries.get((layout, device, None)) or entries.get((layout, None, None))


def _guarded(op, plain, extended, tests):
    """`plain`, except for calls whose operands have the extension's dtype: `extended`."""
    if tuple(op.tensor_positions) == (0,) and not op.list_positions:
        test = tests[0]

        @functools.wraps(plain)
        def run_leading(xp, *args, **kwargs):
            if test(args[0]):
                return extended(xp, *args, **kwargs)
            return plain(xp, *args, **kwargs)
        return run_leading
    test = tests[1]

    @functools.wraps(plain)
    def run_any(xp, *args, **kwargs):
        if test(args):
            return extended(xp, *args, **kwargs)
        return plain(xp, *args, **kwargs)
    return run_any
