"""Pooling functions of `ember.nn.functional`: max / average / adaptive / power-average
pooling and max unpooling. The 2-d and 3-d forms call the registry ops of
`ember._ops.nn_pooling`; the 1-d forms run the 2-d ops on a height-1 view, as PyTorch does."""
from __future__ import annotations

import math

from ember._core import arguments, dispatch
from ember._core.checked_entry import checked
from ember._core.checks import _check, _check_value
from ember._core.dispatch import call
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.registry import OPS

__all__ = [
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_avg_pool3d",
    "adaptive_max_pool1d",
    "adaptive_max_pool1d_with_indices",
    "adaptive_max_pool2d",
    "adaptive_max_pool2d_with_indices",
    "adaptive_max_pool3d",
    "adaptive_max_pool3d_with_indices",
    "avg_pool1d",
    "avg_pool2d",
    "avg_pool3d",
    "fractional_max_pool2d",
    "fractional_max_pool2d_with_indices",
    "fractional_max_pool3d",
    "fractional_max_pool3d_with_indices",
    "lp_pool1d",
    "lp_pool2d",
    "lp_pool3d",
    "max_pool1d",
    "max_pool1d_with_indices",
    "max_pool2d",
    "max_pool2d_with_indices",
    "max_pool3d",
    "max_pool3d_with_indices",
    "max_unpool1d",
    "max_unpool2d",
    "max_unpool3d",
]


def _ntuple(n):
    # (ember.nn.modules.utils has these too; importing it from here would be circular.)
    def parse(x):
        if type(x) is int:
            return (x,) * n
        if isinstance(x, (list, tuple)):
            return tuple(x)
        if isinstance(x, dispatch.Tensor):
            return x              # (as given: the parser refuses a tensor for an int list)
        return (x,) * n
    return parse


_single, _pair, _triple = _ntuple(1), _ntuple(2), _ntuple(3)


def _parsed_call(key, name, args):
    """The op `key` called on `args` once PyTorch's parser has checked them, under the name the
    public function has (NOTE [the parser's errors come first]); plain arguments (a tensor,
    then int tuples, ints, bools and None) skip the parser."""
    op = OPS[key]
    if not _plain(args):
        args = arguments.parser_error(op, args, name)
    return call(op, args)


def _plain(args) -> bool:
    if not isinstance(args[0], dispatch.Tensor):
        return False
    for value in args[1:]:
        kind = type(value)
        if kind is tuple:
            if any(type(item) is not int for item in value):
                return False
        elif not (kind is int or kind is bool or value is None or
                  isinstance(value, dispatch.Tensor)):
            return False
    return True


def _check_1d(input, name, message_kind):
    arguments.tensor_(input, (name, "input", 1))
    if message_kind == "pool":
        _check(input.ndim in (2, 3) and all(s != 0 for s in input.shape[-2:]), lambda: (
            f"{name}: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for "
            f"input, but got:{list(input.shape)}"))
    else:
        _check(input.ndim in (2, 3), lambda: (
            f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument "
            f"#1 'self' (while checking arguments for {name})"))


def _stride(stride, kernel, expand):
    return () if stride is None or (isinstance(stride, (list, tuple)) and not stride) \
        else expand(stride)


# --------------------------------------------------------------------------- max pooling

def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """max_pool1d returning (values, indices)."""
    if _state.entry and _wants(locals()):
        return _handle(max_pool1d_with_indices, locals())
    if not _plain((input, kernel_size, stride, padding, dilation, ceil_mode)):
        # (PyTorch's parser before the dimension check: NOTE [the parser's errors come first])
        name = "max_pool1d_with_indices" if return_indices else "max_pool1d"
        input, kernel_size, stride, padding, dilation, ceil_mode = _max_pool1d_arguments(
            name, input, kernel_size, () if stride is None else stride, padding, dilation,
            ceil_mode)
    _check_1d(input, "max_pool1d", "pool")
    stride = _stride(stride, kernel_size, _single)
    values, indices = _parsed_call("max_pool2d_with_indices", "max_pool1d", (
        input.unsqueeze(-2), (1,) + _single(kernel_size), (1,) + stride if stride else (),
        (0,) + _single(padding), (1,) + _single(dilation), ceil_mode))
    return values.squeeze(-2), indices.squeeze(-2)


_MAX_POOL1D = ("(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] padding=0, "
               "int[1] dilation=1, bool ceil_mode=False)")
_max_pool1d_parsers = {
    name: checked(name + _MAX_POOL1D)(
        lambda input, kernel_size, stride, padding, dilation, ceil_mode:
        (input, kernel_size, stride, padding, dilation, ceil_mode))
    for name in ("max_pool1d", "max_pool1d_with_indices")}


def _max_pool1d_arguments(name, *args):
    return _max_pool1d_parsers[name](*args)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Max over sliding windows of the last dim of (N, C, L) or (C, L)."""
    if _state.entry and _wants(locals()):
        return _handle(max_pool1d, locals())
    values, indices = max_pool1d_with_indices(input, kernel_size, stride, padding, dilation,
                                              ceil_mode, return_indices)
    return (values, indices) if return_indices else values


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """max_pool2d returning (values, indices)."""
    if _state.entry and _wants(locals()):
        return _handle(max_pool2d_with_indices, locals())
    return _parsed_call("max_pool2d_with_indices", "max_pool2d_with_indices", (
        input, _pair(kernel_size), _stride(stride, kernel_size, _pair), _pair(padding),
        _pair(dilation), ceil_mode))


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Max over sliding 2-d windows of (N, C, H, W) or (C, H, W)."""
    if _state.entry and _wants(locals()):
        return _handle(max_pool2d, locals())
    values, indices = max_pool2d_with_indices(input, kernel_size, stride, padding, dilation,
                                              ceil_mode)
    return (values, indices) if return_indices else values


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """max_pool3d returning (values, indices)."""
    if _state.entry and _wants(locals()):
        return _handle(max_pool3d_with_indices, locals())
    return _parsed_call("max_pool3d_with_indices", "max_pool3d_with_indices", (
        input, _triple(kernel_size), _stride(stride, kernel_size, _triple), _triple(padding),
        _triple(dilation), ceil_mode))


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Max over sliding 3-d windows of (N, C, D, H, W) or (C, D, H, W)."""
    if _state.entry and _wants(locals()):
        return _handle(max_pool3d, locals())
    values, indices = max_pool3d_with_indices(input, kernel_size, stride, padding, dilation,
                                              ceil_mode)
    return (values, indices) if return_indices else values


# --------------------------------------------------------------------------- average pooling

@checked("avg_pool1d(Tensor self, int[1] kernel_size, int[1]? stride=None, int[1] padding=0, "
         "bool ceil_mode=False, bool count_include_pad=True)")
def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """Mean over sliding windows of the last dim of (N, C, L) or (C, L)."""
    if _state.entry and _wants(locals()):
        return _handle(avg_pool1d, locals())
    _check_1d(input, "avg_pool1d", "shape")
    stride = _stride(stride, kernel_size, _single)
    out = _parsed_call("avg_pool2d", "avg_pool1d", (
        input.unsqueeze(-2), (1,) + _single(kernel_size), (1,) + stride if stride else (),
        (0,) + _single(padding), ceil_mode, count_include_pad, None))
    return out.squeeze(-2)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """Mean over sliding 2-d windows (divided by divisor_override when given)."""
    if _state.entry and _wants(locals()):
        return _handle(avg_pool2d, locals())
    return _parsed_call("avg_pool2d", "avg_pool2d", (input, _pair(kernel_size), _stride(stride, kernel_size, _pair),
                                    _pair(padding), ceil_mode, count_include_pad,
                                    divisor_override))


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """Mean over sliding 3-d windows (divided by divisor_override when given)."""
    if _state.entry and _wants(locals()):
        return _handle(avg_pool3d, locals())
    return _parsed_call("avg_pool3d", "avg_pool3d", (input, _triple(kernel_size),
                                    _stride(stride, kernel_size, _triple), _triple(padding),
                                    ceil_mode, count_include_pad, divisor_override))


# --------------------------------------------------------------------------- adaptive pooling

def _output_size(input, output_size, spatial):
    """output_size as PyTorch's functions make it: an int is the size of every dim, None items
    keep the input's size there. As in PyTorch, the input's sizes are read first (a
    non-tensor gets its AttributeError) and the items are left to the parser."""
    defaults = input.size()
    if isinstance(output_size, int):
        return (output_size,) * spatial if type(output_size) is int else output_size
    if len(defaults) <= len(output_size):
        raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
    return tuple(d if v is None else v
                 for v, d in zip(output_size, defaults[len(defaults) - len(output_size):]))


def _cells(size, spatial, message):
    """An adaptive pool's output_size: a sequence of another length than the pool's dims is
    its op's RuntimeError (PyTorch's parser passes such a list on)."""
    if isinstance(size, tuple) and len(size) != spatial and \
            all(type(n) is int for n in size):       # (other items: the parser's TypeError)
        raise RuntimeError(message)
    return size


@checked("adaptive_avg_pool1d(Tensor self, int[1] output_size)")
def adaptive_avg_pool1d(input, output_size):
    """Mean over output_size windows that split the last dim evenly."""
    if _state.entry and _wants(locals()):
        return _handle(adaptive_avg_pool1d, locals())
    _check_1d(input, "adaptive_avg_pool1d", "shape")
    size = _single(output_size)
    out = _parsed_call("_adaptive_avg_pool2d", "adaptive_avg_pool1d", (input.unsqueeze(-2), (1,) + size))
    return out.squeeze(-2)


def adaptive_avg_pool2d(input, output_size):
    """Mean over windows that split the last two dims evenly into output_size cells."""
    if _state.entry and _wants(locals()):
        return _handle(adaptive_avg_pool2d, locals())
    size = _cells(_output_size(input, output_size, 2), 2,
                  "adaptive_avg_pool2d: output_size must be 2")
    if size == (1, 1):
        # PyTorch's composite takes the mean for one cell (its grad_fn is MeanBackward1), of
        # an input of any rank (the mean's IndexError below 2-d).
        return call(OPS["mean.dim"], (input, [-1, -2], True, None))
    return _parsed_call("_adaptive_avg_pool2d", "adaptive_avg_pool2d", (input, size))


def adaptive_avg_pool3d(input, output_size):
    """Mean over windows that split the last three dims evenly into output_size cells."""
    if _state.entry and _wants(locals()):
        return _handle(adaptive_avg_pool3d, locals())
    size = _cells(_output_size(input, output_size, 3), 3,
                  "adaptive_avg_pool3d: output_size must be 3")
    if size == (1, 1, 1):
        return call(OPS["mean.dim"], (input, [-1, -2, -3], True, None))
    return _parsed_call("_adaptive_avg_pool3d", "adaptive_avg_pool3d", (input, size))


@checked("adaptive_max_pool1d(Tensor self, int[1] output_size)")
def _adaptive_max_pool1d_arguments(input, output_size):
    """PyTorch's parser of `adaptive_max_pool1d` (which F's form calls first)."""


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    """adaptive_max_pool1d returning (values, indices)."""
    if _state.entry and _wants(locals()):
        return _handle(adaptive_max_pool1d_with_indices, locals())
    _adaptive_max_pool1d_arguments(input, output_size)
    _check_1d(input, "adaptive_max_pool1d", "shape")
    values, indices = _parsed_call("adaptive_max_pool2d", "adaptive_max_pool1d", (input.unsqueeze(-2),
                                                         (1,) + _single(output_size)))
    return values.squeeze(-2), indices.squeeze(-2)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Max over output_size windows that split the last dim evenly."""
    if _state.entry and _wants(locals()):
        return _handle(adaptive_max_pool1d, locals())
    values, indices = adaptive_max_pool1d_with_indices(input, output_size)
    return (values, indices) if return_indices else values


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    """adaptive_max_pool2d returning (values, indices)."""
    if _state.entry and _wants(locals()):
        return _handle(adaptive_max_pool2d_with_indices, locals())
    size = _cells(_output_size(input, output_size, 2), 2,
                  "adaptive_max_pool2d(): internal error: output_size.size() must be 2")
    return _parsed_call("adaptive_max_pool2d", "adaptive_max_pool2d", (input, size))


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Max over windows that split the last two dims evenly into output_size cells."""
    if _state.entry and _wants(locals()):
        return _handle(adaptive_max_pool2d, locals())
    values, indices = adaptive_max_pool2d_with_indices(input, output_size)
    return (values, indices) if return_indices else values


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    """adaptive_max_pool3d returning (values, indices)."""
    if _state.entry and _wants(locals()):
        return _handle(adaptive_max_pool3d_with_indices, locals())
    size = _cells(_output_size(input, output_size, 3), 3,
                  "adaptive_max_pool3d(): internal error: output_size.size() must be 3")
    return _parsed_call("adaptive_max_pool3d", "adaptive_max_pool3d", (input, size))


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """Max over windows that split the last three dims evenly into output_size cells."""
    if _state.entry and _wants(locals()):
        return _handle(adaptive_max_pool3d, locals())
    values, indices = adaptive_max_pool3d_with_indices(input, output_size)
    return (values, indices) if return_indices else values


# --------------------------------------------------------------------------- power average

def _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, expand, pool, max_pool):
    kernel = expand(kernel_size)
    # PyTorch multiplies by the kernel as given in 1-d (a tuple is refused by `mul`) and
    # unpacks it into its sizes in 2-d and 3-d (Python's ValueError for another length).
    spatial = len(expand(0))
    count = kernel_size if spatial == 1 else _unpacked(kernel, spatial)
    # The limits p = +-inf are the largest and smallest |x| of a window, as in PyTorch (the
    # power formula would give 1 or 0 ** 0).
    if isinstance(norm_type, (int, float)) and abs(norm_type) == math.inf:
        if norm_type > 0:
            return max_pool(input.abs(), kernel, stride, 0, 1, ceil_mode)
        return -max_pool(-input.abs(), kernel, stride, 0, 1, ceil_mode)
    stride = kernel if stride is None else stride
    out = pool(input.pow(norm_type), kernel, stride, 0, ceil_mode)
    # sign * relu(|x|) keeps the (rounding-)negative means at their sign, as PyTorch does.
    return (out.sign() * out.abs().relu()).mul(count).pow(1.0 / norm_type)


def _unpacked(kernel, spatial):
    """The product of the `spatial` sizes of `kernel`, unpacked as Python unpacks them."""
    if len(kernel) != spatial:
        raise ValueError(f"not enough values to unpack (expected {spatial}, got {len(kernel)})"
                         if len(kernel) < spatial else
                         f"too many values to unpack (expected {spatial})")
    return math.prod(kernel)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """(sum over each window of x**p) ** (1/p) along the last dim."""
    if _state.entry and _wants(locals()):
        return _handle(lp_pool1d, locals())
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, _single, avg_pool1d,
                    max_pool1d)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """(sum over each 2-d window of x**p) ** (1/p)."""
    if _state.entry and _wants(locals()):
        return _handle(lp_pool2d, locals())
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, _pair, avg_pool2d,
                    max_pool2d)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """(sum over each 3-d window of x**p) ** (1/p)."""
    if _state.entry and _wants(locals()):
        return _handle(lp_pool3d, locals())
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, _triple, avg_pool3d,
                    max_pool3d)


# --------------------------------------------------------------------------- unpooling

def _unpool_output_size(input, kernel_size, stride, padding, output_size):
    """The unpooled sizes as PyTorch's functional computes them: one per kernel entry, from
    the input's trailing sizes (Python's IndexError when it has too few dims, TypeError for an
    output_size that is no sequence), `spatial` or `spatial + 2` given sizes checked against
    them."""
    input_size = input.size()
    count = len(kernel_size)
    sizes = [(input_size[-count + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d]
             for d in range(count)]
    if output_size is None:
        return _non_negative(sizes)
    if len(output_size) == count + 2:
        output_size = output_size[2:]
    _check_value(len(output_size) == count, lambda: (
        f"output_size should be a sequence containing {count} or {count + 2} elements, but it "
        f"has a length of '{len(output_size)}'"))
    for d in range(count):
        low, high = sizes[d] - stride[d], sizes[d] + stride[d]
        _check_value(low < output_size[d] < high, lambda d=d, low=low, high=high: (
            f'invalid output_size "{output_size}" (dim {d} must be between {low} and {high})'))
    return _non_negative(output_size)


def _non_negative(sizes):
    for d in range(len(sizes)):
        _check_value(sizes[d] >= 0, lambda d=d: (
            "max_unpooling: output_size must contain non-negative spatial dimensions, but got "
            f"output_size[{d}]={sizes[d]}"))
    return tuple(sizes)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """max_pool1d's partial inverse: zeros with each value at its index."""
    if _state.entry and _wants(locals()):
        return _handle(max_unpool1d, locals())
    kernel = _single(kernel_size)
    stride = kernel if stride is None else _single(stride)
    size = _unpool_output_size(input, kernel, stride, _single(padding), output_size)
    out = _parsed_call("max_unpool2d", "max_unpool2d", (input.unsqueeze(-1),
                                                         indices.unsqueeze(-1), size + (1,)))
    return out.squeeze(-1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """max_pool2d's partial inverse: zeros with each value at its flat plane index."""
    if _state.entry and _wants(locals()):
        return _handle(max_unpool2d, locals())
    kernel = _pair(kernel_size)
    stride = kernel if stride is None else _pair(stride)
    size = _unpool_output_size(input, kernel, stride, _pair(padding), output_size)
    return _parsed_call("max_unpool2d", "max_unpool2d", (input, indices, size))


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """max_pool3d's partial inverse: zeros with each value at its flat volume index."""
    if _state.entry and _wants(locals()):
        return _handle(max_unpool3d, locals())
    kernel = _triple(kernel_size)
    stride = kernel if stride is None else _triple(stride)
    padding = _triple(padding)
    size = _unpool_output_size(input, kernel, stride, padding, output_size)
    return _parsed_call("max_unpool3d", "max_unpool3d", (input, indices, size, stride, padding))


# --------------------------------------------------------------------------- fractional

def _fractional(input, kernel_size, output_size, output_ratio, random_samples, spatial):
    name = f"fractional_max_pool{spatial}d"
    expand = _ntuple(spatial)
    if output_size is None:
        _check_value(output_ratio is not None, lambda: (
            f"{name} requires specifying either an output_size or an output_ratio"))
        # PyTorch's 2-d form takes len() of the ratio first (a bare number is a TypeError
        # there); its 3-d form expands it first.
        ratio = output_ratio if spatial == 2 else expand(output_ratio)
        _check_value(len(ratio) <= spatial, lambda: (
            f"{name} requires output_ratio to either be a single Int or tuple of Ints."))
        ratio = expand(ratio)
        output_size = [int(input.shape[input.ndim - spatial + d] * ratio[d])
                       for d in range(spatial)]
    if random_samples is None:
        from ember import rand
        batch = 1 if input.ndim == spatial + 1 else input.shape[0]
        random_samples = rand(batch, input.shape[-spatial - 1], spatial, dtype=input.dtype,
                              device=input.device)
    return call(OPS[name], (input, expand(kernel_size), expand(output_size), random_samples))


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """fractional_max_pool2d returning (values, indices)."""
    if _state.entry and _wants(locals()):
        return _handle(fractional_max_pool2d_with_indices, locals())
    return _fractional(input, kernel_size, output_size, output_ratio, _random_samples, 2)


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """Max over 2-d windows at pseudo-random starts that shrink the input to output_size
    (or by output_ratio)."""
    if _state.entry and _wants(locals()):
        return _handle(fractional_max_pool2d, locals())
    values, indices = fractional_max_pool2d_with_indices(input, kernel_size, output_size,
                                                         output_ratio,
                                                         _random_samples=_random_samples)
    return (values, indices) if return_indices else values


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """fractional_max_pool3d returning (values, indices)."""
    if _state.entry and _wants(locals()):
        return _handle(fractional_max_pool3d_with_indices, locals())
    return _fractional(input, kernel_size, output_size, output_ratio, _random_samples, 3)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """Max over 3-d windows at pseudo-random starts that shrink the input to output_size
    (or by output_ratio)."""
    if _state.entry and _wants(locals()):
        return _handle(fractional_max_pool3d, locals())
    values, indices = fractional_max_pool3d_with_indices(input, kernel_size, output_size,
                                                         output_ratio,
                                                         _random_samples=_random_samples)
    return (values, indices) if return_indices else values
