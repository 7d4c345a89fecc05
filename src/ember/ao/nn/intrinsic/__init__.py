"""`ember.ao.nn.intrinsic`: fused float modules (`ConvReLU2d` = conv then ReLU), what
`fuse_modules` puts in place of the modules it fuses. Each is a Sequential of its parts;
quantized/ has their quantized forms."""
from __future__ import annotations

from ember.nn import Sequential

__all__ = ["BNReLU2d", "BNReLU3d", "ConvBn1d", "ConvBn2d", "ConvBn3d", "ConvBnReLU1d",
           "ConvBnReLU2d", "ConvBnReLU3d", "ConvReLU1d", "ConvReLU2d", "ConvReLU3d",
           "LinearBn1d", "LinearReLU"]


class _FusedModule(Sequential):
    """Modules run one after the other, marked as fused for quantization."""

    def __init__(self, *modules) -> None:
        super().__init__(*modules)


def _fused(name: str, doc: str):
    return type(name, (_FusedModule,), {"__doc__": doc, "__module__": __name__})


ConvReLU1d = _fused("ConvReLU1d", "Conv1d then ReLU.")
ConvReLU2d = _fused("ConvReLU2d", "Conv2d then ReLU.")
ConvReLU3d = _fused("ConvReLU3d", "Conv3d then ReLU.")
LinearReLU = _fused("LinearReLU", "Linear then ReLU.")
BNReLU2d = _fused("BNReLU2d", "BatchNorm2d then ReLU.")
BNReLU3d = _fused("BNReLU3d", "BatchNorm3d then ReLU.")
ConvBn1d = _fused("ConvBn1d", "Conv1d then BatchNorm1d (training; folded when evaluating).")
ConvBn2d = _fused("ConvBn2d", "Conv2d then BatchNorm2d (training; folded when evaluating).")
ConvBn3d = _fused("ConvBn3d", "Conv3d then BatchNorm3d (training; folded when evaluating).")
ConvBnReLU1d = _fused("ConvBnReLU1d", "Conv1d, BatchNorm1d, ReLU (training).")
ConvBnReLU2d = _fused("ConvBnReLU2d", "Conv2d, BatchNorm2d, ReLU (training).")
ConvBnReLU3d = _fused("ConvBnReLU3d", "Conv3d, BatchNorm3d, ReLU (training).")
LinearBn1d = _fused("LinearBn1d", "Linear then BatchNorm1d (training).")


def __getattr__(name: str):
    if name == "quantized":
        import importlib
        return importlib.import_module("ember.ao.nn.intrinsic.quantized")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
