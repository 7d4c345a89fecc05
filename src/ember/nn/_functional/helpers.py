"""The helpers `torch.nn.functional` carries besides the layers' functions: annotation markers
(`BroadcastingList2[int]`), grid_sample's mode tables, the boolean dispatch behind
`max_pool2d(..., return_indices=)`, and the `__torch_function__` helpers of ember.overrides."""
from __future__ import annotations

from ember._tensor import Tensor
from ember.overrides import (
    handle_torch_function,
    has_torch_function,
    has_torch_function_unary,
    has_torch_function_variadic,
)

__all__ = ["BroadcastingList1", "BroadcastingList2", "BroadcastingList3",
           "GRID_SAMPLE_INTERPOLATION_MODES", "GRID_SAMPLE_PADDING_MODES", "Tensor",
           "assert_int_or_pair", "boolean_dispatch", "handle_torch_function",
           "has_torch_function", "has_torch_function_unary", "has_torch_function_variadic"]

# grid_sample's mode names and the numbers its kernel takes.
GRID_SAMPLE_INTERPOLATION_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
GRID_SAMPLE_PADDING_MODES = {"zeros": 0, "border": 1, "reflection": 2}


class _BroadcastingList:
    """An annotation marker: `BroadcastingList2[int]` reads "an int, or a list of 2 ints" to a
    compiler; in Python the subscript is None, as in PyTorch."""

    def __getitem__(self, types) -> None:
        return None


BroadcastingList1 = BroadcastingList2 = BroadcastingList3 = _BroadcastingList()


def assert_int_or_pair(arg, arg_name: str, message: str) -> None:
    """AssertionError(message.format(arg_name)) unless `arg` is an int or has two entries."""
    if not (isinstance(arg, int) or len(arg) == 2):
        raise AssertionError(message.format(arg_name))


# The functions boolean_dispatch made, and how (a compiler reads this to pick a branch).
boolean_dispatched: dict = {}


def boolean_dispatch(arg_name, arg_index, default, if_true, if_false, module_name, func_name):
    """One function that calls `if_true` or `if_false` by the boolean argument `arg_name`
    (keyword, else position `arg_index`, else `default`). One of the two may carry the
    docstring; the other gets it."""
    def dispatcher(*args, **kwargs):
        if arg_name in kwargs:
            flag = kwargs[arg_name]
        else:
            flag = args[arg_index] if arg_index < len(args) else default
        return if_true(*args, **kwargs) if flag else if_false(*args, **kwargs)

    if if_true.__doc__ is not None and if_false.__doc__ is not None:
        raise RuntimeError("only one function can have a docstring")
    doc = if_true.__doc__ if if_true.__doc__ is not None else if_false.__doc__
    if_true.__doc__ = if_false.__doc__ = dispatcher.__doc__ = doc
    if module_name is not None:
        dispatcher.__module__ = module_name
    if func_name is not None:
        dispatcher.__name__ = func_name
    boolean_dispatched[dispatcher] = {"if_true": if_true, "if_false": if_false,
                                      "index": arg_index, "default": default,
                                      "arg_name": arg_name}
    return dispatcher
