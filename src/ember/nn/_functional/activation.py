"""Functional activations: thin calls of the registry ops (ember/_ops/activation.py and
nn_activation.py), and the composites PyTorch also builds from other ops (prelu, rrelu, glu,
tanhshrink, softsign, softmin, selu, celu, relu6)."""
from __future__ import annotations

import warnings

from ember._core import arguments, dispatch
from ember._core import dtype as dt
from ember._core.checks import _check
from ember._core.dispatch import call, call_inplace
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.registry import OPS

__all__ = [
    "celu", "celu_", "elu", "elu_", "gelu", "glu", "gumbel_softmax", "hardshrink", "hardsigmoid",
    "hardswish", "hardtanh", "hardtanh_", "leaky_relu", "leaky_relu_", "log_softmax",
    "logsigmoid", "mish", "prelu", "relu", "relu6", "relu_", "rrelu", "rrelu_", "selu", "selu_",
    "sigmoid", "silu", "softmax", "softmin", "softplus", "softshrink", "softsign", "tanh",
    "tanhshrink", "threshold", "threshold_",
]

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946

_RELU = OPS["relu"]
_LEAKY_RELU = OPS["leaky_relu"]
_ELU = OPS["elu"]
_HARDTANH = OPS["hardtanh"]
_THRESHOLD = OPS["threshold"]


def _apply(op, args, inplace):
    return call_inplace(op, args) if inplace else call(op, args)


def threshold(input, threshold, value, inplace=False):
    """Thresholds each element: input where input > threshold, else value."""
    if _state.entry and _wants(locals()):
        return _handle(globals()["threshold"], locals())
    if type(threshold) not in (float, int) or type(value) not in (float, int):
        threshold = arguments.scalar(threshold, ("threshold", "threshold", 2))
        value = arguments.scalar(value, ("threshold", "value", 3))
    return _apply(_THRESHOLD, (input, threshold, value), inplace)


def threshold_(input, threshold, value):
    """In-place threshold."""
    if _state.entry and _wants(locals()):
        return _handle(threshold_, locals())
    if type(threshold) not in (float, int) or type(value) not in (float, int):
        threshold = arguments.scalar(threshold, ("threshold_", "threshold", 2))
        value = arguments.scalar(value, ("threshold_", "value", 3))
    return call_inplace(_THRESHOLD, (input, threshold, value))


def relu(input, inplace=False):
    """max(input, 0) elementwise."""
    if _state.entry and _wants(locals()):
        return _handle(relu, locals())
    return call_inplace(_RELU, (input,)) if inplace else call(_RELU, (input,))


def relu_(input):
    """In-place relu."""
    if _state.entry and _wants(locals()):
        return _handle(relu_, locals())
    return call_inplace(_RELU, (input,))


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """input clamped to [min_val, max_val]."""
    if _state.entry and _wants(locals()):
        return _handle(hardtanh, locals())
    _check_value_order(min_val, max_val)
    return _apply(_HARDTANH, (input, min_val, max_val), inplace)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    """In-place hardtanh."""
    if _state.entry and _wants(locals()):
        return _handle(hardtanh_, locals())
    # (PyTorch's hardtanh_ is the ATen op itself: no check of the order, unlike hardtanh)
    return call_inplace(_HARDTANH, (input, min_val, max_val))


def _check_value_order(min_val, max_val):
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")


def relu6(input, inplace=False):
    """min(max(input, 0), 6) elementwise."""
    if _state.entry and _wants(locals()):
        return _handle(relu6, locals())
    return _apply(_HARDTANH, (input, 0.0, 6.0), inplace)


def elu(input, alpha=1.0, inplace=False):
    """input where positive, else alpha * (exp(input) - 1)."""
    if _state.entry and _wants(locals()):
        return _handle(elu, locals())
    return _apply(_ELU, (input, alpha, 1, 1), inplace)


def elu_(input, alpha=1.0):
    """In-place elu."""
    if _state.entry and _wants(locals()):
        return _handle(elu_, locals())
    return call_inplace(_ELU, (input, alpha, 1, 1))


def selu(input, inplace=False):
    """scale * elu(input, alpha) with SELU's fixed alpha and scale."""
    if _state.entry and _wants(locals()):
        return _handle(selu, locals())
    return _apply(_ELU, (input, _SELU_ALPHA, _SELU_SCALE, 1), inplace)


def selu_(input):
    """In-place selu."""
    if _state.entry and _wants(locals()):
        return _handle(selu_, locals())
    return call_inplace(_ELU, (input, _SELU_ALPHA, _SELU_SCALE, 1))


def celu(input, alpha=1.0, inplace=False):
    """max(0, input) + min(0, alpha * (exp(input / alpha) - 1))."""
    if _state.entry and _wants(locals()):
        return _handle(celu, locals())
    if not isinstance(input, dispatch.Tensor):      # (torch.celu(_)'s parser comes first)
        arguments.refuse(("celu_" if inplace else "celu", "input", 1), "Tensor", input)
    _check(alpha != 0, "ZeroDivisionError: alpha cannot be 0 for CELU")
    return _apply(_ELU, (input, alpha, 1, 1.0 / alpha), inplace)


def celu_(input, alpha=1.0):
    """In-place celu."""
    if _state.entry and _wants(locals()):
        return _handle(celu_, locals())
    if type(alpha) is not float and type(alpha) is not int:    # (celu_'s parser: a Number)
        alpha = arguments.scalar(alpha, ("celu_", "alpha", 2))
    return celu(input, alpha, True)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """input where positive, else negative_slope * input."""
    if _state.entry and _wants(locals()):
        return _handle(leaky_relu, locals())
    return _apply(_LEAKY_RELU, (input, negative_slope), inplace)


def leaky_relu_(input, negative_slope=0.01):
    """In-place leaky_relu."""
    if _state.entry and _wants(locals()):
        return _handle(leaky_relu_, locals())
    return call_inplace(_LEAKY_RELU, (input, negative_slope))


def prelu(input, weight):
    """leaky_relu with a learned slope per channel (dim 1), or one shared slope."""
    if _state.entry and _wants(locals()):
        return _handle(prelu, locals())
    arguments.tensor_(input, ("prelu", "input", 1))
    arguments.tensor_(weight, ("prelu", "weight", 2))
    channels = input.shape[1] if input.ndim >= 2 else 1
    count = weight.numel()
    _check(input.ndim > 0 or count == 1, "Not allow zero-dim input tensor.")
    _check(count == 1 or count == channels, lambda: (
        f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
        f"{count} and channel size = {channels}."))
    _check(weight.ndim <= 1, lambda: (
        f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.ndim}"))
    if count > 1 and input.ndim > 2:
        weight = weight.reshape((channels,) + (1,) * (input.ndim - 2))
    elif count == 1 and weight.ndim > input.ndim:
        weight = weight.reshape(())         # a 0-d input keeps its shape
    return input.where(input > 0, weight * input)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Randomized leaky ReLU: in training each non-positive element's slope is drawn
    uniformly from [lower, upper) in PyTorch's order (NOTE [rrelu's stream]); otherwise the
    slope is (lower + upper) / 2."""
    if _state.entry and _wants(locals()):
        return _handle(rrelu, locals())
    name = "rrelu_" if inplace else "rrelu"
    arguments.tensor_(input, (name, "input", 1))
    lower = arguments.scalar(lower, (name, "lower", 2))
    upper = arguments.scalar(upper, (name, "upper", 3))
    if training is not True and training is not False:
        arguments.bool_(training, (name, "training", 4))
    from ember._ops.nn_functions_layers import _as_double
    _check(_as_double(lower) <= _as_double(upper),
           "Lower bound should be less than or equal to the upper bound")
    if not training:
        return leaky_relu(input, (lower + upper) / 2, inplace)
    result, _ = call(OPS["rrelu_with_noise_functional"], (
        input, input.new_empty(input.shape), lower, upper, True, None))
    if inplace:
        return input.copy_(result)
    return result


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    """In-place rrelu."""
    if _state.entry and _wants(locals()):
        return _handle(rrelu_, locals())
    return rrelu(input, lower, upper, training, True)


def glu(input, dim=-1):
    """The gated linear unit: a * sigmoid(b), a and b the halves of input along dim."""
    if _state.entry and _wants(locals()):
        return _handle(glu, locals())
    _check(input.ndim > 0, "glu does not support scalars because halving size must be even")
    if type(dim) is not int or not -(1 << 63) <= dim < 1 << 63:   # (then the op's parser)
        dim = arguments.int_(dim, ("glu", "dim", 2))
        if not -(1 << 63) <= dim < 1 << 63:
            raise ValueError("Overflow when unpacking long long")
    size = input.shape[dim]
    _check(size % 2 == 0, lambda: (
        f"Halving dimension must be even, but dimension {dim % input.ndim} is size {size}"))
    first, second = input.chunk(2, dim)
    return first * second.sigmoid()


def gelu(input, *, approximate="none"):
    """input * Phi(input), Phi the standard normal CDF (approximate='tanh': its tanh
    approximation)."""
    if _state.entry and _wants(locals()):
        return _handle(gelu, locals())
    return call(OPS["gelu"], (input, approximate))


def logsigmoid(input):
    """log(sigmoid(input)), stable for large |input|."""
    if _state.entry and _wants(locals()):
        return _handle(logsigmoid, locals())
    return call(OPS["log_sigmoid_forward"], (input,))[0]


def hardshrink(input, lambd=0.5):
    """input where |input| > lambd, else 0."""
    if _state.entry and _wants(locals()):
        return _handle(hardshrink, locals())
    return call(OPS["hardshrink"], (input, lambd))


def softshrink(input, lambd=0.5):
    """input shrunk towards zero by lambd."""
    if _state.entry and _wants(locals()):
        return _handle(softshrink, locals())
    return call(OPS["softshrink"], (input, lambd))


def tanhshrink(input):
    """input - tanh(input)."""
    if _state.entry and _wants(locals()):
        return _handle(tanhshrink, locals())
    return input - input.tanh()


def softsign(input):
    """input / (1 + |input|)."""
    if _state.entry and _wants(locals()):
        return _handle(softsign, locals())
    return input / (input.abs() + 1)


def softplus(input, beta=1.0, threshold=20.0):
    """log(1 + exp(beta * input)) / beta (linear above threshold)."""
    if _state.entry and _wants(locals()):
        return _handle(softplus, locals())
    return call(OPS["softplus"], (input, beta, threshold))


def sigmoid(input):
    """1 / (1 + exp(-input))."""
    if _state.entry and _wants(locals()):
        return _handle(sigmoid, locals())
    return input.sigmoid()


def tanh(input):
    """Hyperbolic tangent."""
    if _state.entry and _wants(locals()):
        return _handle(tanh, locals())
    return input.tanh()


def hardsigmoid(input, inplace=False):
    """clamp(input / 6 + 1/2, 0, 1)."""
    if _state.entry and _wants(locals()):
        return _handle(hardsigmoid, locals())
    return _apply(OPS["hardsigmoid"], (input,), inplace)


def hardswish(input, inplace=False):
    """input * hardsigmoid(input)."""
    if _state.entry and _wants(locals()):
        return _handle(hardswish, locals())
    return _apply(OPS["hardswish"], (input,), inplace)


def silu(input, inplace=False):
    """input * sigmoid(input)."""
    if _state.entry and _wants(locals()):
        return _handle(silu, locals())
    return _apply(OPS["silu"], (input,), inplace)


def mish(input, inplace=False):
    """input * tanh(softplus(input))."""
    if _state.entry and _wants(locals()):
        return _handle(mish, locals())
    return _apply(OPS["mish"], (input,), inplace)


def _get_softmax_dim(name, ndim, stacklevel):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call "
                  "to include dim=X as an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def _method_arguments(method, input, dtype):
    """PyTorch's softmax functions call the input's method: a non-tensor has no such attribute
    (PyTorch's AttributeError, raised here on purpose); a Python type names a dtype."""
    if not isinstance(input, dispatch.Tensor):
        raise AttributeError(  # noqa: TRY004  (PyTorch's class here)
            f"'{type(input).__name__}' object has no attribute '{method}'")
    if dtype is not None and not isinstance(dtype, dt.dtype):
        dtype = arguments.dtype_(dtype, (method, "dtype", None))
    return dtype


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """exp(input) / sum(exp(input)) along dim (dtype: cast to it first)."""
    if _state.entry and _wants(locals()):
        return _handle(softmax, locals())
    if dim is None:
        dim = _get_softmax_dim("softmax", input.ndim, _stacklevel)
    if not isinstance(input, dispatch.Tensor) or dtype is not None:
        dtype = _method_arguments("softmax", input, dtype)
    return call(OPS["softmax.int"], (input, dim, dtype))


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """softmax(-input) along dim."""
    if _state.entry and _wants(locals()):
        return _handle(softmin, locals())
    if dim is None:
        dim = _get_softmax_dim("softmin", input.ndim, _stacklevel)
    input = -input          # (PyTorch negates first: softmax's dtype casts the negation)
    if not isinstance(input, dispatch.Tensor) or dtype is not None:
        dtype = _method_arguments("softmax", input, dtype)
    return call(OPS["softmax.int"], (input, dim, dtype))


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """log(softmax(input)) along dim, computed stably."""
    if _state.entry and _wants(locals()):
        return _handle(log_softmax, locals())
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.ndim, _stacklevel)
    if not isinstance(input, dispatch.Tensor) or dtype is not None:
        dtype = _method_arguments("log_softmax", input, dtype)
    return call(OPS["log_softmax.int"], (input, dim, dtype))


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """A sample of the Gumbel-softmax (concrete) relaxation of the categorical distribution
    with unnormalised log-probabilities `logits` at temperature `tau`: softmax((logits + g) /
    tau) along `dim`, g standard Gumbel noise. With `hard`, the one-hot of the sample's argmax
    whose gradient is the soft sample's (straight-through). `eps` is unused (deprecated).

    The noise is -log(e), e drawn by `exponential_` into a contiguous tensor as PyTorch draws
    it, so a seed gives PyTorch's sample."""
    if _state.entry and _wants(locals()):
        return _handle(gumbel_softmax, locals())
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    import ember
    noise = ember.empty_like(logits, memory_format=ember.contiguous_format).exponential_()
    y_soft = ((logits - noise.log()) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = ember.zeros_like(logits, memory_format=ember.contiguous_format).scatter_(
        dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft
