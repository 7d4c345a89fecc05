"""The torch.* forms of neural-network functions (`torch.layer_norm`, `torch.max_pool2d`,
`torch.celu_` ...), with PyTorch's top-level signatures (positional cudnn flags, `stride=[]`
meaning the kernel size, the pools' (output, indices) pairs), over `ember.nn.functional`.
"""
from __future__ import annotations

import ember
from ember._core.registry import register_frontend


def _functional():
    return ember.nn.functional


@register_frontend("celu", method=False)
def celu(input, alpha=1.0):
    """celu(input, alpha=1.0) -> Tensor: max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    return _functional().celu(input, alpha)


@register_frontend("celu_", method=False)
def celu_(input, alpha=1.0):
    """celu_(input, alpha=1.0) -> Tensor: celu, in place."""
    return _functional().celu_(input, alpha)


@register_frontend("selu", method=False)
def selu(input):
    """selu(input) -> Tensor: scale * (max(0, x) + min(0, alpha * (exp(x) - 1)))."""
    return _functional().selu(input)


@register_frontend("selu_", method=False)
def selu_(input):
    """selu_(input) -> Tensor: selu, in place."""
    return _functional().selu_(input)


@register_frontend("rrelu", method=False)
def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """rrelu(input, lower=1/8, upper=1/3, training=False, generator=None) -> Tensor: leaky relu
    with a random slope in [lower, upper] when training, their mean otherwise."""
    return _functional().rrelu(input, lower, upper, training)


@register_frontend("rrelu_", method=False)
def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """rrelu_(input, lower=1/8, upper=1/3, training=False, generator=None) -> Tensor: rrelu, in
    place."""
    return _functional().rrelu_(input, lower, upper, training)


@register_frontend("prelu")
def prelu(input, weight):
    """prelu(input, weight) -> Tensor: max(0, x) + weight * min(0, x), weight per channel."""
    return _functional().prelu(input, weight)


@register_frontend("layer_norm", method=False)
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5, cudnn_enable=True):
    """layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05,
    cudnn_enable=True) -> Tensor: F.layer_norm (cudnn_enable is ignored)."""
    return _functional().layer_norm(input, normalized_shape, weight, bias, eps)


@register_frontend("rms_norm", method=False)
def rms_norm(input, normalized_shape, weight=None, eps=None):
    """rms_norm(input, normalized_shape, weight=None, eps=None) -> Tensor: F.rms_norm."""
    return _functional().rms_norm(input, normalized_shape, weight, eps)


@register_frontend("group_norm", method=False)
def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5, cudnn_enabled=True):
    """group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True) ->
    Tensor: F.group_norm (cudnn_enabled is ignored)."""
    return _functional().group_norm(input, num_groups, weight, bias, eps)


@register_frontend("batch_norm", method=False)
def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
               cudnn_enabled):
    """batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
    cudnn_enabled) -> Tensor: F.batch_norm with every argument given (cudnn_enabled ignored)."""
    return _functional().batch_norm(input, running_mean, running_var, weight, bias, training,
                                    momentum, eps)


@register_frontend("instance_norm", method=False)
def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum,
                  eps, cudnn_enabled):
    """instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum,
    eps, cudnn_enabled) -> Tensor: F.instance_norm with every argument given."""
    return _functional().instance_norm(input, running_mean, running_var, weight, bias,
                                       use_input_stats, momentum, eps)


def _stride(stride, kernel_size):
    """PyTorch's top-level pools take stride=[] (or None) for "the kernel size"."""
    if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0):
        return None
    return stride


def _max_pool(name, with_indices):
    def pool(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
        function = getattr(_functional(), name)
        return function(input, kernel_size, _stride(stride, kernel_size), padding, dilation,
                        ceil_mode, return_indices=with_indices)
    shown = name + ("_with_indices" if with_indices else "")
    pool.__name__ = pool.__qualname__ = shown
    pool.__doc__ = (f"{shown}(input, kernel_size, stride=[], padding=0, dilation=1, "
                    f"ceil_mode=False) -> {'(Tensor, Tensor)' if with_indices else 'Tensor'}: "
                    f"F.{name} (an empty stride means the kernel size).")
    return pool


register_frontend("max_pool1d", method=False)(_max_pool("max_pool1d", False))
register_frontend("max_pool2d", method=False)(_max_pool("max_pool2d", False))
register_frontend("max_pool3d", method=False)(_max_pool("max_pool3d", False))
register_frontend("max_pool1d_with_indices", method=False)(_max_pool("max_pool1d", True))


@register_frontend("avg_pool1d", method=False)
def avg_pool1d(input, kernel_size, stride=(), padding=0, ceil_mode=False,
               count_include_pad=True):
    """avg_pool1d(input, kernel_size, stride=[], padding=0, ceil_mode=False,
    count_include_pad=True) -> Tensor: F.avg_pool1d (an empty stride means the kernel size)."""
    return _functional().avg_pool1d(input, kernel_size, _stride(stride, kernel_size), padding,
                                    ceil_mode, count_include_pad)


@register_frontend("adaptive_avg_pool1d", method=False)
def adaptive_avg_pool1d(input, output_size):
    """adaptive_avg_pool1d(input, output_size) -> Tensor: F.adaptive_avg_pool1d."""
    return _functional().adaptive_avg_pool1d(input, output_size)


@register_frontend("adaptive_max_pool1d", method=False)
def adaptive_max_pool1d(input, output_size):
    """adaptive_max_pool1d(input, output_size) -> (Tensor, Tensor): F.adaptive_max_pool1d's
    output and indices."""
    return _functional().adaptive_max_pool1d(input, output_size, return_indices=True)
