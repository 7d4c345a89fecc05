"""Observers: modules that watch the values flowing through them (min / max) and turn them into
quantization parameters (`calculate_qparams()` -> (scale, zero_point)), PyTorch's formulas:
affine `scale = (max - min) / (qmax - qmin)`, `zero_point = qmin - round(min / scale)`;
symmetric `scale = max(|min|, max) / ((qmax - qmin) / 2)`, zero point 0 (128 for unsigned);
the range always widened to hold 0, the scale at least `eps`."""
from __future__ import annotations

import functools
import warnings

import ember
from ember.nn import Module

__all__ = ["FixedQParamsObserver", "MinMaxObserver", "MovingAverageMinMaxObserver",
           "MovingAveragePerChannelMinMaxObserver", "NoopObserver", "ObserverBase",
           "PerChannelMinMaxObserver", "PlaceholderObserver", "default_dynamic_quant_observer",
           "default_float_qparams_observer", "default_observer",
           "default_per_channel_weight_observer", "default_placeholder_observer",
           "default_weight_observer"]

_RANGES = {"qint8": (-128, 127), "quint8": (0, 255), "qint32": (-(2 ** 31), 2 ** 31 - 1),
           "int8": (-128, 127), "uint8": (0, 255), "quint4x2": (0, 15)}
_SYMMETRIC = ("per_tensor_symmetric", "per_channel_symmetric")


class _PartialWithRepr(functools.partial):
    def __repr__(self) -> str:
        return super().__repr__() + "{}"


class ObserverBase(Module):
    """The base of observers: `forward` watches and returns its input unchanged."""

    def __init__(self, dtype=None, is_dynamic: bool = False) -> None:
        super().__init__()
        self.dtype = ember.quint8 if dtype is None else dtype
        self.is_dynamic = is_dynamic

    @classmethod
    def with_args(cls, **kwargs):
        """A factory for this observer with these arguments (what a QConfig holds)."""
        return _PartialWithRepr(cls, **kwargs)

    def calculate_qparams(self, **kwargs):
        raise NotImplementedError


def _quant_range(dtype, reduce_range, quant_min, quant_max):
    if quant_min is not None and quant_max is not None:
        if not quant_min <= 0 <= quant_max:
            raise AssertionError("Used-specified quantization range must include 0.")
        return (quant_min // 2, quant_max // 2) if reduce_range else (quant_min, quant_max)
    low, high = _RANGES[str(dtype).split(".")[1]]
    if reduce_range:
        return (low // 2, high // 2) if low < 0 else (0, high // 2)
    return low, high


class _MinMaxBase(ObserverBase):
    def __init__(self, dtype=None, qscheme=None, reduce_range=False, quant_min=None,
                 quant_max=None, factory_kwargs=None, eps=None, is_dynamic=False, **kwargs):
        super().__init__(dtype, is_dynamic)
        self.qscheme = ember.per_tensor_affine if qscheme is None else qscheme
        self.reduce_range = reduce_range
        self._qrange = _quant_range(self.dtype, reduce_range, quant_min, quant_max)
        self.quant_min, self.quant_max = self._qrange
        self.has_customized_qrange = quant_min is not None and quant_max is not None
        self.eps = ember.tensor([float(ember.finfo(ember.float32).eps) if eps is None
                                 else eps])

    def _symmetric(self) -> bool:
        return self.qscheme.name in _SYMMETRIC

    def _qparams(self, min_val, max_val):
        if not (min_val <= max_val).all():
            warnings.warn("must run observer before calling calculate_qparams. Returning "
                          "default values.", stacklevel=3)
            return ember.tensor([1.0]), ember.tensor([0], dtype=ember.int64)
        qmin, qmax = self._qrange
        min_neg = ember.clamp(min_val, max=0.0)
        max_pos = ember.clamp(max_val, min=0.0)
        shape = min_neg.shape if min_neg.dim() else (1,)
        if self._symmetric():
            max_pos = ember.maximum(-min_neg, max_pos)
            scale = ember.maximum(max_pos / ((qmax - qmin) / 2), self.eps)
            unsigned = self.dtype in (ember.quint8, ember.uint8) and not \
                self.has_customized_qrange
            zero_point = ember.full(shape, 128 if unsigned else 0, dtype=ember.int64)
        else:
            scale = ember.maximum((max_pos - min_neg) / float(qmax - qmin), self.eps)
            zero_point = qmin - ember.round(min_neg / scale).to(ember.int32)
            zero_point = ember.clamp(zero_point, qmin, qmax).to(ember.int32)
        return scale.reshape(shape).to(ember.float32), zero_point.reshape(shape)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}"


class MinMaxObserver(_MinMaxBase):
    """Watches the running minimum and maximum of what passes."""

    def __init__(self, dtype=None, qscheme=None, reduce_range=False, quant_min=None,
                 quant_max=None, factory_kwargs=None, eps=None, is_dynamic=False, **kwargs):
        super().__init__(dtype, qscheme, reduce_range, quant_min, quant_max, factory_kwargs,
                         eps, is_dynamic)
        self.register_buffer("min_val", ember.tensor(float("inf")))
        self.register_buffer("max_val", ember.tensor(float("-inf")))

    def forward(self, x_orig):
        if x_orig.numel() == 0:
            return x_orig
        x = x_orig.detach().to(self.min_val.dtype)
        self.min_val.copy_(ember.minimum(x.min(), self.min_val))
        self.max_val.copy_(ember.maximum(x.max(), self.max_val))
        return x_orig

    def calculate_qparams(self):
        return self._qparams(self.min_val, self.max_val)

    def reset_min_max_vals(self) -> None:
        self.min_val.fill_(float("inf"))
        self.max_val.fill_(float("-inf"))


class MovingAverageMinMaxObserver(MinMaxObserver):
    """Minimum and maximum as moving averages (`averaging_constant`), the first batch's as
    they are."""

    def __init__(self, averaging_constant=0.01, dtype=None, qscheme=None, reduce_range=False,
                 quant_min=None, quant_max=None, eps=None, is_dynamic=False, **kwargs):
        super().__init__(dtype, qscheme, reduce_range, quant_min, quant_max, eps=eps,
                         is_dynamic=is_dynamic)
        self.averaging_constant = averaging_constant

    def forward(self, x_orig):
        if x_orig.numel() == 0:
            return x_orig
        x = x_orig.detach().to(self.min_val.dtype)
        low, high = x.min(), x.max()
        if ember.isinf(self.min_val) and ember.isinf(self.max_val):
            self.min_val.copy_(low)
            self.max_val.copy_(high)
        else:
            c = self.averaging_constant
            self.min_val.copy_(self.min_val + c * (low - self.min_val))
            self.max_val.copy_(self.max_val + c * (high - self.max_val))
        return x_orig


class PerChannelMinMaxObserver(_MinMaxBase):
    """Minimum and maximum per slice along `ch_axis` (per-channel weights)."""

    def __init__(self, ch_axis=0, dtype=None, qscheme=None, reduce_range=False, quant_min=None,
                 quant_max=None, factory_kwargs=None, eps=None, is_dynamic=False, **kwargs):
        super().__init__(dtype, ember.per_channel_affine if qscheme is None else qscheme,
                         reduce_range, quant_min, quant_max, factory_kwargs, eps, is_dynamic)
        self.ch_axis = ch_axis
        self.register_buffer("min_val", ember.tensor([]))
        self.register_buffer("max_val", ember.tensor([]))

    def _per_channel(self, x):
        y = x.detach().to(ember.float32).movedim(self.ch_axis, 0).flatten(1)
        return y.min(1).values, y.max(1).values

    def forward(self, x_orig):
        if x_orig.numel() == 0:
            return x_orig
        low, high = self._per_channel(x_orig)
        if self.min_val.numel() == 0:
            self.min_val, self.max_val = low, high
        else:
            self.min_val = ember.minimum(self.min_val, low)
            self.max_val = ember.maximum(self.max_val, high)
        return x_orig

    def calculate_qparams(self):
        return self._qparams(self.min_val, self.max_val)


class MovingAveragePerChannelMinMaxObserver(PerChannelMinMaxObserver):
    def __init__(self, averaging_constant=0.01, ch_axis=0, dtype=None, qscheme=None,
                 reduce_range=False, quant_min=None, quant_max=None, eps=None,
                 is_dynamic=False, **kwargs):
        super().__init__(ch_axis, dtype, qscheme, reduce_range, quant_min, quant_max, eps=eps,
                         is_dynamic=is_dynamic)
        self.averaging_constant = averaging_constant

    def forward(self, x_orig):
        if x_orig.numel() == 0:
            return x_orig
        low, high = self._per_channel(x_orig)
        if self.min_val.numel() == 0:
            self.min_val, self.max_val = low, high
        else:
            c = self.averaging_constant
            self.min_val = self.min_val + c * (low - self.min_val)
            self.max_val = self.max_val + c * (high - self.max_val)
        return x_orig


class PlaceholderObserver(ObserverBase):
    """Observes nothing: it only carries a dtype (for float16 or dynamic quantization)."""

    def __init__(self, dtype=None, custom_op_name: str = "", compute_dtype=None,
                 quant_min=None, quant_max=None, qscheme=None, eps=None,
                 is_dynamic: bool = False) -> None:
        super().__init__(ember.float32 if dtype is None else dtype, is_dynamic)
        self.qscheme = ember.per_tensor_affine if qscheme is None else qscheme
        self.quant_min, self.quant_max, self.eps = quant_min, quant_max, eps
        self.custom_op = custom_op_name

    def forward(self, x):
        return x

    def extra_repr(self) -> str:
        return f"dtype={self.dtype}, is_dynamic={self.is_dynamic}"

    def calculate_qparams(self):
        raise Exception("calculate_qparams should not be called for PlaceholderObserver")  # noqa: TRY002


class NoopObserver(PlaceholderObserver):
    """Observes nothing (the float16 weight observer)."""

    def __init__(self, dtype=None, custom_op_name: str = "") -> None:
        super().__init__(ember.float16 if dtype is None else dtype, custom_op_name)


class FixedQParamsObserver(ObserverBase):
    """Fixed quantization parameters (for ops whose output range is known: sigmoid, tanh)."""

    def __init__(self, scale, zero_point, dtype=None, qscheme=None, quant_min=0,
                 quant_max=255, is_dynamic: bool = False, **kwargs) -> None:
        super().__init__(dtype, is_dynamic)
        self.quant_min, self.quant_max = quant_min, quant_max
        self.qscheme = ember.per_tensor_affine if qscheme is None else qscheme
        self.register_buffer("scale", ember.tensor([float(scale)]))
        self.register_buffer("zero_point", ember.tensor([int(zero_point)], dtype=ember.int32))

    def forward(self, x):
        return x

    def calculate_qparams(self):
        return self.scale, self.zero_point


default_observer = MinMaxObserver.with_args(quant_min=0, quant_max=127)
default_weight_observer = MinMaxObserver.with_args(dtype=ember.qint8,
                                                   qscheme=ember.per_tensor_symmetric)
default_per_channel_weight_observer = PerChannelMinMaxObserver.with_args(
    dtype=ember.qint8, qscheme=ember.per_channel_symmetric)
default_dynamic_quant_observer = PlaceholderObserver.with_args(
    dtype=ember.quint8, quant_min=0, quant_max=255, is_dynamic=True)
default_float_qparams_observer = PerChannelMinMaxObserver.with_args(
    dtype=ember.quint8, qscheme=ember.per_channel_affine_float_qparams, ch_axis=0)
default_placeholder_observer = PlaceholderObserver
