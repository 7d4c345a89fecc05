"""Dynamic sizes: which dimensions of a compiled function's input tensors a captured graph may
take at any size, so that a new size reuses the capture instead of recompiling.

NOTE [dynamic dimensions]: PyTorch makes such a size a symbol (SymInt) that flows through the
capture. ember keeps capture concrete and relies on this instead: a captured graph records
ember functions called on tensors, and those take their sizes from the tensors at run time,
so the graph is right for any size of a dimension whose size the Python around it never read.
- Candidates: with `dynamic=True`, every dimension of a tensor argument (or of a tensor in a
  list, tuple or dict argument); with `dynamic=None` (the default: PyTorch's automatic
  dynamic), the dimensions whose size changed between a capture and a call its TENSOR_MATCH
  guard refused, remembered per code object (`note_size_change`), so the recompile makes them
  dynamic and later sizes reuse it; `dynamic=False`, none. Parameters and buffers (reached
  through attributes) stay static, as PyTorch keeps them. Sizes 0 and 1 stay static (they
  broadcast), and so does every dimension of a tensor that is not contiguous (its strides
  would need symbols too).
- Specialization: a size read into Python during capture (`x.shape`, `x.size(d)`, `len(x)`,
  `x.numel()`, iteration, any call answering a non-tensor about a tensor) makes that
  dimension static again: the graph may hold the number. A size read off a tensor the graph
  computed specializes every dimension of the capture (which input it came from is not
  tracked). PyTorch would instead keep such a size symbolic; here that function recompiles
  per size, as with `dynamic=False`.
- Guard: TENSOR_MATCH then accepts any size of at least 2 in the dynamic dimensions, still
  checks the static ones, contiguity instead of exact strides, and the other facts.
- Backends receive the first call's tensors as examples; one whose kernels are written for
  fixed sizes (inductor) compiles a variant per new set of sizes (backends.py).
"""
from __future__ import annotations

from ember._dynamo.source import GetItemSource, LocalSource

_CHANGED = {}     # id(code) -> (code, {source name: set of dims that changed size})


def reset() -> None:
    _CHANGED.clear()


def candidates(code, setting, source, tensor) -> set:
    """The dims of `tensor`, read through `source`, that start dynamic in a new capture."""
    if setting is False or not _is_argument(source) or not tensor.is_contiguous():
        return set()
    if setting is True:
        dims = set(range(tensor.dim()))
    else:
        known = _CHANGED.get(id(code))
        dims = set(known[1].get(source.name(), ())) if known is not None else set()
    return {d for d in dims if d < tensor.dim() and tensor.shape[d] >= 2}


def note_size_change(code, setting, guard, frame) -> None:
    """After `guard` (a TENSOR_MATCH) refused a call: remember the dims whose size alone
    changed, for the recompile (automatic dynamic; `dynamic=None` only)."""
    if setting is not None or guard.kind != "TENSOR_MATCH":
        return
    try:
        value = guard.source.get(frame)
    except (AttributeError, KeyError, IndexError, TypeError):
        return
    from ember._dynamo.guards import tensor_facts
    from ember._tensor import Tensor
    if not isinstance(value, Tensor):
        return
    old, new = guard.expected, tensor_facts(value)
    if len(old[3]) != len(new[3]) or old[:3] != new[:3] or old[5:] != new[5:] or \
            not value.is_contiguous():
        return
    dims = {d for d, (a, b) in enumerate(zip(old[3], new[3])) if a != b}
    if dims:
        entry = _CHANGED.setdefault(id(code), (code, {}))
        entry[1].setdefault(guard.source.name(), set()).update(dims)


def _is_argument(source) -> bool:
    while isinstance(source, GetItemSource):
        source = source.base
    return isinstance(source, LocalSource)


def tensor_test(source, facts, dims):
    """TENSOR_MATCH's check: exact facts, or (while `dims`, a set capture may still shrink,
    is not empty) NOTE [dynamic dimensions]'s relaxed form."""
    from ember._dynamo.guards import tensor_facts
    kind, dtype, device, shape, _strides, requires_grad, leaf = facts
    ndim = len(shape)

    def test(frame):
        t = source.get(frame)
        if not dims:
            return tensor_facts(t) == facts
        if type(t) is not kind or t.dtype != dtype or t.device != device or t.dim() != ndim:
            return False
        sizes = t.shape
        for d in range(ndim):
            if (sizes[d] < 2) if d in dims else (sizes[d] != shape[d]):
                return False
        return t.is_contiguous() and t._requires_grad == requires_grad and \
            (t._grad_fn is None) == leaf
    return test
