"""Functional normalisation: batch_norm, instance_norm (batch norm of a (1, N*C, ...) view),
layer_norm, group_norm (registry ops in ember/_ops/nn_norm.py), rms_norm and
local_response_norm (composites, as in PyTorch)."""
from __future__ import annotations

from ember._core import arguments
from ember._core import dtype as dt
from ember._core.checked_entry import checked
from ember._core.checks import _check, _check_not_implemented
from ember._tensor import Tensor as _TENSOR
from ember._core.dispatch import call, stack
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.finfo import finfo
from ember._core.lazy_method import LazyModule
from ember._core.registry import OPS
from ember.autograd.grad_mode import is_grad_enabled

__all__ = ["batch_norm", "group_norm", "instance_norm", "layer_norm", "local_response_norm",
           "rms_norm"]

_BATCH_NORM = OPS["native_batch_norm"]
_LAYER_NORM = OPS["native_layer_norm"]
_CAT = OPS["cat"]
_nn_functions_layers = LazyModule("ember._ops.nn_functions_layers", globals(),
                                  "_nn_functions_layers")     # (loads on first use)
_HALF = (dt.float16, dt.bfloat16)


def _verify_batch_size(size):
    values = size[0]
    for s in size[2:]:
        values *= s
    if values == 1:
        raise ValueError("Expected more than 1 value per channel when training, got input "
                         f"size {size}")


def _verify_spatial_size(size):
    values = 1
    for s in size[2:]:
        values *= s
    if values == 1:
        raise ValueError("Expected more than 1 spatial element when training, got input "
                         f"size {size}")


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Normalise each channel (dim 1) over the batch and the other dimensions; in training
    with the batch's statistics (updating running_mean/running_var in place), otherwise with
    the running ones."""
    if _state.entry and _wants(locals()):
        return _handle(batch_norm, locals())
    # NOTE [functional check order]: PyTorch's nn.functional is Python before its op: the
    # batch-size check (input.size(): AttributeError for a non-tensor, as there), the eps
    # checks, then the op's parser (its TypeError), then the op's own checks.
    if training:
        _verify_batch_size(input.size())
    if eps <= 0.0 and (training or eps < 0.0):
        raise ValueError(f"batch_norm eps must be "
                         f"{'positive during training' if training else 'non-negative'}, "
                         f"but got {eps}")
    if type(input) is not _TENSOR and not isinstance(input, _TENSOR) or \
            not _tensors_or_none(running_mean, running_var, weight, bias):
        _batch_norm_arguments(input, weight, bias, running_mean, running_var, training,
                              momentum, eps, True)
    # (PyTorch's composite takes no channels from a 1-d input, a RuntimeError on its checks;
    # the op itself reads size(1), an IndexError.)
    _check(input.ndim >= 2, lambda: (
        f"batch_norm(): expected input with at least 2 dimensions, got {input.ndim}"))
    for name, stats in (("running_mean", running_mean), ("running_var", running_var)):
        _check(stats is None or not stats.requires_grad or not is_grad_enabled(), lambda name=name: (
            f"The function 'native_batch_norm' is not differentiable with respect to argument "
            f"'{name}'. This input cannot have requires_grad True."))
    if input.numel() == 0:                  # NOTE [batch norm of an empty input] (nn_norm.py)
        out = input.clone()
        if weight is not None:
            out = out * weight[0]
        if bias is not None:
            out = out + bias[0]
        return out
    if stack.modes.dispatch_modes:
        # PyTorch's batch_norm composite allocates an empty reserve buffer before the op,
        # which its dispatch modes see (NOTE [composites decompose under modes]).
        call(OPS["empty.memory_format"], ([0], dt.uint8, None, input.device, None, None))
    return call(_BATCH_NORM, (input, weight, bias, running_mean, running_var, training,
                              momentum, eps))[0]


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """Normalise each channel of each sample over its other dimensions."""
    if _state.entry and _wants(locals()):
        return _handle(instance_norm, locals())
    if use_input_stats:                   # (NOTE [functional check order])
        _verify_spatial_size(input.size())
    return instance_norm_native(input, running_mean, running_var, weight, bias,
                                use_input_stats, momentum, eps)


def instance_norm_native(input, running_mean, running_var, weight, bias, use_input_stats,
                         momentum, eps):
    """`torch.instance_norm` past F.instance_norm's Python prelude: the parser, PyTorch's
    native checks (running statistics without input statistics, then the batch and channel
    sizes read: an IndexError below 2-d), then batch norm of a (1, N*C, ...) view."""
    _instance_norm_arguments(input, weight, bias, running_mean, running_var, use_input_stats,
                             momentum, eps, True)
    _check(use_input_stats or running_mean is not None and running_var is not None,
           "Expected running_mean and running_var to be defined when use_input_stats is false")
    batch, channels = input.size(0), input.size(1)
    weight_ = None if weight is None else weight.repeat(batch)
    bias_ = None if bias is None else bias.repeat(batch)
    mean_ = None if running_mean is None else running_mean.repeat(batch)
    var_ = None if running_var is None else running_var.repeat(batch)
    flat = input.contiguous().view((1, batch * channels) + tuple(input.shape[2:]))
    out = call(_BATCH_NORM, (flat, weight_, bias_, mean_, var_, use_input_stats, momentum,
                             eps))[0]
    if running_mean is not None and use_input_stats:
        running_mean.detach().copy_(mean_.view(batch, channels).mean(0))
    if running_var is not None and use_input_stats:
        running_var.detach().copy_(var_.view(batch, channels).mean(0))
    return out.view_as(input)


def _tensors_or_none(*values) -> bool:
    for value in values:
        if value is not None and not isinstance(value, _TENSOR):
            return False
    return True


@checked("batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
         "Tensor? running_var, bool training, float momentum, float eps, bool cudnn_enabled)")
def _batch_norm_arguments(input, weight, bias, running_mean, running_var, training, momentum,
                          eps, cudnn_enabled):
    """Only the parser's checks of `torch.batch_norm`, which F.batch_norm calls."""


@checked("instance_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
         "Tensor? running_var, bool use_input_stats, float momentum, float eps, "
         "bool cudnn_enabled)")
def _instance_norm_arguments(input, weight, bias, running_mean, running_var, use_input_stats,
                             momentum, eps, cudnn_enabled):
    """Only the parser's checks of `torch.instance_norm`, which F.instance_norm calls."""


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalise over the last len(normalized_shape) dimensions."""
    if _state.entry and _wants(locals()):
        return _handle(layer_norm, locals())
    if isinstance(normalized_shape, int):
        # (an int list without a length: PyTorch's parser refuses a bare int)
        arguments.refuse(("layer_norm", "normalized_shape", 2), "tuple of ints",
                         normalized_shape)
    return call(_LAYER_NORM, (input, list(normalized_shape), weight, bias, eps))[0]


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Normalise each group of channels of each sample."""
    if _state.entry and _wants(locals()):
        return _handle(group_norm, locals())
    if input.dim() < 2:          # (input.dim(), as PyTorch: a NumPy array's AttributeError)
        raise RuntimeError("Expected at least 2 dimensions for input tensor but received "
                           f"{input.dim()}")
    batch, channels = input.shape[0], input.shape[1]
    _verify_batch_size([batch * channels // num_groups, num_groups] + list(input.shape[2:]))
    return _nn_functions_layers.group_norm(input, num_groups, weight, bias, eps)   # (its parser, then its checks)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """input / sqrt(mean(input**2) + eps) over the last len(normalized_shape) dimensions,
    times weight; eps None means the dtype's machine epsilon."""
    if _state.entry and _wants(locals()):
        return _handle(rms_norm, locals())
    arguments.tensor_(input, ("rms_norm", "input", 1))
    normalized_shape = tuple(arguments.int_list(normalized_shape, ("rms_norm",
                                                                   "normalized_shape", 2)))
    if weight is not None:
        arguments.tensor_(weight, ("rms_norm", "weight", 3))
    if eps is not None:
        arguments.float_(eps, ("rms_norm", "eps", 4))
    count = len(normalized_shape)
    _check(input.ndim >= count and tuple(input.shape[input.ndim - count:]) == normalized_shape,
           lambda: (f"Given normalized_shape={list(normalized_shape)}, expected input with "
                    f"shape [*{', '.join(str(s) for s in normalized_shape)}], but got input "
                    f"of size{list(input.shape)}"))
    if weight is not None:
        _check(tuple(weight.shape) == normalized_shape, lambda: (
            f"Expected weight to be of same shape as normalized_shape, but got weight of "
            f"shape {list(weight.shape)} and normalized_shape = {list(normalized_shape)}"))
    _check_not_implemented(input.dtype.is_floating_point or input.dtype.is_complex, lambda: (
        f'"rms_norm" not implemented for \'{input.dtype._cpp_name}\''))
    wide = input.dtype in _HALF
    x = input.float() if wide else input
    if eps is None:
        eps = finfo(x.dtype).eps
    dims = list(range(input.ndim - count, input.ndim))
    out = x * (x * x).mean(dims, keepdim=True).add(eps).rsqrt()
    if weight is not None:
        out = out * weight
    # The result keeps the input's dtype whatever the weight's (PyTorch: a float16 input with a
    # float32 weight is float16, scaled by the weight before the one rounding).
    if out.dtype != input.dtype:
        out = out.to(input.dtype)
    return out


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """input / (k + alpha * mean of input**2 over `size` neighbouring channels) ** beta (the
    window zero-padded at the ends and always divided by size)."""
    if _state.entry and _wants(locals()):
        return _handle(local_response_norm, locals())
    if input.ndim < 3:
        raise ValueError("Expected 3D or higher dimensionality input (got "
                         f"{input.ndim} dimensions)")
    if input.numel() == 0:
        return input
    squares = input * input
    channels = input.shape[1]
    before, after = size // 2, (size - 1) // 2
    pad_shape = list(input.shape)
    pieces = []
    if before:
        pad_shape[1] = before
        pieces.append(squares.new_zeros(pad_shape))
    pieces.append(squares)
    if after:
        pad_shape[1] = after
        pieces.append(squares.new_zeros(pad_shape))
    padded = call(_CAT, (pieces, 1)) if len(pieces) > 1 else squares
    window = padded.narrow(1, 0, channels)
    for offset in range(1, size):
        window = window + padded.narrow(1, offset, channels)
    div = (window * (alpha / size) + k).pow(beta)
    return input / div

