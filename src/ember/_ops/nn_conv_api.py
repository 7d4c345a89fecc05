"""The conv1d..conv3d and conv_transpose1d..conv_transpose3d functions (`ember.conv2d`, also
`ember.nn.functional.conv2d`): argument normalisation (ints or tuples, padding strings,
unbatched inputs) around the one `convolution` entry (nn_conv.py)."""
from __future__ import annotations

from ember._core import arguments, dispatch
from ember._core.checks import _check
from ember._core.dispatch import call
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.registry import OPS, register_frontend

_CONVOLUTION = OPS["convolution"]
_INT64 = 1 << 63


def _tuple(value, d, name):
    """An int or a sequence as PyTorch's SymInt[d] argument (a length-1 list repeats)."""
    if isinstance(value, int):
        return (value,) * d
    values = tuple(value)
    if len(values) == 1:
        return values * d
    _check(len(values) == d, lambda: (
        f"expected {name} to be a single integer value or a list of {d} values to match the "
        f"convolution dimensions, but got {name}={list(values)}"))
    return values


def _plain(input, weight, bias, groups, *int_lists):
    """The cheap test that the arguments need no parsing (tensors, plain ints and int tuples)."""
    tensor = dispatch.Tensor
    return type(groups) is int and -_INT64 <= groups < _INT64 and isinstance(input, tensor) \
        and isinstance(weight, tensor) and (bias is None or isinstance(bias, tensor)) and all(
            type(v) is int and -_INT64 <= v < _INT64 or type(v) in (tuple, list) and
            all(type(i) is int and -_INT64 <= i < _INT64 for i in v) for v in int_lists)


def _parse(name, values, names, overloaded):
    """PyTorch's parser over the arguments of a call that failed `_plain`: their converted
    values, or its TypeError (for conv1d..conv3d, whose padding may also be a string, the
    "invalid combination of arguments" one) and its ValueError for an int past 64 bits."""
    out = []
    try:
        for position, (value, (arg, kind)) in enumerate(zip(values, names)):
            where = (name, arg, None if overloaded else position + 1)
            if kind == "Tensor?" and value is None or kind == "str" and isinstance(value, str) \
                    or kind == "int[]" and type(value) is int:
                out.append(value)
            elif kind.startswith("Tensor"):
                out.append(arguments.tensor_(value, where))
            elif kind == "int":
                out.append(arguments.int_(value, where))
            else:                                   # (a str padding has failed here)
                out.append(arguments.int_list(value, where))
    except TypeError:
        if not overloaded:
            raise
        got = ", ".join(arguments.type_name(v) for v in values)
        raise TypeError(f"{name}() received an invalid combination of arguments - got ({got}), "
                        f"but expected one of:\n * (Tensor input, Tensor weight, Tensor bias = "
                        f"None, tuple of ints stride = 1, tuple of ints padding = 0, tuple of "
                        f"ints dilation = 1, int groups = 1)\n * (Tensor input, Tensor weight, "
                        f"Tensor bias = None, tuple of ints stride = 1, str padding = \"valid\", "
                        f"tuple of ints dilation = 1, int groups = 1)\n") from None
    for value in out:
        for item in value if isinstance(value, tuple) else (value,):
            if type(item) is int and not -2 ** 63 <= item < 2 ** 63:
                raise ValueError("Overflow when unpacking long long")
    return out


_CONV_ARGS = (("input", "Tensor"), ("weight", "Tensor"), ("bias", "Tensor?"),
              ("stride", "int[]"), ("padding", "str"), ("dilation", "int[]"), ("groups", "int"))
_TRANSPOSE_ARGS = (("input", "Tensor"), ("weight", "Tensor"), ("bias", "Tensor?"),
                   ("stride", "int[]"), ("padding", "int[]"), ("output_padding", "int[]"),
                   ("groups", "int"), ("dilation", "int[]"))


def _batched(input, d, name):
    """(input with a batch dim, whether one was added); PyTorch's message for other ranks."""
    ndim = input.ndim
    _check(ndim in (d + 1, d + 2), lambda: (
        f"Expected {d + 1}D (unbatched) or {d + 2}D (batched) input to {name}, but got input of "
        f"size: {list(input.shape)}"))
    return (input.unsqueeze(0), True) if ndim == d + 1 else (input, False)


def _same_padding(input, weight, dilation, d):
    """'same': (symmetric padding, input padded by one more on the right where the total is
    odd, as PyTorch pads even kernels)."""
    total = [dl * (k - 1) for dl, k in zip(dilation, weight.shape[2:])]
    symmetric = tuple(t // 2 for t in total)
    extra = []
    for t in reversed(total):     # constant_pad_nd lists the last dim first
        extra.extend((0, t % 2))
    if any(extra):
        input = call(OPS["constant_pad_nd"], (input, extra, 0))
    return input, symmetric


def _conv(name, d, input, weight, bias, stride, padding, dilation, groups):
    if not _plain(input, weight, bias, groups, stride, dilation) or not (
            isinstance(padding, str) or _plain(input, weight, bias, groups, padding)):
        input, weight, bias, stride, padding, dilation, groups = _parse(
            name, (input, weight, bias, stride, padding, dilation, groups), _CONV_ARGS, True)
    batched_input, added = _batched(input, d, name)
    stride = _tuple(stride, d, "stride")
    dilation = _tuple(dilation, d, "dilation")
    if isinstance(padding, str):
        _check(padding in ("same", "valid"), lambda: f"Invalid padding string: '{padding}'")
        if padding == "valid":
            padding = (0,) * d
        else:
            _check(all(s == 1 for s in stride),
                   "padding='same' is not supported for strided convolutions")
            batched_input, padding = _same_padding(batched_input, weight, dilation, d)
    else:
        padding = _tuple(padding, d, "padding")
    out = call(_CONVOLUTION, (batched_input, weight, bias, stride, padding, dilation, False,
                              (0,) * d, groups))
    return out.squeeze(0) if added else out


def _conv_transpose(name, d, input, weight, bias, stride, padding, output_padding, groups,
                    dilation):
    if not _plain(input, weight, bias, groups, stride, padding, output_padding, dilation):
        input, weight, bias, stride, padding, output_padding, groups, dilation = _parse(
            name, (input, weight, bias, stride, padding, output_padding, groups, dilation),
            _TRANSPOSE_ARGS, False)
    batched_input, added = _batched(input, d, name)
    out = call(_CONVOLUTION, (
        batched_input, weight, bias, _tuple(stride, d, "stride"), _tuple(padding, d, "padding"),
        _tuple(dilation, d, "dilation"), True, _tuple(output_padding, d, "output_padding"),
        groups))
    return out.squeeze(0) if added else out


@register_frontend("conv1d", method=False)
def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Tensor:
    a 1-d convolution over (N, C, L) or (C, L); `padding` may be 'valid' or 'same'."""
    if _state.entry and _wants(locals()):
        return _handle(conv1d, locals())
    return _conv("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


@register_frontend("conv2d", method=False)
def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Tensor:
    a 2-d convolution over (N, C, H, W) or (C, H, W); `padding` may be 'valid' or 'same'."""
    if _state.entry and _wants(locals()):
        return _handle(conv2d, locals())
    return _conv("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


@register_frontend("conv3d", method=False)
def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Tensor:
    a 3-d convolution over (N, C, D, H, W) or (C, D, H, W); `padding` may be 'valid' or
    'same'."""
    if _state.entry and _wants(locals()):
        return _handle(conv3d, locals())
    return _conv("conv3d", 3, input, weight, bias, stride, padding, dilation, groups)


@register_frontend("conv_transpose1d", method=False)
def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
    groups=1, dilation=1) -> Tensor: the transposed 1-d convolution ("deconvolution")."""
    if _state.entry and _wants(locals()):
        return _handle(conv_transpose1d, locals())
    return _conv_transpose("conv_transpose1d", 1, input, weight, bias, stride, padding,
                           output_padding, groups, dilation)


@register_frontend("conv_transpose2d", method=False)
def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
    groups=1, dilation=1) -> Tensor: the transposed 2-d convolution ("deconvolution")."""
    if _state.entry and _wants(locals()):
        return _handle(conv_transpose2d, locals())
    return _conv_transpose("conv_transpose2d", 2, input, weight, bias, stride, padding,
                           output_padding, groups, dilation)


@register_frontend("conv_transpose3d", method=False)
def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
    groups=1, dilation=1) -> Tensor: the transposed 3-d convolution ("deconvolution")."""
    if _state.entry and _wants(locals()):
        return _handle(conv_transpose3d, locals())
    return _conv_transpose("conv_transpose3d", 3, input, weight, bias, stride, padding,
                           output_padding, groups, dilation)
