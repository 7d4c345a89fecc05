"""How sparse tensors print: their components as tensors, then size, nnz, dtype and layout, in
PyTorch's arrangement (`ember.` where PyTorch writes `torch.`)."""
from __future__ import annotations

from ember._tensor_str import _data_text, _default_kind_dtypes, _with_suffixes

_OUTER = "tensor("


def _component(name, t, indent):
    """`name=tensor(...)` for a component printed from column `indent`."""
    prefix = f"{name}=tensor("
    if t._data.size == 0:
        return f"{prefix}[], size={tuple(t._data.shape)})"
    return prefix + _data_text(t, indent + len(prefix)) + ")"


def sparse_repr(t) -> str:
    data = t._data
    indent = len(_OUTER)
    if data.layout_name == "sparse_coo":
        parts = [_component("indices", data.indices, indent),
                 _component("values", data.values, indent)]
    elif data.layout_name in ("sparse_csc", "sparse_bsc"):
        parts = [_component("ccol_indices", data.ccol_indices, indent),
                 _component("row_indices", data.row_indices, indent),
                 _component("values", data.values, indent)]
    else:
        parts = [_component("crow_indices", data.crow_indices, indent),
                 _component("col_indices", data.col_indices, indent),
                 _component("values", data.values, indent)]
    text = _OUTER + (",\n" + " " * indent).join(parts)
    suffixes = [f"size={tuple(data.shape)}", f"nnz={data.nnz}"]
    if t._dtype not in _default_kind_dtypes():
        suffixes.append(f"dtype={t._dtype}")
    suffixes.append(f"layout=ember.{data.layout_name}")
    grad_fn = t._grad_fn
    if grad_fn is not None:
        name = grad_fn.name() if hasattr(grad_fn, "name") else type(grad_fn).__name__
        suffixes.append(f"grad_fn=<{name}>")
    elif t._requires_grad:
        suffixes.append("requires_grad=True")
    if data.layout_name == "sparse_coo":
        # The sizes start a line of their own after a COO tensor's values.
        first = suffixes.pop(0)
        text += ",\n" + " " * indent + first
        return _with_suffixes(text, suffixes, indent)
    return _with_suffixes(text, suffixes, indent)
