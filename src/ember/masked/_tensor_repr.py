"""How a MaskedTensor prints, in PyTorch's layout: floats as `{:8.4f}`, other values as `str`,
a masked-out element as `--` (right-aligned in eight characters or the row's widest entry),
rows nested in brackets, two spaces per level."""
from __future__ import annotations

_FLOAT_FORMAT = "{0:8.4f}"


def _format_value(value) -> str:
    return _FLOAT_FORMAT.format(value) if isinstance(value, float) else str(value)


def _rows(values, specified, ndim: int) -> str:
    """`values` and `specified`: nested lists of one shape, `ndim` >= 1 deep."""
    if ndim > 1:
        parts = [_rows(v, s, ndim - 1) for v, s in zip(values, specified)]
        parts = ["\n".join("  " + line for line in part.split("\n")) for part in parts]
        return "[\n" + ",\n".join(parts) + "\n]"
    texts = [_format_value(v) for v in values]
    width = max(len(t) if s else 8 for t, s in zip(texts, specified))
    return "[" + ", ".join(t if s else "--".rjust(width) for t, s in zip(texts, specified)) + "]"


def masked_tensor_repr(mt) -> str:
    data, mask = mt._masked_data, mt._masked_mask
    if data.is_sparse or data.is_sparse_csr:
        data, mask = data.to_dense(), mask.to_dense()
    if data.dim() == 0:
        shown = _format_value(data.item()) if mask.item() else "--"
        return f"MaskedTensor({shown}, {mask.item()})"
    body = _rows(data.tolist(), mask.tolist(), data.dim())
    return "MaskedTensor(\n" + "\n".join("  " + line for line in body.split("\n")) + "\n)"
