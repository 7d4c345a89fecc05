"""Hypothesis strategies that draw valid calls of ember's registered ops on edge tensors.

The op pool and the plausible non-tensor values are the bad-input fuzzer's
(tests/bad_input/fuzz_strategies.py); here every tensor is an edge tensor (edge_values.py):
extreme values, non-contiguous, expanded or empty, of mixed dtypes, and a Scalar argument may
be a Python number at the edges (inf, NaN, -0.0, 1e30, 2**31 ...). Calls that are not valid
after all (a dim out of range, shapes that do not broadcast) raise in both libraries and are
counted apart.
"""
from __future__ import annotations

import os
import sys

from hypothesis import strategies as st

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "bad_input"))
from fuzz_strategies import _schema, good_value, is_random, op_pool  # noqa: E402

from edge_values import LAYOUTS  # noqa: E402
from vd_functional import template_calls  # noqa: E402

FLOAT_DTYPES = ("float32", "float32", "float32", "float64", "float16", "bfloat16")
OTHER_DTYPES = ("int64", "int32", "int8", "uint8", "bool", "complex64")
SHAPES = ((), (1,), (5,), (2, 3), (3, 4), (2, 3, 4), (0,), (2, 0), (1, 3, 1), (2, 2, 2, 3))

EDGE_NUMBERS = [("float", v) for v in (float("inf"), float("-inf"), -0.0, 1e30, -1e30, 1e-30,
                                       3.4e38, 65504.0, 0.5, -2.0)] + \
    [("nan",), ("int", 2 ** 31), ("int", -7), ("int", 0), ("int", 3), ("bool", True)]


# PyTorch's own wrong answers, kept out of the draw (each checked by hand against the values):
# median / nanmedian along a dim of an expanded tensor return values from the wrong places
# (torch 2.13: x = t.expand(2, 3, 4) from (1, 3, 4); x.median(0).values != x[0]).
EXPANDED_WRONG_IN_TORCH = {"median.dim", "nanmedian.dim"}
# Ops PyTorch's CPU kernels run without a bounds check on the drawn indices (take_along_dim
# reads past its input for an index of -5 in a dim of 3): left out of the value draw.
UNCHECKED_IN_TORCH = {"take_along_dim"}
# torch.unique_consecutive(x, False, True) returns an empty counts tensor (torch 2.13: its
# boolean dispatch by position hands the flags on wrongly; by keyword they work, and the method
# form is right): the flags after the input are drawn as keywords for it.
FLAGS_BY_KEYWORD_IN_TORCH = {"unique_consecutive"}
# Arguments that must be sorted for the call to mean anything (searchsorted's results on an
# unsorted sequence are undefined).
SORTED_ARGUMENTS = {"boundaries", "sorted_sequence"}


@st.composite
def edge_tensor(draw, base_shape, dtype, layouts=LAYOUTS, sort=False, exact_shape=False):
    shape = base_shape if exact_shape else draw(st.sampled_from([base_shape] * 6 + list(SHAPES)))
    layout = draw(st.sampled_from(layouts))
    if sort:
        layout = "sorted"
    return ("edge", tuple(shape), dtype, draw(st.integers(0, 2 ** 31)), layout)


def _tensor_dtype(draw, first):
    if first is not None and draw(st.sampled_from([True] * 3 + [False])):
        return first
    return draw(st.sampled_from(FLOAT_DTYPES * 2 + OTHER_DTYPES))


def _value_pool():
    return tuple(entry for entry in op_pool() if entry[2] not in UNCHECKED_IN_TORCH)


# The families a run may be narrowed to: the registry's ops called as functions or as Tensor
# methods, and the templated entries' (vd_functional.family_of).
FAMILIES = ("functions", "methods", "functional", "modules", "linalg", "fft", "special")


@st.composite
def valid_calls(draw, family=None):
    """A call description: {'key', 'form', 'name', 'args', 'kwargs', 'random'}: a registry
    op's, or one in four a templated entry's (vd_functional.py: nn.functional, linalg, fft,
    special, modules); only of `family` (FAMILIES) when given."""
    if family is None and draw(st.integers(0, 3)) == 0 or \
            family not in (None, "functions", "methods"):
        return draw(template_calls(edge_tensor, family))
    pool = tuple(entry for entry in _value_pool() if family is None or
                 (entry[1] == "function") == (family == "functions"))
    key, form, name = draw(st.sampled_from(pool))
    arguments = _schema(key).arguments
    base_shape = draw(st.sampled_from(SHAPES))
    first_dtype = None
    args, kwargs, positional_open = [], {}, True
    for i, arg in enumerate(arguments):
        if arg.base_type == "Tensor" and arg.name in ("index", "indices"):
            value = ("tensor", base_shape, "int64", False)
        elif arg.base_type == "Tensor" and arg.name == "mask":
            value = draw(edge_tensor(base_shape, "bool"))
        elif arg.base_type == "Tensor" or i == 0 and form != "function":
            dtype = _tensor_dtype(draw, first_dtype)
            first_dtype = first_dtype or dtype
            layouts = LAYOUTS if key not in EXPANDED_WRONG_IN_TORCH else \
                tuple(v for v in LAYOUTS if v != "expanded")
            value = draw(edge_tensor(base_shape, dtype, layouts,
                                     sort=arg.name in SORTED_ARGUMENTS))
        elif arg.base_type in ("Tensor[]", "Tensor?[]"):
            dtype = _tensor_dtype(draw, first_dtype)
            first_dtype = first_dtype or dtype
            value = ("list", draw(st.lists(edge_tensor(base_shape, dtype), min_size=1,
                                           max_size=3)))
        elif arg.base_type == "Scalar" and draw(st.booleans()):
            value = draw(st.sampled_from(EDGE_NUMBERS))
        elif arg.base_type in ("int", "SymInt") and "dim" in arg.name:
            rank = max(len(base_shape), 1)
            value = ("int", draw(st.integers(-rank, rank - 1)))
        elif arg.name == "assume_unique":
            value = ("bool", False)       # (True promises unique inputs, which edges break)
        else:
            value = draw(good_value(arg, base_shape))
        if arg.has_default and draw(st.booleans()):
            positional_open = False if not arg.kwarg_only else positional_open
            continue                                  # left at its default
        if i > 0 and key in FLAGS_BY_KEYWORD_IN_TORCH and form == "function":
            positional_open = False
        if arg.kwarg_only or not positional_open:
            kwargs["input" if i == 0 and arg.name == "self" else arg.name] = value
            positional_open = False
        else:
            args.append(value)
    return {"key": key, "form": form, "name": name, "args": args, "kwargs": kwargs,
            "random": is_random(key)}
