"""The `ember.*` forms of layers that PyTorch also exposes at the top level, with PyTorch's
positional signatures (`torch.max_pool1d(x, 2)`, `torch.batch_norm(...)` with all nine
arguments, `torch.lstm(input, hx, params, ...)` over a flat parameter list). Each is a thin
composite of `ember.nn.functional` (loaded on first call, through NOTE [upcalls]).
"""
from __future__ import annotations

import types

from ember._core import arguments, dispatch, upcalls
from ember._core.checked_entry import checked
from ember._core.checks import _check
from ember._core.dispatch import call
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.registry import OPS, register_frontend


def _functional():
    return upcalls.nn_module("functional")


def _stride(stride):
    """PyTorch's `int[1] stride=[]`: empty means the kernel size."""
    return None if stride is None or (not isinstance(stride, int) and len(stride) == 0) \
        else stride


# --------------------------------------------------------------------------- pooling

@register_frontend(method=False)
@checked("max_pool1d(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] padding=[0], "
         "int[1] dilation=[1], bool ceil_mode=False)")
def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """max_pool1d(input, kernel_size, stride=[], padding=0, dilation=1, ceil_mode=False)."""
    if _state.entry and _wants(locals()):
        return _handle(max_pool1d, locals())
    return _functional().max_pool1d(input, kernel_size, _stride(stride), padding, dilation,
                                    ceil_mode)


@register_frontend(method=False)
@checked("max_pool1d_with_indices(Tensor self, int[1] kernel_size, int[1] stride=[], "
         "int[1] padding=[0], int[1] dilation=[1], bool ceil_mode=False)")
def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1,
                            ceil_mode=False):
    """max_pool1d_with_indices(...) -> (values, indices)."""
    if _state.entry and _wants(locals()):
        return _handle(max_pool1d_with_indices, locals())
    return _functional().max_pool1d(input, kernel_size, _stride(stride), padding, dilation,
                                    ceil_mode, return_indices=True)


@register_frontend(method=False)
@checked("max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, "
         "int[2] dilation=1, bool ceil_mode=False)")
def max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """max_pool2d(input, kernel_size, stride=[], padding=0, dilation=1, ceil_mode=False)."""
    if _state.entry and _wants(locals()):
        return _handle(max_pool2d, locals())
    return _functional().max_pool2d(input, kernel_size, _stride(stride), padding, dilation,
                                    ceil_mode)


@register_frontend(method=False)
@checked("max_pool3d(Tensor self, int[3] kernel_size, int[3] stride=[], int[3] padding=0, "
         "int[3] dilation=1, bool ceil_mode=False)")
def max_pool3d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """max_pool3d(input, kernel_size, stride=[], padding=0, dilation=1, ceil_mode=False)."""
    if _state.entry and _wants(locals()):
        return _handle(max_pool3d, locals())
    return _functional().max_pool3d(input, kernel_size, _stride(stride), padding, dilation,
                                    ceil_mode)


@register_frontend(method=False)
@checked("avg_pool1d(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] padding=[0], "
         "bool ceil_mode=False, bool count_include_pad=True)")
def avg_pool1d(input, kernel_size, stride=(), padding=0, ceil_mode=False,
               count_include_pad=True):
    """avg_pool1d(input, kernel_size, stride=[], padding=0, ceil_mode=False,
    count_include_pad=True)."""
    if _state.entry and _wants(locals()):
        return _handle(avg_pool1d, locals())
    return _functional().avg_pool1d(input, kernel_size, _stride(stride), padding, ceil_mode,
                                    count_include_pad)


@register_frontend(method=False)
@checked("adaptive_avg_pool1d(Tensor self, int[1] output_size)")
def adaptive_avg_pool1d(input, output_size):
    """adaptive_avg_pool1d(input, output_size) -> Tensor."""
    if _state.entry and _wants(locals()):
        return _handle(adaptive_avg_pool1d, locals())
    return _functional().adaptive_avg_pool1d(input, output_size)


@register_frontend(method=False)
@checked("adaptive_max_pool1d(Tensor self, int[1] output_size)")
def adaptive_max_pool1d(input, output_size):
    """adaptive_max_pool1d(input, output_size) -> (values, indices)."""
    if _state.entry and _wants(locals()):
        return _handle(adaptive_max_pool1d, locals())
    return _functional().adaptive_max_pool1d(input, output_size, return_indices=True)


# --------------------------------------------------------------------------- normalisation

@register_frontend(method=False)
@checked("batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
         "Tensor? running_var, bool training, float momentum, float eps, bool cudnn_enabled)")
def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
               cudnn_enabled):
    """batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
    cudnn_enabled) -> Tensor (cudnn_enabled is accepted and ignored)."""
    if _state.entry and _wants(locals()):
        return _handle(batch_norm, locals())
    return _functional().batch_norm(input, running_mean, running_var, weight, bias, training,
                                    momentum, eps)


@register_frontend(method=False)
@checked("instance_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
         "Tensor? running_var, bool use_input_stats, float momentum, float eps, "
         "bool cudnn_enabled)")
def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum,
                  eps, cudnn_enabled):
    """instance_norm(input, weight, bias, running_mean, running_var, use_input_stats,
    momentum, eps, cudnn_enabled) -> Tensor."""
    if _state.entry and _wants(locals()):
        return _handle(instance_norm, locals())
    # (PyTorch's native op: none of F.instance_norm's Python prelude)
    return upcalls.nn_module("_functional.normalization").instance_norm_native(
        input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


@register_frontend(method=False)
@checked("layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, "
         "Tensor? bias=None, float eps=1.0000000000000001e-05, bool cudnn_enable=True)")
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5, cudnn_enable=True):
    """layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05,
    cudnn_enable=True) -> Tensor."""
    if _state.entry and _wants(locals()):
        return _handle(layer_norm, locals())
    return _functional().layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm_native(input, num_groups, weight=None, bias=None, eps=1e-5):
    """`torch.group_norm` past its Python prelude: PyTorch's native checks (channels divisible
    by the groups, weight and bias of one value per channel), then the kernel."""
    batch, channels = input.size(0), input.size(1)
    _check(num_groups > 0, lambda: f"Expected num groups to be greater than 0, got {num_groups}")
    _check(channels % num_groups == 0, lambda: (
        "Expected number of channels in input to be divisible by num_groups, but got input of "
        f"shape {list(input.shape)} and num_groups={num_groups}"))
    for name, t in (("weight", weight), ("bias", bias)):
        _check(t is None or (t.ndim == 1 and t.numel() == channels), lambda: (
            f"Expected {name} to be a vector of size equal to the number of channels in input, "
            f"but got {name} of shape {list(t.shape)} and input of shape {list(input.shape)}"))
    positions = 1
    for s in input.shape[2:]:
        positions *= s
    return call(OPS["native_group_norm"], (input, weight, bias, batch, channels, positions, num_groups,
                              eps))[0]


@register_frontend(method=False)
@checked("group_norm(Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None, "
         "float eps=1.0000000000000001e-05, bool cudnn_enabled=True)")
def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5, cudnn_enabled=True):
    """group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True)."""
    if _state.entry and _wants(locals()):
        return _handle(group_norm, locals())
    # (PyTorch's native function: no batch-size prelude; N and C read first: IndexError)
    return group_norm_native(input, num_groups, weight, bias, eps)


@register_frontend(method=False)
@checked("rms_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, "
         "float? eps=None)")
def rms_norm(input, normalized_shape, weight=None, eps=None):
    """rms_norm(input, normalized_shape, weight=None, eps=None) -> Tensor."""
    if _state.entry and _wants(locals()):
        return _handle(rms_norm, locals())
    return _functional().rms_norm(input, normalized_shape, weight, eps)


# --------------------------------------------------------------------------- activations

@register_frontend(method=False, name="selu")
@checked("selu(Tensor self)")
def selu_function(input):
    """selu(input) -> Tensor."""
    if _state.entry and _wants(locals()):
        return _handle(selu_function, locals())
    return _functional().selu(input)


@register_frontend(method=False, name="selu_")
def selu_inplace(input):
    """selu_(input) -> Tensor: SELU in place."""
    if _state.entry and _wants(locals()):
        return _handle(selu_inplace, locals())
    return _functional().selu(input, inplace=True)


@register_frontend(method=False, name="celu")
@checked("celu(Tensor self, Scalar alpha=1.)")
def celu_function(input, alpha=1.0):
    """celu(input, alpha=1.0) -> Tensor."""
    if _state.entry and _wants(locals()):
        return _handle(celu_function, locals())
    return _functional().celu(input, alpha)


@register_frontend(method=False, name="celu_")
def celu_inplace(input, alpha=1.0):
    """celu_(input, alpha=1.0) -> Tensor: CELU in place."""
    if _state.entry and _wants(locals()):
        return _handle(celu_inplace, locals())
    return _functional().celu(input, alpha, inplace=True)


@register_frontend(method=False, name="threshold_")
def threshold_inplace(input, threshold, value):
    """threshold_(input, threshold, value) -> Tensor: Threshold in place."""
    if _state.entry and _wants(locals()):
        return _handle(threshold_inplace, locals())
    return _functional().threshold(input, threshold, value, inplace=True)


def _as_double(value) -> float:
    """A Scalar read as a double, as PyTorch's kernels read one (a complex with an imaginary
    part overflows)."""
    if isinstance(value, complex):
        _check(value.imag == 0, "value cannot be converted to type double without overflow")
        return value.real
    return float(value)


@register_frontend(method=False, name="rrelu")
@checked("rrelu(Tensor self, Scalar lower=0.125, Scalar upper=0.33333333333333331, "
         "bool training=False, Generator? generator=None)")
def rrelu_function(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """rrelu(input, lower=0.125, upper=0.3333333333333333, training=False, generator=None)."""
    if _state.entry and _wants(locals()):
        return _handle(rrelu_function, locals())
    _check(_as_double(lower) <= _as_double(upper),
           "Lower bound should be less than or equal to the upper bound")
    if not training:
        return _functional().rrelu(input, lower, upper, False)
    return call(OPS["rrelu_with_noise_functional"], (
        input, input.new_empty(input.shape), lower, upper, True, generator))[0]


@register_frontend(method=False, name="rrelu_")
@checked("rrelu_(Tensor(a!) self, Scalar lower=0.125, Scalar upper=0.33333333333333331, "
         "bool training=False, Generator? generator=None)")
def rrelu_inplace(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """rrelu_(input, lower=0.125, upper=0.3333333333333333, training=False, generator=None)."""
    if _state.entry and _wants(locals()):
        return _handle(rrelu_inplace, locals())
    return input.copy_(rrelu_function(input, lower, upper, training, generator)) if training \
        else _functional().rrelu(input, lower, upper, False, inplace=True)


@register_frontend(name="prelu")
@checked("prelu(Tensor self, Tensor weight)")
def prelu_function(input, weight):
    """prelu(input, weight) -> Tensor: max(0, x) + weight * min(0, x), weight per channel."""
    if _state.entry and _wants(locals()):
        return _handle(prelu_function, locals())
    return _functional().prelu(input, weight)


# --------------------------------------------------------------------------- others

_GRID_MODES = ("bilinear", "nearest", "bicubic")
_GRID_PADDING = ("zeros", "border", "reflection")


@register_frontend(method=False)
@checked("grid_sampler(Tensor input, Tensor grid, int interpolation_mode, int padding_mode, "
         "bool align_corners)")
def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    """grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners): the enum
    form of grid_sample (0 bilinear, 1 nearest, 2 bicubic; 0 zeros, 1 border, 2 reflection).
    """
    if _state.entry and _wants(locals()):
        return _handle(grid_sampler, locals())
    return _functional().grid_sample(input, grid, _GRID_MODES[interpolation_mode],
                                     _GRID_PADDING[padding_mode], align_corners)


@register_frontend(method=False)
@checked("conv_tbc(Tensor self, Tensor weight, Tensor bias, int pad=0)")
def conv_tbc(input, weight, bias, pad=0):
    """conv_tbc(input, weight, bias, pad=0) -> Tensor: a 1-d convolution of a (time, batch,
    channels) input with a (kernel, in, out) weight."""
    if _state.entry and _wants(locals()):
        return _handle(conv_tbc, locals())
    for position, (arg, value) in enumerate((("self", input), ("weight", weight),
                                             ("bias", bias)), 1):
        arguments.tensor_(value, ("conv_tbc", arg, position))
    _check(input.dim() == 3, "Input must have 3 dims: time, batch, in_channel")
    _check(weight.dim() == 3, "Weight tensor must have 3 dims: kernel_width, in_channels, "
                              "out_channels.")
    _check(bias.dim() == 1, "Bias must be 1-D")
    out = _functional().conv1d(input.permute(1, 2, 0), weight.permute(2, 1, 0), bias,
                               padding=pad)
    return out.permute(2, 0, 1).contiguous()


# --------------------------------------------------------------------------- recurrent

def _run_rnn(mode, input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
             batch_first, batch_sizes=None):
    """The recurrent layers over a flat parameter list in nn.RNN's order (w_ih, w_hh[, b_ih,
    b_hh][, w_hr] per layer and direction): returns (output, [final state per hx entry])."""
    _rnn_steps = upcalls.nn_module("modules._rnn_steps")
    hx = list(hx)
    directions = 2 if bidirectional else 1
    per_direction = len(params) // (num_layers * directions)
    proj_size = 0
    if mode == "LSTM" and hx[0].shape[-1] != hx[1].shape[-1]:
        proj_size = hx[0].shape[-1]
    layers = types.SimpleNamespace(
        mode=mode, bidirectional=bidirectional, _flat_weights=list(params),
        num_layers=num_layers, bias=has_biases, proj_size=proj_size, dropout=dropout,
        training=train)
    _check(per_direction == 2 + 2 * has_biases + (proj_size > 0), lambda: (
        f"{mode.lower()}: expected {2 + 2 * has_biases + (proj_size > 0)} parameters per "
        f"layer and direction, got {len(params)} for {num_layers * directions}"))
    initial = list(zip(*[h.unbind(0) for h in hx]))
    if batch_sizes is not None:
        out, finals = _rnn_steps.run_layers(layers, input, initial, batch_sizes.tolist(), None)
    else:
        if batch_first:
            input = input.transpose(0, 1)
        steps, batch = input.shape[0], input.shape[1]
        out, finals = _rnn_steps.run_layers(
            layers, input.reshape(steps * batch, input.shape[2]), initial, None, steps)
        out = out.reshape(steps, batch, out.shape[1])
        if batch_first:
            out = out.transpose(0, 1)
    return out, [call(OPS["stack"], ([f[i] for f in finals], 0)) for i in range(len(hx))]


# NOTE [recurrent overloads]: `torch.lstm` (and gru, rnn_tanh, rnn_relu) has two schemas, the
# padded form (input, hx, params, ..., batch_first) and the packed form (data, batch_sizes, hx,
# params, ...; no batch_first). A call binds to the first schema its arguments fit (by
# position and PyTorch's keywords, each argument converted as PyTorch's parser converts it);
# one that fits none is the "invalid combination of arguments" TypeError. A plain positional
# call of the padded form pays one test per argument.
_RNN_FLAGS = "bool has_biases, int num_layers, float dropout, bool train, bool bidirectional"


def _recurrent_forms(name, hx_type):
    from ember._core.checked_entry import _Entry
    import inspect
    forms = []
    for text in (f"{name}.input(Tensor input, {hx_type} hx, Tensor[] params, {_RNN_FLAGS}, "
                 "bool batch_first)",
                 f"{name}.data(Tensor data, Tensor batch_sizes, {hx_type} hx, Tensor[] params, "
                 f"{_RNN_FLAGS})"):
        names = [a.split()[-1] for a in text.split("(", 1)[1].rstrip(")").split(", ")]
        signature = inspect.Signature([inspect.Parameter(
            n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in names])
        forms.append((_Entry(text, names, signature.parameters), signature))
    return forms


def _recurrent_arguments(name, forms, args, kwargs):
    """(packed?, the arguments in the chosen schema's order), NOTE [recurrent overloads]."""
    fitting = []
    for packed, (entry, signature) in enumerate(forms):
        try:
            named = signature.bind(*args, **kwargs).arguments
        except TypeError:
            continue
        fitting.append((packed, entry, named))
        if entry.plain(named):
            return packed, list(named.values())
    for packed, entry, named in fitting:
        try:
            converted = entry.parse(named, kwargs.keys())
        except TypeError:
            if len(fitting) == 1:
                raise
            continue
        return packed, [converted[n] for n in named]
    raise arguments._combination_error(
        name, [arguments.type_name(v) for v in args] +
        [f"{k}={arguments.type_name(v)}" for k, v in kwargs.items()],
        [entry.schema for entry, _ in forms], False)


def _check_recurrent(mode, name, hx, params, has_biases, num_layers, bidirectional):
    """PyTorch's checks of the states and the flat parameter list, before any step."""
    if mode == "LSTM":
        _check(len(hx) == 2, f"{name} expects two hidden states")
    per_cell = 4 if has_biases else 2
    if mode == "LSTM" and hx[0].dim() > 0 and hx[1].dim() > 0 and \
            hx[0].shape[-1] != hx[1].shape[-1]:
        per_cell += 1                                 # (the projection weight)
    _check(len(params) % per_cell == 0, "got an incorrect number of RNN parameters")
    cells = num_layers * (2 if bidirectional else 1)
    _check(hx[0].dim() > 0 and hx[0].shape[0] == cells,
           "Expected more hidden states in stacked_rnn")
    _check(len(params) // per_cell == cells, "Expected more weights in stacked_rnn")


def _recurrent(mode, name):
    forms = []

    def run(*args, **kwargs):
        """input form: (input, hx, params, has_biases, num_layers, dropout, train,
        bidirectional, batch_first); packed form: (data, batch_sizes, hx, params, has_biases,
        num_layers, dropout, train, bidirectional)."""
        if _state.entry and _wants(locals()):
            return _handle(run, locals())
        if not forms:
            forms.extend(_recurrent_forms(name, "Tensor[]" if mode == "LSTM" else "Tensor"))
        packed, values = _recurrent_arguments(name, forms, args, kwargs)
        if packed:
            input, batch_sizes, hx, params, *flags = values
            flags.append(False)
        else:
            input, hx, params, *flags = values
            batch_sizes = None
        states = list(hx) if mode == "LSTM" else [hx]
        _check_recurrent(mode, name, states, params, flags[0], flags[1], flags[4])
        out, finals = _run_rnn(mode, input, states, params, *flags, batch_sizes=batch_sizes)
        return (out, *finals)
    run.__name__ = run.__qualname__ = name
    return run


lstm = register_frontend("lstm", method=False)(_recurrent("LSTM", "lstm"))
gru = register_frontend("gru", method=False)(_recurrent("GRU", "gru"))
rnn_tanh = register_frontend("rnn_tanh", method=False)(_recurrent("RNN_TANH", "rnn_tanh"))
rnn_relu = register_frontend("rnn_relu", method=False)(_recurrent("RNN_RELU", "rnn_relu"))
