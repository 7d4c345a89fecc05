"""ember.onnx: what model code asks of torch.onnx while it runs. ember exports nothing to ONNX
yet (export needs graph capture, the compiler's work): `is_in_onnx_export()` is False, as it is
outside an export in PyTorch, and `export` raises OnnxExporterError saying so, leaving no file.
"""
from __future__ import annotations

__all__ = ["OnnxExporterError", "export", "is_in_onnx_export"]


class OnnxExporterError(RuntimeError):
    """An ONNX export failed."""


def is_in_onnx_export() -> bool:
    """Whether an ONNX export is tracing the running code: never, in ember."""
    return False


def export(model, args=(), f=None, **kwargs):
    raise OnnxExporterError(
        "ember cannot export to ONNX yet: export needs graph capture, which ember's compiler "
        "does not have. Save the state_dict with ember.save, or export from PyTorch.")
