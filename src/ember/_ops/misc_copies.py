"""The `*_copy` forms of the view ops (view_copy, transpose_copy, ...) and the "unsafe" splits.

A `<view>_copy` is the view's values in a fresh row-major tensor that shares no memory with its
input (PyTorch's functionalization uses them); gradients are the view's, then the clone's.
`unsafe_split`/`unsafe_chunk` are the splits whose pieces autograd does not track as views; the
values are the same, so ember gives the plain split's pieces.
"""
from __future__ import annotations

from ember._core import arguments, upcalls
from ember._core.checked_entry import checked
from ember._core.checks import _check
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.inplace_out import check_out_without_grad
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.layout import contiguous_format
from ember._core.registry import register_frontend


def _fresh(result, out=None):
    """A contiguous copy of a view (or of each view of a tuple), written into `out` if given."""
    if isinstance(result, (tuple, list)):
        copies = tuple(_fresh(piece) for piece in result)
        if out is None:
            return copies
        for target, piece in zip(out, copies):
            _into(target, piece)
        return None
    copy = result.clone(memory_format=contiguous_format)
    return copy if out is None else _into(out, copy)


def _into(out, value):
    if _state.grad_enabled():       # NOTE [out= refuses autograd]
        check_out_without_grad(None, (value,), out)
    out.resize_(value.shape)
    out.copy_(value)
    return out


def _method(name):
    return lambda input, *args, **kwargs: getattr(input, name)(*args, **kwargs)


def _function(name):
    return lambda input, *args, **kwargs: upcalls.public(name)(input, *args, **kwargs)


def _slice(input, dim=0, start=None, end=None, step=1):
    _check(step > 0, "slice step must be positive")
    index = [slice(None)] * input.ndim
    index[dim] = slice(start, end, step)
    return input[tuple(index)]


def _narrow(input, dim, start, length):
    # narrow_copy's own kernel: a 0-d input, then a dim past the last (a RuntimeError; a
    # negative one is wrapped, its IndexError), before narrow's checks
    if all(type(v) is int and -(1 << 63) <= v < 1 << 63 for v in (dim, start, length)):
        # (other values go to narrow's parser, for its TypeError or overflow ValueError)
        _check(input.ndim > 0, "narrow() cannot be applied to a 0-dim tensor.")
        _check(dim < input.ndim, "Expected dim < static_cast<int64_t>(self_sizes.size()) to "
                                 "be true, but got false.")
    return input.narrow(dim, start, length)


# name of the copy -> how to make the view it copies
_VIEWS = {
    "alias_copy": lambda input: input,
    "as_strided_copy": _method("as_strided"),
    "detach_copy": _method("detach"),
    "diagonal_copy": _method("diagonal"),
    "expand_copy": lambda input, size, *, implicit=False: input.expand(size),
    "narrow_copy": _narrow,
    "permute_copy": _method("permute"),
    "select_copy": _method("select"),
    "slice_copy": _slice,
    "split_copy": _method("split"),
    "split_with_sizes_copy": lambda input, split_sizes, dim=0: input.split(list(split_sizes), dim),
    "squeeze_copy": _method("squeeze"),
    "t_copy": _method("t"),
    "transpose_copy": _method("transpose"),
    "unbind_copy": _method("unbind"),
    "unfold_copy": _method("unfold"),
    "unsqueeze_copy": _method("unsqueeze"),
    "view_as_complex_copy": _function("view_as_complex"),
    "view_as_real_copy": _function("view_as_real"),
    "view_copy": _method("view"),
}


def _copy_variant(name, make_view):
    def function(input, *args, out=None, **kwargs):
        if _state.entry and _wants(locals()):
            return _handle(function, locals())
        arguments.tensor_(input, (name, "input", 1))   # (before a view method is looked up)
        return _fresh(make_view(input, *args, **kwargs), out)
    function.__name__ = function.__qualname__ = name
    view = name.removesuffix("_copy")
    function.__doc__ = (f"{name}(input, ...) -> Tensor: what `{view}` gives, as a fresh "
                        "contiguous tensor that shares no memory with `input`.")
    return function


for _name, _make_view in _VIEWS.items():
    if _name not in ("expand_copy", "slice_copy"):      # (these two are below)
        # narrow_copy is also a Tensor method in PyTorch; the others are functions only.
        register_frontend(_name, method=_name == "narrow_copy")(_copy_variant(_name, _make_view))


# The copies whose arguments the view would not check as PyTorch's parser does, with
# PyTorch's schemas (NOTE [checked entries]).

@register_frontend(method=False)
@checked("expand_copy(Tensor self, SymInt[] size, *, bool implicit=False)")
def expand_copy(input, size, *, implicit=False, out=None):
    """expand_copy(input, size, *, implicit=False) -> Tensor: what `expand` gives, as a fresh
    contiguous tensor that shares no memory with `input`."""
    if _state.entry and _wants(locals()):
        return _handle(expand_copy, locals())
    return _fresh(input.expand(size), out)


@register_frontend(method=False)
@checked("slice_copy(Tensor self, int dim=0, SymInt? start=None, SymInt? end=None, "
         "SymInt step=1)")
def slice_copy(input, dim=0, start=None, end=None, step=1, *, out=None):
    """slice_copy(input, dim=0, start=None, end=None, step=1) -> Tensor: what slicing gives,
    as a fresh contiguous tensor that shares no memory with `input`."""
    if _state.entry and _wants(locals()):
        return _handle(slice_copy, locals())
    return _fresh(_slice(input, dim, start, end, step), out)


@register_frontend("unsafe_split")
@checked("unsafe_split(Tensor self, SymInt split_size, int dim=0)")
def unsafe_split(input, split_size, dim=0):
    """unsafe_split(input, split_size, dim=0) -> tuple of Tensors: split's pieces."""
    if _state.entry and _wants(locals()):
        return _handle(unsafe_split, locals())
    return input.split(split_size, dim)


@register_frontend("unsafe_split_with_sizes")
@checked("unsafe_split_with_sizes(Tensor self, SymInt[] split_sizes, int dim=0)")
def unsafe_split_with_sizes(input, split_sizes, dim=0):
    """unsafe_split_with_sizes(input, split_sizes, dim=0) -> tuple of Tensors: split_with_sizes's
    pieces."""
    if _state.entry and _wants(locals()):
        return _handle(unsafe_split_with_sizes, locals())
    return input.split(list(split_sizes), dim)


@register_frontend("unsafe_chunk")
@checked("unsafe_chunk(Tensor self, int chunks, int dim=0)")
def unsafe_chunk(input, chunks, dim=0):
    """unsafe_chunk(input, chunks, dim=0) -> tuple of Tensors: chunk's pieces."""
    if _state.entry and _wants(locals()):
        return _handle(unsafe_chunk, locals())
    return input.chunk(chunks, dim)
