"""pad: constant, reflect, replicate and circular padding of the trailing dims (the kernels
are in ember/_ops/nn_padding.py; circular padding is gathered here, as PyTorch composes it)."""
from __future__ import annotations

import numpy as np

from ember._core import arguments
from ember._core.checks import _check
from ember._core.dispatch import call
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.lazy_method import LazyModule
from ember._core.registry import OPS

_nn_padding = LazyModule("ember._ops.nn_padding", globals(), "_nn_padding")   # (on first use)

__all__: list[str] = ["pad"]

_MODES = {"reflect": "reflection_pad{}d", "replicate": "replication_pad{}d",
          "circular": None}


def _pad_circular(input, pad):
    """Negative amounts crop first; each positive amount then copies the (cropped) dim's
    other end, as if the dim wrapped around."""
    out = input
    for dim, left, right in _nn_padding.pairs_by_dim(pad, input.ndim):
        size = input.shape[dim]
        _check(left <= size and right <= size,
               "Padding value causes wrapping around more than once.")
        kept = np.arange(max(-left, 0), size - max(-right, 0))
        index = kept[np.arange(-max(left, 0), len(kept) + max(right, 0)) % len(kept)]
        out = out.index_select(dim, _index_tensor(index, input.device))
    return out


def _index_tensor(index, device):
    from ember import tensor
    return tensor(index, device=device)


def _parsed(input, pad, mode, value):
    """(pad as an int tuple, mode as a str) after the argument checks of PyTorch's parser, in
    its order."""
    arguments.tensor_(input, ("pad", "input", 1))
    pad = arguments.int_list(pad, ("pad", "pad", 2))
    mode = arguments.str_(mode, ("pad", "mode", 3))
    if value is not None:
        arguments.float_(value, ("pad", "value", 4))
    return pad, mode


def pad(input, pad, mode="constant", value=None):
    """pad(input, pad, mode="constant", value=None) -> Tensor: pads the trailing dims; `pad`
    lists (left, right) amounts for the last dim first. Modes: 'constant' (any number of
    dims, negative amounts crop), 'reflect', 'replicate' and 'circular' (the last 1, 2 or 3
    dims of a batched or unbatched input)."""
    if _state.entry and _wants(locals()):
        return _handle(globals()["pad"], locals())
    pad, mode = _parsed(input, pad, mode, value)
    pad = list(pad)
    _check(len(pad) % 2 == 0, "Padding length must be divisible by 2")
    _check(len(pad) // 2 <= input.ndim, lambda: (
        "Padding length should be less than or equal to two times the input dimension but "
        f"got padding length {len(pad)} and input of dimension {input.ndim}"))
    if mode == "constant":
        return call(OPS["constant_pad_nd"], (input, pad, 0 if value is None else value))
    if mode not in _MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    _check(value is None or value == 0, lambda: (
        f'Padding mode "{mode}" doesn\'t take in value argument'))
    dims = len(pad) // 2
    if dims not in (1, 2, 3) or input.ndim not in (dims + 1, dims + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {input.ndim}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    if mode == "circular":
        return _pad_circular(input, pad)
    return call(OPS[_MODES[mode].format(dims)], (input, pad))
