"""`ember.DispatchKey`, `ember.DispatchKeySet`, `ember.ExcludeDispatchKeyGuard` and `ember.Tag`:
PyTorch's names for its C++ dispatcher's keys and for operator tags. ember's dispatcher is its
own (ember/_core/dispatch); these name the keys libraries pass around (a custom op's
`impl(..., "CPU")`, `tags=(ember.Tag.pointwise,)`), they do not steer dispatch."""
from __future__ import annotations

import enum

_KEYS = ["Undefined", "CompositeExplicitAutogradNonFunctional", "CompositeExplicitAutograd", "CompositeImplicitAutogradNestedTensor", "CompositeImplicitAutograd", "AutogradNestedTensor", "AutogradOther", "Autograd", "Conjugate", "ZeroTensor", "Negative", "BackendSelect", "ADInplaceOrView", "PythonTLSSnapshot", "Python", "FuncTorchDynamicLayerFrontMode", "FuncTorchDynamicLayerBackMode", "FuncTorchBatchedDecomposition", "FuncTorchBatched", "FuncTorchVmapMode", "FuncTorchGradWrapper", "PythonDispatcher", "PreDispatch", "Functionalize", "AutocastCPU", "AutocastMPS", "AutocastXPU", "AutocastHPU", "AutocastIPU", "AutocastCUDA", "AutocastPrivateUse1", "Dense", "Quantized", "Sparse", "SparseCsr", "NestedTensor", "AutogradFunctionality"]
_BACKENDS = ["CPU", "CUDA", "HIP", "XLA", "MPS", "IPU", "XPU", "HPU", "VE", "Lazy", "MTIA", "MAIA", "PrivateUse1", "PrivateUse2", "PrivateUse3", "Meta"]
_PER_BACKEND = {"Dense": "", "Quantized": "Quantized", "Sparse": "Sparse",
                "SparseCsr": "SparseCsr", "NestedTensor": "NestedTensor",
                "AutogradFunctionality": "Autograd"}


def _members() -> list:
    names = []
    for key in _KEYS:
        names.append(key)
        if key in _PER_BACKEND:
            names.append(f"StartOf{key}Backends")
            names.extend(_PER_BACKEND[key] + backend for backend in _BACKENDS)
            names.append(f"EndOf{key}Backends")
    return names


DispatchKey = enum.IntEnum("DispatchKey", [(n, i) for i, n in enumerate(_members())],
                           module=__name__)
DispatchKey.__doc__ = "A key of PyTorch's dispatcher (by name; the numbers are ember's own)."


class DispatchKeySet:
    """A set of dispatch keys (`DispatchKeySet(DispatchKey.CPU) | other`)."""

    def __init__(self, *keys) -> None:
        self._keys = frozenset(k for k in keys if k is not DispatchKey.Undefined)

    @classmethod
    def _of(cls, keys):
        made = cls()
        made._keys = frozenset(keys)
        return made

    def __or__(self, other):
        return DispatchKeySet._of(self._keys | other._keys)

    def __and__(self, other):
        return DispatchKeySet._of(self._keys & other._keys)

    def __sub__(self, other):
        return DispatchKeySet._of(self._keys - other._keys)

    def add(self, key):
        return DispatchKeySet._of(self._keys | {key})

    def remove(self, key):
        return DispatchKeySet._of(self._keys - {key})

    def has(self, key) -> bool:
        return key in self._keys

    def highestPriorityTypeId(self):
        return max(self._keys, default=DispatchKey.Undefined)

    def __eq__(self, other) -> bool:
        return isinstance(other, DispatchKeySet) and self._keys == other._keys

    def __hash__(self) -> int:
        return hash(self._keys)

    def __repr__(self) -> str:
        return f"DispatchKeySet({', '.join(k.name for k in sorted(self._keys))})"


class ExcludeDispatchKeyGuard:
    """Exclude keys from dispatch inside the block (ember's dispatcher has no such keys, so the
    guard changes nothing)."""

    def __init__(self, keyset: DispatchKeySet) -> None:
        if not isinstance(keyset, DispatchKeySet):
            raise TypeError("ExcludeDispatchKeyGuard(): expected a DispatchKeySet")
        self.keyset = keyset

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> bool:
        return False


Tag = enum.IntEnum("Tag", [(name, index) for index, name in enumerate(["core", "cudagraph_unsafe", "data_dependent_output", "dynamic_output_shape", "flexible_layout", "generated", "inplace", "inplace_view", "maybe_aliasing_or_mutating", "needs_contiguous_strides", "needs_exact_strides", "needs_fixed_stride_order", "nondeterministic_bitwise", "nondeterministic_seeded", "out", "out_variant", "pointwise", "pt2_compliant_tag", "reduction", "view_copy"])], module=__name__)
Tag.__doc__ = "An operator tag (what libraries and the compiler read from `op.tags`)."
