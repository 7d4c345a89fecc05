"""Activation layers: each holds its constants and calls the functional form (ember.nn
functional, `_functional/activation.py`). MultiheadAttention lives in multihead.py."""
from __future__ import annotations

from typing import ClassVar

import ember
from ember.nn import functional as F
from ember.nn import init
from ember.nn.modules.module import Module
from ember.nn.parameter import Parameter

__all__ = [
    "CELU", "ELU", "GELU", "GLU", "SELU", "Hardshrink", "Hardsigmoid", "Hardswish", "Hardtanh",
    "LeakyReLU", "LogSigmoid", "LogSoftmax", "Mish", "PReLU", "RReLU", "ReLU", "ReLU6",
    "SiLU", "Sigmoid", "Softmax", "Softmax2d", "Softmin", "Softplus", "Softshrink",
    "Softsign", "Tanh", "Tanhshrink", "Threshold",
]


def _inplace_suffix(inplace):
    return ", inplace=True" if inplace else ""


class _Inplace(Module):
    """An activation whose only option is `inplace`."""

    __constants__: ClassVar[list[str]] = ["inplace"]

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Threshold(Module):
    """input where input > threshold, else value."""

    __constants__: ClassVar[list[str]] = ["threshold", "value", "inplace"]

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        return f"threshold={self.threshold}, value={self.value}{_inplace_suffix(self.inplace)}"


class ReLU(_Inplace):
    """max(input, 0)."""

    def forward(self, input):
        return F.relu(input, inplace=self.inplace)


class RReLU(Module):
    """Leaky ReLU with random slopes in [lower, upper] in training, their mean in eval."""

    __constants__: ClassVar[list[str]] = ["lower", "upper", "inplace"]

    def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
                 inplace: bool = False) -> None:
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"lower={self.lower}, upper={self.upper}{_inplace_suffix(self.inplace)}"


class Hardtanh(Module):
    """input clamped to [min_val, max_val]."""

    __constants__: ClassVar[list[str]] = ["min_val", "max_val", "inplace"]

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False,
                 min_value=None, max_value=None) -> None:
        super().__init__()
        if min_value is not None:
            min_val = min_value
        if max_value is not None:
            max_val = max_value
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace
        assert self.max_val > self.min_val

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}{_inplace_suffix(self.inplace)}"


class ReLU6(Hardtanh):
    """min(max(input, 0), 6)."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Sigmoid(Module):
    """1 / (1 + exp(-input))."""

    def forward(self, input):
        return ember.sigmoid(input)      # (the function: a non-tensor gets its TypeError)


class Hardsigmoid(_Inplace):
    """clamp(input / 6 + 1/2, 0, 1)."""

    def forward(self, input):
        return F.hardsigmoid(input, self.inplace)

    def extra_repr(self) -> str:
        return ""


class Tanh(Module):
    """Hyperbolic tangent."""

    def forward(self, input):
        return ember.tanh(input)


class SiLU(_Inplace):
    """input * sigmoid(input)."""

    def forward(self, input):
        return F.silu(input, inplace=self.inplace)


class Mish(_Inplace):
    """input * tanh(softplus(input))."""

    def forward(self, input):
        return F.mish(input, inplace=self.inplace)


class Hardswish(_Inplace):
    """input * hardsigmoid(input)."""

    def forward(self, input):
        return F.hardswish(input, self.inplace)

    def extra_repr(self) -> str:
        return ""


class ELU(Module):
    """input where positive, else alpha * (exp(input) - 1)."""

    __constants__: ClassVar[list[str]] = ["alpha", "inplace"]

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input):
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}{_inplace_suffix(self.inplace)}"


class CELU(ELU):
    """max(0, input) + min(0, alpha * (exp(input / alpha) - 1))."""

    def forward(self, input):
        return F.celu(input, self.alpha, self.inplace)


class SELU(_Inplace):
    """scale * elu(input, alpha) with SELU's constants."""

    def forward(self, input):
        return F.selu(input, self.inplace)


class GLU(Module):
    """a * sigmoid(b), a and b the halves of the input along dim."""

    __constants__: ClassVar[list[str]] = ["dim"]

    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class GELU(Module):
    """input * Phi(input) (approximate='tanh': the tanh approximation)."""

    __constants__: ClassVar[list[str]] = ["approximate"]

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class Hardshrink(Module):
    """input where |input| > lambd, else 0."""

    __constants__: ClassVar[list[str]] = ["lambd"]

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return F.hardshrink(input, self.lambd)

    def extra_repr(self) -> str:
        return f"{self.lambd}"


class LeakyReLU(Module):
    """input where positive, else negative_slope * input."""

    __constants__: ClassVar[list[str]] = ["inplace", "negative_slope"]

    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}{_inplace_suffix(self.inplace)}"


class LogSigmoid(Module):
    """log(sigmoid(input))."""

    def forward(self, input):
        return F.logsigmoid(input)


class Softplus(Module):
    """log(1 + exp(beta * input)) / beta, linear above threshold."""

    __constants__: ClassVar[list[str]] = ["beta", "threshold"]

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class Softshrink(Module):
    """input shrunk towards zero by lambd."""

    __constants__: ClassVar[list[str]] = ["lambd"]

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return F.softshrink(input, self.lambd)

    def extra_repr(self) -> str:
        return str(self.lambd)


class PReLU(Module):
    """leaky ReLU with a learned slope: one shared, or one per channel (num_parameters)."""

    __constants__: ClassVar[list[str]] = ["num_parameters"]

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device=None,
                 dtype=None) -> None:
        from ember import empty
        self.num_parameters = num_parameters
        super().__init__()
        self.init = init
        self.weight = Parameter(empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class Softsign(Module):
    """input / (1 + |input|)."""

    def forward(self, input):
        return F.softsign(input)


class Tanhshrink(Module):
    """input - tanh(input)."""

    def forward(self, input):
        return F.tanhshrink(input)


class _SoftmaxBase(Module):
    __constants__: ClassVar[list[str]] = ["dim"]

    def __init__(self, dim=None) -> None:
        super().__init__()
        self.dim = dim

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "dim"):
            self.dim = None

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmin(_SoftmaxBase):
    """softmax(-input) along dim."""

    def forward(self, input):
        return F.softmin(input, self.dim, _stacklevel=5)


class Softmax(_SoftmaxBase):
    """exp(input) / sum(exp(input)) along dim."""

    def forward(self, input):
        return F.softmax(input, self.dim, _stacklevel=5)


class Softmax2d(Module):
    """Softmax over the channels (dim -3) of a (N, C, H, W) or (C, H, W) input."""

    def forward(self, input):
        if input.ndim not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.ndim}D "
                             "instead")
        return F.softmax(input, -3, _stacklevel=5)


class LogSoftmax(_SoftmaxBase):
    """log(softmax(input)) along dim."""

    def forward(self, input):
        return F.log_softmax(input, self.dim, _stacklevel=5)
