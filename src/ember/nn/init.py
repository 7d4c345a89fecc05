"""`ember.nn.init`: fill a parameter in place (uniform, normal, truncated normal, Xavier, Kaiming,
orthogonal, sparse, eye, Dirac, constants), as `torch.nn.init` does.

NOTE [initialisers draw as PyTorch draws]: every initialiser makes the same random calls, in
the same order, with the same arguments, as PyTorch 2.13's (`kaiming_uniform_` is one
`tensor.uniform_(-bound, bound, generator=...)`; `orthogonal_` one `new_empty(...).normal_`
before its QR; `trunc_normal_` PyTorch's rejection loops). With PyTorch-identical random
streams, `manual_seed(s)` followed by an initialiser gives PyTorch's values exactly. Do not
reorder draws or merge them "for speed".

Everything runs under `no_grad`: initialising a Parameter is not part of any graph.
"""
from __future__ import annotations

import math
import warnings

import ember
from ember.overrides import handle_torch_function, has_torch_function_variadic

__all__ = [
    "calculate_gain",
    "constant",
    "constant_",
    "dirac",
    "dirac_",
    "eye",
    "eye_",
    "kaiming_normal",
    "kaiming_normal_",
    "kaiming_uniform",
    "kaiming_uniform_",
    "normal",
    "normal_",
    "ones_",
    "orthogonal",
    "orthogonal_",
    "sparse",
    "sparse_",
    "trunc_normal_",
    "uniform",
    "uniform_",
    "xavier_normal",
    "xavier_normal_",
    "xavier_uniform",
    "xavier_uniform_",
    "zeros_",
]

_LINEAR_NONLINEARITIES = frozenset((
    "linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
    "conv_transpose3d",
))


# -- the no_grad building blocks (named as PyTorch names them) -----------------------------------

def _no_grad_uniform_(tensor, a, b, generator=None):
    with ember.no_grad():
        return tensor.uniform_(a, b, generator=generator)


def _no_grad_normal_(tensor, mean, std, generator=None):
    with ember.no_grad():
        return tensor.normal_(mean, std, generator=generator)


def _normal_cdf(x: float) -> float:
    return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0


def _no_grad_trunc_normal_(tensor, mean, std, a, b, generator=None):
    if tensor.is_meta:
        return tensor
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
                      "The distribution of values may be incorrect.", stacklevel=2)
    with ember.no_grad():
        mass_inside = _normal_cdf((b - mean) / std) - _normal_cdf((a - mean) / std)
        if mass_inside > 0.3:
            _redraw_outside_normal(tensor, mean, std, a, b, generator)
        else:
            _uniform_rejection(tensor, mean, std, a, b, generator)
        return tensor


def _redraw_outside_normal(tensor, mean, std, a, b, generator):
    """Most of the normal lies in [a, b]: draw normals, redraw (a whole tensor's worth each
    round, as PyTorch does) wherever the value fell outside, until none does."""
    # The bounds as the tensor's dtype holds them, so the test agrees with stored values.
    low = tensor.new_tensor(a).item()
    high = tensor.new_tensor(b).item()
    result = tensor.normal_(mean, std, generator=generator)
    while True:
        outside = (result < low) | (result > high)
        if not outside.any():
            break
        fresh = ember.empty_like(result).normal_(mean, std, generator=generator)
        result = ember.where(outside, fresh, result)
    if result is not tensor:
        tensor.copy_(result)


def _uniform_rejection(tensor, mean, std, a, b, generator):
    """Little of the normal lies in [a, b]: propose uniformly on [a, b] and accept with
    probability pdf(x) / pdf(mode), in log space; rejected places get new proposals."""
    mode = max(a, min(mean, b))
    log_peak = -0.5 * ((mode - mean) / std) ** 2
    candidates = ember.empty_like(tensor)
    accept_draws = ember.empty_like(tensor)
    tensor.uniform_(a, b, generator=generator)
    candidates.copy_(tensor)
    _log_density_ratio_(candidates, mean, std, log_peak)
    pending = accept_draws.uniform_(generator=generator).log_().gt(candidates)
    if not pending.any():
        return
    result = tensor
    while True:
        candidates.uniform_(a, b, generator=generator)
        result = ember.where(pending, candidates, result)
        _log_density_ratio_(candidates, mean, std, log_peak)
        rejected = accept_draws.uniform_(generator=generator).log_().gt(candidates)
        pending = ember.where(pending, rejected, pending)
        if not pending.any():
            break
    tensor.copy_(result)


def _log_density_ratio_(values, mean, std, log_peak):
    # log(pdf(x) / pdf(mode)) = -((x - mean) / std)^2 / 2 - log_peak, in place.
    values.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)


def _no_grad_fill_(tensor, val):
    with ember.no_grad():
        return tensor.fill_(val)


def _no_grad_zero_(tensor):
    with ember.no_grad():
        return tensor.zero_()


# -- gains and fans ------------------------------------------------------------------------------

def calculate_gain(nonlinearity, param=None) -> float:
    """The recommended scale of weights feeding `nonlinearity` (linear and conv: 1, sigmoid: 1,
    tanh: 5/3, relu: sqrt(2), leaky_relu: sqrt(2 / (1 + slope^2)), selu: 3/4)."""
    if nonlinearity in _LINEAR_NONLINEARITIES or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif isinstance(param, float) or (isinstance(param, int) and not isinstance(param, bool)):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor) -> tuple[int, int]:
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than "
                         "2 dimensions")
    receptive_field = 1
    for size in tensor.shape[2:]:
        receptive_field *= size
    return tensor.size(1) * receptive_field, tensor.size(0) * receptive_field


def _calculate_correct_fan(tensor, mode) -> int:
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


# -- the initialisers ----------------------------------------------------------------------------

def uniform_(tensor, a: float = 0.0, b: float = 1.0, generator=None):
    """Fill `tensor` with draws from U(a, b)."""
    if has_torch_function_variadic(tensor):
        return handle_torch_function(uniform_, (tensor,), tensor=tensor, a=a, b=b,
                                     generator=generator)
    return _no_grad_uniform_(tensor, a, b, generator)


def normal_(tensor, mean: float = 0.0, std: float = 1.0, generator=None):
    """Fill `tensor` with draws from N(mean, std^2)."""
    if has_torch_function_variadic(tensor):
        return handle_torch_function(normal_, (tensor,), tensor=tensor, mean=mean, std=std,
                                     generator=generator)
    return _no_grad_normal_(tensor, mean, std, generator)


def trunc_normal_(tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0,
                  generator=None):
    """Fill `tensor` with draws from N(mean, std^2) restricted to [a, b]."""
    return _no_grad_trunc_normal_(tensor, mean, std, a, b, generator=generator)


def constant_(tensor, val: float):
    """Fill `tensor` with `val`."""
    if has_torch_function_variadic(tensor):
        return handle_torch_function(constant_, (tensor,), tensor=tensor, val=val)
    return _no_grad_fill_(tensor, val)


def ones_(tensor):
    """Fill `tensor` with 1."""
    return _no_grad_fill_(tensor, 1.0)


def zeros_(tensor):
    """Fill `tensor` with 0."""
    return _no_grad_zero_(tensor)


def eye_(tensor):
    """Fill the 2-D `tensor` with the identity (ones on the main diagonal)."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with ember.no_grad():
        tensor.zero_()
        tensor.diagonal().fill_(1)
    return tensor


def dirac_(tensor, groups: int = 1):
    """Fill the 3-, 4- or 5-D `tensor` (a convolution weight) so that the convolution passes
    its first input channels through unchanged, in each of `groups` groups."""
    dims = tensor.dim()
    if dims not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.size()
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_per_group = sizes[0] // groups
    identity_channels = min(out_per_group, sizes[1])
    centre = tuple(size // 2 for size in sizes[2:])
    with ember.no_grad():
        tensor.zero_()
        for group in range(groups):
            for channel in range(identity_channels):
                tensor[(group * out_per_group + channel, channel) + centre] = 1
    return tensor


def xavier_uniform_(tensor, gain: float = 1.0, generator=None):
    """Glorot's uniform: U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    bound = math.sqrt(3.0) * std
    return _no_grad_uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor, gain: float = 1.0, generator=None):
    """Glorot's normal: N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return _no_grad_normal_(tensor, 0.0, std, generator)


def kaiming_uniform_(tensor, a: float = 0, mode: str = "fan_in",
                     nonlinearity: str = "leaky_relu", generator=None):
    """He's uniform: U(-bound, bound) with bound = gain(nonlinearity, a) * sqrt(3 / fan)."""
    if has_torch_function_variadic(tensor):
        return handle_torch_function(kaiming_uniform_, (tensor,), tensor=tensor, a=a, mode=mode,
                                     nonlinearity=nonlinearity, generator=generator)
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    with ember.no_grad():
        return tensor.uniform_(-bound, bound, generator=generator)


def kaiming_normal_(tensor, a: float = 0, mode: str = "fan_in",
                    nonlinearity: str = "leaky_relu", generator=None):
    """He's normal: N(0, std^2) with std = gain(nonlinearity, a) / sqrt(fan)."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    with ember.no_grad():
        return tensor.normal_(0, std, generator=generator)


def orthogonal_(tensor, gain: float = 1, generator=None):
    """Fill `tensor` (viewed as rows x rest) with a (semi-)orthogonal matrix times `gain`, the
    Q of a Gaussian matrix's QR with signs fixed so that Q is uniformly distributed."""
    from ember._ops.decomposition import qr
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0 or tensor.is_meta:
        return tensor
    rows = tensor.size(0)
    cols = tensor.numel() // rows
    with ember.no_grad():
        gaussian = tensor.new_empty((rows, cols)).normal_(0, 1, generator=generator)
        if rows < cols:
            gaussian = gaussian.t()
        q, r = qr(gaussian)
        # Multiplying column j by sign(R[j, j]) makes Q Haar-distributed (Mezzadri, 2007).
        q *= r.diagonal().sign()
        if rows < cols:
            q = q.t()
        tensor.view_as(q).copy_(q)
        tensor.mul_(gain)
    return tensor


def sparse_(tensor, sparsity: float, std: float = 0.01, generator=None):
    """Fill the 2-D `tensor` with N(0, std^2) draws, then zero `ceil(sparsity * rows)` randomly
    chosen entries in each column."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    if tensor.is_meta:
        return tensor
    rows, cols = tensor.shape
    zeros_per_column = math.ceil(sparsity * rows)
    with ember.no_grad():
        tensor.normal_(0, std, generator=generator)
        # PyTorch draws each column's permutation from the default generator, not `generator`.
        for column in range(cols):
            zeroed_rows = ember.randperm(rows)[:zeros_per_column]
            tensor[zeroed_rows, column] = 0
    return tensor


# -- the old names without the trailing underscore (deprecated, as in PyTorch) -------------------

def _deprecated_alias(initialiser):
    new_name = initialiser.__name__
    old_name = new_name[:-1]

    def deprecated(*args, **kwargs):
        warnings.warn(f"`nn.init.{old_name}` is now deprecated in favor of "
                      f"`nn.init.{new_name}`.", FutureWarning, stacklevel=2)
        return initialiser(*args, **kwargs)

    deprecated.__name__ = deprecated.__qualname__ = old_name
    deprecated.__doc__ = f"Deprecated alias of `{new_name}`."
    return deprecated


uniform = _deprecated_alias(uniform_)
normal = _deprecated_alias(normal_)
constant = _deprecated_alias(constant_)
eye = _deprecated_alias(eye_)
dirac = _deprecated_alias(dirac_)
xavier_uniform = _deprecated_alias(xavier_uniform_)
xavier_normal = _deprecated_alias(xavier_normal_)
kaiming_uniform = _deprecated_alias(kaiming_uniform_)
kaiming_normal = _deprecated_alias(kaiming_normal_)
orthogonal = _deprecated_alias(orthogonal_)
sparse = _deprecated_alias(sparse_)
